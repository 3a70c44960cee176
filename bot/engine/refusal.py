"""Why a deal refuses an action: the :class:`IllegalMoveError` :meth:`Deal.why_not` returns and
:meth:`Deal.apply` raises — its ``reason`` for programs (the bot's localized answers), its
message for people reading logs and records.

Whether an action is allowed is the phases' own rule (:mod:`bot.engine.brag`, :mod:`bot.engine.flip`,
:mod:`bot.engine.sochi` say why not; the play kernel's legal mask decides a card); this module only
puts the refusal into words, once a refusal is certain — most actions taken are allowed, and a legal
card is checked on the mask before any of this runs.
"""

from __future__ import annotations

from bot.engine import brag, flip, sochi
from bot.engine.actions import Action, action_to_json
from bot.engine.cards import SUITS, Card, Suit
from bot.engine.deal_state import DealState
from bot.engine.errors import KozelError, Reason
from bot.engine.order import TRUMP
from bot.engine.phase import Phase
from bot.engine.play import PlayState


class IllegalMoveError(KozelError):
    """A move that the rules do not allow in this position; ``reason`` says why, for programs, and
    ``suit`` the suit that must be followed (:attr:`Reason.MUST_FOLLOW`)."""

    def __init__(self, message: str, reason: Reason = Reason.NOT_ALLOWED, suit: Suit | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.suit = suit

    def __reduce__(self) -> tuple[type[IllegalMoveError], tuple[str, Reason, Suit | None]]:
        # Keeps the reason across processes (pickle rebuilds an exception from its args alone).
        return (type(self), (str(self), self.reason, self.suit))


def why_not(deal: DealState, seat: int, action: Action) -> IllegalMoveError | None:
    """Why ``seat`` may not take ``action`` (a decision before the first lead) now; ``None``: he may."""
    phase = deal.phase
    said: str | None = None
    if phase is Phase.OVER:
        why = Reason.DEAL_OVER
    elif seat != deal.to_act:
        why = Reason.NOT_YOUR_TURN
    elif phase is Phase.PLAY:
        why = Reason.WRONG_PHASE
    else:
        if phase is Phase.DISCARD:
            reason = sochi.refusal(deal, deal.talon, seat, action)
        elif deal.brag is not None:
            reason = brag.refusal(deal, deal.brag, seat, action)
        else:
            reason = flip.refusal(deal, deal.swaps, seat, action)
        if reason is None:
            return None
        why, said = reason
    # The words only now: a decision taken is checked first, and most are allowed.
    what = f"seat {seat} cannot {describe(action)}"
    if phase is Phase.OVER:
        return IllegalMoveError(f"{what}: the deal is over", why)
    waiting = f"seat {deal.to_act} is to {phase.value.replace('_', ' ')}"
    return IllegalMoveError(f"{what}: {waiting if said is None else said}", why)


def why_not_play(deal: DealState, seat: int, c: Card) -> IllegalMoveError:
    """Why ``seat`` may not play ``c`` now (the caller has found it outside his legal mask)."""
    who = f"seat {seat} cannot play {c}"
    if deal.phase is Phase.OVER:
        return IllegalMoveError(f"{who}: the deal is over", Reason.DEAL_OVER)
    if deal.phase is not Phase.PLAY:
        waiting = f"seat {deal.to_act} is to {deal.phase.value.replace('_', ' ')}"
        reason = Reason.WRONG_PHASE if seat == deal.to_act else Reason.NOT_YOUR_TURN
        return IllegalMoveError(f"{who}: no card is played now, {waiting}", reason)
    if seat != deal.to_act:
        return IllegalMoveError(f"{who}: it is seat {deal.to_act}'s turn", Reason.NOT_YOUR_TURN)
    st = deal.play_state
    assert isinstance(st, PlayState)
    if not st.hands[seat] & c.bit:
        return IllegalMoveError(f"{who}: it is not in his hand", Reason.NOT_IN_HAND)
    if not st.trick:
        if st.first:
            return IllegalMoveError(f"{who}: the first lead must be {deal.first_lead}", Reason.FIRST_LEAD)
        return IllegalMoveError(
            f"{who}: a trump may not be led while he holds a plain card", Reason.TRUMP_LEAD
        )
    if st.hands[seat] & st.s.suit_masks[st.led_eff]:
        if st.led_eff == TRUMP:
            return IllegalMoveError(f"{who}: a trump was led, he must play one", Reason.MUST_FOLLOW_TRUMP)
        suit = SUITS[st.led_eff - 1]
        return IllegalMoveError(f"{who}: he must follow {suit.name.lower()}", Reason.MUST_FOLLOW, suit)
    return IllegalMoveError(f"{who}: void in the led suit, he must play a trump", Reason.MUST_TRUMP)


def describe(action: Action) -> str:
    """An action in words for refusals: its record key and value, e.g. ``play QC``."""
    key, value = action_to_json(action)
    return f"{key} {value}"
