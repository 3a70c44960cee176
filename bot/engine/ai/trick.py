"""One-trick lookahead for the rule player: how the current trick ends if everyone plays sensibly.

In a sampled world every seat still to play in this trick follows a short policy a club player would
recognise: catch the opponents' ♣Q with the шмон, keep the ♣Q away from a шмон that may still come,
give points to a partner who is sure to win, beat the opponents with the cheapest card that does, and
otherwise throw the cheapest card. :func:`finish` returns who takes the trick and what it holds, so
the rule player can weigh each of its cards by the trick it leads to, averaged over a few worlds.
:func:`lead` adds a leading rule (cash a trick nobody can beat, else lead the cheapest card), and
:func:`policy_rollout` plays a whole deal out by both: the search levels' play-out.
The policy is a guess about people, not a rule check: it ignores the ``matadors`` exemption.
"""

from __future__ import annotations

import random

from bot.engine.cards import POINTS_BY_ID
from bot.engine.draw_rule import draw_lead_rule

from .world import N_SEATS, PAIR_OF, POINT_WEIGHT, QC_BIT, Static, World, bits_of


def finish(
    s: Static,
    hands: list[int],
    plays: list[tuple[int, int]],
    rest: tuple[int, ...],
    careless: tuple[int, float] | None = None,
    out: list[int] | None = None,
) -> tuple[int, int, int]:
    """Play out the trick ``plays`` in world ``hands`` (not changed) with the seats ``rest`` still to
    play; the winning seat, the trick's card points and the pair whose ♣Q was caught (-1: none).

    ``careless=(pair, r)`` makes that pair's seats play uniformly random legal cards (driven by ``r`` in
    [0, 1)): nobody at a real table plays perfectly. The cards played are appended to ``out``."""
    e = s.eff[plays[0][1].bit_length() - 1]
    strength = s.by_led[e]
    stronger = beaters(s)[e]
    suit = s.suit_masks[e]
    open_seat = s.open_seat
    tm, sp_mask = s.tm, s.special
    ws, wp, pts = -1, -2, 0
    special: list[tuple[int, int]] = []
    for seat, b in plays:
        cid = b.bit_length() - 1
        p = -1 if seat == open_seat else strength[cid]
        if p > wp:
            ws, wp = seat, p
        pts += POINTS_BY_ID[cid]
        if b & sp_mask:
            special.append((seat, b))
    foes_after = _foes_after(rest, open_seat)
    must_trump = s.must_trump
    for i, h in enumerate(rest):
        hand = hands[h]
        # The open hand need not follow once its one trump is gone.
        open_free = h == open_seat and not hand & tm
        m = hand if open_free else (hand & suit or (must_trump and hand & tm) or hand)
        pair = PAIR_OF[h]
        if m & (m - 1) == 0:
            b = m  # the policy's only choice too
        elif careless is not None and pair == careless[0]:
            r = careless[1]
            careless = (careless[0], r * 7.31 % 1.0)
            ms = bits_of(m)
            b = ms[int(r * len(ms))]
        else:
            b = _choose(s, m, h, pair, ws, wp, strength, stronger, special, foes_after[i], hands, suit)
        if out is not None:
            out.append(b)
        cid = b.bit_length() - 1
        if h != open_seat and strength[cid] > wp:
            ws, wp = h, strength[cid]
        pts += POINTS_BY_ID[cid]
        if b & sp_mask:
            special.append((h, b))
            if len(special) == 2 and PAIR_OF[special[0][0]] != PAIR_OF[h]:
                qc_seat = special[0][0] if special[0][1] == QC_BIT else h
                return ws, pts, PAIR_OF[qc_seat]
    return ws, pts, -1


#: Per seats still to play in a trick and open seat: for each of those seats, the opponents after him.
_FOES_AFTER: dict[tuple[tuple[int, ...], int | None], tuple[tuple[int, ...], ...]] = {}


def _foes_after(rest: tuple[int, ...], open_seat: int | None) -> tuple[tuple[int, ...], ...]:
    """For each seat of ``rest``, the seats after him in ``rest`` of the other pair (the open hand left
    out: it plays by no policy anyone fears); a few dozen keys in all, so they are kept."""
    key = (rest, open_seat)
    got = _FOES_AFTER.get(key)
    if got is None:
        got = _FOES_AFTER[key] = tuple(
            tuple(x for x in rest[i + 1 :] if PAIR_OF[x] != PAIR_OF[h] and x != open_seat)
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
    suit: int,
) -> int:
    """The card seat ``h`` plays from its legal cards ``m`` (more than one) under the simple policy."""
    top = s.top_bit
    if m & top and any(b == QC_BIT and PAIR_OF[x] != pair for x, b in special):
        return top
    if m & QC_BIT:
        foe_top = any(b == top and PAIR_OF[x] != pair for x, b in special) or any(
            hands[x] & top for x in later_foes
        )
        if foe_top:
            m &= ~QC_BIT
    if m & top and m != top:
        m &= ~top  # the шмон waits for the ♣Q unless nothing else can be played
    if m & (m - 1) == 0:
        return m
    power = s.tables.power
    # The cards the foes after ``h`` may answer with: one of them beats a strength iff a card of these
    # is stronger (:func:`beaters`).
    threat = 0
    for x in later_foes:
        hand = hands[x]
        threat |= hand & suit or (s.must_trump and hand & s.tm) or hand
    if PAIR_OF[ws] == pair:
        if not threat & stronger[wp + 2]:
            return _richest(m, power)  # smear
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
            v = power[cid] * 4 - POINTS_BY_ID[cid]
            if v < any_v:
                best_any, any_v = b, v
            if v < safe_v and not threat & stronger[p + 2]:
                best_safe, safe_v = b, v
        if best_any:
            return best_safe or best_any
    return _cheapest(m, power)  # throw the cheapest


