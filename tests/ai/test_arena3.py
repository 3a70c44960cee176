"""The three-person arena (``sochi``): every level sits at every seat equally often on the same cards."""

from __future__ import annotations

import json
from collections import Counter

from bot.engine import Rules
from bot.engine.arena3 import SEATINGS, main, play_deck, run


def test_sochi_arena_seatings_put_each_level_at_every_seat_equally_often() -> None:
    assert len(SEATINGS) == 6 and len(set(SEATINGS)) == 6
    for seat in range(3):
        assert Counter(s[seat] for s in SEATINGS) == {"a": 3, "b": 3}
    assert Counter(x for s in SEATINGS for x in s) == {"a": 9, "b": 9}


def test_sochi_arena_charges_each_person_his_sides_penalty() -> None:
    r = play_deck(Rules.make("sochi"), {"a": "random", "b": "random"}, seed=2, k=0)
    assert r["slots"] == {"a": 9, "b": 9}
    assert r["lone"]["a"] + r["lone"]["b"] <= 6


def test_sochi_arena_summary_and_cli() -> None:
    s = run(Rules.make("sochi"), {"a": "easy", "b": "random"}, decks=4, seed=1)
    assert s["decks"] == 4
    lo, hi = s["ci95"]
    assert lo <= s["margin_per_deal"] <= hi
    assert abs(s["margin_per_deal"] - (s["penalty_per_person_b"] - s["penalty_per_person_a"])) < 0.01
    again = run(Rules.make("sochi"), {"a": "easy", "b": "random"}, decks=4, seed=1)
    assert again == s


def test_sochi_arena_cli_prints_one_json_line(capsys: object) -> None:
    assert main(["--a", "random", "--b", "random", "--deals", "2"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    line = json.loads(out)
    assert line["preset"] == "sochi" and line["decks"] == 2


def test_the_pair_arena_sends_three_seat_presets_to_arena3(capsys: object) -> None:
    import pytest

    from bot.engine.arena import main as pair_main

    with pytest.raises(SystemExit):
        pair_main(["--a", "random", "--b", "random", "--preset", "sochi", "--deals", "1"])
    assert "bot.engine.arena3" in capsys.readouterr().err  # type: ignore[attr-defined]
