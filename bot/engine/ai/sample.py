"""Determinisation: worlds consistent with everything one seat has seen, and the true world of a deal.

:func:`sample_world` deals the cards a seat cannot see at random within what it knows
(:class:`bot.engine.ai.knowledge.Knowledge`: voids, counts, the trumps taken in the brag, flip's swap
phase); :func:`true_world` is a real deal's own position (the arena's open-hand ceiling, the bench).
"""

from __future__ import annotations

import random

from bot.engine.deal import Deal, Phase
from bot.engine.errors import KozelError

from .knowledge import STOCK, Knowledge
from .world import N_SEATS, World, bits_of

#: Worlds drawn at most for one that fits flip's swap phase (:class:`SwapCheck`); the last is kept
#: if none does.
SWAP_TRIES = 16


def sample_world(k: Knowledge, rng: random.Random, tries: int = 30) -> World:
    """A world drawn at random from those consistent with ``k`` (voids dropped if they cannot all hold;
    flip's swap phase by rejection, up to :data:`SWAP_TRIES` draws)."""
    if k.swaps is None:
        return _sample(k, rng, tries)
    for _ in range(SWAP_TRIES - 1):
        w = _sample(k, rng, tries)
        if k.swaps.fits(w.hands):
            return w
    return _sample(k, rng, tries)


def _sample(k: Knowledge, rng: random.Random, tries: int) -> World:
    for attempt in range(0 if k.strict else tries, tries + 1):
        placed = _place(k, rng, strict=attempt < tries)
        if placed is not None:
            hands, stock = placed
            if not k.pile_plays:
                stock = []
            stacks: list[list[int]] = []
            if k.static.blinds:
                for h in range(N_SEATS):
                    stack = bits_of(hands[h]) if k.static.blinds >> h & 1 else []
                    rng.shuffle(stack)
                    stacks.append(stack)
            return World(
                k.static,
                hands,  # four entries: with three seats the fourth stays empty (the solver reads four)
                k.leader,
                list(k.trick),
                list(k.pts),
                list(k.won),
                stock,
                k.restricted,
                k.first,
                stacks,
            )
    raise KozelError("no world fits the view")  # pragma: no cover - the last try ignores voids


def _place(k: Knowledge, rng: random.Random, strict: bool) -> tuple[list[int], list[int]] | None:
    rnd = rng.random
    left = list(k.need)
    cards = list(k.unseen)
    hands = list(k.known[:N_SEATS])
    for h, m in k.one_trump if strict else ():  # his one unseen trump first; the rest are plain
        m &= ~(hands[0] | hands[1] | hands[2] | hands[3])
        if not m or not left[h]:
            continue  # the view contradicts it (it cannot at a real table): place as the rest
        ms = bits_of(m)
        b = ms[int(rnd() * len(ms))]
        hands[h] |= b
        left[h] -= 1
        cards.remove(b)
    for h, n, m in k.min_trumps if strict else ():  # the trumps he took in the brag, first
        ms = bits_of(m & ~(hands[0] | hands[1] | hands[2] | hands[3]))
        if len(ms) < n:
            return None
        for i in range(n):
            j = i + int(rnd() * (len(ms) - i))
            ms[i], ms[j] = ms[j], ms[i]
            hands[h] |= ms[i]
            cards.remove(ms[i])
        left[h] -= n
    for i in range(len(cards) - 1, 0, -1):
        j = int(rnd() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]
    # Most constrained cards first, so a void seat's capacity is not used up by cards anyone could take.
    if strict:
        cards.sort(key=k.places.__getitem__)
    # A card goes to one of its takers with odds by the cards each still needs (one draw per card).
    takers = k.takers
    anywhere = tuple(h for h in range(N_SEATS + 1) if k.need[h])
    stock: list[int] = []
    for b in cards:
        places = takers[b] if strict else anywhere
        if len(places) == 1:  # no choice, but the draw is made all the same
            h = places[0]
            if not left[h]:
                return None
            rnd()
        else:
            total = 0
            for h in places:
                total += left[h]
            if not total:
                return None
            r = int(rnd() * total)
            for h in places:
                r -= left[h]
                if r < 0:
                    break
        left[h] -= 1
        if h == STOCK:
            stock.append(b)
        else:
            hands[h] |= b
    for i in range(len(stock) - 1, 0, -1):  # the sort above must not leak into the draw order
        j = int(rnd() * (i + 1))
        stock[i], stock[j] = stock[j], stock[i]
    return hands, stock


def true_world(deal: Deal) -> World:
    """The deal's actual world (every hand open): the cheating ceiling and the tests use it."""
    st = deal.play_state
    if deal.phase is not Phase.PLAY or st is None:
        raise KozelError(f"a world starts in the play phase, not in {deal.phase.value!r}")
    w = st.copy()
    # Four entries, as in a sampled world: with three seats the fourth stays empty (the solver reads four).
    w.hands.extend([0] * (N_SEATS - len(w.hands)))
    return w
