"""The bench's bot: a process of its own, polling the emulator with the product's own poller (and, in
the Mini App mode, serving the live table on a loopback port), writing its handling times, CPU (in
all and second by second) and event-loop lag to a file once told to stop."""

from __future__ import annotations

import asyncio
import cProfile
import gc
import json
import os
import resource
import signal
import time
from pathlib import Path
from typing import Any

import psutil
from aiohttp import web

from bot.app import build_application, live_table_of, services_of
from bot.polling import Poller
from bot.runtime import tune_gc
from bot.storage import RedisStorage
from bot.table.core import Limits
from bot.tg.services import Settings

#: Seconds the event-loop probe sleeps (:func:`watch_loop`; the figures weigh each lag by it).
LAG_EVERY = 0.01
#: The live table's public URL in the bench (its links are made, never followed).
BENCH_WEBAPP_URL = "https://bench.kozel.invalid/webapp/"


def cpu_of(process: psutil.Process) -> float:
    """CPU seconds (user and system) of ``process`` and every process under it."""
    total = 0.0
    for p in [process, *process.children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system
    return round(total, 1)


async def serve_bot(
    base_url: str, base_file_url: str, redis_url: str, prefix: str, stats: str, profile: str,
    thinking: str = "processes", workers: str = "0", webapp_port: str = "0",
) -> None:  # fmt: skip
    """The bot side of the bench: run until SIGTERM, then write the move handling times to ``stats``.

    With ``profile`` (a file name), cProfile statistics of the whole run are written there. With a
    ``webapp_port``, the live table is on and served on 127.0.0.1 at that port (as in polling mode).
    """
    more_files()
    # In CPU time, like the figure it explains: waiting on sockets and for the CPU is left out.
    profiler = cProfile.Profile(time.process_time) if profile else None
    if profiler is not None:
        profiler.enable()
    cpu = time.process_time()
    storage = RedisStorage.from_url(redis_url, prefix=prefix)
    # Telegram's per-group and per-DM pacing as in production; the global 30/s cap is left out, since
    # 100 tables of four players quicker than any person would queue on it.
    settings = Settings(
        bot_delay=0.0, limits=Limits(global_interval=0.0), timings_kept=10**7, thinking=thinking,
        bot_workers=int(workers), webapp_url=BENCH_WEBAPP_URL if int(webapp_port) else None,
    )  # fmt: skip
    app = build_application(
        os.environ["KOZEL_BENCH_TOKEN"], base_url=base_url, base_file_url=base_file_url, storage=storage,
        settings=settings, rate_limiter=False,
    )  # fmt: skip
    tune_gc()  # as `python -m bot` does once its application is built
    collector = _Collections()
    gc.callbacks.append(collector.note)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    lags: list[float] = []
    shares: list[float] = []
    watch = asyncio.create_task(watch_loop(lags, shares))
    await app.initialize()
    await app.start()
    # The product's own poller (bot/polling.py), as `python -m bot` polls.
    poller = Poller(app, timeout=1)
    poller.start()
    runner = await _serve_live_table(app, int(webapp_port))
    await stop.wait()
    if runner is not None:
        await runner.cleanup()
    watch.cancel()
    svc_stats = services_of(app).stats
    me = psutil.Process()
    # The thinking processes of a ``processes`` pool are this process's children.
    pool_cpu = round(cpu_of(me) - _cpu_of_self(me), 1) if thinking == "processes" else None
    Path(stats).write_text(json.dumps({
        "taps": list(svc_stats.tap_times), "queued": list(svc_stats.queued_times),
        "cpu_s": time.process_time() - cpu,
        "lags": lags, "cpu_shares": shares, "bot_waits": list(svc_stats.bot_waits),
        "thinking_cpu_s": pool_cpu, "gc_cpu_s": collector.cpu, "gc_pause_max_s": collector.longest,
    }))  # fmt: skip
    gc.callbacks.remove(collector.note)
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    await poller.close()
    await app.stop()
    await app.shutdown()
    await storage.close()


async def _serve_live_table(app: Any, port: int) -> web.AppRunner | None:
    """The live table's routes on 127.0.0.1:``port`` (None: off)."""
    live = live_table_of(app)
    if not port or live is None:
        return None
    server = web.Application(client_max_size=1 << 16)
    live.add_routes(server)
    runner = web.AppRunner(server, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port, backlog=4096).start()
    return runner


def more_files() -> None:
    """As many open files as the system allows this process (every open page is a socket)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else 65536, hard))


class _Collections:
    """The CPU time the garbage collector took, and its longest pause of the event loop (wall time)."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.longest = 0.0
        self._started = (0.0, 0.0)

    def note(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = (time.thread_time(), time.perf_counter())
            return
        cpu, wall = self._started
        self.cpu += time.thread_time() - cpu
        self.longest = max(self.longest, time.perf_counter() - wall)


def _cpu_of_self(process: psutil.Process) -> float:
    t = process.cpu_times()
    return round(t.user + t.system, 1)


async def watch_loop(
    lags: list[float], shares: list[float], every: float = LAG_EVERY, window: float = 1.0
) -> None:
    """Note how late the event loop wakes a sleeper (the wait any step of a tap has behind other work)
    and, each ``window`` (a second), the share of it the process spent on a CPU: its event loop is one
    thread, so at 1.0 every step waits for the loop to finish everything else that is ready."""
    loop = asyncio.get_running_loop()
    since, cpu = loop.time(), time.process_time()
    while True:
        at = loop.time()
        await asyncio.sleep(every)
        now = loop.time()
        lags.append(max(0.0, now - at - every))
        if now - since >= window:
            used = time.process_time()
            shares.append((used - cpu) / (now - since))
            since, cpu = now, used
