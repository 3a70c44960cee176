"""A whole match with bot players thinking in this instance's processes, and in a worker process
that takes their decisions from Redis (``python -m bot.worker``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.app import build_application, services_of
from bot.sandbox import Driver, Emulator, running_bot
from bot.sandbox.driver import AnyApplication
from bot.storage import RedisStorage
from bot.table.core import Limits
from bot.tg.services import Settings
from bot.thinking.local import PoolThinker
from bot.thinking.stream import StreamThinker
from tests.bot.test_match import _match_with_three_bots

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def worker(storage: RedisStorage, plain_redis_url: str) -> Iterator[subprocess.Popen[bytes]]:
    """One ``python -m bot.worker`` process on the test's keys; stopped (SIGTERM) after the test."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.worker", "--processes", "1", "--redis-url", plain_redis_url,
         "--prefix", storage.prefix],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        yield proc
    finally:
        proc.terminate()
        assert proc.wait(timeout=15) == 0  # it stops cleanly after the decision in hand


@pytest.mark.parametrize("thinking", ["processes", "redis"])
async def test_bot_players_think_outside_the_bots_process(
    thinking: str, emulator: Emulator, storage: RedisStorage, request: pytest.FixtureRequest
) -> None:
    if thinking == "redis":
        request.getfixturevalue("worker")
    settings = Settings(bot_delay=0.0, limits=Limits.off(), thinking=thinking, bot_workers=1)

    def factory(token: str, **kwargs: object) -> AnyApplication:
        return build_application(token, storage=storage, settings=settings, rate_limiter=False, **kwargs)  # type: ignore[arg-type]

    async with running_bot(factory, emulator, poll_timeout=1.0) as app:
        svc = services_of(app)
        driver = Driver(emulator.world, default_timeout=10.0)
        anya = driver.add_user("Аня")
        group = driver.add_group("Козлятник", [anya])
        await _match_with_three_bots(driver, svc, group, anya, seed=5)
        table = await storage.load_table(group.id, None)
        assert table is not None and table.status == "over"
        thinker = svc.thinker
        assert isinstance(thinker, StreamThinker if thinking == "redis" else PoolThinker)
        if isinstance(thinker, StreamThinker):
            assert thinker.fell_back == 0  # every decision was the worker's
        assert len(svc.stats.bot_waits) > 20
