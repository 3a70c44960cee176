"""The soak command, short: ten tables for 20 s through two instances killed at random."""

from __future__ import annotations

import json
import random
from pathlib import Path

import redis.asyncio as aioredis

from bot.engine import Rules
from bot.handlers import game
from bot.soak import _log_errors, _scan, run
from bot.storage import RedisStorage, Seat, Table


async def test_a_short_soak_finishes_deals_with_no_error_and_no_violation(
    redis_url: str, tmp_path: Path
) -> None:
    # 20 s, or longer on a slow or loaded machine until two restarts and five deals have happened.
    figures = await run(
        10, 20, instances=2, restart_every=6, paced=False, redis_url=redis_url, workdir=tmp_path,
        min_restarts=2, min_deals=5, max_seconds=240,
    )  # fmt: skip
    summary = json.dumps(figures, ensure_ascii=False)
    assert figures["errors"] == 0, summary
    assert figures["invariant_violations"] == 0, summary
    assert figures["restarts"] >= 2, summary
    assert figures["tables_started"] == 10, summary
    assert figures["deals_finished"] >= 5, summary
    assert figures["taps_handled"] >= 50, summary
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
    scan = await _scan(storage)
    assert scan["tables"] == 1 and scan["archived_matches"] == 2
    assert table.match is not None and scan["void"] == 0
    # Every deal of the table and of both archived copies, but the broken one.
    assert scan["finished"] == len(table.match.deals) + 2 * len(archived.match.deals) - 1
    assert len(scan["violations"]) == 1 and "refused" in scan["violations"][0], scan["violations"]


def test_error_lines_and_lines_that_are_not_json_are_errors(tmp_path: Path) -> None:
    log = tmp_path / "bot-0.log"
    lines = [
        {"level": "INFO", "msg": "fine"},
        {"level": "WARNING", "msg": "Telegram refused"},
        {"level": "ERROR", "msg": "handling failed"},
        {"level": "ERROR", "msg": "handling failed", "exc": "bot.storage.invariants.InvariantViolation: …"},
    ]
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\nTraceback (most recent call last):\n")
    errors, warnings, refused = _log_errors([log, tmp_path / "missing.log"])
    assert warnings == 1 and refused == 1
    assert len(errors) == 3 and "handling failed" in errors[0] and "Traceback" in errors[2]
