"""Searched decisions before the first lead — classic's exchange, flip's swap and declared trump — for
``medium`` and ``hard``.

At a decision before the first lead the seat samples worlds — full placements of the cards it cannot
see — consistent with its view (:func:`sampler`): its own hand and the cards it saw, the hand sizes,
and what the table told: during classic's exchange talk the partner's trump and non-trump counts and
that an exchange was offered at all (:func:`bot.engine.exchange.offer` must offer it in the
world, giving as many trumps as the legal gifts hold); in flip's swap phase who was asked so far and
what he chose (:class:`~bot.engine.ai.knowledge.SwapCheck` on the seats already checked). For each
candidate decision the world is carried to the first lead — the decisions still to come taken by the
rule player's rules (:func:`bot.engine.ai.easy.choose_other`): the partner accepts, the strong hand
gives its cheapest non-trumps, a later one-trump hand passes a trump that is not the шмон and his
partner returns his highest non-trump — and the deal is played out by the trick policy
(:func:`~bot.engine.ai.trick.policy_rollout`, the opponents careless in every second world), every
candidate on the same random numbers. The candidate with the best mean worth wins, the rule's
decision with the card search's head start (``Budget.prior_bonus``); the budget is the card search's
(its seconds, world counts, hard cap and early stop once the leader is clear).

Pure apart from the clock the budget reads (``Budget.clock``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar

from bot.engine.actions import Action, Declare, Exchange, ExchangeGive, Swap, SwapReturn
from bot.engine.cards import ALL_CARDS, Suit, mask_of
from bot.engine.deal import Phase
from bot.engine.exchange import offer
from bot.engine.order import Tables, tables_for
from bot.engine.play import PlayState, play_rules
from bot.engine.view import SeatView

from .budget import CHECK_EVERY, Budget, clear_lead
from .easy import choose_other
from .knowledge import SwapCheck, brag_tricks, eggs_before_of
from .trick import policy_rollout
from .world import N_SEATS, bits_of

#: The decision kinds searched, by the name ``Budget.preplay`` lists them under.
KINDS: dict[Phase, str] = {
    Phase.EXCHANGE: "exchange",
    Phase.EXCHANGE_GIVE: "exchange",
    Phase.SWAP: "swap",
    Phase.SWAP_RETURN: "swap",
    Phase.DECLARE: "declare",
}
#: Gifts weighed at most at the exchange (the rule's cheapest first); more would thin the worlds.
MAX_GIFTS = 10
#: Draws at most for a world the view's constraints admit (the last one is kept if none does).
TRIES = 40

Hands = list[int]
#: Carries one world (its hands) to the first lead under one candidate decision.
Apply = Callable[[Hands, Action], PlayState]


def searched(view: SeatView, kinds: Sequence[str]) -> bool:
    """Whether ``view``'s decision is one of the searched ``kinds``."""
    kind = KINDS.get(view.phase)
    return kind is not None and kind in kinds and len(view.legal) > 1


def decide(view: SeatView, rng: random.Random, budget: Budget, start: float) -> Action:
    """The searched decision for ``view`` (a phase of :data:`KINDS`)."""
    rule = choose_other(view)
    if view.phase is Phase.DECLARE:
        world, apply = _declare(view, rng)
        return search(view, list(view.legal), rule, world, _played(apply), rng, budget, start)
    if view.phase in (Phase.EXCHANGE, Phase.EXCHANGE_GIVE):
        cands, ok, apply = _exchange(view, rule)
    else:
        cands, ok, apply = _swap(view)
    if len(cands) == 1:
        return cands[0]
    draw = sampler(view, ok, hidden_trumps(view))
    return search(view, cands, rule, lambda: draw(rng), _played(apply), rng, budget, start)


def _played(apply: Apply) -> Callable[[Hands, Action, int, int | None], float]:
    """A candidate's value in a world of hands: carried to the first lead by ``apply`` (on a copy),
    then played out by the trick policy."""

    def value(hands: Hands, a: Action, seed: int, careless: int | None) -> float:
        return policy_rollout(apply(hands.copy(), a), random.Random(seed), careless)

    return value


W = TypeVar("W")


