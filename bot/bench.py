"""``python -m bot.bench``: many tables at once through the real handlers, emulator and Redis.

Four simulated people sit at each table and tap random legal buttons as fast as the bot lets them
(the quickest players there are; one whose card was taken waits for the hand to change). Reports
the handling time of a move (median and p95, Telegram's network excluded): from the update being
taken to the move saved and handed to the presenter, bot players and timers, and on to the
presenter having queued the move's messages; Bot API calls per deal to the group and to the
players' DMs, the most calls any group got within a minute, and the CPU seconds of the bot process.
The bot runs in a process of its own (as in production, Telegram is elsewhere); ``--profile FILE``
writes its cProfile statistics (in CPU time) and prints the share of it each package's code took (the
bot's own, each library's, built-ins counted with their caller).

``--bots N --level L`` seats N bot players of level L at each table instead of the last N people
(they think as ``--thinking`` says: the bot's own ``processes`` — ``--workers`` of them, 0: one per
CPU —, its ``threads``, or ``redis``: jobs for ``--workers`` ``python -m bot.worker`` processes the
bench starts); it then also reports each bot decision's wait (queue and thought: median, p95, max),
decisions per second, and the CPU seconds of the thinking processes.
Redis: ``$REDIS_URL``, else an embedded one in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import pstats
import random
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from bot.app import build_application, codec_for, services_of
from bot.polling import Poller
from bot.render.i18n import DEFAULT_LANG, Tr
from bot.runtime import tune_gc
from bot.sandbox import Driver, Emulator, EmulatorConfig, SimGroup, SimUser, StoredMessage
from bot.storage import ChatSettings, EmbeddedRedis, RedisStorage
from bot.table.codec import Codec
from bot.table.core import Limits
from bot.table.payloads import Act, BadData, kind_of
from bot.tg.services import Settings

PRESETS = ("classic", "flip", "draw", "tricks")
#: The bench's people and groups use the default language; every label is looked up in its catalog.
TR = Tr(DEFAULT_LANG)


def _mark(key: str) -> str:
    """The emoji a text of ``key`` starts with (the prompt's 👉, the deal summary's 🏁)."""
    return TR(key, n=0, suit="").split()[0]


#: A hand that waits for its player shows a prompt; every prompt starts with the same mark.
PROMPT = _mark("prompt.other")
SUMMARY = _mark("summary.title")
#: A deal's table message (deleted once the deal's summary is sent).
TABLE = TR("table.title", n=0, dealer="").split()[0]


_ACTS: dict[str, bool] = {}


def _is_act(codec: Codec, data: str) -> bool:
    # Cached: the same keyboards are read many times while players wait.
    known = _ACTS.get(data)
    if known is None:
        try:
            known = kind_of(codec.unpack(data).payload) is Act
        except BadData:
            known = False
        _ACTS[data] = known
    return known


def _legal(
    codec: Codec, users: list[SimUser], done: dict[tuple[int, int], int] | None = None
) -> list[tuple[SimUser, Any, str]]:
    """The buttons the players would tap: a decision in a hand that asks its player for one.

    ``done``: hands (by message) whose player's last tap was taken, with their edit count then; a
    person whose card was taken waits for the hand to change rather than tap it again.
    """
    found = []
    for user in users:
        messages = user.dm.bot_messages
        if not messages:
            continue
        message = messages[-1]
        if PROMPT not in message.content:  # only the player the game waits for looks for a button
            continue
        if done is not None and done.get(message.key) == message.edits:
            continue
        for row in message.buttons:
            for b in row:
                data = b.get("callback_data")
                if data and _is_act(codec, data):
                    found.append((user, message, data))
    return found


def _has_button(label: str) -> Callable[[StoredMessage], bool]:
    return lambda m: any(label in b["text"] for r in m.buttons for b in r)


@dataclass(frozen=True)
class Seating:
    """Who sits at each table: ``bots`` bot players of ``level`` in the last seats, people in the rest."""

    bots: int = 0
    level: str = "hard"


async def _table(
    driver: Driver, codec: Codec, n: int, preset: str, deals: int, rng: random.Random,
    seating: Seating = Seating(), store: RedisStorage | None = None,
) -> None:  # fmt: skip
    """One table: its people sit (bot players in the last ``seating.bots`` seats, at the level the
    chat's settings in ``store`` name) and tap random legal decisions until ``deals`` are over."""
    users = [driver.add_user(f"P{n}-{i}") for i in range(4 - seating.bots)]
    group = driver.add_group(f"Bench {n}", users)
    if seating.bots:
        assert store is not None, "bot players' level is set in the chat's settings"
        await store.save_chat_settings(group.id, ChatSettings(bot_level=seating.level))
    await users[0].send(group, "/newgame")
    lobby = await group.wait_bot_message(lambda m: bool(m.buttons), timeout=120)
    if preset != "default":
        label = TR(f"preset.{preset}")
        await users[0].tap(lobby, TR("btn.rules"), timeout=120)
        await group.wait_until(lobby, _has_button(label), timeout=120)
        await users[0].tap(lobby, label, timeout=120)
        await users[0].tap(lobby, TR("btn.back"), timeout=120)
    for seat, user in enumerate(users):
        await user.start()
        await user.dm.wait_bot_message(timeout=120)
        sit = TR("btn.sit", n=seat + 1)
        await group.wait_until(lobby, _has_button(sit), timeout=120)
        await user.tap(lobby, sit, timeout=120)
    await group.wait_until(lobby, lambda m: all(u.name in m.content for u in users), timeout=120)
    await users[0].tap(lobby, TR("btn.start"), timeout=120)
    if seating.bots:
        await group.wait_until(lobby, _has_button(TR("btn.fill")), timeout=120)
        await users[0].tap(lobby, TR("btn.fill"), timeout=120)
    rematch = TR("btn.rematch")

    def finished() -> int:
        return sum(1 for m in group.bot_messages if m.content.startswith(SUMMARY))

    done: dict[tuple[int, int], int] = {}
    while finished() < deals:
        if any(rematch in b["text"] for m in group.bot_messages for r in m.buttons for b in r):
            break
        options = _legal(codec, users, done)
        if not options:
            # Polling, not waiting for any change in the world: with many tables that would wake
            # every table's players on every message.
            await asyncio.sleep(0.2)
            continue
        user, message, data = rng.choice(options)
        edits = message.edits
        tap = await user.tap(message, data=data, timeout=120)
        if not tap.show_alert:
            done[message.key] = edits
        else:
            # The keyboard was older than the game (its edit is paced): wait for the edit, as a person would.
            for _ in range(30):
                if message.edits != edits:
                    break
                await asyncio.sleep(0.1)
    over = any(rematch in b["text"] for m in group.bot_messages for r in m.buttons for b in r)
    if seating.bots and deals and not over:
        # Its people are done, but its bot players would play on (and for them once their turns run
        # out), so the bench would never see the bot quiet: the table's creator stops the game.
        await users[0].send(group, "/stop")


def _max_per_minute(times: list[float]) -> int:
    best = 0
    for i, t in enumerate(times):
        best = max(best, sum(1 for u in times[i:] if u < t + 60))
    return best


@dataclass(frozen=True)
class Thinking:
    """Where the bot players think (``Settings.thinking``) and how many processes (``bot_workers``, or
    the ``python -m bot.worker`` processes the bench starts for ``redis``)."""

    kind: str = "processes"
    workers: int = 0


async def run(
    tables: int, deals: int, preset: str, seed: int, profile: str | None = None,
    seating: Seating = Seating(), thinking: Thinking = Thinking(),
) -> dict[str, Any]:  # fmt: skip
    """Play ``deals`` deals at each of ``tables`` tables at once; return the figures.

    The bot runs in a process of its own, so the emulator and the simulated players (which would
    dwarf it) do not share its event loop and its handling times are its own. ``profile``: a file
    for the bot process's cProfile statistics.
    """
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
    try:
        async with Emulator(EmulatorConfig(rate_limits=False)) as emulator:
            codec = codec_for(emulator.token)
            # The token travels through the environment, not the command line.
            env = {**os.environ, "KOZEL_BENCH_TOKEN": emulator.token}
            bot = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.bench", "--serve-bot", emulator.base_url, emulator.base_file_url,
                url, prefix, str(stats), profile or "", thinking.kind, str(thinking.workers), env=env,
            )  # fmt: skip
            driver = Driver(emulator.world, default_timeout=120.0)
            try:
                await driver.wait_for(lambda: emulator.world.calls_of("getUpdates") or None, what="the bot")
                rng = random.Random(seed)
                started, cpu = time.perf_counter(), time.process_time()
                games = [
                    _table(
                        driver, codec, n, preset, deals, random.Random(rng.getrandbits(64)), seating, store
                    )
                    for n in range(tables)
                ]
                await asyncio.gather(*games)
                await driver.settle(quiet=1.0, timeout=120)
                elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
                worker_cpu = _cpu_of(psutil.Process(workers.pid)) if workers is not None else None
            finally:
                bot.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(bot.wait(), 30)
                except TimeoutError:
                    bot.kill()
                    await bot.wait()
            bot_side = json.loads(stats.read_text())
            if worker_cpu is not None:
                bot_side["thinking_cpu_s"] = worker_cpu
            return _figures(driver, tables, elapsed, bot_side, cpu)
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


