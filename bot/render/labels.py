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

from bot.engine import Deal
from bot.engine.cards import Card
from bot.render.i18n import Tr
from bot.render.words import PAIRS, occupant_name, seat_name
from bot.storage import Table
from bot.table.played_by import BY_PERSON, DEALER, MOVE, current_index


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