def search(
    view: SeatView,
    cands: list[Action],
    rule: Action,
    world: Callable[[], W | None],
    value: Callable[[W, Action, int, int | None], float],
    rng: random.Random,
    budget: Budget,
    start: float,
) -> Action:
    """The candidate with the best mean ``value`` to the seat's pair over worlds drawn by ``world``
    (``None``: no more worlds), every candidate of a world on the same random numbers (``seed``)
    and the opponents careless in every second world, within the card search's ``budget``; the
    rule's decision gets its head start and settles ties."""
    b = budget
    clock = b.clock
    deadline = clock() + b.seconds
    cutoff = start + b.limit if b.limit else float("inf")
    side = view.pair_of[view.seat]  # this deal's sides (``sochi`` forms them per deal)
    sign = 1 if side == 0 else -1
    careless_pair = 1 - side
    seen: dict[int, list[float]] = {i: [] for i in range(len(cands))}
    prior = cands.index(rule) if rule in cands else -1
    n = 0
    while n < b.max_worlds:
        w = world()
        if w is None:
            break
        seed = rng.getrandbits(32)
        careless = careless_pair if n % 2 == 0 else None
        values = []
        for a in cands:
            values.append(sign * value(w, a, seed, careless))
            if clock() > cutoff:
                break
        if len(values) < len(cands):
            break  # the hard cap struck mid-world: the world is dropped
        for i, v in enumerate(values):
            seen[i].append(v + (b.prior_bonus if i == prior else 0.0))
        n += 1
        now = clock()
        if now > cutoff or (n >= b.min_worlds and now > deadline):
            break
        check = b.confident and n >= b.check_from and n % CHECK_EVERY == 0
        if check and clear_lead(seen, [1.0] * n, b.confident):
            break
    if n == 0:
        return rule
    best = max(seen, key=lambda i: (sum(seen[i]), i == prior))
    return cands[best]


# ---------------------------------------------------------------------------- worlds


def sampler(
    view: SeatView,
    ok: Callable[[Hands], bool],
    exact: dict[int, int] | None = None,
    sizes: Sequence[int] | None = None,
) -> Callable[[random.Random], Hands]:
    """Draws of the hidden cards into the other hands, each consistent with ``view``: the cards seen in
    a hand stay there, each seat of ``exact`` gets that many of the hidden trumps (what the exchange
    talk or the swap phase told), and ``ok(hands)`` holds (by rejection, :data:`TRIES` draws at most;
    the last is kept if none passes). ``sizes``: the hands' sizes once dealt, if not the view's (trump
    declared on three cards: the rest are not dealt yet)."""
    tm = view.tables.trump_mask if view.tables is not None else 0
    me = view.seat
    known = [mask_of(list(cs)) for cs in view.seen]
    known[me] = mask_of(list(view.hand))
    sizes = view.hand_sizes if sizes is None else sizes
    need = [0 if h == me else sizes[h] - known[h].bit_count() for h in range(N_SEATS)]
    need[me] = sizes[me] - known[me].bit_count()
    known_all = known[0] | known[1] | known[2] | known[3]
    unseen = bits_of(mask_of(list(view.unseen())) & ~known_all)
    trumps = [b for b in unseen if b & tm]
    plain = [b for b in unseen if not b & tm]
    fixed = sorted((exact or {}).items())

    def once(rng: random.Random) -> Hands:
        hands = known.copy()
        left = need.copy()
        rnd = rng.random
        ts, ps = shuffled(trumps, rnd), shuffled(plain, rnd)
        for h, n in fixed:
            nt = max(0, min(n, len(ts), left[h]))
            np_ = min(left[h] - nt, len(ps))
            hands[h] |= mask_of_bits(ts[:nt] + ps[:np_])
            left[h] -= nt + np_
            del ts[:nt], ps[:np_]
        rest = shuffled(ts + ps, rnd)
        i = 0
        for h in range(N_SEATS):
            for b in rest[i : i + left[h]]:
                hands[h] |= b
            i += left[h]
        return hands

    def draw(rng: random.Random) -> Hands:
        hands = once(rng)
        for _ in range(TRIES - 1):
            if ok(hands):
                break
            hands = once(rng)
        return hands

    return draw


def mask_of_bits(bs: Sequence[int]) -> int:
    """The union of single-card bits."""
    m = 0
    for b in bs:
        m |= b
    return m


def shuffled(xs: list[int], rnd: Callable[[], float]) -> list[int]:
    """A copy of ``xs`` in a random order (Fisher-Yates on ``rnd``)."""
    out = xs.copy()
    for i in range(len(out) - 1, 0, -1):
        j = int(rnd() * (i + 1))
        out[i], out[j] = out[j], out[i]
    return out


def _start(
    view: SeatView, hands: Hands, leader: int, open_seat: int | None, trump: Suit | None = None
) -> PlayState:
    """The position at the first lead: ``hands``, ``leader`` to lead, ``open_seat``'s hand open (trump:
    the view's unless given)."""
    if trump is None:
        assert view.tables is not None
        trump = view.tables.trump
    rules = play_rules(view.rules, trump, eggs_before_of(view), open_seat)
    return PlayState(rules, hands, leader, (), view.points, view.tricks_won)


