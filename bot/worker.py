"""``python -m bot.worker``: processes that think for the bot players of every instance.

Each process takes decisions from the Redis Stream the instances add them to (``BOT_THINKING=redis``,
:mod:`bot.thinking.stream`), one at a time, and answers on the asking instance's reply stream. Start
as many as there are cores to spare, on any machine that reaches the Redis (``REDIS_URL``, a single
Redis or a cluster's ``redis+cluster://`` seeds): ``python -m bot.worker --processes 4``. SIGTERM or
Ctrl-C stops them after the decision in hand; a process killed mid-decision leaves the job to another
(``XAUTOCLAIM``). Each process touches the heartbeat file in ``DATA_DIR`` every 15 s, so the image's
health check (``python -m bot.healthcheck``) holds for a worker container too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from redis.exceptions import ResponseError

from bot.healthcheck import HEARTBEAT
from bot.storage import RedisStorage
from bot.storage.cluster import cluster_seeds, is_cluster_url
from bot.storage.errors import when_storage_answers
from bot.thinking.job import NICE, pack, think, unpack
from bot.thinking.stream import CLAIM_AFTER, GROUP, REPLY_TTL, ensure_group, jobs_key

_LOG = logging.getLogger("bot.worker")
#: Seconds between two touches of the heartbeat file.
BEAT_EVERY = 15.0


class Worker:
    """One consumer of the jobs stream."""

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = "",
        name: str | None = None,
        claim_after: float = CLAIM_AFTER,
        beat: Callable[[], None] | None = None,
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.jobs = jobs_key(prefix)
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        self.claim_after = claim_after
        #: Called at most every :data:`BEAT_EVERY` seconds while the worker runs (the heartbeat).
        self.beat = beat
        self._beaten = 0.0
        self.stopping = asyncio.Event()
        #: Decisions answered, and jobs dropped because their instance stopped waiting.
        self.done = 0
        self.dropped = 0

    async def run(self) -> None:
        """Take jobs until :attr:`stopping` is set; then leave the group. A worker started while Redis
        is down (restarting, a master failing over) waits for it rather than exit."""
        await when_storage_answers("the jobs' group", lambda: ensure_group(self.client, self.prefix))
        try:
            while not self.stopping.is_set():
                if self.beat is not None and time.monotonic() - self._beaten >= BEAT_EVERY:
                    self._beaten = time.monotonic()
                    self.beat()
                try:
                    for entry_id, fields in await self._next():
                        await self._handle(entry_id, fields)
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    await self._recover(e)
        finally:
            # The jobs it held (none, between jobs) would be claimed by another worker anyway.
            with contextlib.suppress(Exception):
                await self.client.xgroup_delconsumer(self.jobs, GROUP, self.name)

    async def _recover(self, error: Exception) -> None:
        """After a failed step: create the group again if it is gone, else wait a moment for Redis
        (restarting, failing over)."""
        if isinstance(error, ResponseError) and str(error).startswith("NOGROUP"):
            # The stream or its group was deleted (a DEL, a FLUSHALL, a failover to a replica that
            # never had them): without the group no job would ever be taken again.
            _LOG.warning("worker %s: the jobs' group is gone; creating it again (%s)", self.name, error)
            try:
                await ensure_group(self.client, self.prefix)
                return
            except Exception as e:
                error = e
        _LOG.warning("worker %s: %s", self.name, error)
        await asyncio.sleep(0.5)

    async def _next(self) -> list[tuple[str, dict[str, str]]]:
        """A job a dead worker left (idle :attr:`claim_after` s), else the next new one (waits ≤ 1 s)."""
        claimed = await self.client.xautoclaim(
            self.jobs, GROUP, self.name, min_idle_time=int(self.claim_after * 1000), start_id="0-0", count=1
        )
        entries = [e for e in claimed[1] if e and e[1]] if claimed and len(claimed) > 1 else []
        if entries:
            _LOG.info("worker %s took over job %s", self.name, entries[0][0])
            return entries
        got = await self.client.xreadgroup(GROUP, self.name, {self.jobs: ">"}, count=1, block=1000)
        return [e for _key, es in got or () for e in es if e[1]]

    async def _handle(self, entry_id: str, f: dict[str, str]) -> None:
        if time.time() <= float(f.get("until", "inf")):
            action = think(f["level"], unpack(f["view"]), int(f["seed"]), float(f["at"]))
            reply = f["reply"]
            await self.client.xadd(reply, {"job": f["job"], "action": pack(action)})
            await self.client.expire(reply, REPLY_TTL)
            self.done += 1
        else:
            self.dropped += 1
        await self.client.xack(self.jobs, GROUP, entry_id)
        await self.client.xdel(self.jobs, entry_id)


async def serve(url: str, prefix: str = "") -> None:
    """One worker process: connect, take jobs until SIGTERM/SIGINT."""
    store = RedisStorage.from_url(url, prefix=prefix, max_connections=4)
    heartbeat = Path(os.environ.get("DATA_DIR", "data")) / HEARTBEAT
    worker = Worker(store.client, prefix=prefix, beat=lambda: _touch(heartbeat))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, worker.stopping.set)
    _LOG.info("worker %s taking decisions from %s", worker.name, worker.jobs)
    try:
        await worker.run()
    finally:
        await store.close()


def _touch(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()


def _process(url: str, prefix: str) -> None:
    with contextlib.suppress(OSError):
        os.nice(NICE)  # beside a bot instance on the same machine, its taps come first
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    asyncio.run(serve(url, prefix))


def main(argv: list[str] | None = None) -> int:
    """Start ``--processes`` worker processes (default: one per CPU) and wait for them."""
    p = argparse.ArgumentParser(prog="python -m bot.worker", description=__doc__.split("\n", 1)[0])
    p.add_argument("--processes", type=int, default=0, help="worker processes (0: one per CPU)")
    p.add_argument("--redis-url", default=os.environ.get("REDIS_URL"), help="default: $REDIS_URL")
    p.add_argument("--prefix", default="", help="key prefix (the instances' own, if they use one)")
    args = p.parse_args(argv)
    if not args.redis_url:
        print("REDIS_URL: needed (the Redis the bot instances use)", file=sys.stderr)
        return 2
    if is_cluster_url(args.redis_url):
        try:
            cluster_seeds(args.redis_url)
        except ValueError as e:
            print(f"REDIS_URL: {e}", file=sys.stderr)
            return 2
    n = args.processes if args.processes > 0 else max(1, os.cpu_count() or 1)
    if n == 1:
        _process(args.redis_url, args.prefix)
        return 0
    procs = [multiprocessing.Process(target=_process, args=(args.redis_url, args.prefix)) for _ in range(n)]
    for proc in procs:
        proc.start()

    def stop(*_: object) -> None:
        for q in procs:
            q.terminate()  # SIGTERM: each stops after the decision in hand

    signal.signal(signal.SIGTERM, stop)
    try:
        for proc in procs:
            proc.join()
    except KeyboardInterrupt:
        for proc in procs:
            proc.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