def _cpu_of(process: psutil.Process) -> float:
    """CPU seconds (user and system) of ``process`` and every process under it."""
    total = 0.0
    for p in [process, *process.children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system
    return round(total, 1)


def _ms(values: list[float], q: float) -> float | None:
    """The ``q`` quantile of ``values`` (seconds) in milliseconds."""
    if not values:
        return None
    ordered = sorted(values)
    return round(1000 * ordered[int(q * (len(ordered) - 1))], 2)


def _figures(
    driver: Driver, tables: int, elapsed: float, bot_side: dict[str, Any], bench_cpu: float
) -> dict[str, Any]:
    taps: list[float] = bot_side["taps"]
    bot_cpu: float = bot_side["cpu_s"]
    world = driver.world
    groups = {c.id for c in world.chats.values() if c.is_group}
    summaries = [m for g in groups for m in SimGroup(driver, g).bot_messages if m.content.startswith(SUMMARY)]
    tables_shown = [
        m
        for g in groups
        for m in world.chat_messages(g, include_deleted=True)
        # A finished deal's: deleted once its summary was sent.
        if m.from_bot and m.deleted and any(line.startswith(TABLE) for line in m.content.splitlines())
    ]
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
        "move_ms_median": _ms(taps, 0.5),
        "move_ms_p95": _ms(taps, 0.95),
        # Until the presenter has queued the move's messages (rendering included; a deal's first
        # messages count until they are queued, not until Telegram answers).
        "move_to_queued_ms_median": _ms(bot_side["queued"], 0.5),
        "move_to_queued_ms_p95": _ms(bot_side["queued"], 0.95),
        "table_message_calls_per_deal_max": max((1 + m.edits for m in tables_shown), default=0),
        "table_message_calls_per_deal_mean": (
            round(statistics.mean(1 + m.edits for m in tables_shown), 1) if tables_shown else None
        ),
        "group_calls_per_deal_with_lobby": round(len(group_calls) / n_deals, 1),
        "private_calls_per_deal": round(len(private_calls) / n_deals, 1),
        "max_group_calls_in_a_minute": max((_max_per_minute(t) for t in per_group.values()), default=0),
        "failed_calls": sum(1 for c in world.calls if not c.ok),
        # Taps answered (moves, refused taps on stale keyboards, lobby taps) per move made.
        "taps_per_move": round(len(world.calls_of("answerCallbackQuery")) / len(taps), 2) if taps else None,
        # CPU seconds of the bot process (all of it, the lobby included) and of this one (the
        # emulator and the simulated people), over the same wall time.
        "bot_cpu_s": round(bot_cpu, 1),
        "bot_cpu_ms_per_move": round(1000 * bot_cpu / len(taps), 2) if taps else None,
        # Of which the garbage collector's (bot/runtime.py), and its longest pause of the bot.
        "bot_gc_cpu_ms_per_move": round(1000 * bot_side["gc_cpu_s"] / len(taps), 2) if taps else None,
        "bot_gc_pause_ms_max": round(1000 * bot_side["gc_pause_max_s"], 1),
        "emulator_and_players_cpu_s": round(bench_cpu, 1),
        # How late the bot's event loop woke a 10 ms sleeper: the wait any step of a move may have
        # behind other work (and, on a busy machine, behind other processes).
        "bot_loop_lag_ms_median": _ms(bot_side["lags"], 0.5),
        "bot_loop_lag_ms_p95": _ms(bot_side["lags"], 0.95),
        **_thinking_figures(bot_side, elapsed),
    }


