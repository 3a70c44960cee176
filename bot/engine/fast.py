"""The search path: random play-outs of a deal on bare bit masks.

Bot players estimate a position by playing it out many times, so this loop keeps everything in local
variables and builds no objects per card. It implements the same play-phase rules as
:class:`bot.engine.deal.Deal` (following, trumping when void, matadors, the first-lead and draw-lead
restrictions, the draw pile, the last-card swap, the open hand, the queen catch);
``tests/engine/test_properties.py`` checks that both give the same deal for the same random choices.
"""

from __future__ import annotations

import random

from bot.engine.cards import POINTS_BY_ID, QUEEN_OF_CLUBS
from bot.engine.deal import CLOCKWISE, N_SEATS, OPEN_LAST, Deal, Phase
from bot.engine.errors import KozelError
from bot.engine.rules import ClassicOptions
from bot.engine.scoring import DealScore, score_deal

_QC_BIT = QUEEN_OF_CLUBS.bit
#: ``_FOLLOWERS[open + 1][leader]``: who plays after the leader (the open hand, if any, last).
_FOLLOWERS = (
    tuple(order[1:] for order in CLOCKWISE),
    *(tuple(order[1:] for order in by_leader) for by_leader in OPEN_LAST),
)


def rollout(deal: Deal, rng: random.Random) -> DealScore:
    """Play the rest of ``deal`` with uniformly random legal cards and score it; ``deal`` is not changed.

    Each choice takes one ``rng.random()`` when there is more than one legal card and picks the j-th
    legal card in card-id order, as the reference player in the tests does.
    """
    if deal.phase is not Phase.PLAY:
        raise KozelError(f"a play-out starts in the play phase, not in {deal.phase.value!r}")
    t = deal.tables
    assert t is not None
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
    rnd = rng.random

    hands = deal.hands.copy()
    stock = [c.bit for c in deal.stock]
    pts = deal.points.copy()
    won = deal.tricks_won.copy()
    leader = deal.order[0]
    done = [(s, c.bit) for s, c in deal.trick]  # cards already in the current trick
    restricted = deal._restricted_lead
    first = deal._first_lead_card.bit if deal._first_lead_card is not None and not deal.tricks else 0
    queen_pair: int | None = None
    open_seat = deal.open_seat if deal.open_seat is not None else -1
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
            restricted = pair_of[best_seat] == pair_of[leader]
            if restricted:
                partner = (best_seat + 2) % N_SEATS
                mine, theirs = hands[best_seat], hands[partner]
                if mine.bit_count() == 1 and theirs.bit_count() == 1 and mine & tm and not theirs & tm:
                    hands[best_seat], hands[partner] = theirs, mine
        leader = best_seat
    return score_deal(deal.rules, (pts[0], pts[1]), (won[0], won[1]), queen_pair, deal.eggs_before)
