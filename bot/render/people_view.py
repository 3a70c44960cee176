"""Texts of a table where every person keeps his own score (``dummy`` with ``blind_rotates``): who
plays with the blind this deal, each person's total, the goat(s). Small functions the table, hand,
summary and ``/score`` views call where a pair game shows the pairs' penalties."""

from __future__ import annotations

from bot.engine import GOAT_WITH_DRIVERS, Match, Rules
from bot.engine.seats import DUMMY_PARTNER
from bot.render.i18n import Tr
from bot.render.words import seat_name, tally_text
from bot.storage import Table
from bot.table.game import replay, target_of
from bot.table.rotation import as_seated, people, rotates


def individual(table: Table) -> bool:
    """Whether the table's people keep their own scores (one tally per person)."""
    return rotates(table)


def partner_lines(tr: Tr, table: Table) -> list[str]:
    """``blind_rotates``: who plays with the blind in the deal in play (seat 1, opposite it)."""
    if not rotates(table):
        return []
    return [tr("rotate.partner", name=seat_name(tr, table, DUMMY_PARTNER))]


def names(tr: Tr, table: Table) -> list[str]:
    """Each person's name, by person."""
    return [seat_name(tr, table, seat) for seat, _ in people(table)]


def scores(table: Table) -> list[int]:
    """Each person's total now (zeros before the first deal is counted)."""
    m = table.match
    assert m is not None
    return list(m.scores) or [0] * len(people(table))


def scores_until(table: Table, index: int) -> list[int]:
    """Each person's total after the finished deal at ``index`` of the match."""
    m = table.match
    assert m is not None
    rules = Rules.parse(table.rules)
    match = Match(rules, dealer=m.first_dealer)
    for record in m.deals[: index + 1]:
        result = replay(record, rules).result
        assert result is not None
        match.add(result)
    return list(match.scores)


def totals_text(tr: Tr, table: Table, totals: list[int]) -> str:
    """``Аня 4, Борис 0, Вера 6``."""
    return ", ".join(tr("rotate.total", name=n, n=t) for n, t in zip(names(tr, table), totals, strict=True))


def scores_line(tr: Tr, table: Table) -> str:
    """Each person's penalty so far, on one line (the table and hand messages)."""
    return tr("rotate.scores", totals=totals_text(tr, table, scores(table)))


def tally_lines(tr: Tr, table: Table, totals: list[int]) -> list[str]:
    """One tally per person: ``Аня: 4 ⚅●●○ ⚅○○○``."""
    return [
        tr("summary.tally", names=name, n=n, tally=tally_text(n, target_of(table)))
        for name, n in zip(names(tr, table), totals, strict=True)
    ]


def goat_line(tr: Tr, table: Table) -> str | None:
    """The goat(s) and every person's total once the match is over, else ``None``."""
    m = table.match
    assert m is not None
    if not m.goats:
        return None
    key = "match.goat_drivers_people" if m.title == GOAT_WITH_DRIVERS else "match.goat_people"
    return tr(key, names=goat_names(tr, table), totals=totals_text(tr, table, scores(table)))


def goat_names(tr: Tr, table: Table) -> str:
    """The goat(s) by name (the eggs' lines name who draws them)."""
    m = table.match
    assert m is not None
    every = names(tr, table)
    goats = [every[p] for p in m.goats]
    # Two at most: one deal charges one side, and a side has two people at most.
    return goats[0] if len(goats) == 1 else tr("pair.names", a=goats[0], b=goats[-1])


def started_text(tr: Tr, table: Table, rules: str) -> str:
    """The lobby once the match starts: who plays, who plays with the blind first, that it passes on."""
    first = as_seated(table, 1)
    return tr(
        "lobby.started_people",
        names=", ".join(names(tr, first)),
        first=seat_name(tr, first, DUMMY_PARTNER),
        rules=rules,
    )
