"""``python -m bot.thinking.capacity``: how many decisions a second the thinking processes can take.

The table bench (``python -m bot.measure.bench --bots 3``) reports how fast the bot players moved, not what
the thinking could take: under load a decision thinks for less (:func:`bot.engine.ai.pool.haste`), so
with every worker busy a queue settles near ``tables / 4 s`` decisions a second, one worker or two,
and each decision's budget is wall time, so a worker short of CPU takes as long and thinks less.
Capacity needs a fixed amount of work per decision. Here every decision is ``hard``'s search with its
clock replaced by a fixed number of worlds (:func:`steady`: neither haste nor a slow machine changes
the work), a batch of them from seeded deals is submitted at once through the thinker the bot uses —
a pool of ``processes`` of the instance, or ``redis`` jobs for ``python -m bot.worker`` processes —
and the batch's decisions per second are timed. Rounds alternate between the worker counts asked
(``1 2 1 2 …``), so a machine's other load falls on each alike; the figure is each count's median
round and the ratio to the first count's.

Redis for ``--thinking redis``: ``$REDIS_URL``, else an embedded one in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Any

from bot.engine.actions import Play
from bot.engine.ai.base import RandomPlayer
from bot.engine.ai.search import HARD, SearchPlayer
from bot.engine.deal import Deal
from bot.engine.rules import Rules
from bot.engine.view import SeatView, view_for

from . import Thinker
from .local import PoolThinker
from .stream import StreamThinker

#: Worlds per decision of :func:`steady`.
WORLDS = 24
#: The import path a worker builds :func:`steady` from (a level name is such a path or a level).
STEADY = "bot.thinking.capacity:steady"


def steady() -> SearchPlayer:
    """``hard``'s search thinking a fixed :data:`WORLDS` worlds, with no clock: the same work per
    decision on any machine and after any wait (no early stop, no time cap, no exact solve)."""
    budget = dataclasses.replace(
        HARD, seconds=math.inf, limit=0.0, min_worlds=WORLDS, max_worlds=WORLDS, confident=0.0,
        solve_at=0, solve_at_preset=(),
    )  # fmt: skip
    return SearchPlayer("hard", budget)


def views(count: int, preset: str, seed: int) -> list[SeatView]:
    """``count`` card decisions of the first three tricks of seeded random deals (the search's
    share of a deal: its later decisions are smaller)."""
    rules, rng, player = Rules.make(preset), random.Random(seed), RandomPlayer()
    out: list[SeatView] = []
    while len(out) < count:
        deal = Deal.shuffled(rules, random.Random(rng.getrandbits(64)), rng.randrange(4))
        stop = rng.randrange(12)
        while not deal.over and len(out) < count:
            seat = deal.to_act
            assert seat is not None
            view = view_for(deal, seat)
            if view.legal and all(isinstance(a, Play) for a in view.legal) and len(view.legal) > 1:
                if stop == 0:
                    out.append(view)
                    break
                stop -= 1
            deal.apply(seat, player.decide(view, rng))
    return out


def spin(n: int) -> int:
    """Pure Python arithmetic for ``n`` steps: what the machine's cores give CPU-bound Python, beside
    the search (a second worker can add no more than this does)."""
    x = 0
    for i in range(n):
        x += i * i % 7
    return x


#: Steps of one :func:`spin` job: about a search decision's time.
SPIN = 400_000


async def spins(thinker: Thinker, jobs: int) -> float:
    """``jobs`` :func:`spin` jobs at once in the thinker's pool; jobs per second."""
    started = time.perf_counter()
    await asyncio.gather(*(thinker.run(spin, SPIN) for _ in range(jobs)))
    return jobs / (time.perf_counter() - started)


async def batch(thinker: Thinker, batch_views: list[SeatView]) -> float:
    """Submit every view at once; decisions per second until the last answer."""
    started = time.perf_counter()
    await asyncio.gather(*(thinker.decide(STEADY, v, i) for i, v in enumerate(batch_views)))
    return len(batch_views) / (time.perf_counter() - started)


