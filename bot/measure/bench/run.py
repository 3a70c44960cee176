"""One run of the bench: Redis (``$REDIS_URL`` or an embedded one), the emulator, the bot in a process of
its own, the tables played at once (inline, or on the live table's pages), and the figures."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import psutil

from bot.app import codec_for
from bot.measure.bench import miniapp
from bot.measure.bench.botside import cpu_of, more_files
from bot.measure.bench.figures import bench_figures, call_figures
from bot.measure.bench.group import group_figures
from bot.measure.bench.miniapp import LiveBench, Pages
from bot.measure.bench.players import CardTaps, Seating, inline_table
from bot.sandbox import Driver, Emulator, EmulatorConfig
from bot.storage import EmbeddedRedis, RedisStorage
from bot.table.core import Limits


@dataclass(frozen=True)
class Thinking:
    """Where the bot players think (``Settings.thinking``) and how many processes (``bot_workers``, or
    the ``python -m bot.worker`` processes the bench starts for ``redis``)."""

    kind: str = "processes"
    workers: int = 0


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def run(
    tables: int, deals: int, preset: str, seed: int, profile: str | None = None,
    seating: Seating | None = None, thinking: Thinking = Thinking(), pages: Pages | None = None,
    pace: float = 0.0,
) -> dict[str, Any]:  # fmt: skip
    """Play ``deals`` deals at each of ``tables`` tables at once; return the figures.

    The bot runs in a process of its own, so the emulator and the simulated players (which would
    dwarf it) do not share its event loop and its handling times are its own. ``profile``: a file
    for the bot process's cProfile statistics. ``pages``: the Mini App mode
    (:mod:`bot.measure.bench.miniapp`). ``pace``: seconds a person thinks before a tap (0.5 to 1.5
    times it; 0: at once, as fast as the bot lets them).
    """
    more_files()
    seating = seating or Seating()
    server: EmbeddedRedis | None = None
    url = os.environ.get("REDIS_URL")
    if not url:
        server = EmbeddedRedis(tempfile.mkdtemp(prefix="kozel-bench-"))
        url = await server.start()
    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    stats = Path(tempfile.mkdtemp(prefix="kozel-bench-")) / "taps.json"
    store = RedisStorage.from_url(url, prefix=prefix)
    workers: subprocess.Popen[bytes] | None = None
    if thinking.kind == "redis":
        workers = subprocess.Popen(
            [sys.executable, "-m", "bot.worker", "--processes", str(thinking.workers), "--redis-url", url,
             "--prefix", prefix],
        )  # fmt: skip
    port = free_port() if pages is not None else 0
    try:
        async with Emulator(EmulatorConfig(rate_limits=False)) as emulator:
            codec = codec_for(emulator.token)
            # The token travels through the environment, not the command line.
            env = {**os.environ, "KOZEL_BENCH_TOKEN": emulator.token}
            bot = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.measure.bench", "--serve-bot",
                emulator.base_url, emulator.base_file_url,
                url, prefix, str(stats), profile or "", thinking.kind, str(thinking.workers), str(port),
                env=env,
            )  # fmt: skip
            driver = Driver(emulator.world, default_timeout=120.0)
            # Every page its own connection (aiohttp's default pool holds 100).
            http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
            cards = CardTaps(codec)
            live = LiveBench(http, f"http://127.0.0.1:{port}", emulator.token, codec, cards)
            try:
                await driver.wait_for(lambda: emulator.world.calls_of("getUpdates") or None, what="the bot")
                rng = random.Random(seed)
                started, cpu = time.perf_counter(), time.process_time()
                extra: dict[str, Any] = {}
                if pages is None:
                    games = [
                        inline_table(
                            driver,
                            codec,
                            n,
                            preset,
                            deals,
                            random.Random(rng.getrandbits(64)),
                            seating,
                            store,
                            pace,
                            cards,
                        )
                        for n in range(tables)
                    ]
                    seated = await asyncio.gather(*games)
                else:
                    await _wait_port(port)
                    rss = psutil.Process(bot.pid).memory_info
                    seated, extra = await miniapp.play_all(
                        driver, live, tables, preset, deals, rng, pages, lambda: rss().rss, seating, store,
                        pace,
                    )  # fmt: skip
                # Quiet for longer than a group's pace, so a deal's last paced calls (its table
                # message deleted after the summary) are made and counted.
                await driver.settle(quiet=Limits().group_interval + 0.5, timeout=120)
                elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
                worker_cpu = cpu_of(psutil.Process(workers.pid)) if workers is not None else None
                calls = call_figures(driver, list(seated))
                follow = group_figures(driver.world.calls, cards.taps)
            finally:
                await live.close()
                await http.close()
                bot.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(bot.wait(), 30)
                except TimeoutError:
                    bot.kill()
                    await bot.wait()
            bot_side = json.loads(stats.read_text())
            if worker_cpu is not None:
                bot_side["thinking_cpu_s"] = worker_cpu
            # The calls as they were before the pages closed (each closed page brings its DM hand up
            # to date, which is no deal's cost).
            figures = {
                **bench_figures(driver, list(seated), elapsed, bot_side, cpu),
                **calls,
                **extra,
                **follow,
            }
            if pages is not None:
                # Not a page's: taps answered are the lobby's, and a move's group edit waits for the
                # group's pace with nothing else to queue (no DM), so its queue time is that pace.
                for key in ("taps_per_move", "move_to_queued_ms_median", "move_to_queued_ms_p95"):
                    figures.pop(key, None)
            return figures
    finally:
        if workers is not None:
            workers.terminate()
            workers.wait(timeout=30)
        await store.close()
        storage = RedisStorage.from_url(url, prefix=prefix)
        keys = [k async for k in storage.client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await storage.client.delete(*keys)
        await storage.close()
        if server is not None:
            server.stop()


async def _wait_port(port: int) -> None:
    """Until the bot serves the live table on ``port``."""
    for _ in range(600):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.1)
            continue
        writer.close()
        return
    raise TimeoutError(f"the bot does not serve the live table on port {port}")
