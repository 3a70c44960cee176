"""Small pieces of text every view shares: cards, suits, seat names, pairs, the text tally."""

from __future__ import annotations

from html import escape

from bot.engine.cards import Card, Suit
from bot.engine.rules import BLIND_SEATS, Rules
from bot.render.i18n import Tr
from bot.storage import Seat, Table
from bot.table.game import SUIT_SYMBOLS, decider
from bot.table.rotation import number_of, rotates

PAIRS = ((0, 2), (1, 3))


def card_text(tr: Tr, c: Card) -> str:
    """A card as a player reads it: ``Д♣``, ``10♦`` (ranks in the reader's language)."""
    return tr(f"rank.{c.rank.value}") + SUIT_SYMBOLS[c.suit]


def cards_text(tr: Tr, cs: tuple[Card, ...] | list[Card]) -> str:
    """Several cards, space-separated."""
    return " ".join(card_text(tr, c) for c in cs)


def suit_text(tr: Tr, suit: Suit | None) -> str:
    """A suit with its symbol and name: ``♦ бубны``."""
    if suit is None:
        return tr("trump.unknown")
    return f"{SUIT_SYMBOLS[suit]} {tr(f'suit.{suit.value}')}"


def seat_name(tr: Tr, table: Table, seat: int, *, mention: bool = False) -> str:
    """The (HTML-escaped) name of whoever sits in ``seat``; a link that notifies with ``mention``."""
    s = table.seats[seat]
    if s is not None and seat in table.away and not s.is_bot:  # the bot player decides for them
        return tr("seat.away", name=occupant_name(tr, table, seat, mention=mention))
    return occupant_name(tr, table, seat, mention=mention)


def occupant_name(tr: Tr, table: Table, seat: int, *, mention: bool = False) -> str:
    """:func:`seat_name` without the away mark: every view's one name for a seat. A blind is named
    after its partner, a bot that took over from a person who left mid-match after that person
    (``Вера (🤖)``), from the tricks to the turn line and the next deal's table."""
    s = table.seats[seat]
    if s is None:
        if seat in blind_seats(table):
            # A blind is named after its partner, who decides for it (none yet in a lobby: not "(free)").
            partner = decider(table, seat)
            if table.seats[partner] is None:
                return tr("seat.blind_unpartnered")
            return tr("seat.blind", name=seat_name(tr, table, partner))
        return tr("seat.empty")
    left = stand_in_for(table, seat)
    if left is not None:
        return tr("seat.stand_in", name=escape(left))
    # A bot keeps its lobby number when the people move.
    return person(tr, s, number_of(table, seat), mention=mention)


def stand_in_for(table: Table, seat: int) -> str | None:
    """The person the bot in ``seat`` plays for since they left mid-match (the last to leave the
    seat: ``MatchState.left``), or None."""
    m = table.match
    s = table.seats[seat]
    if m is None or not m.left or s is None or not s.is_bot:
        return None
    here = number_of(table, seat)
    for index in sorted(m.left, reverse=True):
        for left_seat, name in m.left[index].items():
            if _number_then(table, index, left_seat) == here:
                return name
    return None


def _number_then(table: Table, index: int, seat: int) -> int:
    """:func:`number_of` for ``seat`` as seated in the deal at ``index`` (the people move each deal
    with ``blind_rotates``)."""
    m = table.match
    if m is None or not rotates(table):
        return seat
    deal_no = m.deals[index].get("deal_no", 1) if index < len(m.deals) else m.deal_no
    person = Rules.parse(table.rules).seating(deal_no)[seat]
    return seat if person is None else person


def blind_seats(table: Table) -> tuple[int, ...]:
    """The seats of the table's blinds (``dummy``, ``two_dummies``): nobody sits there."""
    return BLIND_SEATS.get(str(table.rules.get("preset")), ())


def free_seats(table: Table) -> list[int]:
    """The seats still to be taken, by a person or a bot (a blind's seat is never free)."""
    blinds = blind_seats(table)
    return [i for i, s in enumerate(table.seats) if s is None and i not in blinds]


def person(tr: Tr, s: Seat, seat: int, *, mention: bool = False) -> str:
    """The name of a seated person or bot."""
    if s.is_bot:
        return tr("bot.name", n=seat + 1)
    name = escape(s.name)
    if mention and s.user_id is not None:
        return f'<a href="tg://user?id={s.user_id}">{name}</a>'
    return name


def pair_names(tr: Tr, table: Table, pair: int) -> str:
    """``Аня и Вера``."""
    a, b = PAIRS[pair]
    return tr("pair.names", a=seat_name(tr, table, a), b=seat_name(tr, table, b))


def three_seats(table: Table) -> bool:
    """Whether the table seats three (3-person ``sochi``): a person per seat, each with their own
    score (``MatchState.scores`` by seat), and no fixed pairs — the sides form every deal."""
    return len(table.seats) == 3


def side_names(tr: Tr, table: Table, pair_of: tuple[int, ...], side: int) -> str:
    """The names of one side of a deal whose sides are formed per deal (``sochi``): ``Аня`` alone,
    or ``Борис и Вера``."""
    names = [seat_name(tr, table, s) for s, p in enumerate(pair_of) if p == side]
    if len(names) == 2:
        return tr("pair.names", a=names[0], b=names[1])
    return ", ".join(names)


def people_names(tr: Tr, table: Table) -> str:
    """Everyone at the table, in seat order: ``Аня, Борис, Вера``."""
    return ", ".join(seat_name(tr, table, s) for s in range(len(table.seats)))


#: Pairs of pips on one six: each 2 penalty points uncover a pair (RULES.md §1).
ROWS_PER_SIX = 3


def sixes(penalty: int, target: int = 12) -> tuple[int, ...]:
    """The shestyorki tally for a match to ``target``: how many pairs of pips each six shows uncovered.

    Each 2 penalty points uncover one pair of pips, the first six first (RULES.md §1); a match to 12
    is kept on two sixes, one to 6 on one, one to 18 on three: the last pair of pips opens at the target.
    """
    count = max(1, -(-target // (2 * ROWS_PER_SIX)))
    rows = min(max(penalty, 0) // 2, count * ROWS_PER_SIX)
    return tuple(min(max(rows - i * ROWS_PER_SIX, 0), ROWS_PER_SIX) for i in range(count))


def tally_text(penalty: int, target: int = 12) -> str:
    """The shestyorki tally in text for a match to ``target``: ● uncovered pips, ○ still covered."""
    return " ".join(f"⚅{'●' * opened}{'○' * (ROWS_PER_SIX - opened)}" for opened in sixes(penalty, target))
