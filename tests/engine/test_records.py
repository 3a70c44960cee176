"""Deal records (RULES.md §7) as golden files: replays reproduce the hand-checked results."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.engine import Deal, RecordError, Rules, result_of
from bot.engine.record import dumps
from tests.engine.helpers import play_out

RECORDS = Path(__file__).resolve().parents[1] / "records"
GOLDEN = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json"))
ROOT = Path(__file__).resolve().parents[2]

# The trump orders exactly as RULES.md prints them, for an independent check of every trick: the
# permanent trumps by deck size (♣6 on top with 36 cards, ♣7 with 32).
PERMANENT = {36: "6C QC QS QH QD JC JS JH JD", 32: "7C QC QS QH QD JC JS JH JD"}
DRAW_LOW_TO_HIGH = "8C 9C KC TC AC JD JH JS JC QD QH QS QC 7C"
TRICKS_TRUMPS = "6C JC JS JH JD AC TC KC QC 9C 8C 7C"
PLAIN = "A T K 9 8 7 6"
#: ``tricks``: the queens but the ♣Q are plain cards, under the king.
PLAIN_TRICKS = "A T K Q 9 8 7 6"


def _deck_size(rules: dict[str, Any]) -> int:
    default = 36 if rules["preset"] in ("classic", "dummy", "two_dummies") else 32
    size: int = rules.get("options", {}).get("deck", default)
    return size


def _trumps(preset: str, trump: str, deck: int) -> list[str]:
    if preset == "draw":
        return DRAW_LOW_TO_HIGH.split()[::-1]
    if preset == "tricks":
        return TRICKS_TRUMPS.split()
    top = PERMANENT[deck].split()
    return top + [r + trump for r in PLAIN.split() if r + trump not in top and (deck == 36 or r != "6")]


def _naive_winner(
    plays: list[list[Any]], preset: str, trump: str, deck: int, open_seat: int | None = None
) -> int:
    """The winner by RULES.md's printed orders; the open hand's cards never win."""
    order = _trumps(preset, trump, deck)
    trumps = [(order.index(c), s) for s, c in plays if c in order and s != open_seat]
    if trumps:
        return min(trumps)[1]
    led = plays[0][1][1]
    plain = (PLAIN_TRICKS if preset == "tricks" else PLAIN).split()
    return min((plain.index(c[0]), s) for s, c in plays if c[1] == led and s != open_seat)[1]


def _open_seats(record: dict[str, Any]) -> list[int | None]:
    """Per deal, the open hand after an exchange: the partner of the seat that gave non-trumps."""
    deals = record.get("deals", [record])
    out: list[int | None] = []
    for d in deals:
        gave = [m["seat"] for m in d["moves"] if "exchange_give" in m]
        out.append((gave[0] + 2) % 4 if gave else None)
    return out


def _deal_results(expected: dict[str, Any]) -> list[dict[str, Any]]:
    deals: list[dict[str, Any]] = expected.get("deals", [expected])
    return deals


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_record_replays_to_its_expected_result(path: Path) -> None:
    record = json.loads(path.read_text(encoding="utf-8"))
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text(encoding="utf-8"))
    if "refused" in expected:
        with pytest.raises(RecordError) as err:
            result_of(record)
        assert str(err.value) == expected["refused"] and err.value.index == expected["index"]
        return
    assert result_of(record) == expected
    preset, size = record["rules"]["preset"], _deck_size(record["rules"])
    for deal_rec, deal in zip(record.get("deals", [record]), _deal_results(expected), strict=True):
        _check_blinds(preset, deal_rec, deal)
    for deal, open_seat in zip(_deal_results(expected), _open_seats(record), strict=True):
        for trick in deal["tricks"]:
            if trick["winner"] is not None:
                naive = _naive_winner(trick["plays"], preset, deal["trump"], size, open_seat)
                assert trick["winner"] == naive
        if deal["tricks"] and "queen_caught" not in deal["events"]:
            assert sum(deal["points"]) == 120
            won = [0, 0]
            lone = deal.get("lone")  # sochi: side 0 is the lone player, whose discards count for him
            for trick in deal["tricks"]:
                side = trick["winner"] % 2 if lone is None else int(trick["winner"] != lone)
                won[side] += sum(_points(c) for _, c in trick["plays"])
            if lone is not None:
                won[0] += sum(_points(c) for c in deal["discards"])
            assert won == deal["points"]


#: The blinds' seats as RULES.md §5 seats them (a person opposite each).
BLINDS = {"dummy": (3,), "two_dummies": (2, 3)}


def _check_blinds(preset: str, record: dict[str, Any], result: dict[str, Any]) -> None:
    """A blind's card is never a move; in a deal dealt one card at a time it plays its cards in the
    order dealt (every fourth card of the deck from its place after the dealer)."""
    blinds = BLINDS.get(preset, ())
    assert not any(m["seat"] in blinds and "play" in m for m in record["moves"])
    if record.get("deal_no", 1) != 1:
        return
    for seat in blinds:
        k = (seat - record["dealer"] - 1) % 4
        dealt = record["deck"][k::4]
        played = [c for t in result["tricks"] for s, c in t["plays"] if s == seat]
        assert played == dealt[: len(played)]


def _points(code: str) -> int:
    return {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}.get(code[0], 0)


def test_golden_records_cover_the_required_events() -> None:
    events: dict[str, set[str]] = {}
    for path in GOLDEN:
        expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text(encoding="utf-8"))
        if "refused" in expected:
            continue
        rules = json.loads(path.read_text(encoding="utf-8"))["rules"]
        kinds = [rules["preset"], f"{rules['preset']}{_deck_size(rules)}"]
        for deal in _deal_results(expected):
            for kind in kinds:
                events.setdefault(kind, set()).update(deal["events"])
    assert {"queen_caught", "redeal", "eggs", "cherpak", "brag_won", "brag_lost", "exchange"} <= events[
        "classic"
    ]
    assert {"exchange", "exchange_refused", "brag_mirror"} <= events["classic"]
    assert {"queen_caught", "swap", "deal_passes", "eggs", "doubled"} <= events["flip"]
    assert {"queen_caught", "last_card_swap"} <= events["draw"]
    assert {"queen_caught", "swap", "deal_passes", "declared_C", "eggs", "doubled"} <= events["flip36"]
    assert {"under_five", "two_or_fewer", "no_tricks", "all_tricks"} <= events["tricks"]
    assert {"brag_won", "brag_lost"} <= events["sochi4"]
    assert {"talon_queen", "queen_caught", "brag_won", "brag_lost", "para"} <= events["sochi"]
    assert {"queen_caught", "brag_won", "para"} <= events["dummy"]
    assert {"queen_caught", "brag_won"} <= events["two_dummies"]


@pytest.mark.parametrize("preset", ["classic", "flip", "draw", "tricks", "sochi4", "dummy", "two_dummies"])
def test_every_finished_deal_produces_a_replayable_record(preset: str) -> None:
    for seed in range(30):
        rng = random.Random(seed)
        deal = play_out(Deal.shuffled(Rules.make(preset), rng, dealer=seed % 4), rng)
        assert deal.result is not None
        assert result_of(deal.record()) == deal.result.to_json()


def test_record_refuses_a_bad_move_with_its_index() -> None:
    rec = json.loads((RECORDS / "draw_queen_caught.json").read_text(encoding="utf-8"))
    for bad_move, reason in [
        ({"seat": 0, "play": "8C"}, "move 0: seat 0 cannot play 8C: a trump may not be led"),
        ({"seat": 5, "play": "AS"}, "move 0: 'seat' must be a seat 0-3"),
        ({"seat": 0, "play": "AS", "swap": True}, "move 0: a move has 'seat' and exactly one of"),
        ({"seat": 0, "dance": 1}, "move 0: unknown move 'dance'"),
        ({"seat": 0, "play": "ZZ"}, "move 0: not a card code"),
        ({"seat": 0, "swap": True}, "move 0: seat 0 cannot swap True: seat 0 is to play"),
    ]:
        with pytest.raises(RecordError, match=reason.replace("(", r"\(")) as err:
            result_of({**rec, "moves": [bad_move]})
        assert err.value.index == 0
    with pytest.raises(RecordError, match="move 3: the deal is already over"):
        result_of({**rec, "moves": [*rec["moves"], {"seat": 3, "play": "8S"}]})
    with pytest.raises(RecordError, match="malformed record"):
        result_of({"rules": rec["rules"], "dealer": 0})
    with pytest.raises(RecordError, match="unknown option"):
        result_of({**rec, "rules": {"preset": "draw", "options": {"deck": 36}}})


def test_match_record_refuses_a_dealer_out_of_turn() -> None:
    rec = json.loads((RECORDS / "draw_match_goat.json").read_text(encoding="utf-8"))
    rec["deals"][1]["dealer"] = (rec["deals"][1]["dealer"] + 1) % 4
    with pytest.raises(RecordError, match="deal 1: deal_no 2 dealt by seat") as err:
        result_of(rec)
    assert err.value.index == 1


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.engine.replay", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def test_replay_cli_prints_the_result() -> None:
    path = RECORDS / "flip_doubled_match.json"
    out = _cli(str(path))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads(
        path.with_suffix("").with_suffix(".expected.json").read_text()
    )
    assert out.stdout == dumps(json.loads(out.stdout)) + "\n"


def test_replay_cli_refuses_with_index_and_nonzero_exit() -> None:
    out = _cli(str(RECORDS / "refused_illegal_move.json"))
    assert out.returncode == 1 and "refused: move 1:" in out.stderr and out.stdout == ""
    out = _cli("-", stdin="{not json")
    assert out.returncode == 2 and "cannot read" in out.stderr


def test_bench_cli_prints_one_json_line_per_preset() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bot.measure.engine_bench", "--deals", "30", "--runs", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["preset"] for line in lines] == ["classic", "classic_brag", "flip", "draw", "tricks"]
    assert all(line["deals_per_s"] > 0 and line["api_deals_per_s"] > 0 for line in lines)


def test_bench_cli_times_the_solver_per_preset() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.measure.engine_bench",
            "--solver",
            "12",
            "--positions",
            "8",
            "--preset",
            "flip",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    (line,) = [json.loads(line) for line in out.stdout.splitlines()]
    assert line["preset"] == "flip" and line["solver_left"] == 12 and line["positions"] == 8
    assert 0 < line["median_ms"] <= line["p95_ms"] <= line["max_ms"] and line["nodes_per_s"] > 0
