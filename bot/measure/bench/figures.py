"""What the bench reports: quantiles, Bot API calls per deal (to the groups, the DMs, and all of a
deal's from its start), the busiest minute of a group, the bot decisions' waits, and where the bot's CPU
went (by package, from its cProfile statistics)."""

from __future__ import annotations

import pstats
import statistics
import sysconfig
from pathlib import Path
from typing import Any

import bot
from bot.measure.bench.botside import LAG_EVERY
from bot.measure.bench.players import SUMMARY, TABLE, Seated
from bot.sandbox import Driver

#: Bot API methods that spend a chat's budget (``getUpdates`` is the bot's own polling, and
#: ``answerCallbackQuery`` is not limited).
SPENDING = frozenset(
    {"sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage", "sendPhoto"}
)


def max_per_minute(times: list[float]) -> int:
    best = 0
    for i, t in enumerate(times):
        best = max(best, sum(1 for u in times[i:] if u < t + 60))
    return best


def ms(values: list[float], q: float) -> float | None:
    """The ``q`` quantile of ``values`` (seconds) in milliseconds."""
    if not values:
        return None
    ordered = sorted(values)
    return round(1000 * ordered[int(q * (len(ordered) - 1))], 2)


def ms_by_time(lags: list[float], q: float, every: float = LAG_EVERY) -> float | None:
    """The ``q`` quantile, in milliseconds, of the event loop's lags (seconds) weighed by the time each
    probe took (``every`` plus its lag): the lag at a moment of the run rather than at a probe. A
    saturated loop wakes its probe seldom, so unweighed its few long lags drown among an idle loop's
    many short ones."""
    if not lags:
        return None
    ordered = sorted(lags)
    target, run = q * sum(every + lag for lag in ordered), 0.0
    for lag in ordered:
        run += every + lag
        if run >= target:
            return round(1000 * lag, 2)
    return round(1000 * ordered[-1], 2)


def bench_figures(
    driver: Driver, seated: list[Seated], elapsed: float, bot_side: dict[str, Any], bench_cpu: float
) -> dict[str, Any]:
    """The figures of a run: its deals, the bot's handling times and CPU, and its Bot API calls."""
    taps: list[float] = bot_side["taps"]
    bot_cpu: float = bot_side["cpu_s"]
    return {
        "tables": len(seated),
        **call_figures(driver, seated),
        "seconds": round(elapsed, 1),
        "moves": len(taps),
        "move_ms_median": ms(taps, 0.5),
        "move_ms_p95": ms(taps, 0.95),
        # Until the presenter has queued the move's messages (rendering included; a deal's first
        # messages count until they are queued, not until Telegram answers).
        "move_to_queued_ms_median": ms(bot_side["queued"], 0.5),
        "move_to_queued_ms_p95": ms(bot_side["queued"], 0.95),
        # Taps answered (moves, refused taps on stale keyboards, lobby taps) per move made.
        "taps_per_move": (
            round(len(driver.world.calls_of("answerCallbackQuery")) / len(taps), 2) if taps else None
        ),
        # CPU seconds of the bot process (all of it, the lobby included) and of this one (the
        # emulator and the simulated people), over the same wall time.
        "bot_cpu_s": round(bot_cpu, 1),
        "bot_cpu_ms_per_move": round(1000 * bot_cpu / len(taps), 2) if taps else None,
        # Of which the garbage collector's (bot/runtime.py), and its longest pause of the bot.
        "bot_gc_cpu_ms_per_move": round(1000 * bot_side["gc_cpu_s"] / len(taps), 2) if taps else None,
        "bot_gc_pause_ms_max": round(1000 * bot_side["gc_pause_max_s"], 1),
        "emulator_and_players_cpu_s": round(bench_cpu, 1),
        # How late the bot's event loop woke a 10 ms sleeper: the wait any step of a move may have
        # behind other work (and, on a busy machine, behind other processes). By probe, then by time
        # (ms_by_time: what a saturated loop's stretches weigh in the run).
        "bot_loop_lag_ms_median": ms(bot_side["lags"], 0.5),
        "bot_loop_lag_ms_p95": ms(bot_side["lags"], 0.95),
        "bot_loop_lag_ms_by_time_median": ms_by_time(bot_side["lags"], 0.5),
        "bot_loop_lag_ms_by_time_p95": ms_by_time(bot_side["lags"], 0.95),
        # Seconds in which the bot's process was on a CPU 90% of the time or more: its one event loop
        # at its ceiling, every round trip to Redis waiting for the loop to come round.
        "bot_seconds_on_a_full_core": sum(1 for share in bot_side.get("cpu_shares", []) if share >= 0.9),
        **thinking_figures(bot_side, elapsed),
    }


