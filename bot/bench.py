"""``python -m bot.bench``: many tables at once through the real handlers, emulator and Redis.

Four simulated people sit at each table and tap random legal buttons as fast as the bot lets them
(the quickest players there are). Reports the handling time of a move (median and p95, Telegram's
network excluded), Bot API calls per deal to the group and to the players' DMs, and the most calls
any group got within a minute. Redis: ``$REDIS_URL``, else an embedded one in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.app import build_application, codec_for, services_of
from bot.handlers.codec import BadData, Codec
from bot.handlers.outbox import Limits
from bot.handlers.services import Settings
from bot.sandbox import Driver, Emulator, EmulatorConfig, SimGroup, SimUser, StoredMessage
from bot.storage import EmbeddedRedis, RedisStorage

PRESET_LABELS = {"classic": "классический козёл", "flip": "с открытым козырем", "draw": "с прикупом"}


_ACTS: dict[str, bool] = {}


def _is_act(codec: Codec, data: str) -> bool:
    # Cached: the same keyboards are read many times while players wait.
    known = _ACTS.get(data)
    if known is None:
        try:
            known = codec.unpack(data).payload.startswith("A")
        except BadData:
            known = False
        _ACTS[data] = known
    return known


def _legal(codec: Codec, users: list[SimUser]) -> list[tuple[SimUser, Any, str]]:
    found = []
    for user in users:
        messages = user.dm.bot_messages
        if not messages:
            continue
        message = messages[-1]
        if "👉" not in message.content:  # only the player the game waits for looks for a button
            continue
        for row in message.buttons:
            for b in row:
                data = b.get("callback_data")
                if data and _is_act(codec, data):
                    found.append((user, message, data))
    return found


def _has_button(label: str) -> Callable[[StoredMessage], bool]:
    return lambda m: any(label in b["text"] for r in m.buttons for b in r)


async def _table(driver: Driver, codec: Codec, n: int, preset: str, deals: int, rng: random.Random) -> None:
    users = [driver.add_user(f"P{n}-{i}") for i in range(4)]
    group = driver.add_group(f"Bench {n}", users)
    await users[0].send(group, "/newgame")
    lobby = await group.wait_bot_message(lambda m: bool(m.buttons), timeout=120)
    if preset != "default":
        await users[0].tap(lobby, "Правила", timeout=120)
        await group.wait_until(lobby, _has_button(PRESET_LABELS[preset]), timeout=120)
        await users[0].tap(lobby, PRESET_LABELS[preset], timeout=120)
        await users[0].tap(lobby, "Назад", timeout=120)
    for seat, user in enumerate(users):
        await user.start()
        await user.dm.wait_bot_message(timeout=120)
        await group.wait_until(lobby, _has_button(f"Место {seat + 1}"), timeout=120)
        await user.tap(lobby, f"Место {seat + 1}", timeout=120)
    await group.wait_until(lobby, lambda m: all(u.name in m.content for u in users), timeout=120)
    await users[0].tap(lobby, "Начать", timeout=120)

    def finished() -> int:
        return sum(1 for m in group.bot_messages if m.content.startswith("🏁"))

    while finished() < deals:
        if any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r):
            break
        options = _legal(codec, users)
        if not options:
            # Polling, not waiting for any change in the world: with many tables that would wake
            # every table's players on every message.
            await asyncio.sleep(0.2)
            continue
        user, message, data = rng.choice(options)
        edits = message.edits
        tap = await user.tap(message, data=data, timeout=120)
        if tap.show_alert:
            # The keyboard was older than the game (its edit is paced): wait for the edit, as a person would.
            for _ in range(30):
                if message.edits != edits:
                    break
                await asyncio.sleep(0.1)


def _max_per_minute(times: list[float]) -> int:
    best = 0
    for i, t in enumerate(times):
        best = max(best, sum(1 for u in times[i:] if u < t + 60))
    return best


async def run(tables: int, deals: int, preset: str, seed: int) -> dict[str, Any]:
    """Play ``deals`` deals at each of ``tables`` tables at once; return the figures.

    The bot runs in a process of its own, so the emulator and the simulated players (which would
    dwarf it) do not share its event loop and its handling times are its own.
    """
    server: EmbeddedRedis | None = None
    url = os.environ.get("REDIS_URL")
    if not url:
        server = EmbeddedRedis(tempfile.mkdtemp(prefix="kozel-bench-"))
        url = await server.start()
    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    stats = Path(tempfile.mkdtemp(prefix="kozel-bench-")) / "taps.json"
    try:
        async with Emulator(EmulatorConfig(rate_limits=False)) as emulator:
            codec = codec_for(emulator.token)
            # The token travels through the environment, not the command line.
            env = {**os.environ, "KOZEL_BENCH_TOKEN": emulator.token}
            bot = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.bench", "--serve-bot", emulator.base_url, emulator.base_file_url,
                url, prefix, str(stats), env=env,
            )  # fmt: skip
            driver = Driver(emulator.world, default_timeout=120.0)
            try:
                await driver.wait_for(lambda: emulator.world.calls_of("getUpdates") or None, what="the bot")
                rng = random.Random(seed)
                started = time.perf_counter()
                games = [
                    _table(driver, codec, n, preset, deals, random.Random(rng.getrandbits(64)))
                    for n in range(tables)
                ]
                await asyncio.gather(*games)
                await driver.settle(quiet=1.0, timeout=120)
                elapsed = time.perf_counter() - started
            finally:
                bot.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(bot.wait(), 30)
                except TimeoutError:
                    bot.kill()
                    await bot.wait()
            taps = sorted(json.loads(stats.read_text()))
            return _figures(driver, tables, elapsed, taps)
    finally:
        storage = RedisStorage.from_url(url, prefix=prefix)
        keys = [k async for k in storage.client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await storage.client.delete(*keys)
        await storage.close()
        if server is not None:
            server.stop()


def _figures(driver: Driver, tables: int, elapsed: float, taps: list[float]) -> dict[str, Any]:
    world = driver.world
    groups = {c.id for c in world.chats.values() if c.is_group}
    summaries = [m for g in groups for m in SimGroup(driver, g).bot_messages if m.content.startswith("🏁")]
    sends = ("sendMessage", "editMessageText", "sendPhoto")
    calls = [c for c in world.calls if c.method in sends and c.ok]
    group_calls = [c for c in calls if c.chat_id in groups]
    private_calls = [c for c in calls if c.chat_id not in groups]
    per_group: dict[int, list[float]] = {}
    for c in group_calls:
        per_group.setdefault(c.chat_id or 0, []).append(c.time)
    n_deals = max(1, len(summaries))
    return {
        "tables": tables,
        "deals": len(summaries),
        "seconds": round(elapsed, 1),
        "moves": len(taps),
        "move_ms_median": round(1000 * statistics.median(taps), 2) if taps else None,
        "move_ms_p95": round(1000 * taps[int(0.95 * (len(taps) - 1))], 2) if taps else None,
        "table_message_calls_per_deal_max": max((1 + m.edits for m in summaries), default=0),
        "table_message_calls_per_deal_mean": (
            round(statistics.mean(1 + m.edits for m in summaries), 1) if summaries else None
        ),
        "group_calls_per_deal_with_lobby": round(len(group_calls) / n_deals, 1),
        "private_calls_per_deal": round(len(private_calls) / n_deals, 1),
        "max_group_calls_in_a_minute": max((_max_per_minute(t) for t in per_group.values()), default=0),
        "failed_calls": sum(1 for c in world.calls if not c.ok),
    }


async def serve_bot(base_url: str, base_file_url: str, redis_url: str, prefix: str, stats: str) -> None:
    """The bot side of the bench: run until SIGTERM, then write the move handling times to ``stats``."""
    storage = RedisStorage.from_url(redis_url, prefix=prefix)
    # Telegram's per-group and per-DM pacing as in production; the global 30/s cap is left out, since
    # 100 tables of four players quicker than any person would queue on it.
    settings = Settings(bot_delay=0.0, limits=Limits(global_interval=0.0))
    app = build_application(
        os.environ["KOZEL_BENCH_TOKEN"], base_url=base_url, base_file_url=base_file_url, storage=storage,
        settings=settings, rate_limiter=False,
    )  # fmt: skip
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await app.initialize()
    await app.start()
    assert app.updater is not None
    await app.updater.start_polling(timeout=1, poll_interval=0.0)
    await stop.wait()
    Path(stats).write_text(json.dumps(services_of(app).stats.tap_times))
    await app.updater.stop()
    await app.stop()
    await app.shutdown()
    await storage.close()


def main() -> None:
    """Parse arguments, run, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--deals", type=int, default=1, help="deals to play at each table")
    parser.add_argument("--preset", choices=["default", *PRESET_LABELS], default="flip")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--serve-bot", nargs=5, metavar=("BASE_URL", "FILE_URL", "REDIS", "PREFIX", "STATS"),
                        help=argparse.SUPPRESS)  # fmt: skip
    args = parser.parse_args()
    if args.serve_bot:
        asyncio.run(serve_bot(*args.serve_bot))
        return
    figures = asyncio.run(run(args.tables, args.deals, args.preset, args.seed))
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
