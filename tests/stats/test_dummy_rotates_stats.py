"""``dummy`` with ``blind_rotates`` in the standings and achievements (RULES.md §5): every person keeps
their own score and moves a seat each deal, so each deal counts for whoever sat where in it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.engine.record import match_result
from bot.stats.achievements import earned_in
from bot.stats.counting import chat_counts
from bot.stats.entry import Meta, Player, make_entry, meta_of, record_of
from bot.stats.facts import facts_of

RECORDS = Path(__file__).resolve().parents[1] / "records"
PEOPLE = ("Аня", "Борис", "Вера")


def _entry() -> dict[str, Any]:
    record: dict[str, Any] = json.loads((RECORDS / "dummy_match_blind_rotates.json").read_text())
    # The entry's seats are the people's seats in deal 1; the blind's seat is nobody's.
    seats = [Player(kind="human", name=n, user_id=100 + i) for i, n in enumerate(PEOPLE)] + [
        Player(kind="bot")
    ]
    return make_entry(record, Meta(id="r1", chat_id=-1002, at=1_796_000_000.0, seats=seats))


def test_dummy_blind_rotates_match_counts_each_persons_own_result() -> None:
    entry = _entry()
    result = match_result(record_of(entry))
    assert result["goats"] == [1] and result["scores"] == [2, 8, 2]
    meta = meta_of(entry)
    assert meta is not None
    facts = facts_of(entry, meta)
    assert set(facts.figures) == {"u100", "u101", "u102"}  # the blind is nobody: not counted
    assert facts.figures["u101"]["goat"] == facts.figures["u101"]["drivers"] == 1
    for key in ("u100", "u102"):
        assert facts.figures[key]["won"] == 1 and facts.figures[key]["goat"] == 0
    # Deal 1's caught ♣Q was charged to person 1 alone (4 of his 8): his queen, caught.
    assert facts.figures["u101"]["lost"] == 1
    assert sum(f["lost"] for f in facts.figures.values()) == 1
    assert facts.pairs == [] and not any(k.startswith("p|") for k in chat_counts(facts))
    earned = earned_in(facts, meta)
    assert {k for k, ids in earned.items() if "first_goat" in ids} == {"u101"}
