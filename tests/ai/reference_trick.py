"""The rule player's trick policy (:mod:`bot.engine.ai.trick`) as it stood before its fast paths: a
walk over each foe's cards to see whether he can beat a card, a seat-by-seat setup per trick. The tests
compare the fast versions against it, card for card. A card counts for its ``card_worth`` (its card
points; the same for every card where only tricks score), and the queen rules apply only where the
шмон catches the ♣Q (``special``)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine.ai.world import PAIR_OF, QC_BIT, Static, bits_of
from bot.engine.play import follow_mask, turned


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
    play; the winning seat, the trick's card points and the pair whose ♣Q was caught (-1: none).

    ``careless=(pair, r)`` makes that pair's seats play uniformly random legal cards (driven by ``r`` in
    [0, 1)): nobody at a real table plays perfectly. The cards played are appended to ``out``."""
    e = s.eff[plays[0][1].bit_length() - 1]
    strength = s.by_led[e]
    open_seat = s.open_seat
    sp_mask = s.special
    ws, wp, pts = -1, -2, 0
    special: list[tuple[int, int]] = []
    for seat, b in plays:
        cid = b.bit_length() - 1
        p = -1 if seat == open_seat else strength[cid]
        if p > wp:
            ws, wp = seat, p
        pts += s.card_worth[cid]
        if b & sp_mask:
            special.append((seat, b))
    foes_after = _foes_after(rest, open_seat)
    for i, h in enumerate(rest):
        hand = hands[h]
        # A blind plays the top of its stack.
        m = (
            turned(stacks[h], hand)
            if stacks and s.blinds >> h & 1
            else follow_mask(s, h, hand, e, plays[0][1])
        )
        pair = PAIR_OF[h]
        if m & (m - 1) == 0:
            b = m  # the policy's only choice too
        elif careless is not None and pair == careless[0]:
            r = careless[1]
            careless = (careless[0], r * 7.31 % 1.0)
            ms = bits_of(m)
            b = ms[int(r * len(ms))]
        else:
            b = _choose(s, m, h, pair, ws, wp, strength, special, foes_after[i], hands, plays[0][1], stacks)
        if out is not None:
            out.append(b)
        cid = b.bit_length() - 1
        if h != open_seat and strength[cid] > wp:
            ws, wp = h, strength[cid]
        pts += s.card_worth[cid]
        if b & sp_mask:
            special.append((h, b))
            if len(special) == 2 and PAIR_OF[special[0][0]] != PAIR_OF[h]:
                qc_seat = special[0][0] if special[0][1] == QC_BIT else h
                if not s.blinds >> qc_seat & 1:  # a blind's ♣Q cannot be caught
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


def _choose(
    s: Static,
    m: int,
    h: int,
    pair: int,
    ws: int,
    wp: int,
    strength: tuple[int, ...],
    special: list[tuple[int, int]],
    later_foes: tuple[int, ...],
    hands: list[int],
    led: int,
    stacks: Sequence[Sequence[int]] = (),
) -> int:
    """The card seat ``h`` plays from its legal cards ``m`` (more than one) under the simple policy."""
    top = s.top_bit
    if m & top and any(b == QC_BIT and PAIR_OF[x] != pair for x, b in special):
        return top
    if m & QC_BIT and s.special:
        foe_top = any(b == top and PAIR_OF[x] != pair for x, b in special) or any(
            _answers(s, x, hands, stacks, plays_led=None) & top for x in later_foes
        )
        if foe_top:
            m &= ~QC_BIT
    if m & top and s.special and m != top:
        m &= ~top  # the шмон waits for the ♣Q unless nothing else can be played
    if m & (m - 1) == 0:
        return m
    power = s.tables.power
    if PAIR_OF[ws] == pair:
        for x in later_foes:
            if _beats(x, hands, s, strength, wp, led, stacks):
                break
        else:
            return _richest(m, power, s.card_worth)  # smear
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
            v = power[cid] * 4 - s.card_worth[cid]
            if v < any_v:
                best_any, any_v = b, v
            if v < safe_v:
                for x in later_foes:
                    if _beats(x, hands, s, strength, p, led, stacks):
                        break
                else:
                    best_safe, safe_v = b, v
        if best_any:
            return best_safe or best_any
    return _cheapest(m, power, s.card_worth)  # throw the cheapest


def _answers(
    s: Static, seat: int, hands: list[int], stacks: Sequence[Sequence[int]], plays_led: int | None
) -> int:
    """The cards ``seat`` may answer with: a blind its turned card, anyone else his hand (``plays_led``
    None) or what he may legally play to a trick led ``plays_led``."""
    if stacks and s.blinds >> seat & 1:
        return turned(stacks[seat], hands[seat])
    if plays_led is None:
        return hands[seat]
    return follow_mask(s, seat, hands[seat], s.eff[plays_led.bit_length() - 1], plays_led)


def _beats(
    seat: int,
    hands: list[int],
    s: Static,
    strength: tuple[int, ...],
    wp: int,
    led: int,
    stacks: Sequence[Sequence[int]],
) -> bool:
    """Whether ``seat`` may legally play a card beating ``wp`` (the trick led ``led``)."""
    hand = _answers(s, seat, hands, stacks, led)
    while hand:
        b = hand & -hand
        if strength[b.bit_length() - 1] > wp:
            return True
        hand ^= b
    return False


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
    on the other side can beat (cash a sure trick), else the cheapest card, the ♣Q and the шмон kept."""
    strength_of, eff = s.by_led, s.eff
    pair = PAIR_OF[seat]
    open_seat = s.open_seat
    foes = [h for h in range(4) if PAIR_OF[h] != pair and h != open_seat and hands[h]]
    best, best_v = 0, -1
    rest = m
    while rest:
        b = rest & -rest
        rest ^= b
        cid = b.bit_length() - 1
        e = eff[cid]
        strength = strength_of[e]
        p = strength[cid]
        for h in foes:  # _beats, inlined: this runs for every card of every lead of a play-out
            ans = _answers(s, h, hands, stacks, b)
            while ans:
                a = ans & -ans
                if strength[a.bit_length() - 1] > p:
                    break
                ans ^= a
            if ans:
                break
        else:
            v = s.card_worth[cid] * 100 + p
            if v > best_v:
                best, best_v = b, v
    if best:
        return best
    return _cheapest(m & ~s.special or m, s.tables.power, s.card_worth)
