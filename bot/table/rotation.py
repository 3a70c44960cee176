"""``dummy`` with ``blind_rotates`` at a Telegram table: the people move over the seats each deal.

The engine's blind stays seat 3 and the people move one seat each deal (:meth:`bot.engine.Rules.seating`,
docs/rules-notes.md). The stored table follows it: :func:`reseat` moves each person's seat — with what
is kept per seat across deals (turn timeouts, away, blocked) — whenever the match's deal number moves,
so ``table.seats[s]`` is always whoever plays seat ``s`` in the deal in play and every other part of the
bot reads seats as for any preset. A finished deal's texts read the table as it was seated then
(:func:`as_seated`), and each person's total comes from :func:`people`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from bot.engine import Rules
from bot.storage import Seat, Table

_T = TypeVar("_T")


def rotates(table: Table) -> bool:
    """Whether the table plays ``dummy`` with ``blind_rotates``."""
    options = table.rules.get("options") or {}
    return table.rules.get("preset") == "dummy" and bool(options.get("blind_rotates"))


def _moves(rules: Rules, old_no: int, new_no: int) -> Callable[[int], int]:
    """Where the person at seat ``s`` in deal ``old_no`` sits in deal ``new_no`` (the blind stays)."""
    old, new = rules.seating(old_no), rules.seating(new_no)

    def move(seat: int) -> int:
        person = old[seat] if 0 <= seat < len(old) else None
        return seat if person is None else new.index(person)

    return move


def _moved(values: list[_T], move: Callable[[int], int]) -> list[_T]:
    out = list(values)
    for seat, value in enumerate(values):
        out[move(seat)] = value
    return out


def reseat(table: Table, rules: Rules, old_no: int, new_no: int) -> None:
    """Move the people of ``table`` from their seats of deal ``old_no`` to those of deal ``new_no``."""
    if not rules.blind_rotates or old_no == new_no:
        return
    move = _moves(rules, old_no, new_no)
    table.seats = _moved(table.seats, move)
    table.timeouts = {move(s): n for s, n in table.timeouts.items()}
    table.away = sorted(move(s) for s in table.away)
    table.blocked = sorted(move(s) for s in table.blocked)


def as_seated(table: Table, deal_no: int) -> Table:
    """``table`` as it was seated in deal ``deal_no`` (a copy; ``table`` itself when nothing moved)."""
    m = table.match
    if m is None or not rotates(table) or deal_no == m.deal_no:
        return table
    rules = Rules.parse(table.rules)
    move = _moves(rules, m.deal_no, deal_no)
    # The match's deal number goes with the seats, so :func:`people` reads the copy as seated then.
    return table.model_copy(
        update={
            "seats": _moved(table.seats, move),
            "away": sorted(move(s) for s in table.away),
            "match": m.model_copy(update={"deal_no": deal_no}),
        }
    )


def people(table: Table) -> list[tuple[int, Seat | None]]:
    """Each person's seat now, by person (numbered by their seats in deal 1): ``(seat, occupant)``."""
    m = table.match
    assert m is not None
    seating = Rules.parse(table.rules).seating(m.deal_no)
    seat_of = {p: s for s, p in enumerate(seating) if p is not None}
    return [(seat_of[p], table.seats[seat_of[p]]) for p in sorted(seat_of)]


def number_of(table: Table, seat: int) -> int:
    """The seat's number as the lobby gave it (a bot player's name, ``Бот №N``): the person's seat in
    deal 1 where the people move, else the seat itself; counted from 0."""
    m = table.match
    if m is None or not rotates(table):
        return seat
    person = Rules.parse(table.rules).seating(m.deal_no)[seat]
    return seat if person is None else person


def entry_seated(table: Table, rules: Rules, deal_no: int) -> Table:
    """A history entry's stand-in ``table`` (its seats as in deal 1, :mod:`bot.stats.entry`) as seated
    in deal ``deal_no``."""
    if not rules.blind_rotates or deal_no == 1:
        return table
    return table.model_copy(update={"seats": _moved(table.seats, _moves(rules, 1, deal_no))})
