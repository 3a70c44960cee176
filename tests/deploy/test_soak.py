"""The soak command, short: ten tables for 20 s through two instances killed at random, the bot
players thinking in two worker processes killed at random too; and its checks (stored states, logs,
acknowledged moves, the workers' takeovers) each on a case it must catch."""

from __future__ import annotations

import json
import random
from pathlib import Path

import redis.asyncio as aioredis

from bot.engine import Rules
from bot.measure.soak import run
from bot.measure.soak.check import check_moves, log_errors, log_lines, quantiles, scan, stored_matches
from bot.measure.soak.people import TR, AckedMove
from bot.measure.soak.run import FELL_BACK, TAKEN_OVER
from bot.stats.entry import entry_of
from bot.storage import RedisStorage, Seat, Table
from bot.table import game


async def test_a_short_soak_finishes_deals_with_no_error_no_violation_and_no_move_lost_or_doubled(
    redis_url: str, tmp_path: Path
) -> None:
    # 20 s, or longer on a slow or loaded machine until two restarts, two workers killed and five
    # deals have happened.
    figures = await run(
        10, 20, instances=2, restart_every=6, paced=False, redis_url=redis_url, workdir=tmp_path,
        min_restarts=2, min_deals=5, max_seconds=240, workers=2, kill_worker_every=4, min_worker_kills=2,
    )  # fmt: skip
    summary = json.dumps(figures, ensure_ascii=False)
    assert figures["errors"] == 0, summary
    assert figures["invariant_violations"] == 0, summary
    assert figures["restarts"] >= 2, summary
    # The bot players thought in the workers, killed and replaced meanwhile: every decision was a
    # worker's (one no worker answered in time would have been the instance's, and logged).
    assert figures["workers"] == 2 and figures["worker_kills"] >= 2, summary
    assert figures["decisions_thought_by_instance"] == 0, summary
    assert len(list(tmp_path.glob("worker-*.log"))) == 2, summary
    assert figures["tables_started"] == 10, summary
    assert figures["deals_finished"] >= 5, summary
    assert figures["taps_handled"] >= 50, summary
    # Every alert is listed by its text; none is "try again": the storage was up all along.
    assert sum(figures["alert_texts"].values()) == figures["alerts"], summary
    assert TR("fault.try_again") not in figures["alert_texts"], summary
    # Every move the bot acknowledged is in the stored records, once.
    assert figures["moves_acknowledged"] >= 20, summary
    assert figures["moves_lost"] == 0 and figures["moves_doubled"] == 0, summary
    waits = figures["move_wait_s"]
    # Rounded to 10 ms: on a quiet machine a move is acknowledged in less (p50 0.0 is right there).
    assert 0 <= waits["p50"] <= waits["p95"] <= waits["max"], summary
    # The run's keys are gone: a soak leaves nothing behind.
    client = aioredis.Redis.from_url(redis_url)
    try:
        assert [k async for k in client.scan_iter(match=f"{figures['redis_prefix']}*")] == []
    finally:
        await client.aclose()


def _match(chat_id: int, moves: int) -> Table:
    rng = random.Random(chat_id)
    table = Table(
        table_id="s1",
        chat_id=chat_id,
        creator_id=1,
        rules=Rules.make("classic").to_json(),
        seats=[Seat(kind="human", name=f"P{i}", user_id=i + 1) for i in range(4)],
    )
    game.start_match(table, rng)
    for _ in range(moves):
        deal = game.deal_of(table)
        assert deal is not None and deal.to_act is not None
        game.apply(table, deal.to_act, rng.choice(deal.legal_actions(deal.to_act)), rng)
    return table


async def test_the_scan_counts_deals_and_finds_a_broken_archived_match(storage: RedisStorage) -> None:
    table = _match(-1001, 40)  # deal 1 finished, deal 2 under way
    await storage.save_table(table, ttl=60)
    archived = _match(-1002, 40)
    assert archived.match is not None
    broken = json.loads(json.dumps(game.match_record(archived)))
    deck = broken["deals"][0]["deck"]
    deck[0], deck[1] = deck[1], deck[0]  # the moves no longer fit the hands
    await storage.push_history(-1002, game.match_record(archived))
    await storage.push_history(-1002, broken)
    found = await scan(storage)
    assert found["tables"] == 1 and found["archived_matches"] == 2
    assert table.match is not None and found["void"] == 0
    # Every deal of the table and of both archived copies, but the broken one.
    assert found["finished"] == len(table.match.deals) + 2 * len(archived.match.deals) - 1
    assert len(found["violations"]) == 1 and "refused" in found["violations"][0], found["violations"]