def _thinking_figures(bot_side: dict[str, Any], elapsed: float) -> dict[str, Any]:
    """Bot decisions: how long each waited for its answer (queue and thought), how many per second,
    and the CPU seconds of the processes that thought them (none: no bot players at the tables)."""
    waits: list[float] = bot_side.get("bot_waits", [])
    if not waits:
        return {}
    cpu = bot_side.get("thinking_cpu_s")
    return {
        "bot_decisions": len(waits),
        "bot_decisions_per_s": round(len(waits) / elapsed, 1),
        "bot_wait_ms_median": _ms(waits, 0.5),
        "bot_wait_ms_p95": _ms(waits, 0.95),
        "bot_wait_ms_max": round(1000 * max(waits), 1),
        "thinking_cpu_s": cpu,
        # Under load the haste rule spends extra thinking capacity on longer thoughts, not on more
        # decisions (each table has one decision at a time): these two show where it went.
        "thinking_cores": round(cpu / elapsed, 2) if cpu is not None else None,
        "thinking_cpu_ms_per_decision": round(1000 * cpu / len(waits), 1) if cpu is not None else None,
    }


async def serve_bot(
    base_url: str, base_file_url: str, redis_url: str, prefix: str, stats: str, profile: str,
    thinking: str = "processes", workers: str = "0",
) -> None:  # fmt: skip
    """The bot side of the bench: run until SIGTERM, then write the move handling times to ``stats``.

    With ``profile`` (a file name), cProfile statistics of the whole run are written there.
    """
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
        bot_workers=int(workers),
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
    watch = asyncio.create_task(_watch_loop(lags))
    await app.initialize()
    await app.start()
    # The product's own poller (bot/polling.py), as `python -m bot` polls.
    poller = Poller(app, timeout=1)
    poller.start()
    await stop.wait()
    watch.cancel()
    svc_stats = services_of(app).stats
    me = psutil.Process()
    # The thinking processes of a ``processes`` pool are this process's children.
    pool_cpu = round(_cpu_of(me) - _cpu_of_self(me), 1) if thinking == "processes" else None
    Path(stats).write_text(json.dumps({
        "taps": list(svc_stats.tap_times), "queued": list(svc_stats.queued_times),
        "cpu_s": time.process_time() - cpu,
        "lags": lags, "bot_waits": list(svc_stats.bot_waits), "thinking_cpu_s": pool_cpu,
        "gc_cpu_s": collector.cpu, "gc_pause_max_s": collector.longest,
    }))  # fmt: skip
    gc.callbacks.remove(collector.note)
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    await poller.close()
    await app.stop()
    await app.shutdown()
    await storage.close()