@dataclasses.dataclass
class _Setup:
    """One worker count's thinker, and for ``redis`` its worker processes and Redis client."""

    thinker: Thinker
    workers: subprocess.Popen[bytes] | None = None
    store: Any = None

    async def close(self) -> None:
        await self.thinker.close()
        if self.workers is not None:
            self.workers.terminate()
            self.workers.wait(timeout=30)
        if self.store is not None:
            thinker = self.thinker
            if isinstance(thinker, StreamThinker):
                await self.store.client.delete(thinker.jobs)  # the stream and its group: this run's only
            await self.store.close()


async def _setup(kind: str, workers: int, url: str | None) -> _Setup:
    if kind == "processes":
        return _Setup(PoolThinker.processes(workers))
    from bot.storage import RedisStorage  # only for ``redis``

    assert url is not None
    prefix = f"capacity-{uuid.uuid4().hex[:8]}:"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.worker", "--processes", str(workers), "--redis-url", url,
         "--prefix", prefix],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    store = RedisStorage.from_url(url, prefix=prefix)
    thinker = StreamThinker(store.client, PoolThinker.threads(1), prefix=prefix, timeout=120.0)
    return _Setup(thinker, proc, store)


async def measure(
    kind: str, counts: list[int], rounds: int, size: int, preset: str, seed: int, url: str | None = None
) -> dict[str, Any]:
    """``rounds`` rounds of a ``size``-decision batch per worker count, alternating; the figures."""
    setups: dict[int, _Setup] = {}
    rates: dict[int, list[float]] = {n: [] for n in counts}
    spun: dict[int, list[float]] = {n: [] for n in counts}
    try:
        for n in counts:
            setups[n] = await _setup(kind, n, url)
            await setups[n].thinker.start()
            await batch(setups[n].thinker, views(2 * n, preset, seed + 1))  # warm every worker
        for r in range(rounds):
            batch_views = views(size, preset, seed + 100 + r)
            for n in counts:
                rates[n].append(await batch(setups[n].thinker, batch_views))
                if kind == "processes":
                    spun[n].append(await spins(setups[n].thinker, size))
    finally:
        for setup in setups.values():
            await setup.close()
    base = statistics.median(rates[counts[0]])
    return {
        "thinking": kind,
        "preset": preset,
        "worlds_per_decision": WORLDS,
        "decisions_per_batch": size,
        "rounds": rounds,
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
        **{f"decisions_per_s_{n}_workers": round(statistics.median(rates[n]), 2) for n in counts},
        **{f"rounds_{n}_workers": [round(x, 2) for x in rates[n]] for n in counts},
        **{f"ratio_{n}_to_{counts[0]}": round(statistics.median(rates[n]) / base, 2) for n in counts[1:]},
        **_ceiling(spun, counts),
    }


def _ceiling(spun: dict[int, list[float]], counts: list[int]) -> dict[str, float]:
    """The same ratios for :func:`spin` jobs (``processes`` only): the machine's own ceiling."""
    if not spun[counts[0]]:
        return {}
    base = statistics.median(spun[counts[0]])
    return {f"spin_ratio_{n}_to_{counts[0]}": round(statistics.median(spun[n]) / base, 2) for n in counts[1:]}


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    url, server = os.environ.get("REDIS_URL"), None
    if args.thinking == "redis" and not url:
        from bot.storage import EmbeddedRedis

        server = EmbeddedRedis(tempfile.mkdtemp(prefix="kozel-capacity-"))
        url = await server.start()
    try:
        a = args
        return await measure(a.thinking, a.workers, a.rounds, a.decisions, a.preset, a.seed, url)
    finally:
        if server is not None:
            server.stop()


def main(argv: list[str] | None = None) -> int:
    """The command line; prints the figures as JSON."""
    p = argparse.ArgumentParser(prog="python -m bot.thinking.capacity", description=__doc__.splitlines()[0])
    p.add_argument("--thinking", choices=["processes", "redis"], default="processes")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to compare")
    p.add_argument("--rounds", type=int, default=4, help="rounds per worker count, alternating")
    p.add_argument("--decisions", type=int, default=40, help="decisions per batch")
    p.add_argument("--preset", default="classic")
    p.add_argument("--seed", type=int, default=1)
    print(json.dumps(asyncio.run(_main(p.parse_args(argv)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
