"""The search path: random play-outs of a deal on bare bit masks.

Bot players estimate a position by playing it out many times, so these loops keep everything in local
variables and build no objects per card. They implement the same rules as
:class:`bot.engine.deal.Deal`: the play phase (following, trumping when void, matadors, the first-lead
and draw-lead restrictions, the draw pile, the last-card swap, the open hand, the queen catch) and,
for classic's later deals, the brag and the exchange before it (every kind of brag, the double brag,
top-up and excess, running out, the four-queens redeal). ``tests/engine/test_properties.py`` and
``tests/engine/test_fast_brag.py`` check that both give the same deal for the same random choices.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import combinations, islice, permutations
from math import comb
from typing import NamedTuple

from bot.engine.cards import ALL_CARDS, POINTS_BY_ID, QUEEN_OF_CLUBS, SUITS, Card, Rank, mask_of
from bot.engine.deal import CLOCKWISE, N_SEATS, OPEN_LAST, Deal, Phase
from bot.engine.draw_rule import draw_lead_rule
from bot.engine.errors import KozelError
from bot.engine.order import Tables
from bot.engine.rules import BragKind, ClassicOptions
from bot.engine.scoring import DealScore, score_deal

_QC_BIT = QUEEN_OF_CLUBS.bit
_QUEENS = mask_of([Card(Rank.QUEEN, s) for s in SUITS])
_ACES = mask_of([Card(Rank.ACE, s) for s in SUITS])
_JACKS_QUEENS = _QUEENS | mask_of([Card(Rank.JACK, s) for s in SUITS])
#: Printed suit (``Suit.ordinal``) per card bit.
_SUIT_OF_BIT = {c.bit: c.suit.ordinal for c in ALL_CARDS}
#: Mask of each printed suit, by ``Suit.ordinal``.
_PRINTED_SUIT = tuple(mask_of([c for c in ALL_CARDS if c.suit is s]) for s in SUITS)
#: ``_FOLLOWERS[open + 1][leader]``: who plays after the leader (the open hand, if any, last).
_FOLLOWERS = (
    tuple(order[1:] for order in CLOCKWISE),
    *(tuple(order[1:] for order in by_leader) for by_leader in OPEN_LAST),
)
#: Bit per card id (looked up rather than shifted: the big ints are made once).
_BIT_BY_ID = tuple(c.bit for c in ALL_CARDS)
# Enum members as module constants: a class attribute lookup costs three times as much.
_PLAY, _BRAG, _BRAG_KIND, _CUT = Phase.PLAY, Phase.BRAG, Phase.BRAG_KIND, Phase.CUT
_EXCHANGE, _EXCHANGE_GIVE = Phase.EXCHANGE, Phase.EXCHANGE_GIVE
_MIRROR, _FISHING, _BIG_PANTS = BragKind.MIRROR, BragKind.FISHING, BragKind.BIG_PANTS
#: The phases a play-out may start in: the play, and classic's brag and exchange before it.
_START_PHASES = frozenset(
    (Phase.PLAY, Phase.BRAG_KIND, Phase.CUT, Phase.BRAG, Phase.EXCHANGE, Phase.EXCHANGE_GIVE)
)


class Outcome(NamedTuple):
    """A played-out deal before scoring: card points and tricks per pair, and whose ♣Q was caught."""

    points: tuple[int, int]
    tricks_won: tuple[int, int]
    #: The pair whose ♣Q was caught (the deal stopped there), or ``None``.
    queen_pair: int | None
    #: The deal turned out void in the brag (redeal by the same dealer); nothing else counts then.
    void: bool = False


#: What :func:`rollout` returns for a deal that turns out void: nobody is charged.
REDEAL = DealScore((0, 0), ("redeal",), None)


def rollout(deal: Deal, rng: random.Random) -> DealScore:
    """Play the rest of ``deal`` with uniformly random legal choices and score it; ``deal`` is not changed.

    Returns :data:`REDEAL` when the deal turns out void in the brag. See :func:`play_out` for the
    phases it may start in and how the choices are taken.
    """
    out = play_out(deal, rng)
    if out.void:
        return REDEAL
    return score_deal(deal.rules, out.points, out.tricks_won, out.queen_pair, deal.eggs_before)


def play_out(deal: Deal, rng: random.Random) -> Outcome:
    """Play the rest of ``deal`` with uniformly random legal choices; ``deal`` is not changed.

    The deal may be in the play phase or, in classic's later deals, anywhere in the brag and the
    exchange before it. Each choice takes one ``rng.random()`` when there is more than one option and
    picks the j-th option: a card in card-id order, any other decision in the order of
    :meth:`Deal.legal_actions` — as the reference players in the tests do (a caught queen stops the
    deal only once its trick is complete, which changes no result but may take more draws).
    """
    phase = deal.phase
    if phase is not _PLAY and phase not in _START_PHASES:
        raise KozelError(f"a play-out starts in the play phase or the brag, not in {phase.value!r}")
    t = deal.tables
    assert t is not None
    rnd = rng.random
    hands = deal.hands.copy()
    pts = deal.points.copy()
    won = deal.tricks_won.copy()
    if phase is _PLAY:
        first = deal._first_lead_card.bit if deal._first_lead_card is not None and not deal.tricks else 0
        open_seat = deal.open_seat if deal.open_seat is not None else -1
        done = [(s, c.bit) for s, c in deal.trick]  # cards already in the current trick
        stock = [c.bit for c in deal.stock]
        leader = deal.order[0]
        return _play(
            deal, t, rnd, hands, stock, pts, won, leader, done, deal._restricted_lead, first, open_seat
        )
    leader, open_seat = _brag(deal, t, rnd, hands, pts, won)
    if leader < 0:
        return Outcome((0, 0), (0, 0), None, void=True)
    # A brag deal has no draw pile, no first-lead card and no lead restriction.
    return _play(deal, t, rnd, hands, [], pts, won, leader, [], False, 0, open_seat)


def _brag(
    deal: Deal, t: Tables, rnd: Callable[[], float], hands: list[int], pts: list[int], won: list[int]
) -> tuple[int, int]:
    """The brag and the exchange on masks, as :mod:`bot.engine.brag` does them.

    Changes ``hands``, ``pts`` and ``won`` in place; returns the first leader and the open hand (-1:
    none), or a leader of -1 when the deal turns out void.
    """
    st = deal.brag
    opts = deal.rules.options
    assert st is not None and isinstance(opts, ClassicOptions)
    tm = t.trump_mask
    plain_mask = t.deck_mask & ~tm
    bragger = st.bragger
    pair_of = deal.pair_of
    phase = deal.phase
    if phase is _EXCHANGE or phase is _EXCHANGE_GIVE:
        plan = deal.exchange
        assert plan is not None and deal.to_act is not None
        asker = deal.to_act if phase is _EXCHANGE else -1
        give = mask_of(plan.give)
        return deal._brag_leader, _exchange(t, rnd, hands, bragger, asker, plan.strong, plan.open, give)

    kind = st.kind
    bit = _BIT_BY_ID
    stock = [bit[c.id] for c in st.stock]
    if phase is _BRAG_KIND:
        kinds = opts.brag_choice
        kind = kinds[int(rnd() * len(kinds))] if len(kinds) > 1 else kinds[0]
        if kind is _MIRROR:
            phase = _CUT
    if phase is _CUT:
        n = len(stock) - 1
        at = 1 + int(rnd() * n) if n > 1 else 1
        stock = stock[at - 1 :: -1] + stock[: at - 1 : -1]
    turns = st.turns.copy()
    received = [[bit[c.id] for c in r] if r else [] for r in st.received]
    laid = [(s, tuple([bit[c.id] for c in cs])) for s, cs in st.laid]
    double = st.double
    first_group = [bit[c.id] for c in st.first_group]
    hand_size = st.hand_size
    turning = kind is _MIRROR or kind is _FISHING
    fishing = kind is _FISHING
    half = 2 if kind is _BIG_PANTS else 1
    # In the brag phase the seat to act has received his cards already and only lays.
    awaiting = phase is _BRAG
    # Cards each hand holds after laying (7 in a double brag with 9-card hands).
    target = hand_size - (2 if double else 1)

    while turns:
        seat = turns[0]
        hand = hands[seat]
        rec = received[seat]
        if turning:
            # The mirror and fishing: cards are turned one at a time until a non-trump, which is laid.
            while True:
                if not stock:
                    return -1, -1
                b = stock.pop(len(stock) // 2) if fishing else stock.pop(0)
                hand |= b
                rec.append(b)
                if not b & tm:
                    break
            cs: tuple[int, ...] = (b,)
            lay = b
        else:
            if awaiting:
                awaiting = False
            else:
                need = 2 if double else 1
                got = False
                while True:
                    if not stock:
                        return -1, -1
                    # A pair: the top card and the bottom card (one card when one is left); big pants:
                    # the top two and the bottom two, the bottom one last.
                    if half == 1:
                        group = [stock.pop(0), stock.pop()] if len(stock) > 1 else [stock.pop()]
                    else:
                        group = stock[:2]
                        del stock[:2]
                        if stock:
                            group += stock[-2:][::-1]
                            del stock[-2:]
                    hand |= sum(group)  # distinct bits: their sum is their union
                    rec += group
                    if not got:
                        got = True
                        if seat == bragger:
                            first_group = group
                    if (hand & plain_mask).bit_count() >= need:
                        break
            m = hand & plain_mask
            n = m.bit_count()
            if seat == bragger:
                g = 0
                for b in first_group:
                    g |= b
                doubles = _doubles(first_group, tm) if (g & plain_mask).bit_count() > 1 else []
                total = n + len(doubles)
                j = int(rnd() * total) if total > 1 else 0
                if j < n:
                    while j:
                        m &= m - 1
                        j -= 1
                    lay = m & -m
                    cs = (lay,)
                else:
                    cs = doubles[j - n]
                    lay = cs[0] | cs[1]
                    double = True
                    target = hand_size - 2
            elif double:
                # Every ordered pair of his non-trumps, in id order (itertools.permutations' order).
                bits = []
                while m:
                    low = m & -m
                    bits.append(low)
                    m ^= low
                i, r = divmod(int(rnd() * n * (n - 1)), n - 1)
                cs = (bits[i], bits[r + (r >= i)])
                lay = cs[0] | cs[1]
            else:
                if n > 1:
                    j = int(rnd() * n)
                    while j:
                        m &= m - 1
                        j -= 1
                lay = m & -m
                cs = (lay,)
        # Lay, top up from the top of the deck, pass the excess (latest first) to the partner or under
        # the deck.
        hand ^= lay
        laid.append((seat, cs))
        held = hand.bit_count()
        if held < target:
            top = stock[: target - held]
            del stock[: target - held]
            rec += top
            hand |= sum(top)
        elif held > target:
            partner = (seat + 2) % N_SEATS
            waiting = partner in turns
            latest = [b for b in reversed(rec) if hand & b][: held - target]
            for b in latest:
                hand ^= b
                if waiting:
                    hands[partner] |= b
                    received[partner].append(b)
                else:
                    stock.append(b)
        hands[seat] = hand
        turns.pop(0)

    # Turn the brag card(s): each makes a trick, taken by the highest card of its suit (all are plain,
    # so the suit's plain mask tells who followed it).
    power, suit_masks, eff = t.power, t.suit_masks, t.eff
    results = []
    for i in range(2 if double else 1):
        b = laid[0][1][i]
        suit = suit_masks[eff[b.bit_length() - 1]]
        winner, best, p = -1, -1, 0
        for seat, cs in laid:
            b = cs[i]
            cid = b.bit_length() - 1
            p += POINTS_BY_ID[cid]
            if b & suit and power[cid] > best:
                winner, best = seat, power[cid]
        pair = pair_of[winner]
        pts[pair] += p
        won[pair] += 1
        results.append((winner, p))
    bragging = pair_of[bragger]
    if len(results) == 1:
        leader = results[0][0]
    else:
        (w1, p1), (w2, p2) = results
        if pair_of[w1] == pair_of[w2]:
            leader = w2 if p2 > p1 else w1
        elif p1 != p2:
            leader = w1 if p1 > p2 else w2
        else:
            leader = w1 if pair_of[w1] == bragging else w2
    if opts.redeal_four_queens:
        for h in hands:
            if h & _QUEENS == _QUEENS:
                return -1, -1
    if pair_of[leader] != bragging:
        return leader, -1
    # The exchange the non-bragging pair may make (brag.plan_exchange).
    n1, n2 = (bragger + 1) % N_SEATS, (bragger + 3) % N_SEATS
    strong, open_ = (n1, n2) if (hands[n1] & tm).bit_count() >= (hands[n2] & tm).bit_count() else (n2, n1)
    trumps = hands[open_] & tm
    if not trumps:
        return leader, -1
    plain = (hands[strong] & plain_mask).bit_count()
    give = trumps
    if plain < trumps.bit_count():
        lowest, low_power, m = 0, 1 << 30, trumps
        while m:
            b = m & -m
            m ^= b
            if power[b.bit_length() - 1] < low_power:
                lowest, low_power = b, power[b.bit_length() - 1]
        small = lowest & _PRINTED_SUIT[t.trump.ordinal] & ~_JACKS_QUEENS & ~t.top.bit
        give = trumps ^ lowest
        if not small or not give or plain < give.bit_count():
            return leader, -1
    return leader, _exchange(t, rnd, hands, bragger, n1, strong, open_, give)


def _doubles(first_group: list[int], tm: int) -> list[tuple[int, ...]]:
    """The bragger's double brags: ordered pairs of his first group's non-trumps of one suit or two aces."""
    firsts = [b for b in first_group if not b & tm]
    return [
        (a, b)
        for a, b in permutations(firsts, 2)
        if _SUIT_OF_BIT[a] == _SUIT_OF_BIT[b] or (a & _ACES and b & _ACES)
    ]


def _exchange(
    t: Tables,
    rnd: Callable[[], float],
    hands: list[int],
    bragger: int,
    asker: int,
    strong: int,
    open_: int,
    give: int,
) -> int:
    """The exchange decisions from ``asker`` on (-1: both agreed already); returns the open hand or -1."""
    if asker >= 0:
        # Each partner agrees (the first option) or refuses, which ends it; the bragger's left asks first.
        if int(rnd() * 2):
            return -1
        if asker == (bragger + 1) % N_SEATS and int(rnd() * 2):
            return -1
    # The strong hand gives as many non-trumps, chosen among brag.legal's combinations in display order.
    eff, power = t.eff, t.power
    mine = hands[strong] & ~t.trump_mask
    ids = []
    while mine:
        b = mine & -mine
        ids.append(b.bit_length() - 1)
        mine ^= b
    plain = sorted(ids, key=lambda i: (eff[i], -power[i]))
    k = give.bit_count()
    n = comb(len(plain), k)
    j = int(rnd() * n) if n > 1 else 0
    chosen = next(islice(combinations(plain, k), j, None))
    back = 0
    for i in chosen:
        back |= 1 << i
    hands[open_] ^= give | back
    hands[strong] ^= give | back
    return open_


def _play(
    deal: Deal,
    t: Tables,
    rnd: Callable[[], float],
    hands: list[int],
    stock: list[int],
    pts: list[int],
    won: list[int],
    leader: int,
    done: list[tuple[int, int]],
    restricted: bool,
    first: int,
    open_seat: int,
) -> Outcome:
    """The play phase on masks from ``leader``'s trick (``done``: its cards already played)."""
    eff, suit_masks, tm, by_led = t.eff, t.suit_masks, t.trump_mask, t.strength_by_led
    top_bit = t.top.bit
    special = _QC_BIT | top_bit
    opts = deal.rules.options
    matadors = isinstance(opts, ClassicOptions) and opts.matadors
    mat_mask, higher = t.matador_mask, t.higher_matadors
    must_trump = opts.must_trump_when_void
    is_draw = deal.rules.preset == "draw"
    pair_of = deal.pair_of
    points = POINTS_BY_ID
    queen_pair: int | None = None
    followers = _FOLLOWERS[open_seat + 1]

    while True:
        if done:
            _, b = done[0]
            pending = tuple(s for s in followers[leader] if s not in {x for x, _ in done})
        else:
            hand = hands[leader]
            m = hand
            if first:
                m = first & hand or hand
                first = 0
            elif restricted:
                m = hand & ~tm or hand
            # Pick the j-th legal card. Written out here and for the followers below rather than
            # called: a function call per card costs a tenth of a play-out.
            n = m.bit_count()
            if n > 1:
                j = int(rnd() * n)
                while j:
                    m &= m - 1
                    j -= 1
            b = m & -m
            hands[leader] = hand ^ b
            pending = followers[leader]
        led_cid = b.bit_length() - 1
        led_eff = eff[led_cid]
        strength = by_led[led_eff]
        led_mask = suit_masks[led_eff]
        mat_check = matadors and led_eff == 0 and bool(b & mat_mask)
        best_seat = leader
        best_p = strength[led_cid]
        trick_pts = points[led_cid]
        tmask = b
        owners = [(leader, b)] if b & special else []
        for s, b in done[1:]:
            cid = b.bit_length() - 1
            if strength[cid] > best_p and s != open_seat:
                best_seat, best_p = s, strength[cid]
            trick_pts += points[cid]
            tmask |= b
            if b & special:
                owners.append((s, b))
        for s in pending:
            hand = hands[s]
            m = hand & led_mask
            if s == open_seat and not hand & tm:
                m = hand  # the open hand need not follow once it holds no trump
            elif m:
                if mat_check and not m & ~higher[led_cid]:
                    m = hand
            elif must_trump:
                m = hand & tm or hand
            else:
                m = hand
            n = m.bit_count()
            if n > 1:
                j = int(rnd() * n)
                while j:
                    m &= m - 1
                    j -= 1
            b = m & -m
            hands[s] = hand ^ b
            cid = b.bit_length() - 1
            if strength[cid] > best_p and s != open_seat:
                best_seat, best_p = s, strength[cid]
            trick_pts += points[cid]
            tmask |= b
            if b & special:
                owners.append((s, b))
        if tmask & special == special:
            (s1, _), (s2, b2) = owners
            if pair_of[s1] != pair_of[s2]:
                # The queen catch stops the deal; which of the two came first does not change the result.
                queen_pair = pair_of[s2] if b2 == _QC_BIT else pair_of[s1]
                break
        pair = pair_of[best_seat]
        pts[pair] += trick_pts
        won[pair] += 1
        done = []
        if stock:
            for k in range(N_SEATS):
                if not stock:
                    break
                hands[(best_seat + k) % N_SEATS] |= stock.pop(0)
        if not any(hands):
            break
        if is_draw:
            restricted = draw_lead_rule(hands, best_seat, leader, tm)
        leader = best_seat
    return Outcome((pts[0], pts[1]), (won[0], won[1]), queen_pair)