def hidden_trumps(view: SeatView) -> dict[int, int]:
    """Per seat whose trump count the table told, how many trumps it holds among the cards ``view``'s
    seat has not seen: the partner in classic's exchange talk (his counts are told); in flip's swap
    phase each seat who kept his one trump or passed it (:meth:`SwapCheck.trumps_left`), and a swapper
    waiting for his partner's card holds exactly one."""
    t = view.tables
    assert t is not None
    tm = t.trump_mask
    seen = [mask_of(list(cs)) & tm for cs in view.seen]
    partner = view.partner
    if view.partner_counts is not None and partner is not None:
        return {partner: max(0, view.partner_counts[0] - seen[partner].bit_count())}
    if view.phase not in (Phase.SWAP, Phase.SWAP_RETURN):
        return {}
    check, swapper = _swap_check(view)
    known = [mask_of(list(cs)) for cs in view.seen]
    known[view.seat] = mask_of(list(view.hand))
    gone, one = check.trumps_left(known)
    out = {h: 0 for h in gone}
    out.update({h: 1 for h in one})
    if view.phase is Phase.SWAP_RETURN:
        out[swapper] = max(0, 1 - seen[swapper].bit_count())
    out.pop(view.seat, None)
    return out


# ---------------------------------------------------------------------------- classic's exchange


def _plan(t: Tables, hands: Hands, bragger: int) -> tuple[int, int, int] | None:
    """The exchange the world offers: (strong seat, open seat, the open hand's trumps it gives)."""
    plan = offer(t, hands, bragger)
    if plan is None:
        return None
    return plan.strong, plan.open, mask_of(list(plan.give))


def brag_leader(view: SeatView) -> int:
    """Who won the brag and leads (:func:`bot.engine.brag._resolve`), read from the brag tricks (each
    is led by the bragger)."""
    n = brag_tricks(view)
    tricks = view.tricks[:n]
    side = view.pair_of  # this deal's sides (``sochi`` forms them per deal)
    w1 = tricks[0].winner
    assert w1 is not None
    if n == 1:
        return w1
    w2, p1, p2 = tricks[1].winner, tricks[0].points, tricks[1].points
    assert w2 is not None
    if side[w1] == side[w2]:
        return w2 if p2 > p1 else w1
    if p1 != p2:
        return w1 if p1 > p2 else w2
    return w1 if side[w1] == side[tricks[0].leader] else w2


def cheapest_gift(t: Tables, plain: int, k: int) -> int:
    """The rule's gift (:func:`~bot.engine.ai.easy.choose_other`): the ``k`` non-trumps of ``plain``
    with the least card points, then the lowest."""
    bs = sorted(bits_of(plain), key=lambda b: _gift_key(t, b))
    return mask_of_bits(bs[:k])


def _gift_key(t: Tables, b: int) -> tuple[int, int]:
    c = ALL_CARDS[b.bit_length() - 1]
    return c.points * 3 + t.power[c.id], c.id


def _exchange(view: SeatView, rule: Action) -> tuple[list[Action], Callable[[Hands], bool], Apply]:
    t = view.tables
    assert t is not None
    bragger = (view.dealer + 1) % N_SEATS
    leader = brag_leader(view)
    if view.phase is Phase.EXCHANGE_GIVE:
        gifts = [a for a in view.legal if isinstance(a, ExchangeGive)]
        k = len(gifts[0].cards)
        gifts.sort(key=lambda a: sum(_gift_key(t, c.bit)[0] for c in a.cards))
        cands: list[Action] = [*gifts[:MAX_GIFTS]]
        if rule not in cands:
            cands[-1] = rule
    else:
        cands = [Exchange(True), Exchange(False)]
        k = -1

    def ok(hands: Hands) -> bool:
        plan = _plan(t, hands, bragger)
        return plan is not None and (k < 0 or plan[2].bit_count() == k)

    def apply(hands: Hands, a: Action) -> PlayState:
        if isinstance(a, Exchange) and not a.accept:
            return _start(view, hands, leader, None)
        plan = _plan(t, hands, bragger)
        if plan is None:  # a world no draw made consistent: play it without the exchange
            return _start(view, hands, leader, None)
        strong, open_, give = plan
        n = give.bit_count()
        if isinstance(a, ExchangeGive):
            gift = mask_of(list(a.cards))
        else:
            gift = cheapest_gift(t, hands[strong] & ~t.trump_mask, n)
        hands[open_] = hands[open_] & ~give | gift
        hands[strong] = hands[strong] & ~gift | give
        return _start(view, hands, leader, open_)

    return cands, ok, apply