def _package(filename: str) -> str:
    """Whose code a profiled function is: the bot's own (``bot``), a library (its top-level package; the
    standard library's as ``stdlib_<module>``), or Python's built-ins (``~``)."""
    if filename == "~" or filename.startswith("<"):
        return "~"
    path = Path(filename)
    if "site-packages" in path.parts:
        return path.parts[path.parts.index("site-packages") + 1].split(".")[0]
    if Path(__file__).resolve().parent in path.resolve().parents:
        return "bot"
    lib = Path(sysconfig.get_paths()["stdlib"])
    if lib in path.parents:
        return "stdlib_" + path.relative_to(lib).parts[0].removesuffix(".py")
    return "other"


def cpu_shares(profile: str, least: float = 0.005) -> dict[str, float]:
    """The share of the profiled CPU each package's own code took (:func:`_package`), built-ins counted
    with the package that called them: the bot's own work against the libraries'. Shares under
    ``least`` are left out."""
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    spent: dict[str, float] = {}
    for (filename, _, _), (_, _, own, _, callers) in stats.items():
        whose = _package(filename)
        if whose != "~":
            spent[whose] = spent.get(whose, 0.0) + own
            continue
        for (caller, _, _), (_, _, edge, _) in callers.items():
            by = _package(caller)
            spent[by] = spent.get(by, 0.0) + edge
    total = sum(spent.values()) or 1.0
    return {
        k: round(v / total, 3) for k, v in sorted(spent.items(), key=lambda kv: -kv[1]) if v / total >= least
    }


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


async def _watch_loop(lags: list[float], every: float = 0.01) -> None:
    """Note how late the event loop wakes a sleeper: the wait any step of a tap has behind other work."""
    loop = asyncio.get_running_loop()
    while True:
        at = loop.time()
        await asyncio.sleep(every)
        lags.append(max(0.0, loop.time() - at - every))


def main() -> None:
    """Parse arguments, run, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--deals", type=int, default=1, help="deals to play at each table")
    parser.add_argument("--preset", choices=["default", *PRESETS], default="flip")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", metavar="FILE", help="write the bot process's cProfile statistics here")
    parser.add_argument("--bots", type=int, choices=range(4), default=0, help="bot players per table")
    parser.add_argument("--level", default="hard", help="the bot players' level")
    parser.add_argument("--thinking", choices=["processes", "threads", "redis"], default="processes")
    parser.add_argument("--workers", type=int, default=0, help="thinking processes (0: one per CPU)")
    hidden = ("BASE_URL", "FILE_URL", "REDIS", "PREFIX", "STATS", "PROFILE", "THINK", "N")
    parser.add_argument("--serve-bot", nargs=8, help=argparse.SUPPRESS, metavar=hidden)
    args = parser.parse_args()
    if args.serve_bot:
        asyncio.run(serve_bot(*args.serve_bot))
        return
    profile = str(Path(args.profile).resolve()) if args.profile else None
    seating, thinking = Seating(args.bots, args.level), Thinking(args.thinking, args.workers)
    figures = asyncio.run(run(args.tables, args.deals, args.preset, args.seed, profile, seating, thinking))
    if profile:
        # Where the bot process's CPU went (cProfile's own cost inflates code that makes many calls).
        figures.update({f"cpu_share_{k}": v for k, v in cpu_shares(profile).items()})
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
