"""The bot on a real Redis Cluster (tests/cluster.py): a whole match, timers spread over the masters,
a master killed mid-match whose replica takes over (with the tests' short node timeout and with
Redis's default, 15 s), and clients that start while a seed node of ``REDIS_URL`` is down.

Every test here runs on the cluster only (the storage, timer, lease and restart tests run on both).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisClusterUnreachableError, RedisError

from bot.app import build_application, services_of
from bot.engine.record import result_of
from bot.sandbox import Driver, Emulator, EmulatorConfig, SimGroup, SimUser, running_bot
from bot.sandbox.driver import AnyApplication
from bot.stats.entry import record_of
from bot.storage import RedisStorage, UserSettings
from bot.table.timers import TimerId
from bot.tg.services import Services, Settings
from bot.thinking.local import PoolThinker
from bot.thinking.stream import StreamThinker
from tests.bot.helpers import lobby, play_until, sit
from tests.cluster import REDIS_DEFAULT_NODE_TIMEOUT_MS, Cluster
from tests.deploy.test_restart import Bot
from tests.thinking.test_thinking import ROOT, a_view


@pytest.fixture
def redis_backend() -> str:
    """Every test of this module runs on the session's Redis Cluster."""
    return "cluster"


async def _start_with_three_bots(driver: Driver, group: SimGroup, anya: SimUser) -> None:
    """Anya sits and starts with bot players in the other seats."""
    message = await lobby(driver, group, anya)
    await sit(anya, message, 0, group)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: "Посадить туда ботов" in m.content)
    await anya.tap(message, "с ботами")


def _over(group: SimGroup) -> bool:
    return any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)


async def test_a_match_with_three_bot_players_to_the_goat_on_a_redis_cluster(
    app: object, driver: Driver, svc: Services, storage: RedisStorage
) -> None:
    assert isinstance(storage.client, RedisCluster) and storage.timer_buckets > 1
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await _start_with_three_bots(driver, group, anya)
    await play_until(driver, svc, [anya], lambda: _over(group), rng=random.Random(5))
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "over" and table.match is not None
    assert max(table.match.penalty) >= 12
    history = await svc.storage.history(group.id)
    assert history and history[0]["deals"] == table.match.deals
    result_of(record_of(history[0]))  # the match record replays (RULES.md §7)
    await driver.settle()
    assert not driver.failed_calls(), driver.failed_calls()[:3]


async def test_timers_are_spread_over_the_masters_and_each_is_claimed_once(
    storage: RedisStorage, cluster: Cluster
) -> None:
    buckets = range(storage.timer_buckets)
    masters = {cluster.master_of(storage.timers_key(b)) for b in buckets}
    assert len(masters) >= 2, "the timer buckets are not all on one node"
    # One table's timers share a bucket (arming a turn is one script); many tables use them all.
    timers = {
        TimerId(kind, -1000 - n, None, f"t{n}", 1, 2, 3).pack(): float(n)
        for n in range(120)
        for kind in ("remind", "timeout")
    }
    assert len({storage.bucket_of(m) for m in timers if "|-1000|" in m}) == 1
    assert {storage.bucket_of(m) for m in timers} == set(buckets)
    assert await storage.add_timers(timers)
    claimed = await storage.claim_timers(1000.0, limit=500)
    assert claimed == sorted(timers, key=lambda m: (timers[m], m)), "all, in the order they were due"
    assert await storage.claim_timers(1000.0, limit=500) == []


async def test_commands_wait_for_a_free_connection_to_their_node(cluster: Cluster) -> None:
    store = RedisStorage.from_url(cluster.url, prefix="pool:", max_connections=2)
    try:
        await asyncio.gather(*(store.save_user_settings(n, UserSettings(lang="en")) for n in range(60)))
        got = await asyncio.gather(*(store.user_settings(n) for n in range(60)))
        assert {s.lang for s in got} == {"en"}
    finally:
        await store.client.delete(*(store.user_key(n) for n in range(60)))
        await store.close()


