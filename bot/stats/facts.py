"""What one finished match adds to the standings, from its record alone (pure, no I/O).

Per player (a person by user id, a bot player by level): matches played and won, times goat and
goat with drivers, ♣Q caught (played the top trump that caught the opponents' ♣Q) and lost (the ♣Q
played into that trick), and шестаки given (the deal charged the other pair a шестак). Per pair of
people who partnered: a match together, and whether they won it. A stopped match (no goat) adds
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.engine import GOAT_WITH_DRIVERS, Deal
from bot.engine.cards import Card
from bot.engine.record import match_result, replay_deal
from bot.engine.rules import Rules
from bot.engine.scoring import NO_TRICKS, SHESTAK
from bot.stats.entry import Meta, record_of

#: The figures kept for every player, in the order the standings show them.
FIGURES = ("played", "won", "goat", "drivers", "caught", "lost", "shestak")
_QC = Card.parse("QC")


@dataclass
class MatchFacts:
    """The figures one match adds: per player, per pair of partners (people only), and who won."""

    figures: dict[str, dict[str, int]] = field(default_factory=dict)
    #: (key, key) sorted, and whether the pair won the match.
    pairs: list[tuple[str, str, bool]] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    #: Per person: won the match (for the streak), and the partner's key (None with individual scores:
    #: partnerships formed for one deal are no pair; None for a blind's partner: a blind is nobody).
    outcome: dict[str, tuple[bool, str | None]] = field(default_factory=dict)
    #: The match's result as ``python -m bot.engine.replay`` prints it (None for a stopped match).
    result: dict[str, Any] | None = None
    #: The rules it was played by, its deals replayed and each seat's pair (for
    #: :mod:`bot.stats.achievements`).
    rules: Rules | None = None
    deals: list[Deal] = field(default_factory=list)
    pair_of: tuple[int, ...] = ()


def facts_of(entry: dict[str, Any], meta: Meta) -> MatchFacts:
    """The figures of a finished match (empty for a stopped one, or one without a seat per player)."""
    out = MatchFacts()
    record = record_of(entry)
    if not meta.finished or not record.get("deals"):
        return out
    if Rules.parse(record["rules"]).individual_scores:
        return _individual_facts(record, meta)
    if len(meta.seats) != 4:
        return out
    result = match_result(record)
    loser = result.get("loser")  # none where every person keeps his own score: no pairs to count
    if loser is None:
        return out
    rules = Rules.parse(record["rules"])
    # The figures counted do not depend on the multiplier (flip's eggs): each deal replays alone.
    deals = [replay_deal(d, rules) for d in record["deals"]]
    pair_of = deals[0].pair_of
    out.result, out.rules, out.deals, out.pair_of = result, rules, deals, tuple(pair_of)
    seats = meta.seats
    blinds = rules.blind_seats  # nobody: a blind adds to no one's figures and is no one's partner
    for s, player in enumerate(seats):
        if s in blinds:
            continue
        f = dict.fromkeys(FIGURES, 0)
        f["played"] = 1
        lost_match = pair_of[s] == loser
        f["won"] = int(not lost_match)
        f["goat"] = int(lost_match)
        f["drivers"] = int(lost_match and result["title"] == GOAT_WITH_DRIVERS)
        for deal in deals:
            _count_deal(deal, s, f)
        _add(out.figures.setdefault(player.key, dict.fromkeys(FIGURES, 0)), f)
        out.names[player.key] = player.name
    for a, b in ((0, 2), (1, 3)):
        pa, pb = seats[a], seats[b]
        won = pair_of[a] != loser
        if pa.is_person and pb.is_person and pa.key != pb.key:
            x, y = sorted((pa.key, pb.key))
            out.pairs.append((x, y, won))
        for (me, i), (partner, j) in (((pa, a), (pb, b)), ((pb, b), (pa, a))):
            if me.is_person and i not in blinds:
                out.outcome[me.key] = (won, None if j in blinds else partner.key)
    return out


def _individual_facts(record: dict[str, Any], meta: Meta) -> MatchFacts:
    """:func:`facts_of` with individual scores (3-person ``sochi``; ``dummy`` with ``blind_rotates``):
    each person's own result — a goat is a person, everyone else won — and no pairs (the sides change
    every deal). Person ``p`` is the entry's seat ``p`` (the seats of deal 1); each deal is counted for
    whoever sat where in it (``Rules.seating``: sochi's people stay put, ``blind_rotates``' move)."""
    out = MatchFacts()
    result = match_result(record)
    goats = result.get("goats") or []
    rules = Rules.parse(record["rules"])
    people = sorted({p for p in rules.seating(1) if p is not None})
    if not goats or len(meta.seats) < len(people):
        return out
    deals = [replay_deal(d, rules) for d in record["deals"]]
    out.result, out.rules, out.deals = result, rules, deals
    figures = {p: dict.fromkeys(FIGURES, 0) for p in people}
    for deal in deals:
        for s, p in enumerate(rules.seating(deal.deal_no)):
            if p is not None:
                _count_deal(deal, s, figures[p])  # each deal's own sides (Deal.pair_of)
    for p in people:
        player, f, goat = meta.seats[p], figures[p], p in goats
        f["played"], f["won"], f["goat"] = 1, int(not goat), int(goat)
        f["drivers"] = int(goat and result["title"] == GOAT_WITH_DRIVERS)
        _add(out.figures.setdefault(player.key, dict.fromkeys(FIGURES, 0)), f)
        out.names[player.key] = player.name
        if player.is_person:
            out.outcome[player.key] = (not goat, None)
    return out


def _count_deal(deal: Deal, seat: int, f: dict[str, int]) -> None:
    result = deal.result
    if result is None or result.void:
        return
    if "queen_caught" in result.events and result.tricks and deal.tables is not None:
        last = result.tricks[-1]
        top = deal.tables.top
        for s, c in last.plays:
            if s == seat and c == top:
                f["caught"] += 1
            if s == seat and c == _QC:
                f["lost"] += 1
    # A шестак, or in ``tricks`` its like (no trick taken: charged 6), given by the other pair.
    six = SHESTAK in result.events or NO_TRICKS in result.events
    if six and result.loser is not None and deal.pair_of[seat] != result.loser:
        f["shestak"] += 1


def _add(into: dict[str, int], f: dict[str, int]) -> None:
    for k, v in f.items():
        into[k] = into.get(k, 0) + v
