"""The soak's run: the emulator, the instances, the tables, the kills, the figures; the command line."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from bot.app import codec_for
from bot.measure.soak.check import (
    check_moves,
    count_deals,
    log_errors,
    log_lines,
    quantiles,
    scan,
    stored_matches,
)
from bot.measure.soak.instances import (
    WEBHOOK_PATH,
    Instance,
    WorkerProcess,
    free_port,
    serve_bot,
    serve_worker,
)
from bot.measure.soak.people import TAP_TIMEOUT, Run, play_table
from bot.sandbox import Driver, Emulator, EmulatorConfig
from bot.storage import EmbeddedRedis, RedisStorage
from bot.storage.cluster import is_cluster_url
from bot.webhook import SECRET_HEADER

#: Seconds before an update no instance answered 200 is posted again (Telegram's retry, made quick).
REDELIVER_AFTER = 1.0
#: What a worker's log line says when it takes over a killed worker's job (bot/worker.py), and an
#: instance's when no worker answered in time (bot/thinking/stream.py).
TAKEN_OVER = "took over job"
FELL_BACK = "no worker answered"
#: Hosts a master may be killed on (``--kill-master-after``): its process must be on this machine.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


async def _pump(run: Run, http: aiohttp.ClientSession, done: asyncio.Event) -> None:
    """Post every queued update to every instance that is up, each in a task of its own, and, as
    Telegram does, post it again until one of them answers 200 (an instance answers only once it has
    handled the update, and 503 when the other holds it)."""
    world = run.emulator.world
    headers = {SECRET_HEADER: run.secret}

    async def post(instance: Instance, update: dict[str, Any]) -> int:
        with contextlib.suppress(aiohttp.ClientError, OSError, TimeoutError):
            url = f"http://127.0.0.1:{instance.port}{WEBHOOK_PATH}"
            async with http.post(url, json=update, headers=headers) as response:
                return response.status
        return 0  # no answer: the instance was killed, or is not listening yet

    async def deliver(update: dict[str, Any]) -> None:
        while not done.is_set():
            targets = [i for i in run.instances if i.up]
            if 200 in await asyncio.gather(*(post(i, update) for i in targets)):
                return
            await asyncio.sleep(REDELIVER_AFTER)

    deliveries: set[asyncio.Task[None]] = set()
    try:
        while not done.is_set():
            updates = world.take_updates()
            if not updates:
                await world.wait_change(0.05)
                continue
            run.counts.delivered += len(updates)
            for update in updates:
                task = asyncio.create_task(deliver(update))
                deliveries.add(task)
                task.add_done_callback(deliveries.discard)
    finally:
        for task in deliveries:
            task.cancel()
        await asyncio.gather(*deliveries, return_exceptions=True)


async def _restarts(run: Run, http: aiohttp.ClientSession, every: float, rng: random.Random) -> None:
    """Every ``every`` seconds kill one instance (at random) and start it again (again a second
    later if it did not come up: a supervisor's restart; its log says why)."""
    while True:
        await asyncio.sleep(every * rng.uniform(0.5, 1.5))
        if run.over:
            return
        instance = rng.choice(run.instances)
        await instance.kill()
        while True:
            try:
                await instance.start(http)
                break
            except RuntimeError:
                run.counts.failed_starts += 1
                await asyncio.sleep(1.0)
        run.counts.restarts += 1


async def _worker_kills(run: Run, workers: list[WorkerProcess], every: float, rng: random.Random) -> None:
    """Every ``every`` seconds kill (SIGKILL) one thinking worker, at random, and start a fresh one in
    its place: a job it held is taken over by another worker once idle (bot/thinking/stream.py)."""
    while True:
        await asyncio.sleep(every * rng.uniform(0.5, 1.5))
        if run.over:
            return
        worker = rng.choice(workers)
        await worker.kill()
        run.counts.worker_kills += 1
        await worker.start()


async def _kill_master(run: Run, storage: RedisStorage, after: float) -> str:
    """``after`` seconds in, kill (SIGKILL) the master that holds the first table's keys; it must
    run on this machine. Returns which, and when."""
    began = time.monotonic()
    await asyncio.sleep(after)
    client = storage.client
    assert isinstance(client, RedisCluster)
    table = None
    while table is None and not run.over:
        table = await anext(storage.tables(), None)
        await asyncio.sleep(0 if table else 1.0)
    if table is None:
        return "none: no table to kill the master of"
    node = client.get_node_from_key(storage.table_key(table.chat_id, table.thread_id))
    if node is None or node.host not in LOCAL_HOSTS:
        raise RuntimeError(f"the master of a table is not on this machine: {node}")
    plain = aioredis.Redis(host=node.host, port=int(node.port), decode_responses=True)
    try:
        pid = int((await plain.info("server"))["process_id"])
    finally:
        await plain.aclose()
    os.kill(pid, signal.SIGKILL)
    return f"{node.host}:{node.port} (pid {pid}) at {time.monotonic() - began:.1f} s"


async def _retrying(what: Any, seconds: float = 60.0) -> Any:
    """``await what()``, again while the storage is failing over (up to ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return await what()
        except RedisError:
            if time.monotonic() >= deadline:
                raise
            await asyncio.sleep(1.0)


async def _extend(
    run: Run, storage: RedisStorage, restarts: int, deals: int, limit: float, worker_kills: int = 0
) -> None:
    """Push the run's end back, up to ``limit``, until it has ``restarts`` restarts, ``worker_kills``
    workers killed and ``deals`` finished deals."""
    while True:
        await asyncio.sleep(max(0.0, run.stop_at - time.monotonic() - 3.0))
        if run.over or time.monotonic() >= limit:
            return
        if run.stop_at - time.monotonic() > 3.5:
            continue
        finished = 0
        killed = run.counts.restarts >= restarts and run.counts.worker_kills >= worker_kills
        if killed:
            with contextlib.suppress(RedisError):  # a master failing over: counted at the next try
                async for table in storage.tables():
                    finished, _ = count_deals(table, finished, 0)
        if killed and finished >= deals:
            return
        run.stop_at = min(limit, run.stop_at + 3.0)


async def run(
    tables: int,
    seconds: float,
    *,
    instances: int = 2,
    restart_every: float = 30.0,
    seed: int = 1,
    bot_delay: float = 0.2,
    paced: bool = True,
    redis_url: str | None = None,
    workdir: Path | None = None,
    min_restarts: int = 0,
    min_deals: int = 0,
    min_worker_kills: int = 0,
    max_seconds: float | None = None,
    kill_master_after: float | None = None,
    workers: int = 0,
    kill_worker_every: float | None = None,
) -> dict[str, Any]:
    """Soak ``tables`` tables for ``seconds``; return the figures (see :mod:`bot.measure.soak`).

    ``paced``: the instances pace their calls as in production (Telegram's per-chat limits);
    without, every call goes at once (quicker games, for short runs). ``min_restarts`` and
    ``min_deals`` (and ``min_worker_kills``): past ``seconds`` the run goes on until it has seen that
    many restarts, finished deals and workers killed (a slow or loaded machine gets there later), but
    not past ``max_seconds``.
    ``kill_master_after``: on a Redis Cluster whose nodes run on this machine, kill the master of a
    table's keys that many seconds in. ``workers``: that many thinking worker processes take the
    bot players' decisions (``BOT_THINKING=redis``; 0: each instance thinks in its threads), one of
    them killed (SIGKILL) and replaced about every ``kill_worker_every`` seconds.
    """
    workdir = workdir or Path(tempfile.mkdtemp(prefix="kozel-soak-"))
    server: EmbeddedRedis | None = None
    url = redis_url or os.environ.get("REDIS_URL")
    if not url:
        server = EmbeddedRedis(workdir / "redis")
        url = await server.start()
    prefix = f"soak-{uuid.uuid4().hex[:10]}:"
    storage = RedisStorage.from_url(url, prefix=prefix)
    secret = uuid.uuid4().hex
    rng = random.Random(seed)
    started = time.monotonic()
    try:
        async with Emulator(EmulatorConfig(rate_limits=False)) as emulator, aiohttp.ClientSession() as http:
            env = {
                **os.environ,
                "KOZEL_SOAK_TOKEN": emulator.token,
                "KOZEL_SOAK_BASE_URL": emulator.base_url,
                "KOZEL_SOAK_REDIS": url,
                "KOZEL_SOAK_PREFIX": prefix,
                "KOZEL_SOAK_SECRET": secret,
                "KOZEL_SOAK_BOT_DELAY": str(bot_delay),
                "KOZEL_SOAK_PACED": "1" if paced else "0",
                "KOZEL_SOAK_THINKING": "redis" if workers else "threads",
                "DATA_DIR": str(workdir / "data"),  # a worker's heartbeat file
                "PYTHONUNBUFFERED": "1",
            }
            bots = [Instance(i, free_port(), workdir / f"bot-{i}.log", env) for i in range(instances)]
            thinkers = [WorkerProcess(i, workdir / f"worker-{i}.log", env) for i in range(workers)]
            driver = Driver(emulator.world, default_timeout=TAP_TIMEOUT)
            soak = Run(emulator, driver, codec_for(emulator.token), bots, secret, stop_at=float("inf"))
            done = asyncio.Event()
            pump = asyncio.create_task(_pump(soak, http, done))
            kill: asyncio.Task[str] | None = None
            worker_kills: asyncio.Task[None] | None = None
            try:
                for w in thinkers:
                    await w.start()
                await asyncio.gather(*(b.start(http) for b in bots))
                soak.stop_at = time.monotonic() + seconds
                restarts = asyncio.create_task(
                    _restarts(soak, http, restart_every, random.Random(rng.random()))
                )
                limit = time.monotonic() + max(seconds, max_seconds or seconds)
                extend = asyncio.create_task(
                    _extend(soak, storage, min_restarts, min_deals, limit, min_worker_kills)
                )
                if kill_master_after is not None:
                    kill = asyncio.create_task(_kill_master(soak, storage, kill_master_after))
                if thinkers and kill_worker_every:
                    worker_kills = asyncio.create_task(
                        _worker_kills(soak, thinkers, kill_worker_every, random.Random(rng.random()))
                    )
                await asyncio.gather(
                    *(play_table(soak, n, random.Random(rng.random())) for n in range(tables))
                )
                await restarts
                await extend
                if worker_kills is not None:
                    await worker_kills
                killed = await kill if kill is not None else None
                # Let what is in flight land, then stop the instances gracefully. (Not "until quiet":
                # bot players, and turn timers playing for people, keep the tables going.)
                await asyncio.sleep(2.0)
            finally:
                if kill is not None and not kill.done():
                    kill.cancel()
                if worker_kills is not None and not worker_kills.done():
                    worker_kills.cancel()
                for b in bots:
                    await b.stop()
                for w in thinkers:
                    await w.stop()
                done.set()
                await pump
            found = await _retrying(lambda: scan(storage))
            moves = check_moves(soak.counts.moves, await _retrying(lambda: stored_matches(storage)))
            logs = [b.log for b in bots] + [w.log for w in thinkers]
            errors, warnings, refused = log_errors(logs)
            answered = sum(1 for c in emulator.world.calls_of("answerCallbackQuery") if c.ok)
            return {
                "tables": tables,
                "tables_started": soak.counts.tables_started,
                "seconds": round(time.monotonic() - started, 1),
                "instances": instances,
                "restarts": soak.counts.restarts,
                "failed_starts": soak.counts.failed_starts,
                "master_killed": killed,
                "workers": workers,
                "worker_kills": soak.counts.worker_kills,
                # Jobs a killed worker held, thought again by another (its log line says so), and
                # decisions no worker answered within the instance's wait (thought by the instance).
                "jobs_taken_over": log_lines([w.log for w in thinkers], TAKEN_OVER),
                "decisions_thought_by_instance": log_lines([b.log for b in bots], FELL_BACK),
                "deals_finished": found["finished"],
                "void_deals": found["void"],
                "matches_archived": found["archived_matches"],
                "moves_acknowledged": moves["checked"],
                "moves_lost": moves["lost"],
                "moves_doubled": moves["doubled"],
                "move_wait_s": quantiles(soak.counts.waits),
                "taps": soak.counts.taps,
                "taps_handled": answered,
                "taps_unanswered": soak.counts.unanswered,
                "alerts": soak.counts.alerts,
                "alert_texts": dict(soak.counts.alert_texts.most_common()),
                "alerts_on_new_keyboards": soak.counts.alerts_on_new_keyboards,
                "updates_delivered": soak.counts.delivered,
                "errors": len(errors),
                "warnings": warnings,
                "invariant_violations": len(found["violations"]) + refused,
                "first_errors": errors[:5],
                "first_violations": found["violations"][:5],
                "first_lost": moves["first_lost"],
                "first_doubled": moves["first_doubled"],
                "logs": str(workdir),
                "redis_prefix": prefix,
            }
    finally:
        keys = [k async for k in storage.client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await storage.client.delete(*keys)
        await storage.close()
        if server is not None:
            server.stop()


def passed(figures: dict[str, Any]) -> bool:
    """No error, no invariant violation, no acknowledged move lost or doubled."""
    counts = ("errors", "invariant_violations", "moves_lost", "moves_doubled")
    return all(figures[name] == 0 for name in counts)


def main() -> None:
    """Parse arguments, run, print the figures (``--json``: one JSON object); exit 1 unless
    :func:`passed`."""
    parser = argparse.ArgumentParser(
        prog="python -m bot.measure.soak", description="many tables through bot instances killed at random"
    )
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument("--restart-every", type=float, default=30.0, help="seconds between kills (mean)")
    parser.add_argument("--bot-delay", type=float, default=0.2, help="seconds a bot player waits")
    parser.add_argument("--unpaced", action="store_true", help="no per-chat pacing of Bot API calls")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--kill-master-after", type=float, metavar="SECONDS",
        help="on a Redis Cluster on this machine ($REDIS_URL): kill a table's master that many seconds in",
    )  # fmt: skip
    parser.add_argument(
        "--workers", type=int, default=0,
        help="thinking worker processes taking the bot players' decisions (0: the instances think)",
    )  # fmt: skip
    parser.add_argument(
        "--kill-worker-every", type=float, metavar="SECONDS",
        help="seconds between kills (mean) of a worker, replaced by a fresh one",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve-bot", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--serve-worker", metavar="NAME", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_bot:
        asyncio.run(serve_bot(args.serve_bot))
        return
    if args.serve_worker:
        asyncio.run(serve_worker(args.serve_worker))
        return
    if args.kill_worker_every is not None and args.workers < 2:
        parser.error("--kill-worker-every needs --workers 2 or more (one to take over a killed one's job)")
    if args.kill_master_after is not None and not is_cluster_url(os.environ.get("REDIS_URL", "")):
        parser.error("--kill-master-after needs REDIS_URL of a Redis Cluster (make soak-failover starts one)")
    figures = asyncio.run(
        run(
            args.tables,
            args.minutes * 60,
            instances=args.instances,
            restart_every=args.restart_every,
            seed=args.seed,
            bot_delay=args.bot_delay,
            paced=not args.unpaced,
            kill_master_after=args.kill_master_after,
            workers=args.workers,
            kill_worker_every=args.kill_worker_every,
        )
    )
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        width = max(len(k) for k in figures)
        for key, value in figures.items():
            print(f"{key:<{width}}  {value}")
    sys.exit(0 if passed(figures) else 1)


if __name__ == "__main__":
    main()
