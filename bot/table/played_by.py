"""Who played each card, as the match keeps it (issue 20, item 8): the writing side.

When the bot player decides for a person (away, or out of time) or a person leaves mid-deal, what
differs from the seat's occupant is noted in the match (``MatchState.played_by`` and ``left``), by
the deal's index in ``MatchState.deals``; :mod:`bot.render.labels` reads it back into names.
"""

from __future__ import annotations

from bot.engine import Deal, Play
from bot.engine.actions import Action, Brag
from bot.storage import Table

#: ``played_by`` values: the person played the card (their seat is a bot's now), or the bot player
#: played it for the person seated.
BY_PERSON = "p:"
BY_BOT = "b:"
DEALER = "dealer"
#: ``played_by`` keys of decisions that are not a card's play: ``m`` and the move's index.
MOVE = "m"


def current_index(table: Table) -> int:
    """The index the deal in play will have among the match's finished deals (0 with no match: a
    deal shown on its own, as the /history viewer does)."""
    return len(table.match.deals) if table.match is not None else 0


def bot_played(table: Table, seat: int, action: Action) -> None:
    """The bot player takes ``action`` for the person in ``seat`` (away, or out of time)."""
    m = table.match
    occupant = table.seats[seat]
    if m is None or occupant is None or occupant.is_bot:
        return
    labels = m.played_by.setdefault(current_index(table), {})
    tag = BY_BOT + occupant.name
    if isinstance(action, Play):
        labels[action.card.code] = tag
        return
    if isinstance(action, Brag):  # its cards are the brag trick's
        labels.update({c.code: tag for c in action.cards})
    if m.current is not None:
        labels[f"{MOVE}{len(m.current.get('moves', []))}"] = tag


def person_left(table: Table, deal: Deal | None, seat: int) -> None:
    """The person in ``seat`` leaves mid-deal (a bot takes the seat): what they did keeps their name
    (``deal``: the deal in play, for the brag cards they laid without a move of their own: the
    mirror's and fishing's)."""
    m = table.match
    occupant = table.seats[seat]
    if m is None or m.current is None or occupant is None or occupant.is_bot:
        return
    index = current_index(table)
    labels = m.played_by.setdefault(index, {})
    mine = BY_PERSON + occupant.name
    for k, move in enumerate(m.current.get("moves", [])):
        if move.get("seat") == seat:
            labels.setdefault(str(move["play"]) if "play" in move else f"{MOVE}{k}", mine)
    if deal is not None and deal.brag is not None:
        for s, cards in deal.brag.laid:
            if s == seat:
                for c in cards:
                    labels.setdefault(c.code, mine)
    if m.current.get("dealer") == seat:
        labels[DEALER] = BY_PERSON + occupant.name
    m.left.setdefault(index, {})[seat] = occupant.name
