"""A finished deal's analysis runs where bot players think (Thinker.run): the same mistakes in a
process of the pool, in its threads, and through a Redis-stream thinker's fallback pool."""

from __future__ import annotations

from bot.engine import card
from bot.engine.ai.analysis import analyse
from bot.storage import RedisStorage
from bot.thinking.local import PoolThinker
from bot.thinking.stream import StreamThinker
from tests.ai.test_analysis import with_blunder
from tests.ai.test_blunders import SHMON_LED


async def test_an_analysis_runs_in_the_pools_process_its_threads_and_the_streams_fallback(
    storage: RedisStorage,
) -> None:
    record = with_blunder(SHMON_LED, ["6C"], "QC").record()
    here = analyse(record, 2)
    assert here and here[0].played == card("QC")
    processes = PoolThinker.processes(1)
    stream = StreamThinker(storage.client, PoolThinker.threads(1), prefix=storage.prefix)
    try:
        await processes.start()
        assert await processes.run(analyse, record, 2) == here
        assert await stream.run(analyse, record, 2) == here
    finally:
        await processes.close()
        await stream.close()
