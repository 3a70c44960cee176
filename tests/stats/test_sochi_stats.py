"""3-person ``sochi`` in the standings and achievements (RULES.md §5): individual scores, so each
person's own result counts — the goat is a person, everyone else won — and the partnerships of one
deal are no pair."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.engine.record import match_result
from bot.stats.achievements import earned_in
from bot.stats.counting import chat_counts
from bot.stats.entry import Meta, Player, make_entry, meta_of
from bot.stats.facts import facts_of

RECORDS = Path(__file__).resolve().parents[1] / "records"
PEOPLE = ("Аня", "Борис", "Вера")


def _entry() -> tuple[dict[str, Any], dict[str, Any]]:
    record: dict[str, Any] = json.loads((RECORDS / "sochi_match_brag_rotation.json").read_text())
    seats = [Player(kind="human", name=n, user_id=100 + i) for i, n in enumerate(PEOPLE)]
    return record, make_entry(record, Meta(id="s1", chat_id=-1001, at=1_796_000_000.0, seats=seats))


def test_sochi_match_counts_each_persons_own_result_and_no_pairs() -> None:
    record, entry = _entry()
    result = match_result(record)
    assert result["goats"] == [1] and result["scores"] == [6, 12, 6]
    meta = meta_of(entry)
    assert meta is not None
    facts = facts_of(entry, meta)
    assert facts.figures["u101"]["goat"] == 1 and facts.figures["u101"]["won"] == 0
    for key in ("u100", "u102"):
        assert facts.figures[key]["won"] == 1 and facts.figures[key]["goat"] == 0
    assert all(f["played"] == 1 for f in facts.figures.values())
    assert facts.pairs == []  # sides formed for one deal are no pair
    assert facts.outcome == {"u100": (True, None), "u101": (False, None), "u102": (True, None)}
    assert not any(k.startswith("p|") for k in chat_counts(facts))


def test_sochi_first_goat_is_earned_by_the_goat_alone() -> None:
    _, entry = _entry()
    meta = meta_of(entry)
    assert meta is not None
    earned = earned_in(facts_of(entry, meta), meta)
    assert {k for k, ids in earned.items() if "first_goat" in ids} == {"u101"}
    # Nobody ended at 0, so nobody won clean.
    assert not any("clean_win" in ids for ids in earned.values())
