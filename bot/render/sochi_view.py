"""What 3-person ``sochi`` shows apart from pair games (RULES.md §5): the talon face up until the lone
player takes it, who plays alone this deal, and each person's own score, tally and result.

The sides are formed per deal (``Deal.pair_of``: the lone player is side 0, the other two side 1), so a
side's names come from the deal, never from fixed pairs; the match's figures are per person
(``MatchState.scores``, by seat) and the goat is a person (``MatchState.goats``).
"""

from __future__ import annotations

from typing import Any

from bot.engine import GOAT_WITH_DRIVERS, Deal, DealResult, Phase
from bot.render.i18n import Tr
from bot.render.words import cards_text, seat_name, side_names, suit_text, tally_text
from bot.storage import Table
from bot.table.game import replay, target_of


def header_lines(tr: Tr, table: Table, deal: Deal) -> list[str]:
    """Deal number, dealer, trump, each person's score, and the talon and the lone player."""
    m = table.match
    assert m is not None
    lines = [
        tr("table.title", n=deal.deal_no, dealer=seat_name(tr, table, deal.dealer)),
        tr("table.trump", suit=suit_text(tr, deal.trump)),
        scores_line(tr, table, m.scores),
    ]
    return lines + talon_lines(tr, table, deal)


def scores_line(tr: Tr, table: Table, scores: list[int]) -> str:
    """``Штрафные: Аня 4 · Борис 0 · Вера 2``."""
    shown = scores or [0] * len(table.seats)
    each = " · ".join(f"{seat_name(tr, table, s)} {n}" for s, n in enumerate(shown))
    return tr("sochi.scores", scores=each)


def talon_lines(
    tr: Tr, table: Table, deal: Deal, *, lone_line: bool = True, reader: int | None = None
) -> list[str]:
    """The talon face up until the lone player has taken it (his discard made), and (``lone_line``)
    who plays alone this deal with the tricks of each side; ``reader``: the seat whose DM this is
    (the lone player is told he takes it, not his own name)."""
    t = deal.talon
    if not t.talon:
        return []
    if t.lone is None:  # the ♣Q in the talon (the deal is void) or not yet formed
        return [tr("sochi.talon", cards=cards_text(tr, t.talon))]
    lone = seat_name(tr, table, t.lone)
    lines = []
    if deal.phase is Phase.DISCARD and reader == t.lone:
        lines.append(tr("sochi.talon_yours", cards=cards_text(tr, t.talon)))
    elif deal.phase is Phase.DISCARD:
        lines.append(tr("sochi.talon_taking", cards=cards_text(tr, t.talon), name=lone))
    if not lone_line:
        return lines
    lines.append(
        tr(
            "sochi.lone",
            name=lone,
            pair=side_names(tr, table, deal.pair_of, 1),
            tl=deal.tricks_won[0],
            tp=deal.tricks_won[1],
        )
    )
    return lines


def summary_lines(tr: Tr, table: Table, deal: Deal, index: int, why: str) -> list[str]:
    """A finished deal's points and penalty by side (named from this deal's sides; none for a void
    deal), then each person's total after it with his tally."""
    result = deal.result
    assert result is not None
    if result.void:  # no sides played it out and nobody is charged: the event line says why
        return _tally_lines(tr, table, index)
    lines = []
    lone, pair = side_names(tr, table, result.pair_of, 0), side_names(tr, table, result.pair_of, 1)
    if deal.talon.lone is not None:  # the talon was shown to all: the summary names it again
        lone_name = seat_name(tr, table, deal.talon.lone)
        lines.append(tr("sochi.lone_was", name=lone_name, cards=cards_text(tr, deal.talon.talon)))
    lines.append(tr("summary.points", a=lone, b=pair, pa=result.points[0], pb=result.points[1]))
    for side, names in ((0, lone), (1, pair)):
        n = result.penalty[side]
        if n:
            lines.append(
                tr("summary.penalty", names=names, n=n, why=why)
                if why
                else tr("summary.penalty_only", names=names, n=n)
            )
    return [*lines, *_tally_lines(tr, table, index)]


def _tally_lines(tr: Tr, table: Table, index: int) -> list[str]:
    """A blank line, then each person's total after the deal at ``index`` with his tally."""
    lines = [""]
    for seat, total in enumerate(scores_until(table, index)):
        tally = tally_text(total, target_of(table))
        lines.append(tr("summary.tally", names=seat_name(tr, table, seat), n=total, tally=tally))
    return lines


def scores_until(table: Table, index: int) -> list[int]:
    """Each person's penalty after the deal at ``index`` of the match's finished deals (by seat)."""
    assert table.match is not None
    total = [0] * len(table.seats)
    for record in table.match.deals[: index + 1]:
        result: DealResult | None = replay(record).result
        assert result is not None
        if not result.void:
            for seat in range(len(total)):
                total[seat] += result.charged(seat)
    return total


def match_over_lines(tr: Tr, table: Table) -> list[str]:
    """Every person's total, the goat(s) and the title."""
    m = table.match
    assert m is not None
    if not m.goats:
        return [tr("match.unfinished")]
    goats = ", ".join(seat_name(tr, table, g) for g in m.goats)
    key = "sochi.goat_drivers" if m.title == GOAT_WITH_DRIVERS else "sochi.goat"
    return [tr.n(key, len(m.goats), names=goats), scores_line(tr, table, m.scores)]


def hand_score_line(tr: Tr, table: Table, deal: Deal, seat: int) -> str:
    """A person's DM: his score and the others', and whom he plays with (or that he plays alone)."""
    m = table.match
    assert m is not None
    lone = deal.talon.lone
    score = scores_line(tr, table, m.scores)
    if lone is None:
        return score
    # Tricks only: the lone side's points hold his discards, which nobody else may learn.
    us = deal.pair_of[seat]
    tricks = tr("sochi.hand_tricks", us=deal.tricks_won[us], them=deal.tricks_won[1 - us])
    if lone == seat:
        pair = side_names(tr, table, deal.pair_of, 1)
        return tr("sochi.hand_alone", scores=score, pair=pair, tricks=tricks)
    mate = next(s for s in range(deal.n) if s not in (seat, lone))
    partner, alone = seat_name(tr, table, mate), seat_name(tr, table, lone)
    return tr("sochi.hand_with", scores=score, partner=partner, lone=alone, tricks=tricks)


def replay_result_line(tr: Tr, table: Table, result: DealResult) -> str:
    """The replay viewer's last step of a sochi deal: points and penalty by this deal's sides."""
    return tr(
        "replay.result",
        a=side_names(tr, table, result.pair_of, 0),
        b=side_names(tr, table, result.pair_of, 1),
        pa=result.points[0],
        pb=result.points[1],
        qa=result.penalty[0],
        qb=result.penalty[1],
    )


def history_result(tr: Tr, table: Table, result: dict[str, Any]) -> str:
    """/history's result of a sochi match (its result JSON): the goat(s) and everyone's total."""
    goats = result.get("goats") or []
    if not goats:
        return tr("history.stopped")
    names = ", ".join(seat_name(tr, table, g) for g in goats)
    totals = ":".join(str(n) for n in result["scores"])
    key = "history.sochi_goat_drivers" if result["title"] == GOAT_WITH_DRIVERS else "history.sochi_goat"
    return tr.n(key, len(goats), names=names, scores=totals)