# ---------------------------------------------------------------------------- flip's swap


def _swap(view: SeatView) -> tuple[list[Action], Callable[[Hands], bool], Apply]:
    t = view.tables
    assert t is not None
    tm = t.trump_mask
    left = (view.dealer + 1) % N_SEATS
    queue = [(left + k) % N_SEATS for k in range(N_SEATS)]
    cands = list(view.legal)
    check, swapper = _swap_check(view)
    pos = queue.index(swapper)

    def ok(hands: Hands) -> bool:
        return (hands[swapper] & tm).bit_count() == 1 and check.fits(hands)

    def apply(hands: Hands, a: Action) -> PlayState:
        if isinstance(a, SwapReturn):
            _do_swap(hands, swapper, a.card.bit, tm)
        elif isinstance(a, Swap) and a.accept:
            _do_swap(hands, swapper, rule_return(t, hands[(swapper + 2) % N_SEATS]), tm)
        _rule_swaps(t, hands, queue[pos + 1 :])
        return _start(view, hands, left, None)

    return cands, ok, apply


def _rule_swaps(t: Tables, hands: Hands, seats: Sequence[int]) -> None:
    """The swap phase for ``seats``, in order, by the rule: a lone trump but the шмон is passed."""
    tm = t.trump_mask
    for x in seats:
        mine = hands[x] & tm
        if mine.bit_count() == 1 and mine != t.top.bit:
            _do_swap(hands, x, rule_return(t, hands[(x + 2) % N_SEATS]), tm)


# ---------------------------------------------------------------------------- flip's declared trump


def _declare(view: SeatView, rng: random.Random) -> tuple[Callable[[], Hands], Apply]:
    """Worlds for declaring trump (every hand as dealt in full) and the deal carried to the first lead
    under each suit named: the swap phase by the rule, then play. "By the last" names the suit of the
    declarer's last card, one of the cards he has not seen yet, at random."""
    after_three = Declare(None) in view.legal
    size = view.rules.hand_size
    draw = sampler(view, lambda hands: True, None, [size] * N_SEATS if after_three else None)
    mine = mask_of(list(view.hand))
    left = (view.dealer + 1) % N_SEATS
    queue = [(left + k) % N_SEATS for k in range(N_SEATS)]
    last = [0]

    def world() -> Hands:
        hands = draw(rng)
        new = bits_of(hands[view.seat] & ~mine)
        last[0] = new[int(rng.random() * len(new))] if new else 0
        return hands

    def apply(hands: Hands, a: Action) -> PlayState:
        assert isinstance(a, Declare)
        suit = a.suit if a.suit is not None else ALL_CARDS[last[0].bit_length() - 1].suit
        t = tables_for(view.rules, suit)
        _rule_swaps(t, hands, queue)
        return _start(view, hands, left, None, suit)

    return world, apply


def _swap_check(view: SeatView) -> tuple[SwapCheck, int]:
    """The swap phase so far as :class:`SwapCheck` over the seats checked before the one deciding now
    (at the return, before the swapper), and that seat: the swapper."""
    t = view.tables
    assert t is not None
    left = (view.dealer + 1) % N_SEATS
    queue = [(left + k) % N_SEATS for k in range(N_SEATS)]
    if view.phase is Phase.SWAP:
        swapper, asked = view.seat, view.swaps
    else:
        swapper, asked = view.swaps[-1][0], view.swaps[:-1]
    pos = queue.index(swapper)
    order = tuple(queue[:pos])
    return SwapCheck(order=order, asked=tuple(asked), played=(0,) * N_SEATS, tm=t.trump_mask), swapper


def rule_return(t: Tables, hand: int) -> int:
    """The rule's card back for a swapped trump: the highest non-trump (the highest card if none)."""
    plain = hand & ~t.trump_mask
    pool = bits_of(plain or hand)
    return max(pool, key=lambda b: (t.power[b.bit_length() - 1], ALL_CARDS[b.bit_length() - 1].points))


def _do_swap(hands: Hands, swapper: int, back: int, tm: int) -> None:
    """``swapper`` passes his only trump to his partner, who gives ``back`` for it."""
    partner = (swapper + 2) % N_SEATS
    trumps = hands[swapper] & tm
    trump = trumps & -trumps  # his only one (the lowest, in a world no draw made consistent)
    if not trump or trump & hands[partner] or not back & hands[partner]:
        return
    hands[swapper] ^= trump | back
    hands[partner] ^= trump | back


__all__ = [
    "KINDS",
    "brag_leader",
    "cheapest_gift",
    "decide",
    "rule_return",
    "sampler",
    "search",
    "searched",
    "shuffled",
]
