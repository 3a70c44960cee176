"""One-trick lookahead for the rule player: how the current trick ends if everyone plays sensibly.

In a sampled world every seat still to play in this trick follows a short policy a club player would
recognise: catch the opponents' ♣Q with the шмон, keep the ♣Q away from a шмон that may still come,
give points to a partner who is sure to win, beat the opponents with the cheapest card that does, and
otherwise throw the cheapest card. :func:`finish` returns who takes the trick and what it holds, so
the rule player can weigh each of its cards by the trick it leads to, averaged over a few worlds.
A card counts for its :attr:`~bot.engine.play.PlayRules.card_worth`: its card points, or the same for
every card where only tricks score (``tricks``, which has no queen catch either: its шмон is just the
top trump).
:func:`lead` adds a leading rule (cash a trick nobody can beat, else lead the cheapest card), and
:func:`policy_rollout` plays a whole deal out by both: the search levels' play-out.
Which cards a seat may play is the play kernel's (:func:`~bot.engine.play.follow_mask`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bot.engine.play import caught, follow_mask, turned

from .world import QC_BIT, Static, World, bits_of, worth


def finish(
    s: Static,
    hands: list[int],
    plays: list[tuple[int, int]],
    rest: tuple[int, ...],
    careless: tuple[int, float] | None = None,
    out: list[int] | None = None,
    stacks: Sequence[Sequence[int]] = (),
) -> tuple[int, int, int]:
    """Play out the trick ``plays`` in world ``hands`` (not changed) with the seats ``rest`` still to
    play; the winning seat, the trick's worth (its card points, :attr:`~bot.engine.play.PlayRules.card_worth`)
    and the pair whose ♣Q was caught (-1: none). A blind plays the top of its stack in ``stacks``
    (the world's :attr:`~bot.engine.play.PlayState.stacks`).

    ``careless=(pair, r)`` makes that pair's seats play uniformly random legal cards (driven by ``r`` in
    [0, 1)): nobody at a real table plays perfectly. The cards played are appended to ``out``."""
    led = plays[0][1]
    e = s.eff[led.bit_length() - 1]
    strength = s.by_led[e]
    rows = s.strength[e]
    stronger = beaters(s)[e]
    sp_mask = s.special
    pair_of = s.pair_of
    points = s.card_worth
    ws, wp, pts = -1, -2, 0
    special: list[tuple[int, int]] = []
    for seat, b in plays:
        cid = b.bit_length() - 1
        p = rows[seat][cid]
        if p > wp:
            ws, wp = seat, p
        pts += points[cid]
        if b & sp_mask:
            special.append((seat, b))
    foes_after = _foes_after(rest, s)
    blinds = s.blinds if stacks else 0
    for i, h in enumerate(rest):
        m = turned(stacks[h], hands[h]) if blinds >> h & 1 else follow_mask(s, h, hands[h], e, led)
        pair = pair_of[h]
        if m & (m - 1) == 0:
            b = m  # the policy's only choice too
        elif careless is not None and pair == careless[0]:
            r = careless[1]
            careless = (careless[0], r * 7.31 % 1.0)
            ms = bits_of(m)
            b = ms[int(r * len(ms))]
        else:
            b = _choose(
                s, m, h, pair, ws, wp, strength, stronger, special, foes_after[i], hands, e, led, stacks
            )
        if out is not None:
            out.append(b)
        cid = b.bit_length() - 1
        p = rows[h][cid]
        if p > wp:
            ws, wp = h, p
        pts += points[cid]
        if b & sp_mask:
            q = caught(s, special, h, b)
            if q >= 0:
                return ws, pts, q
            special.append((h, b))
    return ws, pts, -1


#: Per seats still to play in a trick, open seat and pairs: for each of those seats, the opponents after
#: him.
_FOES_AFTER: dict[tuple[tuple[int, ...], int, tuple[int, ...]], tuple[tuple[int, ...], ...]] = {}


def _foes_after(rest: tuple[int, ...], s: Static) -> tuple[tuple[int, ...], ...]:
    """For each seat of ``rest``, the seats after him in ``rest`` of the other pair (the open hand left
    out: it plays by no policy anyone fears); a few dozen keys in all, so they are kept."""
    key = (rest, s.open_seat, s.pair_of)
    got = _FOES_AFTER.get(key)
    if got is None:
        pair_of = s.pair_of
        got = _FOES_AFTER[key] = tuple(
            tuple(x for x in rest[i + 1 :] if pair_of[x] != pair_of[h] and x != s.open_seat)
            for i, h in enumerate(rest)
        )
    return got


#: Per :class:`Static`: per led effective suit ``e``, per strength ``p`` (from -2): the cards stronger
#: than ``p`` in a trick led in ``e``.
_BEATERS: dict[Static, tuple[tuple[int, ...], ...]] = {}


def beaters(s: Static) -> tuple[tuple[int, ...], ...]:
    """``beaters(s)[e][p + 2]``: the mask of the cards beating strength ``p`` in a trick led in ``e``.
    Whether a foe can beat a card is then one AND with his legal answers, not a walk over his cards
    (the policy asks it for every winner it weighs, and :func:`lead` for every card it may lead)."""
    got = _BEATERS.get(s)
    if got is None:
        if len(_BEATERS) >= 64:
            _BEATERS.clear()
        got = _BEATERS[s] = tuple(
            tuple(
                sum(1 << cid for cid, q in enumerate(strength) if q > p) for p in range(-2, max(strength) + 1)
            )
            for strength in s.by_led
        )
    return got


def _choose(
    s: Static,
    m: int,
    h: int,
    pair: int,
    ws: int,
    wp: int,
    strength: tuple[int, ...],
    stronger: tuple[int, ...],
    special: list[tuple[int, int]],
    later_foes: tuple[int, ...],
    hands: list[int],
    e: int,
    led: int,
    stacks: Sequence[Sequence[int]] = (),
) -> int:
    """The card seat ``h`` plays from its legal cards ``m`` (more than one) under the simple policy;
    the trick was led with ``led`` (effective suit ``e``). A blind foe answers with the one card its
    stack turns (``stacks``, the world's), not with whatever it holds of the suit."""
    top = s.top_bit
    pair_of = s.pair_of
    blinds = s.blinds if stacks else 0
    if m & top and any(b == QC_BIT and pair_of[x] != pair for x, b in special):
        return top
    if m & QC_BIT & s.special:
        foe_top = any(b == top and pair_of[x] != pair for x, b in special) or any(
            (turned(stacks[x], hands[x]) if blinds >> x & 1 else hands[x]) & top for x in later_foes
        )
        if foe_top:
            m &= ~QC_BIT
    if m & top & s.special and m != top:
        m &= ~top  # the шмон waits for the ♣Q unless nothing else can be played
    if m & (m - 1) == 0:
        return m
    power = s.tables.power
    points = s.card_worth
    # The cards the foes after ``h`` may answer with: one of them beats a strength iff a card of these
    # is stronger (:func:`beaters`).
    threat = 0
    for x in later_foes:
        threat |= turned(stacks[x], hands[x]) if blinds >> x & 1 else follow_mask(s, x, hands[x], e, led)
    if pair_of[ws] == pair:
        if not threat & stronger[wp + 2]:
            return _richest(m, power, points)  # smear
    elif h != s.open_seat:
        # The cheapest winner (power x 4 - points, the lowest id on ties) that no foe after can beat,
        # else the cheapest winner.
        best_safe, safe_v, best_any, any_v = 0, 1 << 30, 0, 1 << 30
        rest = m
        while rest:
            b = rest & -rest
            rest ^= b
            cid = b.bit_length() - 1
            p = strength[cid]
            if p <= wp:
                continue
            v = power[cid] * 4 - points[cid]
            if v < any_v:
                best_any, any_v = b, v
            if v < safe_v and not threat & stronger[p + 2]:
                best_safe, safe_v = b, v
        if best_any:
            return best_safe or best_any
    return _cheapest(m, power, points)  # throw the cheapest


def _cheapest(m: int, power: tuple[int, ...], points: tuple[int, ...]) -> int:
    """The card of ``m`` cheapest to throw: fewest points, then least power (the lowest id on ties)."""
    best, best_v = 0, -1 << 30
    while m:
        b = m & -m
        cid = b.bit_length() - 1
        v = -points[cid] * 10 - power[cid]
        if v > best_v:
            best, best_v = b, v
        m ^= b
    return best


def _richest(m: int, power: tuple[int, ...], points: tuple[int, ...]) -> int:
    """The card of ``m`` to give a partner's sure trick: most points, then least power."""
    best, best_v = 0, -1 << 30
    while m:
        b = m & -m
        cid = b.bit_length() - 1
        v = points[cid] * 10 - power[cid]
        if v > best_v:
            best, best_v = b, v
        m ^= b
    return best


def lead(s: Static, hands: list[int], seat: int, m: int, stacks: Sequence[Sequence[int]] = ()) -> int:
    """The card seat ``seat`` leads from its legal cards ``m`` in an open world: the richest card nobody
    on the other side can beat (cash a sure trick), else the cheapest card, the ♣Q and the шмон kept.
    A blind foe answers with the card its stack in ``stacks`` turns."""
    strength_of, eff, stronger, points = s.by_led, s.eff, beaters(s), s.card_worth
    pair_of = s.pair_of
    pair = pair_of[seat]
    foes = [h for h in range(s.n) if pair_of[h] != pair and h != s.open_seat and hands[h]]
    # Per led suit, the cards the foes may answer with (-1: not worked out yet): a foe beats a card iff
    # one of these is stronger. A matador led under ``matadors`` may be answered otherwise than another
    # trump, so a trump lead's answers are worked out card by card there.
    threat = [-1] * len(s.suit_masks)
    by_card = s.matadors
    blinds = s.blinds if stacks else 0
    best, best_v = 0, -1
    rest = m
    while rest:
        b = rest & -rest
        rest ^= b
        cid = b.bit_length() - 1
        e = eff[cid]
        p = strength_of[e][cid]
        answers = threat[e]
        if answers < 0:
            answers = 0
            for h in foes:
                answers |= (
                    turned(stacks[h], hands[h]) if blinds >> h & 1 else follow_mask(s, h, hands[h], e, b)
                )
            if e or not by_card:
                threat[e] = answers
        if not answers & stronger[e][p + 2]:
            v = points[cid] * 100 + p
            if v > best_v:
                best, best_v = b, v
    if best:
        return best
    return _cheapest(m & ~s.special or m, s.tables.power, points)


def policy_rollout(w: World, rng: random.Random, careless: int | None = None) -> float:
    """Play ``w`` out (on a copy) with every seat following the rule player's trick policy
    (:func:`finish`, :func:`lead`) — the ``careless`` pair playing uniformly random legal cards instead
    — and return its :func:`~bot.engine.ai.world.worth` to pair A. The medium and hard levels run this
    thousands of times per decision: :func:`finish` picks a trick's cards at once, then the kernel plays
    them."""
    if w.over:
        return worth(w)
    w = w.copy()
    s = w.s
    orders, pair_of = s.orders, s.pair_of
    rnd = rng.random
    out: list[int] = []
    while True:
        if not w.trick:
            m = w.mask
            if pair_of[w.seat] == careless:
                ms = bits_of(m)
                b = ms[int(rnd() * len(ms))]
            else:
                b = lead(s, w.hands, w.seat, m, w.stacks)
            w.play(b)
        out.clear()
        rest = orders[w.leader][len(w.trick) :]
        finish(s, w.hands, w.trick, rest, None if careless is None else (careless, rnd()), out, w.stacks)
        for b in out:
            w.play(b)
        if w.over:
            return worth(w)
