"""Every storage fault goes through one "storage unavailable" path (issue 33, item 3).

Out of memory, a read-only replica, a Redis still loading, a cluster down or unreachable, a failover's
script cache and redirections: a tap is answered "try again" once (no traceback, no hanging
spinner), and a bot player waits for storage and plays its own decision once it is back — never a
random card because storage failed. Real faults where a test can make them (``maxmemory`` and
``REPLICAOF`` on a private redis-server, never the shared one); the rest raised by the client call
as redis-py raises them.
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from redis.exceptions import (
    AuthenticationError,
    BusyLoadingError,
    ClusterCrossSlotError,
    ClusterDownError,
    DataError,
    MasterDownError,
    MovedError,
    NoScriptError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    RedisClusterUnreachableError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
    WatchError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot.app import services_of
from bot.engine import Action, Deal, Rules, SeatView, view_for
from bot.render.i18n import Tr
from bot.sandbox import Driver, Emulator, EmulatorConfig, SimGroup, SimUser, StoredMessage, running_bot
from bot.sandbox.driver import AnyApplication
from bot.storage import RedisStorage
from bot.storage.errors import StorageBusy, storage_down, unwrapped
from bot.table.bots import bot_to_act, decide
from bot.table.core import Limits
from bot.tg.services import Services, Settings
from bot.worker import Worker
from tests.bot.helpers import legal_hand, lobby, start_game
from tests.bot.test_faults import PrivateRedis, app_factory, decisions, stored
from tests.conftest import _free_port

RU = Tr("ru")
OOM = "command not allowed when used memory > 'maxmemory'."
#: What Redis 6 answers when a script's call meets a fault: the inner error wrapped in ``ERR``.
WRAPPED = "Error running script (call to f_ae34): @user_script:1: @user_script: 1: -{} {}"

#: Each class of storage fault, as redis-py raises it.
FAULTS: dict[str, Exception] = {
    "refused": RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    "timeout": RedisTimeoutError("Timeout reading from socket"),
    "out of memory": OutOfMemoryError(OOM),
    "read-only replica": ReadOnlyError("You can't write against a read only replica."),
    "loading": BusyLoadingError("Redis is loading the dataset in memory"),
    "script cache lost": NoScriptError("No matching script. Please use EVAL."),
    "cluster down": ClusterDownError("The cluster is down"),
    "master down": MasterDownError("Link with MASTER is down and replica-serve-stale-data is set to 'no'."),
    "try again": TryAgainError("Multiple keys request during rehashing of slot"),
    "moved storm": MovedError("3999 127.0.0.1:7002"),
    "cluster unreachable": RedisClusterUnreachableError(
        "Redis Cluster cannot be connected. Please provide at least one reachable node: refused"
    ),
    "slot not covered": SlotNotCoveredError('Slot "3999" is not covered by the cluster.'),
    "busy script": StorageBusy("Redis is busy running a script."),
}


# ----- the classification ------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(FAULTS))
def test_every_storage_fault_class_is_storage_unavailable(name: str) -> None:
    assert storage_down(FAULTS[name])


@pytest.mark.parametrize(
    ("inner", "cls"),
    [("OOM", OutOfMemoryError), ("READONLY", ReadOnlyError), ("LOADING", BusyLoadingError),
     ("MASTERDOWN", MasterDownError), ("BUSY", StorageBusy)],
)  # fmt: skip
def test_a_fault_met_inside_a_script_on_redis_6_is_its_own_class(inner: str, cls: type[Exception]) -> None:
    wrapped = ResponseError(WRAPPED.format(inner, "whatever the server says"))
    assert storage_down(wrapped)
    plain = unwrapped(wrapped)
    assert type(plain) is cls and str(plain) == "whatever the server says"


def test_the_cluster_clients_plain_cannot_be_connected_is_unreachable() -> None:
    gone = RedisClusterException(
        "Redis Cluster cannot be connected. Please provide at least one reachable node"
    )
    assert storage_down(gone) and isinstance(unwrapped(gone), RedisClusterUnreachableError)


@pytest.mark.parametrize(
    "error",
    [ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"),
     ResponseError(WRAPPED.format("ERR", "user_script:3: attempt to compare nil with number")),
     ClusterCrossSlotError("Keys in request don't hash to the same slot"),
     RedisClusterException("EVALSHA - all keys must map to the same key slot"),
     DataError("Invalid input of type: 'NoneType'"), WatchError("Watched variable changed."),
     ValueError("a bug"), KeyError("data")],
)  # fmt: skip
def test_a_bug_or_a_refusal_is_not_storage_unavailable(error: Exception) -> None:
    assert not storage_down(error)


def test_a_wrong_password_counts_as_storage_down_as_any_connection_error() -> None:
    # redis-py raises it as a ConnectionError; the bot cannot tell a reloaded ACL from a typo.
    assert storage_down(AuthenticationError("invalid password"))


# ----- real faults on a private Redis -----------------------------------------------------------


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    """A private Redis whose config the test may change (never the shared server's)."""
    server = PrivateRedis()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def admin(server: PrivateRedis) -> redis.Redis:
    """A plain client of the private server for CONFIG SET and REPLICAOF."""
    return redis.Redis.from_url(server.url)


def fault_on(server: PrivateRedis, kind: str) -> None:
    """Make the private Redis refuse writes: out of memory, or a replica (of a master that is not there)."""
    client = admin(server)
    if kind == "out of memory":
        client.config_set("maxmemory", "1")
    else:
        client.replicaof("127.0.0.1", str(_free_port()))
    client.close()


def fault_off(server: PrivateRedis, kind: str) -> None:
    """Undo :func:`fault_on`."""
    client = admin(server)
    if kind == "out of memory":
        client.config_set("maxmemory", "0")
    else:
        client.replicaof("NO", "ONE")
    client.close()


@pytest.mark.parametrize(("kind", "cls"), [("out of memory", OutOfMemoryError), ("read-only", ReadOnlyError)])
async def test_a_script_refused_by_a_real_redis_raises_the_faults_own_class(
    private_redis: PrivateRedis, kind: str, cls: type[Exception]
) -> None:
    storage = RedisStorage.from_url(private_redis.url, prefix=f"t-{uuid.uuid4().hex[:8]}:")
    try:
        fault_on(private_redis, kind)
        with pytest.raises(cls):  # the claim is a Lua script: Redis 6 wraps the inner error in ERR
            await storage.claim_update(1, now=0.0, lease=30.0)
        fault_off(private_redis, kind)
        assert await storage.claim_update(1, now=0.0, lease=30.0)
    finally:
        await storage.close()


# ----- taps --------------------------------------------------------------------------------------


def _no_tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def _seat_tap(
    driver: Driver, group: SimGroup, anya: SimUser, fault: Callable[[bool], Any]
) -> tuple[StoredMessage, Any]:
    """Post a lobby, make storage fail, tap a seat; storage comes back. The tap's answer is returned."""
    message = await lobby(driver, group, anya)
    await anya.start()
    await anya.dm.wait_bot_message()
    await fault(True)
    try:
        tap = await anya.tap(message, "Место 1", timeout=15)
    finally:
        await fault(False)
    return message, tap


def _answered_once(driver: Driver, tap: Any) -> None:
    assert tap.answered and tap.show_alert and tap.answer_text == RU("fault.try_again")
    answers = [c for c in driver.calls("answerCallbackQuery") if c.ok]
    assert len(answers) == 1
    assert not [c for c in driver.failed_calls() if c.method == "answerCallbackQuery"]


@pytest.mark.parametrize("name", list(FAULTS))
async def test_a_tap_during_a_storage_fault_is_answered_try_again_once(
    name: str,
    app: AnyApplication,
    driver: Driver,
    svc: Services,
    storage: RedisStorage,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    real = storage.client.execute_command
    failing = False

    async def execute(*args: Any, **options: Any) -> Any:
        if failing:
            raise FAULTS[name]
        return await real(*args, **options)

    async def fault(on: bool) -> None:
        nonlocal failing
        failing = on

    monkeypatch.setattr(storage.client, "execute_command", execute)
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message, tap = await _seat_tap(driver, group, anya, fault)
    _answered_once(driver, tap)
    # Storage is back: the same tap now seats her.
    again = await anya.tap(message, "Место 1")
    assert not again.show_alert, again.answer_text
    await driver.settle(quiet=0.2)
    assert _no_tracebacks(caplog) == []


@pytest.mark.parametrize("kind", ["out of memory", "read-only"])
async def test_a_tap_while_a_real_redis_refuses_writes_is_answered_try_again_once(
    kind: str, private_redis: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    storage = RedisStorage.from_url(private_redis.url, prefix=f"t-{uuid.uuid4().hex[:8]}:")
    settings = Settings(bot_delay=0.0, limits=Limits.off(), timer_interval=0.2)

    async def fault(on: bool) -> None:
        (fault_on if on else fault_off)(private_redis, kind)

    try:
        async with (
            Emulator(EmulatorConfig()) as emulator,
            running_bot(app_factory(storage, settings), emulator, poll_timeout=1.0),
        ):
            driver = Driver(emulator.world, default_timeout=10.0)
            anya = driver.add_user("Аня")
            group = driver.add_group("Козлятник", [anya])
            message, tap = await _seat_tap(driver, group, anya, fault)
            _answered_once(driver, tap)
            again = await anya.tap(message, "Место 1")
            assert not again.show_alert, again.answer_text
            await driver.settle(quiet=0.2)
        assert _no_tracebacks(caplog) == []
    finally:
        await storage.close()


# ----- bot players -------------------------------------------------------------------------------


async def test_bot_players_wait_out_a_storage_fault_and_never_play_at_random(
    private_redis: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    """Decisions are jobs on Redis (BOT_THINKING=redis): Redis runs out of memory while the bot
    players are to move. Each waits and plays its own decision once Redis takes writes again."""
    storage = RedisStorage.from_url(private_redis.url, prefix=f"t-{uuid.uuid4().hex[:8]}:")
    settings = Settings(bot_delay=1.0, limits=Limits.off(), turn_time=0, timer_interval=0.2, thinking="redis")
    worker = Worker(storage.client, prefix=storage.prefix, name="w1")
    working = asyncio.create_task(worker.run())
    try:
        async with (
            Emulator(EmulatorConfig()) as emulator,
            running_bot(app_factory(storage, settings), emulator, poll_timeout=1.0) as app,
        ):
            svc = services_of(app)
            driver = Driver(emulator.world, default_timeout=20.0)
            anya = driver.add_user("Аня")
            group = driver.add_group("Козлятник", [anya])
            await start_game(driver, group, [anya])
            caplog.clear()
            with caplog.at_level(logging.WARNING):
                hand = await legal_hand(driver, svc, anya)
                while True:  # Anya plays until a bot player is to move
                    tap = await anya.tap(hand, data=decisions(svc, hand)[0])
                    assert not tap.show_alert, tap.answer_text
                    if bot_to_act(await stored(svc, group.id)) is not None:
                        break
                    await driver.settle(quiet=0.2)
                    hand = await legal_hand(driver, svc, anya)
                before = await stored(svc, group.id)
                # The bot waits a second before it decides: the fault comes meanwhile.
                await svc.presenter.idle()
                fault_on(private_redis, "out of memory")
                await asyncio.sleep(3.0)
                fault_off(private_redis, "out of memory")
                # The bots play on by themselves: a decision of Anya's comes again, or the deal ends.
                after = await _moved_on(svc, group.id, before.version)
            assert after.version > before.version
        waited = [
            r for r in caplog.records if r.name == "bot.table.bots" and "waits for storage" in r.getMessage()
        ]
        assert waited, "the fault did not reach the bot players"
        random_moves = [r.getMessage() for r in caplog.records if "at random" in r.getMessage()]
        assert random_moves == []
        assert _no_tracebacks(caplog) == []
    finally:
        worker.stopping.set()
        await working
        await storage.close()


async def _moved_on(svc: Services, chat_id: int, version: int) -> Any:
    """The stored table once a bot player has moved since ``version``."""
    for _ in range(300):
        table = await stored(svc, chat_id)
        if table.version > version:
            return table
        await asyncio.sleep(0.05)
    raise AssertionError("no bot player moved after the fault")


class _Thinker:
    """A thinker whose every decision fails with ``error``."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def decide(self, level: str, view: SeatView, seed: int) -> Action:
        raise self.error


async def test_a_player_whose_thinking_fails_plays_at_random_but_storage_down_is_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    deal = Deal.shuffled(Rules.make("classic"), random.Random(3), 3)
    assert deal.to_act is not None
    view = view_for(deal, deal.to_act)
    # The thinking itself failed: this one decision is the random player's, and it is reported.
    crashed = _Thinker(RuntimeError("the search crashed"))
    assert await decide("easy", view, random.Random(1), crashed) in view.legal  # type: ignore[arg-type]
    assert any("at random" in r.getMessage() for r in caplog.records)
    caplog.clear()
    # Storage could not take the job: no decision at all; the bot player waits and decides again.
    for name, error in FAULTS.items():
        with pytest.raises(type(error)):
            await decide("easy", view, random.Random(1), _Thinker(error))  # type: ignore[arg-type]
        assert not any("at random" in r.getMessage() for r in caplog.records), name
