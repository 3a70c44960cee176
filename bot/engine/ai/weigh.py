"""How likely a sampled world makes the plays the seat has seen (world weighting for ``medium`` and ``hard``).

Sampling deals the unseen cards uniformly among the worlds that fit the voids and the seen cards; but
people do not play at random, and what they played says more than which suits they followed. A world
in which the partner held the ace when he threw a seven onto a trick he knew his partner would take is
less likely than one in which he held only sevens. Following Rebstock et al. (2019), each world is
weighted by the probability of the observed plays under a model of play: here the rule player's trick
policy (:mod:`bot.engine.ai.trick`), softened — a play the policy would also have made costs nothing, any
other play multiplies the world's weight by a constant below one (smaller for follows, where the policy
is a good guess, than for leads, where people differ most).

The hands at each past trick are rebuilt from the world's current hands plus the cards each seat
played since. Only tricks whose hands can be rebuilt count: classic's brag tricks (cards laid, not
played) and draw's tricks before the stock ran out (a hand since refilled from the stock) are left out,
as are the seat's own plays and the open hand's (a hand everyone sees: its plays hide nothing).

The brag's lays are weighed apart (:func:`brag_likelihood`): under ``pants`` and ``big_pants`` a
player chooses which non-trump to lay, the rule player his cheapest (the bragger his highest), so a
world in which the cards that came with his lay could have held one the rule prefers is less likely.
"""

from __future__ import annotations

import math

from bot.engine.cards import POINTS_BY_ID
from bot.engine.rules import BragKind
from bot.engine.view import SeatView

from .knowledge import brag_tricks
from .trick import finish, lead
from .world import N_SEATS, Static, bits_of

#: The observed plays, oldest trick first: per trick, its (seat, card bit) plays in order; the last
#: may be the trick in progress.
History = tuple[tuple[tuple[int, int], ...], ...]


def history(view: SeatView, static: Static) -> History:
    """The tricks of ``view`` whose hands a world's hands can be rebuilt to (see the module's notes)."""
    skip = brag_tricks(view)
    tricks = [tuple((s, c.bit) for s, c in tr.plays) for tr in view.tricks[skip:]]
    if static.is_draw:
        n_draws = (view.rules.deck_size - 4 * N_SEATS) // N_SEATS
        tricks = tricks[n_draws:]
    if view.trick:
        tricks.append(tuple((s, c.bit) for s, c in view.trick))
    return tuple(tricks)


def likelihood(
    s: Static, me: int, hands: list[int], tricks: History, follow_miss: float, lead_miss: float
) -> float:
    """The weight of a world whose hands are now ``hands``: the product, over the other seats' plays in
    ``tricks``, of 1 where the trick policy plays that card (or one like it) and ``follow_miss`` or
    ``lead_miss`` where it does not."""
    hs = list(hands)
    weight = 1.0
    for plays in reversed(tricks):
        for seat, b in plays:
            hs[seat] |= b
        order = s.orders[plays[0][0]]
        for j, (seat, b) in enumerate(plays):
            if seat == me or seat == s.open_seat or s.blinds >> seat & 1:
                continue  # a blind's card is no choice: it tells nothing about a world
            if j == 0:
                m = hs[seat]
                if m & (m - 1) == 0:
                    continue
                if not _alike(s, lead(s, hs, seat, m), b):
                    weight *= lead_miss
            else:
                out: list[int] = []
                finish(s, hs, list(plays[:j]), order[j:], None, out)
                if not _alike(s, out[0], b):
                    weight *= follow_miss
    return weight


def _alike(s: Static, a: int, b: int) -> bool:
    """Whether cards ``a`` and ``b`` count as the same choice: the same card, or two plain cards of one
    suit worth the same points (a seven for an eight)."""
    if a == b:
        return True
    ia, ib = a.bit_length() - 1, b.bit_length() - 1
    ea = s.eff[ia]
    return ea != 0 and ea == s.eff[ib] and POINTS_BY_ID[ia] == POINTS_BY_ID[ib] and not (a | b) & s.special


# ---------------------------------------------------------------------------- the brag's lays

#: Cards per pair in the brag kinds where a player chooses the non-trump he lays (in the mirror and
#: fishing the first non-trump he draws is laid: no choice, nothing to infer).
PAIR_SIZE = {BragKind.PANTS: 2, BragKind.BIG_PANTS: 4}

#: A lay seen in the brag: the seat, the card's bit, and whether it was the bragger's (his highest
#: non-trump by the rule; the others lay their cheapest).
Lay = tuple[int, int, bool]


def brag_lays(view: SeatView, static: Static) -> tuple[tuple[Lay, ...], int]:
    """The single lays of ``view``'s brag whose choice tells about a hand — every seat's but the
    seat's own, the open hand's and a blind's — and how many cards came with each lay (its pair's
    size, less the card laid); none for a double brag or a kind without a choice."""
    kind = view.brag_kind
    if kind not in PAIR_SIZE or brag_tricks(view) != 1:
        return (), 0
    lays = tuple(
        (s, c.bit, s == view.tricks[0].leader)
        for s, c in view.tricks[0].plays
        if s != view.seat and s != static.open_seat and not static.blinds >> s & 1
    )
    return lays, PAIR_SIZE[kind] - 1


def brag_likelihood(
    s: Static, hands: list[int], played: list[int], lays: tuple[Lay, ...], mates: int, miss: float
) -> float:
    """The weight a world's hands give the brag's lays under the rule player's brag (the bragger lays
    his highest non-trump, the others their cheapest): a lay is unlikely where the card that came
    with it in his pair could have been laid by the rule instead. Which of his cards came with it is
    unknown (the top-up is as random), so each of his cards at the first lead — his hand now and what
    he has played since — is one of the ``mates`` of his pair alike: the weight is ``1 − (1 − miss) ×
    P(a mate is a non-trump the rule prefers)`` per lay."""
    weight = 1.0
    tm = s.tm
    power = s.tables.power
    for seat, b, high in lays:
        held = hands[seat] | played[seat]
        n = held.bit_count()
        if n <= mates:
            continue
        i = b.bit_length() - 1
        key = (power[i], POINTS_BY_ID[i]) if high else (POINTS_BY_ID[i], power[i])
        better = 0
        for bit in bits_of(held & ~tm):
            j = bit.bit_length() - 1
            k = (power[j], POINTS_BY_ID[j]) if high else (POINTS_BY_ID[j], power[j])
            better += k > key if high else k < key
        if better:
            clean = math.comb(n - better, mates) / math.comb(n, mates)
            weight *= 1.0 - (1.0 - miss) * (1.0 - clean)
    return weight
