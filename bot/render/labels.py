"""Who played each card (issue 20, item 8): history stays true when a seat changes hands.

The table and the summary name a card's player by its seat. Two things make the seat's occupant
the wrong name: the bot player deciding for a person who is away or timed out (only those cards
get 💤), and a person who left mid-deal (``/leave``), whose seat a bot took over (the cards before
keep the person's name, the bot's after it say it played for them). What differs from the seat's
occupant is kept in the match (``MatchState.played_by`` and ``left``), by the deal's index in
``MatchState.deals`` (the deal in play is at ``len(deals)``): a card by its code, who dealt as
``dealer``, and any other decision (the brag, the exchange, a cut) by its index among the deal's
moves (``m3``). A deal before the one a person left in was theirs from start to end, so every
name of a deal — a card's, the brag's, a pair's, the /history viewer's — is read here.
"""

from __future__ import annotations

from html import escape

from bot.engine import Deal, Play
from bot.engine.actions import Action, Brag
from bot.engine.cards import Card
from bot.render.i18n import Tr
from bot.render.words import PAIRS, occupant_name, seat_name
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


def _left_since(table: Table, index: int, seat: int) -> tuple[bool, str] | None:
    """The person who left ``seat`` in the deal at ``index`` or after it (the first to), and whether
    in this very deal: they sat there from its start."""
    m = table.match
    if m is None:
        return None
    later = [j for j, seats in m.left.items() if j >= index and seat in seats]
    if not later:
        return None
    first = min(later)
    return first == index, m.left[first][seat]


def _label(tr: Tr, table: Table, index: int, seat: int, key: str) -> str:
    """The (HTML-escaped) name of who did what ``played_by`` keeps under ``key`` in the deal at
    ``index`` from ``seat``."""
    m = table.match
    tag = m.played_by.get(index, {}).get(key) if m else None
    if tag is not None:
        name = escape(tag[len(BY_PERSON) :])
        return name if tag.startswith(BY_PERSON) else tr("seat.away", name=name)
    left = _left_since(table, index, seat)
    if left is not None:  # a bot's after the person left; the person's in a deal before
        now, name = left
        return tr("seat.stand_in", name=escape(name)) if now else escape(name)
    return occupant_name(tr, table, seat)  # no 💤: only the cards the bot played for them have it


def card_player(tr: Tr, table: Table, index: int, seat: int, card: Card | None) -> str:
    """The (HTML-escaped) name of who played ``card`` from ``seat`` in the deal at ``index``
    (``card`` None: who dealt)."""
    return _label(tr, table, index, seat, DEALER if card is None else card.code)


def move_player(tr: Tr, table: Table, index: int, seat: int, k: int) -> str:
    """Who took the ``k``-th move of the deal at ``index`` (a decision that is not a card's play)."""
    return _label(tr, table, index, seat, f"{MOVE}{k}")


def brag_player(tr: Tr, table: Table, deal: Deal, seat: int) -> str:
    """Who laid ``seat``'s brag cards in the deal in play (and took its trumps from the deck); for a
    seat yet to lay, whoever sits there."""
    laid = next((cs for s, cs in deal.brag.laid if s == seat and cs), ()) if deal.brag else ()
    if laid:
        return card_player(tr, table, current_index(table), seat, laid[0])
    return seat_name(tr, table, seat)


def seat_player(tr: Tr, table: Table, index: int, seat: int) -> str:
    """Who played ``seat`` in the deal at ``index`` as a whole: the person who left it since (with
    the bot's mark in the deal they left in), else whoever sits there."""
    left = _left_since(table, index, seat)
    if left is None:
        return seat_name(tr, table, seat)
    now, name = left
    return tr("seat.stand_in", name=escape(name)) if now else escape(name)


def pair_players(tr: Tr, table: Table, index: int, pair: int) -> str:
    """``Аня и Вера``: the pair as it played the deal at ``index`` (:func:`seat_player`)."""
    a, b = PAIRS[pair]
    return tr("pair.names", a=seat_player(tr, table, index, a), b=seat_player(tr, table, index, b))


def match_player(tr: Tr, table: Table, seat: int) -> str:
    """Who played ``seat`` over the whole match: the person who left it mid-match, with the bot's
    mark (the bot finished the match for them), else whoever sits there."""
    m = table.match
    left = [j for j, seats in m.left.items() if seat in seats] if m is not None else []
    if m is None or not left:
        return seat_name(tr, table, seat)
    return tr("seat.stand_in", name=escape(m.left[min(left)][seat]))


def match_pair_players(tr: Tr, table: Table, pair: int) -> str:
    """``Борис (🤖) и Глеб``: the pair as it played the match (:func:`match_player`)."""
    a, b = PAIRS[pair]
    return tr("pair.names", a=match_player(tr, table, a), b=match_player(tr, table, b))
