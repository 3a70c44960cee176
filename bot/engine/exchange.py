"""Classic's exchange with the open hand (RULES.md §2): offered to the pair that did not brag when the
bragging pair won the brag; its weaker hand gives its trumps for as many of the stronger hand's
non-trumps, and is shown to everyone for the deal.

:func:`offer` says whether an exchange is offered and what it would be (a bot player's sampled worlds
ask it too); :func:`answer`, :func:`can_give`, :func:`gifts` and :func:`give` take the partners'
decisions through the deal's public interface (:class:`bot.engine.phase.DealCore`), for
:mod:`bot.engine.brag`, which keeps the plan on offer in its state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from bot.engine.actions import Action, ExchangeGive
from bot.engine.cards import Card, Rank, cards_of
from bot.engine.order import Tables
from bot.engine.phase import DealCore, Phase

N_SEATS = 4


@dataclass(frozen=True)
class ExchangePlan:
    """Who would exchange what: the open hand gives ``give`` (its trumps) for as many non-trumps."""

    strong: int
    open: int
    give: tuple[Card, ...]


def offer(t: Tables, hands: Sequence[int], bragger: int) -> ExchangePlan | None:
    """The exchange the pair that did not brag could make with ``hands``, or ``None`` when it is not
    offered: the hand with fewer trumps opens, and gives them all if the other holds as many
    non-trumps — else all but its lowest, if that is a small trump (not a queen, a jack or the top)."""
    n1, n2 = (bragger + 1) % N_SEATS, (bragger + 3) % N_SEATS
    c1 = (hands[n1] & t.trump_mask).bit_count()
    c2 = (hands[n2] & t.trump_mask).bit_count()
    strong, open_ = (n1, n2) if c1 >= c2 else (n2, n1)
    trumps = cards_of(hands[open_] & t.trump_mask)
    plain = (hands[strong] & ~t.trump_mask).bit_count()
    if not trumps:
        return None
    if plain >= len(trumps):
        return ExchangePlan(strong, open_, tuple(trumps))
    lowest = min(trumps, key=lambda c: t.power[c.id])
    small = lowest.suit is t.trump and lowest.rank not in (Rank.QUEEN, Rank.JACK) and lowest != t.top
    giving = tuple(c for c in trumps if c != lowest)
    if not small or not giving or plain < len(giving):
        return None
    return ExchangePlan(strong, open_, giving)


def answer(
    deal: DealCore, plan: ExchangePlan, bragger: int, leader: int, seat: int, accept: bool
) -> ExchangePlan | None:
    """A partner of the pair that did not brag agrees to ``plan`` or refuses it; the plan still on
    offer (``None`` once refused: play begins, ``leader`` leading)."""
    if not accept:
        deal.events.append("exchange_refused")
        deal.start_play(leader)
        return None
    if seat == (bragger + 1) % N_SEATS:
        deal.wait_for(Phase.EXCHANGE, (bragger + 3) % N_SEATS)
    else:
        deal.wait_for(Phase.EXCHANGE_GIVE, plan.strong)
    return plan


def can_give(deal: DealCore, plan: ExchangePlan, seat: int, cs: tuple[Card, ...]) -> bool:
    """Whether the strong hand may give ``cs``: as many of his non-trumps as the open hand gives trumps."""
    t = deal.tables
    assert t is not None
    mask = 0
    for c in cs:
        mask |= c.bit
    return (
        seat == plan.strong
        and len(cs) == len(plan.give) == mask.bit_count()
        and not mask & t.trump_mask
        and mask & deal.hands[seat] == mask
    )


def gifts(deal: DealCore, plan: ExchangePlan, seat: int) -> list[Action]:
    """Every choice of non-trumps the strong hand ``seat`` may give."""
    t = deal.tables
    assert t is not None
    plain = [c for c in deal.hand(seat) if not t.is_trump(c)]
    return [ExchangeGive(cs) for cs in combinations(plain, len(plan.give))]


def give(deal: DealCore, plan: ExchangePlan, leader: int, cs: tuple[Card, ...]) -> None:
    """The strong hand gives ``cs`` for the open hand's trumps; the open hand is shown to everyone and
    play begins, ``leader`` leading."""
    hands = deal.hands
    for c in plan.give:
        hands[plan.open] ^= c.bit
        hands[plan.strong] |= c.bit
        deal.known[plan.open][plan.strong] |= c.bit
    for c in cs:
        hands[plan.strong] ^= c.bit
        hands[plan.open] |= c.bit
    deal.open_hand(plan.open)
    deal.events.append("exchange")
    # Four queens made by the exchange void the deal too (seed 000: "это следует помнить при обмене").
    if deal.redeal_if_four_queens():
        return
    deal.start_play(leader)


__all__ = ["ExchangePlan", "answer", "can_give", "gifts", "give", "offer"]