def _cheapest(m: int, power: tuple[int, ...]) -> int:
    """The card of ``m`` cheapest to throw: fewest points, then least power (the lowest id on ties)."""
    best, best_v = 0, -1 << 30
    while m:
        b = m & -m
        cid = b.bit_length() - 1
        v = -POINTS_BY_ID[cid] * 10 - power[cid]
        if v > best_v:
            best, best_v = b, v
        m ^= b
    return best


def _richest(m: int, power: tuple[int, ...]) -> int:
    """The card of ``m`` to give a partner's sure trick: most points, then least power."""
    best, best_v = 0, -1 << 30
    while m:
        b = m & -m
        cid = b.bit_length() - 1
        v = POINTS_BY_ID[cid] * 10 - power[cid]
        if v > best_v:
            best, best_v = b, v
        m ^= b
    return best


def lead(s: Static, hands: list[int], seat: int, m: int) -> int:
    """The card seat ``seat`` leads from its legal cards ``m`` in an open world: the richest card nobody
    on the other side can beat (cash a sure trick), else the cheapest card, the ♣Q and the шмон kept."""
    strength_of, eff, suit_masks, stronger = s.by_led, s.eff, s.suit_masks, beaters(s)
    pair = PAIR_OF[seat]
    open_seat, must_trump, tm = s.open_seat, s.must_trump, s.tm
    foes = [hands[h] for h in range(4) if PAIR_OF[h] != pair and h != open_seat and hands[h]]
    # Per led suit, the cards the foes may answer with (-1: not worked out yet): a foe beats a card iff
    # one of these is stronger.
    threat = [-1] * len(suit_masks)
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
            suit = suit_masks[e]
            answers = 0
            for hand in foes:
                answers |= hand & suit or (must_trump and hand & tm) or hand
            threat[e] = answers
        if not answers & stronger[e][p + 2]:
            v = POINTS_BY_ID[cid] * 100 + p
            if v > best_v:
                best, best_v = b, v
    if best:
        return best
    return _cheapest(m & ~s.special or m, s.tables.power)


def policy_rollout(w: World, rng: random.Random, careless: int | None = None) -> float:
    """Play ``w`` out with every seat following the rule player's trick policy (:func:`finish`,
    :func:`lead`) — the ``careless`` pair playing uniformly random legal cards instead — and return its
    worth to pair A, scored as :func:`~bot.engine.ai.world.rollout`; ``w`` is not changed.

    The medium and hard levels run this thousands of times per decision, so it plays on bare masks, as
    :func:`~bot.engine.ai.world.fast_rollout` does, rather than through :meth:`World.play` card by card:
    :func:`finish` already says who takes each trick, with how many points, or whose ♣Q it catches, so
    its cards only leave their hands. The same random numbers are drawn in the same order as when
    each card went through a copy of ``w`` (``tests/ai/test_trick.py`` compares the two)."""
    s = w.s
    value0 = s.value0
    if w.over:
        return value0(w.pts[0], w.pts[1], w.won[0], w.won[1], w.queen_pair) + POINT_WEIGHT * (
            w.pts[0] - w.pts[1]
        )
    orders, tm, is_draw = s.orders, s.tm, s.is_draw
    rnd = rng.random
    hands = w.hands.copy()
    stock = w.stock
    n_stock = len(stock)
    drawn = 0  # cards taken from the stock
    pts0, pts1 = w.pts
    won0, won1 = w.won
    leader = w.leader
    restricted = w.restricted
    first = w.first
    trick = w.trick
    queen_pair = -1
    out: list[int] = []
    while True:
        order = orders[leader]
        if not trick:
            hand = hands[leader]
            if first:
                m = first & hand or hand
            elif restricted:
                m = hand & ~tm or hand
            else:
                m = hand
            if PAIR_OF[leader] == careless:
                ms = bits_of(m)
                b = ms[int(rnd() * len(ms))]
            else:
                b = lead(s, hands, leader, m)
            hands[leader] = hand ^ b
            trick = [(leader, b)]
        rest = order[len(trick) :]
        out.clear()
        ws, tp, qp = finish(s, hands, trick, rest, None if careless is None else (careless, rnd()), out)
        if qp >= 0:
            queen_pair = qp
            break
        for seat, b in zip(rest, out, strict=True):
            hands[seat] ^= b
        # The trick is won: scored, the stock dealt from the winner on, the next lead his.
        if PAIR_OF[ws] == 0:
            pts0 += tp
            won0 += 1
        else:
            pts1 += tp
            won1 += 1
        trick = []
        first = 0
        if drawn < n_stock:
            for j in range(min(N_SEATS, n_stock - drawn)):
                hands[(ws + j) % N_SEATS] |= stock[drawn]
                drawn += 1
        if not (hands[0] | hands[1] | hands[2] | hands[3]):
            break
        if is_draw:
            restricted = draw_lead_rule(hands, ws, leader, tm)
        leader = ws
    value = value0(pts0, pts1, won0, won1, None if queen_pair < 0 else queen_pair)
    return value + POINT_WEIGHT * (pts0 - pts1)
