"""The three-person arena (``sochi``, ``dummy``, ``dummy`` with ``blind_rotates``): every level plays
every role equally often on the same cards, and is charged what the deals' results say."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bot.engine import Rules
from bot.engine.result import DealResult
from bot.measure.arena3 import DEAL_NUMBERS, SEATINGS, main, play_deck, run, seat_levels

DUMMY = Rules.make("dummy")
ROTATING = Rules.make("dummy", blind_rotates=True)


def test_sochi_arena_seatings_put_each_level_at_every_seat_equally_often() -> None:
    assert len(SEATINGS) == 6 and len(set(SEATINGS)) == 6
    for seat in range(3):
        assert Counter(s[seat] for s in SEATINGS) == {"a": 3, "b": 3}
    assert Counter(x for s in SEATINGS for x in s) == {"a": 9, "b": 9}


def test_sochi_arena_charges_each_person_his_sides_penalty() -> None:
    r = play_deck(Rules.make("sochi"), {"a": "random", "b": "random"}, seed=2, k=0)
    assert r["slots"] == {"a": 9, "b": 9}
    lone = r["roles"]["a"]["lone"] + r["roles"]["b"]["lone"]
    assert lone == sum(not result.void for _, result in r["plays"])  # one lone player per played deal


def test_sochi_arena_summary_and_cli() -> None:
    s = run(Rules.make("sochi"), {"a": "easy", "b": "random"}, decks=4, seed=1)
    assert s["decks"] == 4
    lo, hi = s["ci95"]
    assert lo <= s["margin_per_deal"] <= hi
    assert abs(s["margin_per_deal"] - (s["penalty_per_person_b"] - s["penalty_per_person_a"])) < 0.01
    again = run(Rules.make("sochi"), {"a": "easy", "b": "random"}, decks=4, seed=1)
    assert untimed(again) == untimed(s)  # the same play; only the clock differs


def untimed(summary: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in summary.items() if not k.startswith("time_ms_")}


def test_arena3_reports_each_levels_decision_times_as_the_pair_arena_does() -> None:
    """Every decision of a deck is timed for the level taking it, and the summary gives each level's
    count, median, p95 and max in ms, as ``python -m bot.measure.arena`` does."""
    deck = play_deck(Rules.make("sochi"), {"a": "easy", "b": "random"}, seed=2, k=0)
    s = run(Rules.make("sochi"), {"a": "easy", "b": "random"}, decks=1, seed=2)  # that deck alone
    for side in ("a", "b"):
        t = s[f"time_ms_{side}"]
        assert t["n"] == len(deck["times"][side]) > 0
        assert 0 <= t["median"] <= t["p95"] <= t["max"]


def test_sochi_arena_cli_prints_one_json_line(capsys: object) -> None:
    assert main(["--a", "random", "--b", "random", "--deals", "2"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    line = json.loads(out)
    assert line["preset"] == "sochi" and line["decks"] == 2


def test_the_pair_arena_sends_three_seat_presets_to_arena3(capsys: object) -> None:
    import pytest

    from bot.measure.arena import main as pair_main

    with pytest.raises(SystemExit):
        pair_main(["--a", "random", "--b", "random", "--preset", "sochi", "--deals", "1"])
    assert "bot.measure.arena3" in capsys.readouterr().err  # type: ignore[attr-defined]


@pytest.mark.parametrize("rules", [DUMMY, ROTATING], ids=["dummy", "blind_rotates"])
def test_dummy_arena_seats_each_level_in_every_role_equally_often_whatever_the_deal(rules: Rules) -> None:
    for deal_no in range(1, DEAL_NUMBERS + 1):
        plays = [tuple(seat_levels(rules, s, deal_no)) for s in SEATINGS]
        # Whatever seat the people sit at in this deal, the six plays are plain dummy's six seatings.
        assert sorted(plays) == sorted(tuple(seat_levels(DUMMY, s, 1)) for s in SEATINGS)
        for seat in range(3):
            assert Counter(p[seat] for p in plays) == {"a": 3, "b": 3}
        # The blind's brag decisions are its partner's (seat 1, the blind's owner).
        assert all(p[3] == p[1] for p in plays)


def _people_charges(rules: Rules, result: DealResult) -> int:
    """What the deal's result charges its people all told: each side's penalty once per person in it."""
    if result.void:
        return 0
    people = [s for s in range(rules.seats) if s not in rules.blind_seats]
    per_side = Counter(result.pair_of[s] for s in people)
    return sum(result.penalty[side] * n for side, n in per_side.items())


@pytest.mark.parametrize(
    "rules", [DUMMY, ROTATING, Rules.make("sochi")], ids=["dummy", "blind_rotates", "sochi"]
)
def test_three_person_arena_charges_the_people_what_the_deals_results_say(rules: Rules) -> None:
    people = [s for s in range(rules.seats) if s not in rules.blind_seats]
    for k in (0, 3, 4):  # deal 1 (no brag) and brag deals; in dummy deck 3 is dealt by the blind
        r = play_deck(rules, {"a": "easy", "b": "random"}, seed=3, k=k)
        assert r["slots"] == {"a": 9, "b": 9}
        assert len(r["plays"]) == 6
        total = sum(_people_charges(rules, result) for _, result in r["plays"])
        assert r["charged"]["a"] + r["charged"]["b"] == total
        # Level A's people are those the play seated A at, wherever blind_rotates moved them.
        a_charged = sum(
            result.penalty[result.pair_of[s]]
            for sides, result in r["plays"]
            if not result.void
            for s in people
            if sides[s] == "a"
        )
        assert r["charged"]["a"] == a_charged
        if rules.preset == "dummy":
            assert r["roles"]["a"] == r["roles"]["b"] == {"pair": 6, "blind_owner": 3}
            # Seat 1 and the blind are one side: a seat-1 person of level X carries the blind's penalty.
            for sides, result in r["plays"]:
                assert result.pair_of[1] == result.pair_of[3] != result.pair_of[0] == result.pair_of[2]
                assert sides[3] == sides[1]


def test_blind_rotates_moves_the_people_but_not_the_levels_roles() -> None:
    # Deal 2: the people have moved one seat, so person 2 (level A alone) owns the blind.
    assert ROTATING.seating(2)[1] == 2 and DUMMY.seating(2)[1] == 1
    assert seat_levels(ROTATING, ("b", "b", "a"), 2) == ["b", "a", "b", "a"]
    s = run(ROTATING, {"a": "easy", "b": "random"}, decks=3, seed=1)
    assert s["roles_a"] == s["roles_b"] == {"blind_owner": 9, "pair": 18}
    assert "lone_share_a" not in s


def test_dummy_arena_cli_takes_the_preset_and_options(capsys: object) -> None:
    argv = [
        "--preset",
        "dummy",
        "--option",
        "blind_rotates=true",
        "--a",
        "random",
        "--b",
        "random",
        "--deals",
        "2",
    ]
    assert main(argv) == 0
    line = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert line["preset"] == "dummy" and line["options"] == {"blind_rotates": True}
    assert line["roles_a"] == {"blind_owner": 6, "pair": 12}


def test_arena3_reads_budgets_on_the_cpu_clock_and_reports_progress(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "p.json"
    args = ["--a", "tests.ai.players:tiny_medium", "--b", "easy", "--deals", "2", "--seed", "3"]
    code = main([*args, "--clock", "cpu", "--progress", str(out)])
    assert code == 0
    partial = json.loads(out.read_text())
    assert partial["clock"] == "cpu" and partial["decks"] == 2 and partial["preset"] == "sochi"
