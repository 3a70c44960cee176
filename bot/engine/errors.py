"""The engine's error types: every refusal names what was wrong.

A refused move, :class:`~bot.engine.refusal.IllegalMoveError`, carries one of the :class:`Reason` values
here but lives in :mod:`bot.engine.refusal`: it names a suit, and this module, below the cards
(:mod:`bot.engine.cards` raises :class:`KozelError`), knows none.
"""

from __future__ import annotations

from enum import StrEnum


class KozelError(ValueError):
    """Base class of every error the engine raises on bad input."""


class Reason(StrEnum):
    """Why a move was refused, for programs (the message says it for people)."""

    #: The deal has ended; nothing more can be done in it.
    DEAL_OVER = "deal_over"
    #: Another seat is to act.
    NOT_YOUR_TURN = "not_your_turn"
    #: The seat is to act, but on another kind of decision (a card while trump is being declared…).
    WRONG_PHASE = "wrong_phase"
    #: The card (or a card of the decision) is not in the seat's hand.
    NOT_IN_HAND = "not_in_hand"
    #: The first lead of the deal must be a given card.
    FIRST_LEAD = "first_lead"
    #: A trump may not be led while the seat holds a plain card.
    TRUMP_LEAD = "trump_lead"
    #: The seat holds the led plain suit and must follow it (the error's ``suit`` names it).
    MUST_FOLLOW = "must_follow"
    #: A trump was led (trumps are one suit) and the seat holds a trump: he must play one.
    MUST_FOLLOW_TRUMP = "must_follow_trump"
    #: Void in the led suit, the seat must play a trump.
    MUST_TRUMP = "must_trump"
    #: Declaring trump "by the last card" is not allowed in this deal.
    BY_THE_LAST = "by_the_last"
    #: A choice of the right kind that the rules do not allow here (a brag or give of wrong cards…).
    NOT_ALLOWED = "not_allowed"


class RulesError(KozelError):
    """A rules specification that is unknown or inconsistent."""


class RecordError(KozelError):
    """A deal or match record that cannot be replayed.

    ``index`` is the position of the offending move (or deal, in a match record); ``None`` when the
    record as a whole is malformed.
    """

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index
