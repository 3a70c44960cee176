"""Who played each card (issue 20, item 8): history stays true when a seat changes hands.

The table and the summary name a card's player by its seat. Two things make the seat's occupant
the wrong name: the bot player deciding for a person who is away or timed out (only those cards
get 💤), and a person who left mid-deal (``/leave``), whose seat a bot took over (the cards before
keep the person's name, the bot's after it say it played for them). What differs from the seat's
occupant is kept in the match (``MatchState.played_by`` and ``left``), by the deal's index in
``MatchState.deals`` (the deal in play is at ``len(deals)``).
"""

from __future__ import annotations

from html import escape

from bot.engine import Play
from bot.engine.actions import Action
from bot.engine.cards import Card
from bot.handlers.i18n import Tr
from bot.handlers.rotation import number_of
from bot.handlers.words import person, seat_name
from bot.storage import Table

#: ``played_by`` values: the person played the card (their seat is a bot's now), or the bot player
#: played it for the person seated.
BY_PERSON = "p:"
BY_BOT = "b:"
DEALER = "dealer"


def current_index(table: Table) -> int:
    """The index the deal in play will have among the match's finished deals (0 with no match: a
    deal shown on its own, as the /history viewer does)."""
    return len(table.match.deals) if table.match is not None else 0


def bot_played(table: Table, seat: int, action: Action) -> None:
    """The bot player takes ``action`` for the person in ``seat`` (away, or out of time)."""
    occupant = table.seats[seat]
    if table.match is None or occupant is None or occupant.is_bot or not isinstance(action, Play):
        return
    labels = table.match.played_by.setdefault(current_index(table), {})
    labels[action.card.code] = BY_BOT + occupant.name


def person_left(table: Table, seat: int) -> None:
    """The person in ``seat`` leaves mid-deal (a bot takes the seat): their cards keep their name."""
    m = table.match
    occupant = table.seats[seat]
    if m is None or m.current is None or occupant is None or occupant.is_bot:
        return
    index = current_index(table)
    labels = m.played_by.setdefault(index, {})
    for move in m.current.get("moves", []):
        if move.get("seat") == seat and "play" in move:
            labels.setdefault(str(move["play"]), BY_PERSON + occupant.name)
    if m.current.get("dealer") == seat:
        labels[DEALER] = BY_PERSON + occupant.name
    m.left.setdefault(index, {})[seat] = occupant.name


def card_player(tr: Tr, table: Table, index: int, seat: int, card: Card | None) -> str:
    """The (HTML-escaped) name of who played ``card`` from ``seat`` in the deal at ``index``
    (``card`` None: who dealt)."""
    m = table.match
    tag = m.played_by.get(index, {}).get(DEALER if card is None else card.code) if m else None
    if tag is not None:
        name = escape(tag[len(BY_PERSON) :])
        return name if tag.startswith(BY_PERSON) else tr("seat.away", name=name)
    left = m.left.get(index, {}).get(seat) if m is not None and card is not None else None
    if left is not None:
        return tr("seat.stand_in", name=escape(left))
    occupant = table.seats[seat]
    if occupant is None:
        return seat_name(tr, table, seat)  # a blind, named after its partner (or a free seat)
    return person(tr, occupant, number_of(table, seat))
