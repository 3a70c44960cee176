"""The engine's error types: every refusal names what was wrong."""

from __future__ import annotations


class KozelError(ValueError):
    """Base class of every error the engine raises on bad input."""


class IllegalMoveError(KozelError):
    """A move that the rules do not allow in this position."""


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