def _acked(table: Table, deal_seq: int, move: dict[str, object]) -> AckedMove:
    """The acknowledged move ``move`` of the person in its seat (user id = seat + 1, as ``_match``)."""
    key = next(k for k in move if k != "seat")
    return AckedMove(table.chat_id, int(str(move["seat"])) + 1, table.table_id, deal_seq, key, move[key])


async def test_the_move_check_finds_each_acknowledged_move_once_and_tells_a_lost_or_doubled_one(
    storage: RedisStorage,
) -> None:
    table = _match(-1003, 40)  # deal 1 finished, deal 2 under way
    assert table.match is not None and table.match.current is not None and table.match.deal_seq == 2
    await storage.save_table(table, ttl=60)
    first, current = table.match.deals[0]["moves"], table.match.current["moves"]
    kept = [_acked(table, 1, first[0]), _acked(table, 1, first[-1]), _acked(table, 2, current[-1])]
    # Not stored: a move of deal 1 said to be deal 2's, a move of another seat, another table's.
    lost = [
        _acked(table, 2, first[0]),
        AckedMove(
            table.chat_id,
            1 + (int(first[1]["seat"]) + 1) % 4,
            table.table_id,
            1,
            "play",
            first[1].get("play"),
        ),
        AckedMove(table.chat_id, 1, "other", 1, "play", first[0].get("play")),
    ]
    # An archived match (its entry as the bot keeps it) in which one move was stored twice.
    archived = _match(-1004, 20)
    entry = entry_of(archived, at=0.0)
    assert archived.match is not None and archived.match.current is not None
    entry["deals"] = [{**archived.match.deals[0]}] if archived.match.deals else [dict(archived.match.current)]
    moves = entry["deals"][0]["moves"] = list(entry["deals"][0]["moves"])
    moves.append(dict(moves[0]))
    await storage.push_history(archived.chat_id, entry)
    doubled = _acked(archived, 1, moves[0])
    result = check_moves([*kept, *lost, doubled], await stored_matches(storage))
    assert result["checked"] == 7 and result["lost"] == 3 and result["doubled"] == 1, result
    assert "-1004" in result["first_doubled"][0] and "(2 times)" in result["first_doubled"][0]


def test_move_waits_are_summed_up_as_p50_p95_and_max() -> None:
    assert quantiles([]) == {"p50": 0.0, "p95": 0.0, "max": 0.0}
    waits = [0.01 * n for n in range(1, 101)]  # 0.01 .. 1.00
    assert quantiles(waits) == {"p50": 0.51, "p95": 0.96, "max": 1.0}


def test_error_lines_and_lines_that_are_not_json_are_errors(tmp_path: Path) -> None:
    log = tmp_path / "bot-0.log"
    lines = [
        {"level": "INFO", "msg": "fine"},
        {"level": "WARNING", "msg": "Telegram refused"},
        {"level": "ERROR", "msg": "handling failed"},
        {"level": "ERROR", "msg": "handling failed", "exc": "bot.storage.invariants.InvariantViolation: …"},
    ]
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\nTraceback (most recent call last):\n")
    errors, warnings, refused = log_errors([log, tmp_path / "missing.log"])
    assert warnings == 1 and refused == 1
    assert len(errors) == 3 and "handling failed" in errors[0] and "Traceback" in errors[2]


def test_a_takeover_is_counted_from_the_workers_log_lines(tmp_path: Path) -> None:
    log = tmp_path / "worker-0.log"
    lines = [
        {"level": "INFO", "msg": "worker soak-w0.2 took over job 1700000000000-0"},
        {"level": "INFO", "msg": "worker soak-w0.2 taking decisions"},
        {"level": "INFO", "msg": "worker soak-w0.3 took over job 1700000000001-0"},
    ]
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json took over job\n")
    assert log_lines([log, tmp_path / "missing.log"], TAKEN_OVER) == 2
    assert log_lines([log], FELL_BACK) == 0