async def test_python_m_bot_runs_on_the_cluster(cluster: Cluster, tmp_path: Path) -> None:
    """``REDIS_URL=redis+cluster://…`` through the configuration: a real bot process keeps its lobby
    and timers on the cluster (its games are the in-process tests' above; its pace is Telegram's)."""
    store = RedisStorage.from_url(cluster.url)  # the bot process has no key prefix
    try:
        async with Emulator(EmulatorConfig()) as emulator:
            bot = Bot(emulator, cluster.url, tmp_path)
            driver = Driver(emulator.world, default_timeout=30.0)
            anya = driver.add_user("Аня")
            group = driver.add_group("Козлятник", [anya])
            await bot.start()
            try:
                await lobby(driver, group, anya)
                table = await store.load_table(group.id, None)
                assert table is not None and table.status == "lobby"
                for _ in range(100):  # armed in the background, just after the lobby is stored
                    sizes = [
                        await store.client.zcard(store.timers_key(b)) for b in range(store.timer_buckets)
                    ]
                    if sum(sizes):
                        break
                    await asyncio.sleep(0.05)
                assert sum(sizes) == 1, "the lobby's expiry is armed in one of the cluster's buckets"
            finally:
                await bot.kill()
        assert not bot.errors(), "\n".join(bot.errors())
    finally:
        keys = [k async for k in store.client.scan_iter(match="kozel:*", count=500)]
        if keys:
            await store.client.delete(*keys)
        await store.close()


@pytest.fixture
def own_cluster() -> Iterator[Cluster]:
    """A cluster of this test's own: it loses a node."""
    with Cluster() as running:
        yield running


@pytest.fixture
async def own_storage(own_cluster: Cluster) -> AsyncIterator[RedisStorage]:
    store = RedisStorage.from_url(own_cluster.url, prefix="failover:")
    try:
        yield store
    finally:
        await store.close()


def _replica_caught_up(cluster: Cluster, master: int) -> bool:
    with cluster.node(master) as client:
        info = client.info("replication")
    replica = info.get("slave0")
    return isinstance(replica, dict) and int(replica["offset"]) == int(info["master_repl_offset"])


async def test_a_master_killed_mid_match_its_replica_takes_over_and_the_match_goes_on(
    emulator: Emulator, own_cluster: Cluster, own_storage: RedisStorage, settings: Settings
) -> None:
    def factory(token: str, **kwargs: object) -> AnyApplication:
        return build_application(token, storage=own_storage, settings=settings, rate_limiter=False, **kwargs)  # type: ignore[arg-type]

    own_cluster.wait_ok(replicated=True)
    driver = Driver(emulator.world, default_timeout=30.0)
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    async with running_bot(factory, emulator, poll_timeout=1.0) as application:
        svc = services_of(application)
        await _start_with_three_bots(driver, group, anya)
        start = driver.world.version
        await play_until(
            driver, svc, [anya], lambda: driver.world.version > start + 40, rng=random.Random(11)
        )
        before = await own_storage.load_table(group.id, None)
        assert before is not None and before.status == "playing"
        master = own_cluster.master_of(own_storage.table_key(group.id, None))
        # Replication is asynchronous: what the replica has not received yet is what a failover
        # loses. Here the kill comes once it has everything (docs/operations.md: what a failover loses).
        await asyncio.to_thread(
            own_cluster._wait, lambda: _replica_caught_up(own_cluster, master), "sync", 10
        )
        own_cluster.kill(master)
        # Taps go on at once: handlers that meet the dead master fail, their updates are not
        # confirmed and come back, until the replica is promoted and the client finds it.
        await play_until(driver, svc, [anya], lambda: _over(group), rng=random.Random(12), max_seconds=90)
        assert master not in own_cluster.masters()
        after = await own_storage.load_table(group.id, None)
    assert after is not None and after.status == "over" and after.match is not None
    assert after.version > before.version and after.table_id == before.table_id
    # Nothing played before the kill is lost: the finished deals, and the moves of the deal in play.
    assert before.match is not None and after.match.deals[: len(before.match.deals)] == before.match.deals
    if before.match.current is not None and len(after.match.deals) > len(before.match.deals):
        moves = before.match.current["moves"]
        assert after.match.deals[len(before.match.deals)]["moves"][: len(moves)] == moves
    assert max(after.match.penalty) >= 12
    history = await own_storage.history(group.id)
    assert history and history[0]["deals"] == after.match.deals
    result_of(record_of(history[0]))  # every move legal, none twice: the record replays (RULES.md §7)