def call_figures(driver: Driver, seated: list[Seated]) -> dict[str, Any]:
    """Bot API calls: per deal to the groups (the lobby included) and the DMs (the people's /start
    included), all the calls of a deal from its start on (deletions too: every call that spends a
    chat's budget), the table message's, the busiest minute of a group, and failed calls."""
    world = driver.world
    groups = {t.group.id for t in seated}
    summaries = [m for t in seated for m in t.group.bot_messages if m.content.startswith(SUMMARY)]
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
        "deals": len(summaries),
        "table_message_calls_per_deal_max": max((1 + m.edits for m in tables_shown), default=0),
        "table_message_calls_per_deal_mean": (
            round(statistics.mean(1 + m.edits for m in tables_shown), 1) if tables_shown else None
        ),
        "group_calls_per_deal_with_lobby": round(len(group_calls) / n_deals, 1),
        "private_calls_per_deal": round(len(private_calls) / n_deals, 1),
        "bot_api_calls_per_deal": round(sum(deal_calls(driver, t) for t in seated) / n_deals, 1),
        "max_group_calls_in_a_minute": max((max_per_minute(t) for t in per_group.values()), default=0),
        "failed_calls": sum(1 for c in world.calls if not c.ok),
    }


def deal_calls(driver: Driver, table: Seated) -> int:
    """The Bot API calls spent on a table's chats (its group and its people's DMs) from the start of
    its first deal on."""
    chats = {table.group.id, *(u.id for u in table.users)}
    return sum(
        1 for c in driver.world.calls[table.since :] if c.ok and c.method in SPENDING and c.chat_id in chats
    )


def thinking_figures(bot_side: dict[str, Any], elapsed: float) -> dict[str, Any]:
    """Bot decisions: how long each waited for its answer (queue and thought), how many per second,
    and the CPU seconds of the processes that thought them (none: no bot players at the tables)."""
    waits: list[float] = bot_side.get("bot_waits", [])
    if not waits:
        return {}
    cpu = bot_side.get("thinking_cpu_s")
    return {
        "bot_decisions": len(waits),
        "bot_decisions_per_s": round(len(waits) / elapsed, 1),
        "bot_wait_ms_median": ms(waits, 0.5),
        "bot_wait_ms_p95": ms(waits, 0.95),
        "bot_wait_ms_max": round(1000 * max(waits), 1),
        "thinking_cpu_s": cpu,
        # Under load the haste rule spends extra thinking capacity on longer thoughts, not on more
        # decisions (each table has one decision at a time): these two show where it went.
        "thinking_cores": round(cpu / elapsed, 2) if cpu is not None else None,
        "thinking_cpu_ms_per_decision": round(1000 * cpu / len(waits), 1) if cpu is not None else None,
    }


def package(filename: str) -> str:
    """Whose code a profiled function is: the bot's own (``bot``), a library (its top-level package; the
    standard library's as ``stdlib_<module>``), or Python's built-ins (``~``)."""
    if filename == "~" or filename.startswith("<"):
        return "~"
    path = Path(filename)
    if "site-packages" in path.parts:
        return path.parts[path.parts.index("site-packages") + 1].split(".")[0]
    if Path(bot.__file__).resolve().parent in path.resolve().parents:
        return "bot"
    lib = Path(sysconfig.get_paths()["stdlib"])
    if lib in path.parents:
        return "stdlib_" + path.relative_to(lib).parts[0].removesuffix(".py")
    return "other"


def cpu_shares(profile: str, least: float = 0.005) -> dict[str, float]:
    """The share of the profiled CPU each package's own code took (:func:`package`), built-ins counted
    with the package that called them: the bot's own work against the libraries'. Shares under
    ``least`` are left out."""
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    spent: dict[str, float] = {}
    for (filename, _, _), (_, _, own, _, callers) in stats.items():
        whose = package(filename)
        if whose != "~":
            spent[whose] = spent.get(whose, 0.0) + own
            continue
        for (caller, _, _), (_, _, edge, _) in callers.items():
            by = package(caller)
            spent[by] = spent.get(by, 0.0) + edge
    total = sum(spent.values()) or 1.0
    return {
        k: round(v / total, 3) for k, v in sorted(spent.items(), key=lambda kv: -kv[1]) if v / total >= least
    }
