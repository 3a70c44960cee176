"""What the learned policy (:mod:`bot.engine.ai.policy`) reads of a card decision: numbers per legal card.

A seat deciding which card to play sees its hand, the trick so far and every card already gone. From
these alone (nothing of another hand) each legal card gets the features in :data:`NAMES`: what it is
(trump, points, how strong in its suit, whether a stronger card of its suit is still out), what it
does to the trick (takes it, overtakes the partner, smears points on a trick the partner holds, feeds
the opponents, catches or feeds the ♣Q) and what it does as a lead (cash a master, lead from length,
lead low). The same function serves the self-play records (``experiments/learned``), the training and,
at play time, the world weighting, where a sampled world supplies the other seat's hand.

Pure: bit masks in, lists of floats out; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine.actions import Play
from bot.engine.cards import mask_of
from bot.engine.deal import Phase
from bot.engine.errors import KozelError
from bot.engine.play import follow_mask, lead_mask, play_rules
from bot.engine.view import SeatView

from .knowledge import eggs_before_of
from .trick import beaters
from .world import QC_BIT, Static

#: The feature names, in the order :func:`card_features` gives them.
NAMES: tuple[str, ...] = (
    "trump",
    "points",
    "strength",
    "master",
    "stronger_out",
    "suit_length",
    "lowest_in_suit",
    "highest_in_suit",
    "queen_exposed",
    "shmon",
    "f_takes",
    "f_overtakes_partner",
    "f_takes_last",
    "f_takes_safe",
    "f_smear",
    "f_feed",
    "f_takes_points",
    "f_trick_points_taken",
    "f_catches_queen",
    "f_queen_suicide",
    "f_ruff",
    "f_discard_points",
    "l_trump",
    "l_master",
    "l_points",
    "l_master_points",
    "l_length",
    "l_lowest",
    "l_queen",
)
N_FEATURES = len(NAMES)

#: The preset families the policy keeps apart weights for (presets alike in trumps and scoring share).
FAMILIES: dict[str, str] = {
    "classic": "classic",
    "sochi4": "classic",
    "sochi": "classic",
    "dummy": "classic",
    "two_dummies": "classic",
    "flip": "flip",
    "draw": "draw",
    "tricks": "tricks",
}
FAMILY_NAMES: tuple[str, ...] = ("classic", "flip", "draw", "tricks")


def legal_mask(
    s: Static, seat: int, hand: int, trick: Sequence[tuple[int, int]], restricted: bool = False
) -> int:
    """The cards ``seat`` holding ``hand`` may play into ``trick`` (a lead when empty)."""
    if not trick:
        return lead_mask(s, hand, 0, restricted)
    led = trick[0][1]
    return follow_mask(s, seat, hand, s.eff[led.bit_length() - 1], led)


def card_features(
    s: Static, seat: int, hand: int, legal: int, trick: Sequence[tuple[int, int]], gone: int
) -> list[tuple[int, list[float]]]:
    """Per legal card (bit, lowest id first): its features (:data:`NAMES`) for ``seat`` holding
    ``hand`` with the trick so far ``trick`` and the cards ``gone`` (played before, this trick's too)."""
    eff = s.eff
    masks = s.suit_masks
    by_led = s.by_led
    stronger = beaters(s)
    worth = s.card_worth
    tm = s.tm
    special = s.special
    top = s.top_bit if special else 0
    pair_of = s.pair_of
    out_cards = ~(gone | hand)
    # The queen catch in play: the ♣Q in my hand while the шмон is still out, neither gone.
    queen_danger = bool(special) and hand & QC_BIT and not (gone | hand) & top
    following = bool(trick)
    if following:
        led = trick[0][1]
        e = eff[led.bit_length() - 1]
        row = by_led[e]
        ws, wp, tp = -1, -2, 0
        foe_special = 0
        for st, b in trick:
            cid = b.bit_length() - 1
            p = -1 if st == s.open_seat else row[cid]
            if p > wp:
                ws, wp = st, p
            tp += worth[cid]
            if b & special and pair_of[st] != pair_of[seat]:
                foe_special |= b
        partner_wins = pair_of[ws] == pair_of[seat]
        last = len(trick) == s.n - 1
        # the cards that could still beat a card once played: out of sight (in other hands or stock)
        led_answers = out_cards
    rows: list[tuple[int, list[float]]] = []
    rest = legal
    while rest:
        b = rest & -rest
        rest ^= b
        cid = b.bit_length() - 1
        ce = eff[cid]
        p = by_led[ce][cid]
        suit = masks[ce]
        above_in_suit = stronger[ce][p + 2] & suit
        n_suit = (hand & suit).bit_count()
        n_deck_suit = suit.bit_count()
        trump = 1.0 if b & tm else 0.0
        pts = worth[cid] / 11.0
        strength = 1.0 - above_in_suit.bit_count() / max(1, n_deck_suit - 1)
        out_above = (above_in_suit & out_cards).bit_count()
        master = 1.0 if out_above == 0 else 0.0
        mine_in_suit = hand & suit
        lowest = 1.0 if not mine_in_suit & ~above_in_suit & ~b else 0.0
        highest = 1.0 if not mine_in_suit & above_in_suit else 0.0
        is_queen = 1.0 if b == QC_BIT and queen_danger else 0.0
        is_shmon = 1.0 if b & top else 0.0
        f = [
            trump, pts, strength, master, out_above / 8.0, n_suit / 8.0, lowest, highest, is_queen, is_shmon,
        ]  # fmt: skip
        if following:
            cp = -1 if seat == s.open_seat else row[cid]
            takes = cp > wp
            # safe: nothing still out could beat it in this trick (the seats after may hold it)
            safe = takes and (last or not stronger[e][cp + 2] & led_answers)
            t = 1.0 if takes else 0.0
            f += [
                t,
                t if partner_wins and ws != seat else 0.0,
                t if last else 0.0,
                1.0 if safe else 0.0,
                pts if partner_wins and not takes else 0.0,
                pts if not partner_wins and not takes else 0.0,
                pts * t,
                tp / 30.0 * t,
                1.0 if b & top and foe_special & QC_BIT else 0.0,
                1.0 if b == QC_BIT and foe_special & top else 0.0,
                trump if e != ce else 0.0,
                pts if e != ce and not trump else 0.0,
            ]
            f += [0.0] * 7
        else:
            f += [0.0] * 12
            f += [
                trump,
                master,
                pts,
                master * pts,
                n_suit / 8.0,
                lowest,
                is_queen,
            ]
        rows.append((b, f))
    return rows


def view_features(view: SeatView) -> tuple[Static, list[tuple[int, list[float]]]]:
    """The deal's fixed facts and the features of each legal card of a card decision seen in ``view``."""
    if view.phase is not Phase.PLAY or view.tables is None:
        raise KozelError(f"card features are for the play phase, not {view.phase.value!r}")
    s = play_rules(view.rules, view.tables.trump, eggs_before_of(view), view.open_seat, view.pair_of)
    hand = mask_of(list(view.hand))
    legal = 0
    for a in view.legal:
        if isinstance(a, Play):
            legal |= a.card.bit
    gone = mask_of(list(view.played()))
    trick = [(st, c.bit) for st, c in view.trick]
    return s, card_features(s, view.seat, hand, legal, trick, gone)