def _closed_port() -> int:
    """A loopback port nothing listens on: a seed node that is down."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_the_storage_and_a_worker_start_with_the_first_seed_node_down(cluster: Cluster) -> None:
    down = _closed_port()
    alone = RedisStorage.from_url(Cluster.url_of([down]), prefix="seeds:")
    with pytest.raises(RedisClusterUnreachableError):  # one seed, down: no way in (the old REDIS_URL)
        await alone.user_settings(1)
    await alone.close()
    url = Cluster.url_of([down, *cluster.ports])
    store = RedisStorage.from_url(url, prefix=f"seeds-{os.getpid()}:")
    command = ["-m", "bot.worker", "--processes", "1", "--redis-url", url, "--prefix", store.prefix]
    worker = subprocess.Popen(
        [sys.executable, *command], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    thinker = StreamThinker(store.client, PoolThinker.threads(1), prefix=store.prefix, timeout=30)
    try:
        await store.save_user_settings(7, UserSettings(lang="en"))
        assert (await store.user_settings(7)).lang == "en"
        view = a_view()
        assert await thinker.decide("easy", view, 3) in view.legal
        assert thinker.fell_back == 0, "the worker, started on the same seeds, answered"
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=30)
        await thinker.close()
        keys = [k async for k in store.client.scan_iter(match=f"{store.prefix}*", count=500)]
        if keys:
            await store.client.delete(*keys)
        await store.close()
    assert worker.returncode == 0


def _on_and_off(cluster: Cluster, store: RedisStorage, master: int) -> tuple[int, int]:
    """A user whose settings are on ``master``, and one whose are on another master."""
    users = {n: cluster.master_of(store.user_key(n)) for n in range(1, 60)}
    return next(n for n, m in users.items() if m == master), next(n for n, m in users.items() if m != master)


async def test_with_redis_default_15_s_node_timeout_a_replica_takes_over_and_the_storage_goes_on() -> None:
    """What production sees after a master dies: its slots wait the node timeout (15 s) and the
    replica's election, then the client finds the new master; nothing written before is lost; the
    other masters' keys never wait; a new client whose first seed is the dead node starts at once."""
    with Cluster(node_timeout_ms=REDIS_DEFAULT_NODE_TIMEOUT_MS) as running:
        running.wait_ok(replicated=True)
        store = RedisStorage.from_url(running.url, prefix="timeout15:")
        try:
            victim = next(iter(running.masters()))
            on, off = _on_and_off(running, store, victim)
            await store.save_user_settings(on, UserSettings(lang="en"))
            await store.save_user_settings(off, UserSettings(lang="en"))
            replicas = {p for p, role in running.roles().items() if role == "replica"}
            await asyncio.to_thread(running._wait, lambda: _replica_caught_up(running, victim), "sync", 10)
            running.kill(victim)
            killed, failed, took = time.monotonic(), 0, None
            while time.monotonic() - killed < 45:
                # Another master's keys: read at once, all the time.
                assert (await asyncio.wait_for(store.user_settings(off), 2)).lang == "en"
                try:
                    await store.save_user_settings(on, UserSettings(lang="ru"))
                except RedisError:  # ConnectionError after the client's retries (about 7 s)
                    failed += 1  # a person's tap here is answered "try again"
                    continue
                took = time.monotonic() - killed
                break
            assert took is not None, "the storage did not come back within 45 s"
            assert REDIS_DEFAULT_NODE_TIMEOUT_MS / 1000 <= took < 40 and failed >= 1, (took, failed)
            promoted = running.master_of(store.user_key(on))
            assert promoted in replicas and victim not in running.masters()
            assert (await store.user_settings(on)).lang == "ru"
            # A process starting now, its REDIS_URL's first seed the dead node, gets in.
            late = RedisStorage.from_url(Cluster.url_of([victim, *running.live_ports()]), prefix="timeout15:")
            try:
                assert (await late.user_settings(on)).lang == "ru"
            finally:
                await late.close()
        finally:
            await store.close()
