"""Turn timers, /settings, and expiry that survives restarts (issue #7 item 1), on a clock the test moves.

The timers live in Redis and a JobQueue job checks them every 20 ms here; time itself is a
:class:`FakeClock` the tests advance, so a 60-second turn times out without anyone waiting a minute.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bot.app import build_application, services_of
from bot.engine import Deal, KozelError, Rules, view_for
from bot.engine.actions import action_to_json
from bot.render.i18n import Tr
from bot.render.words import seat_name
from bot.sandbox import Driver, Emulator, SimGroup, SimUser, running_bot
from bot.sandbox.clock import FakeClock
from bot.sandbox.driver import AnyApplication
from bot.storage import ChatSettings, MatchState, RedisStorage, Seat, StaleWrite, Table, TimerPlan
from bot.table.core import Limits
from bot.table.timers import TIDY_AFTER, TimerId, Turn, turn_of
from bot.tg.services import Services, Settings
from tests.bot.helpers import buttons, legal_hand, lobby, start_game, stop_game, table_of

pytestmark = pytest.mark.cluster  # each test also runs on a real Redis Cluster

TIMED_OUT = "время вышло — этот ход делает бот"
AWAY = "время вышло снова — дальше играет бот"
EXPIRED_LOBBY = "никто и не собрал"


@pytest.fixture
def clock() -> FakeClock:
    """The time every timer of the test runs by; it moves only when the test says so."""
    return FakeClock(start=time.time())


@pytest.fixture
def settings(clock: FakeClock) -> Settings:
    """Bots move at once, nothing is paced, timers are checked every 20 ms against the fake clock."""
    return Settings(bot_delay=0.0, limits=Limits.off(), clock=clock.time, timer_interval=0.02)


Factory = Callable[..., AnyApplication]


@pytest.fixture
def factory(storage: RedisStorage, settings: Settings) -> Factory:
    """Builds the bot on the test's Redis keys and clock: each ``running_bot`` with it is a process
    (re)started, so a test can stop the bot and start it again."""

    def build(token: str, **kwargs: Any) -> AnyApplication:
        return build_application(token, storage=storage, settings=settings, rate_limiter=False, **kwargs)

    return build


def redis_of(svc: Services) -> RedisStorage:
    """The Redis storage behind the services (the tests look at the timers' sorted set)."""
    assert isinstance(svc.storage, RedisStorage)
    return svc.storage


async def pending(svc: Services) -> dict[str, float]:
    """Every timer waiting in Redis (in every bucket), with its due time."""
    store = redis_of(svc)
    found: dict[str, float] = {}
    for bucket in range(store.timer_buckets):
        found.update(await store.client.zrange(store.timers_key(bucket), 0, -1, withscores=True))
    return found


async def eventually(probe: Callable[[], Any], what: str, timeout: float = 10.0) -> Any:
    """Poll the (possibly async) ``probe`` until it returns something truthy."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = probe()
        if asyncio.iscoroutine(found):
            found = await found
        if found:
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def armed(svc: Services, group: SimGroup, kind: str, *, after: TimerId | None = None) -> TimerId:
    """Wait until the table waits for seat 0 and its ``kind`` timer for that turn is in Redis."""

    async def probe() -> TimerId | None:
        table = await table_of(svc, group)
        turn = turn_of(table) if table is not None else None
        if table is None or turn is None or turn.seat != 0:
            return None
        if after is not None and (turn.deal_seq, turn.moves) <= (after.deal_seq, after.moves):
            return None
        timer = TimerId(kind, group.id, None, table.table_id, turn.deal_seq, turn.moves, 0)  # type: ignore[arg-type]
        return timer if timer.pack() in await pending(svc) else None

    found: TimerId = await eventually(probe, f"a {kind} timer for seat 0")
    return found


def move_at(table: Table, deal_seq: int, index: int) -> dict[str, Any] | None:
    """The ``index``-th move of deal number ``deal_seq`` of the match, finished or in play."""
    assert table.match is not None
    if table.match.deal_seq == deal_seq and table.match.current is not None:
        moves = table.match.current["moves"]
    else:
        moves = table.match.deals[deal_seq - 1]["moves"]
    return moves[index] if index < len(moves) else None


async def played(svc: Services, group: SimGroup, timer: TimerId) -> dict[str, Any]:
    """Wait until the decision ``timer`` was set for has been taken; that move."""

    async def probe() -> dict[str, Any] | None:
        table = await table_of(svc, group)
        return move_at(table, timer.deal_seq, timer.moves) if table is not None else None

    found: dict[str, Any] = await eventually(probe, "the timed-out decision")
    return found


async def one_human_game(driver: Driver, name: str = "Аня") -> tuple[SimUser, SimGroup]:
    """A group where one person plays seat 0 against three bots."""
    anya = driver.add_user(name)
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    return anya, group


async def test_a_reminder_at_half_time_then_the_bot_plays_and_the_group_is_told(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya, group = await one_human_game(driver)
    timer = await armed(svc, group, "timeout")
    clock.advance(29)
    await asyncio.sleep(0.2)
    assert not [m for m in anya.dm.bot_messages if "осталось" in m.content], "no reminder before half time"
    clock.advance(2)
    reminder = await anya.dm.wait_bot_message(lambda m: "осталось 30 с" in m.content)
    assert "Козлятник" in reminder.content
    clock.advance(30)
    notice = await group.wait_bot_message(lambda m: TIMED_OUT in m.content)
    assert "Аня" in notice.content
    move = await played(svc, group, timer)
    assert move["seat"] == 0, "the bot decided for the absent seat"
    table = await table_of(svc, group)
    assert table is not None and table.timeouts == {0: 1} and table.away == []
    await anya.dm.wait_deleted(reminder)  # the decision is taken: the reminder is gone


async def test_the_reminder_is_deleted_once_the_person_decides(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya, group = await one_human_game(driver)
    await armed(svc, group, "timeout")
    clock.advance(31)
    reminder = await anya.dm.wait_bot_message(lambda m: "осталось 30 с" in m.content)
    hand = next(m for m in reversed(anya.dm.bot_messages) if m.buttons)  # her hand, before the reminder
    for _, button, data in buttons(svc, hand):  # her cards in order, until one is legal
        if button.payload.startswith("A") and not (await anya.tap(hand, data=data)).show_alert:
            break
    await anya.dm.wait_deleted(reminder)


async def test_a_reminder_tidied_by_its_process_drops_its_tidy_timer(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya, group = await one_human_game(driver)
    await armed(svc, group, "timeout")
    clock.advance(31)
    reminder = await anya.dm.wait_bot_message(lambda m: "осталось 30 с" in m.content)
    tidy = await eventually(lambda: _of_kind(svc, "tidy"), "the reminder's tidy timer")
    parsed = TimerId.parse(tidy[0])
    assert parsed is not None and parsed.message == (anya.id, reminder.message_id)
    hand = next(m for m in reversed(anya.dm.bot_messages) if m.buttons)
    for _, button, data in buttons(svc, hand):
        if button.payload.startswith("A") and not (await anya.tap(hand, data=data)).show_alert:
            break
    await anya.dm.wait_deleted(reminder)
    # Deleted here at once, so its timer goes: firing later it would delete the message again.
    await eventually(lambda: _none_of_kind(svc, "tidy"), "the tidy timer dropped")


async def test_a_reminder_left_by_a_restart_is_deleted_once_its_turn_is_gone(
    emulator: Emulator, driver: Driver, factory: Factory, clock: FakeClock
) -> None:
    async with running_bot(factory, emulator) as first:
        svc = services_of(first)
        anya, group = await one_human_game(driver)
        timer = await armed(svc, group, "timeout")
        clock.advance(31)
        reminder = await anya.dm.wait_bot_message(lambda m: "осталось 30 с" in m.content)
        await eventually(lambda: _of_kind(svc, "tidy"), "the reminder's tidy timer")
    # A new process knows nothing of the reminder; the bot plays at the timeout, and the reminder's
    # timer, due a few seconds after it, finds the turn gone.
    async with running_bot(factory, emulator) as second:
        svc = services_of(second)
        clock.advance(30)
        await played(svc, group, timer)
        await asyncio.sleep(0.2)
        assert not anya.dm.message(reminder.message_id).deleted, "the turn was just taken"
        clock.advance(TIDY_AFTER + 1)
        await anya.dm.wait_deleted(reminder)
        await eventually(lambda: _none_of_kind(svc, "tidy"), "the tidy timer done")


async def test_a_tidy_timer_waits_while_its_turn_still_waits(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya, group = await one_human_game(driver)
    await armed(svc, group, "timeout")
    clock.advance(31)
    reminder = await anya.dm.wait_bot_message(lambda m: "осталось 30 с" in m.content)
    tidy = (await eventually(lambda: _of_kind(svc, "tidy"), "the reminder's tidy timer"))[0]
    await svc.timers.fire(tidy)  # early, as if it came due while the turn still waits
    await asyncio.sleep(0.2)
    assert not anya.dm.message(reminder.message_id).deleted
    assert tidy in await pending(svc), "set again for later"


def test_only_a_tidy_timer_names_a_message() -> None:
    tidy = TimerId("tidy", -5, None, "t1", 2, 7, 0, message=(42, 99))
    assert TimerId.parse(tidy.pack()) == tidy
    assert TimerId.parse("tidy|-5|0|t1|2|7|0") is None
    assert TimerId.parse("remind|-5|0|t1|2|7|0|42:99") is None
    assert TimerId.parse("tidy|-5|0|t1|2|7|0|42") is None


async def test_an_im_back_keyboard_left_by_a_restart_goes_when_tapped(
    emulator: Emulator, driver: Driver, factory: Factory, clock: FakeClock
) -> None:
    async with running_bot(factory, emulator) as first:
        svc = services_of(first)
        anya, group = await one_human_game(driver)
        first_turn = await armed(svc, group, "timeout")
        clock.advance(61)
        await group.wait_bot_message(lambda m: TIMED_OUT in m.content)
        await armed(svc, group, "timeout", after=first_turn)
        clock.advance(61)
        notice = await group.wait_bot_message(lambda m: AWAY in m.content)
        dm = await anya.dm.wait_bot_message(lambda m: any("Снова в игре" in b for b, _, _ in buttons(svc, m)))
    async with running_bot(factory, emulator) as second:
        svc = services_of(second)
        await anya.tap(notice, "Снова в игре")  # back, from the group's message
        await eventually(lambda: _back(svc, group), "Anya back")
        # The new process never knew of her DM's keyboard; a tap on it, with her back already, takes it away.
        tap = await anya.tap(dm, "Снова в игре")
        assert not tap.show_alert
        await anya.dm.wait_until(dm, lambda m: m.buttons == [] and "снова в игре" in m.content)


async def _back(svc: Services, group: SimGroup) -> bool:
    table = await table_of(svc, group)
    return table is not None and table.away == []


async def _of_kind(svc: Services, kind: str) -> list[str]:
    return [m for m in await pending(svc) if m.startswith(kind + "|")]


async def _none_of_kind(svc: Services, kind: str) -> bool:
    return not await _of_kind(svc, kind)


async def test_the_reminder_is_deleted_when_the_game_is_stopped(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya, group = await one_human_game(driver)
    await armed(svc, group, "timeout")
    clock.advance(31)
    reminder = await anya.dm.wait_bot_message(lambda m: "осталось 30 с" in m.content)
    await stop_game(anya, group)
    await anya.dm.wait_deleted(reminder)


async def test_two_timeouts_in_a_row_make_the_seat_away_until_im_back(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya, group = await one_human_game(driver)
    first = await armed(svc, group, "timeout")
    clock.advance(61)
    await group.wait_bot_message(lambda m: TIMED_OUT in m.content)
    second = await armed(svc, group, "timeout", after=first)
    clock.advance(61)
    notice = await group.wait_bot_message(lambda m: AWAY in m.content)
    assert any("Снова в игре" in label for label, _, _ in buttons(svc, notice))
    dm = await anya.dm.wait_bot_message(
        lambda m: any("Снова в игре" in label for label, _, _ in buttons(svc, m))
    )
    await played(svc, group, second)
    table = await table_of(svc, group)
    assert table is not None and table.away == [0]
    assert "💤" in seat_name(Tr("ru"), table, 0), "the table shows the seat is away"

    # Away: the bot decides for the seat at once (the clock stands still), with no notice.
    fired = await eventually(
        lambda: [m for m in svc.timers.fired if m.startswith("away|")], "an away decision"
    )
    away_turn = TimerId.parse(fired[0])
    assert away_turn is not None
    assert (await played(svc, group, away_turn))["seat"] == 0
    assert len([m for m in group.bot_messages if TIMED_OUT in m.content or AWAY in m.content]) == 2

    tap = await anya.tap(dm, "Снова в игре")
    assert not tap.show_alert and tap.answer_text is not None and "С возвращением" in tap.answer_text
    back = await table_of(svc, group)
    assert back is not None and back.away == [] and back.timeouts == {}
    await anya.dm.wait_deleted(dm)  # her DM keeps no leftover
    # The group's "I'm back" keyboard goes too: she is back.
    await group.wait_until(notice, lambda m: "снова в игре" in m.content and m.buttons == [])
    # Her decisions are hers again: the next one waits for her, with a turn timer.
    await armed(svc, group, "timeout", after=away_turn)


async def _one_turn_played(driver: Driver, svc: Services) -> tuple[SimGroup, TimerId, TimerId]:
    """Anya's game after she played her first legal card: the group, that turn's timeout timer, and
    the one armed for her next turn."""
    anya, group = await one_human_game(driver)
    taken = await armed(svc, group, "timeout")
    hand = await legal_hand(driver, svc, anya)
    for _, button, data in buttons(svc, hand):  # her cards in order, until one is legal
        if button.payload.startswith("A") and not (await anya.tap(hand, data=data)).show_alert:
            break
    return group, taken, await armed(svc, group, "timeout", after=taken)


async def test_a_timer_of_a_turn_that_moved_on_does_nothing(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    group, stale, fresh = await _one_turn_played(driver, svc)
    await driver.settle()
    await svc.presenter.idle()
    before = await table_of(svc, group)
    # The stale timer fires as if claimed now; so does one for another table id.
    await svc.timers.fire(stale.pack())
    await svc.timers.fire(TimerId("timeout", group.id, None, "zzzzzz", fresh.deal_seq, fresh.moves).pack())
    after = await table_of(svc, group)
    assert before is not None and after is not None
    assert after.version == before.version and after.timeouts == {}
    assert not [m for m in group.bot_messages if TIMED_OUT in m.content]


async def test_the_timers_of_a_decision_taken_are_dropped_when_the_next_turn_is_armed(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    # Three bot players move after her: her next turn's timers replace her last turn's.
    _, _, fresh = await _one_turn_played(driver, svc)
    await svc.timers.idle()
    turn_timers = {m for m in await pending(svc) if m.startswith(("remind|", "timeout|", "away|"))}
    remind = TimerId("remind", *fresh.key, fresh.table_id, fresh.deal_seq, fresh.moves, fresh.seat)
    assert turn_timers == {fresh.pack(), remind.pack()}, "none of an earlier turn is left to fire"


async def test_a_turn_timer_due_while_the_bot_was_down_fires_at_the_next_start(
    emulator: Emulator, driver: Driver, factory: Factory, clock: FakeClock
) -> None:
    async with running_bot(factory, emulator) as first:
        svc = services_of(first)
        anya, group = await one_human_game(driver)
        timer = await armed(svc, group, "timeout")
    clock.advance(120)  # the bot is down meanwhile
    async with running_bot(factory, emulator) as second:
        svc = services_of(second)
        notice = await group.wait_bot_message(lambda m: TIMED_OUT in m.content)
        assert "Аня" in notice.content
        move = await played(svc, group, timer)
        assert move["seat"] == 0
        reminders = [m for m in anya.dm.bot_messages if "осталось" in m.content]
        assert len(reminders) <= 1, "a late reminder is not sent twice"


async def test_a_lobby_expires_across_a_restart(
    emulator: Emulator, driver: Driver, factory: Factory, settings: Settings, clock: FakeClock
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    async with running_bot(factory, emulator) as first:
        message = await lobby(driver, group, anya)
        svc = services_of(first)
        await eventually(lambda: _has_kind(svc, "lobby"), "the lobby's expiry timer")
    clock.advance(settings.lobby_ttl + 1)
    async with running_bot(factory, emulator) as second:
        await group.wait_until(message, lambda m: EXPIRED_LOBBY in m.content)
        assert message.buttons == []
        assert await services_of(second).storage.load_table(group.id, None) is None


async def _has_kind(svc: Services, kind: str) -> bool:
    return any(m.startswith(kind + "|") for m in await pending(svc))


@pytest.fixture
async def twin(
    app: AnyApplication, emulator: Emulator, redis_url: str, storage: RedisStorage, settings: Settings
) -> AsyncIterator[AnyApplication]:
    """A second application on the same Redis keys and emulator (not polling: its timers run)."""
    store = RedisStorage.from_url(redis_url, prefix=storage.prefix)
    other = build_application(
        emulator.token,
        base_url=emulator.base_url,
        base_file_url=emulator.base_file_url,
        storage=store,
        settings=settings,
        rate_limiter=False,
    )
    await other.initialize()
    await other.start()
    try:
        yield other
    finally:
        await other.stop()
        await other.shutdown()
        await store.close()


async def test_each_timer_fires_in_exactly_one_of_two_processes(
    app: AnyApplication, twin: AnyApplication, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    other = services_of(twin)
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await eventually(lambda: _has_kind(svc, "lobby"), "the lobby's expiry timer")
    # Many timers of tables that no longer exist (each a no-op), all due at once, and the lobby's. They
    # fall due only when the clock jumps: due before it, one process could claim them and the jump
    # (past their 60 s lease) would hand them to the other as if the first had died.
    due = clock.time() + svc.settings.lobby_ttl + 1
    ghosts = {TimerId("lobby", group.id - n, None, f"g{n}").pack(): due for n in range(1, 61)}
    await svc.storage.add_timers(ghosts)
    clock.advance(svc.settings.lobby_ttl + 1)
    await group.wait_until(message, lambda m: EXPIRED_LOBBY in m.content)
    await eventually(lambda: _all_fired(svc, other, ghosts), "every timer")
    ours, theirs = set(svc.timers.fired), set(other.timers.fired)
    assert not ours & theirs, "no timer fired in both processes"
    assert set(ghosts) <= ours | theirs
    assert len(svc.timers.fired) + len(other.timers.fired) == len(ghosts) + 1
    await driver.settle()
    expired_edits = [
        c
        for c in driver.calls("editMessageText")
        if str(c.params.get("message_id")) == str(message.message_id)
        and EXPIRED_LOBBY in str(c.params.get("text"))
    ]
    assert len(expired_edits) == 1, "the group is told once"


def _all_fired(a: Services, b: Services, members: dict[str, float]) -> bool:
    return set(members) <= set(a.timers.fired) | set(b.timers.fired)


async def test_an_abandoned_game_expires_with_a_notice(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await svc.storage.save_chat_settings(group.id, ChatSettings(turn_time=0))
    await start_game(driver, group, [anya])
    await eventually(lambda: _waits_for_anya(svc, group), "Anya's decision")
    hand = await legal_hand(driver, svc, anya)
    await svc.presenter.idle()
    assert not await _has_kind(svc, "timeout"), "turn timer off: nothing times out"
    clock.advance(svc.settings.table_ttl - 10)
    await asyncio.sleep(0.2)
    assert await table_of(svc, group) is not None
    clock.advance(11)
    await eventually(lambda: _gone(svc, group), "the table to be removed")
    await anya.dm.wait_until(hand, lambda m: "стол убран" in m.content)
    assert [m for m in group.messages if "стол убран" in m.content], group.transcript()


async def _waits_for_anya(svc: Services, group: SimGroup) -> bool:
    table = await table_of(svc, group)
    turn = turn_of(table) if table is not None else None
    return turn is not None and turn.seat == 0


async def _gone(svc: Services, group: SimGroup) -> bool:
    return await table_of(svc, group) is None


async def test_timeout_action_away_takes_the_seat_at_the_first_timeout(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await svc.storage.save_chat_settings(group.id, ChatSettings(turn_time=30, timeout_action="away"))
    await start_game(driver, group, [anya])
    timer = await armed(svc, group, "timeout")
    assert (await pending(svc))[timer.pack()] == pytest.approx(clock.time() + 30, abs=5)
    clock.advance(31)
    await group.wait_bot_message(lambda m: "время вышло — дальше играет бот" in m.content)
    await played(svc, group, timer)
    table = await table_of(svc, group)
    assert table is not None and table.away == [0]


async def test_settings_are_for_the_table_creator_and_admins(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris, vera = driver.add_user("Аня"), driver.add_user("Борис"), driver.add_user("Вера")
    group = driver.add_group("Козлятник", [anya, boris, vera])  # Аня created the group: its owner
    await boris.send(group, "/settings")
    refusal = await group.wait_bot_message(lambda m: "админ чата" in m.content)
    assert refusal.buttons == []
    await anya.send(group, "/settings")
    menu = await group.wait_bot_message(lambda m: "Время на ход: 1 мин" in m.content)
    tap = await boris.tap(menu, "2 мин")
    assert tap.show_alert and "админ чата" in (tap.answer_text or "")
    assert (await svc.storage.chat_settings(group.id)).turn_time is None
    tap = await anya.tap(menu, "2 мин")
    assert not tap.show_alert
    await group.wait_until(menu, lambda m: "Время на ход: 2 мин" in m.content)
    tap = await anya.tap(menu, "бот садится сразу")
    await group.wait_until(menu, lambda m: "Если время вышло: бот садится сразу" in m.content)
    stored = await svc.storage.chat_settings(group.id)
    assert stored.turn_time == 120 and stored.timeout_action == "away"
    # The creator of the table here may change them too, admin or not.
    await lobby(driver, group, boris)
    await boris.send(group, "/settings")
    menu = await group.wait_bot_message(lambda m: "Время на ход" in m.content and bool(m.buttons))
    tap = await boris.tap(menu, "без таймера")
    assert not tap.show_alert
    await eventually(lambda: _turn_time_is(svc, group, 0), "the turn timer switched off")
    # /rules shows them.
    await vera.send(group, "/rules")
    await group.wait_bot_message(lambda m: "Время на ход: без таймера" in m.content)


async def _turn_time_is(svc: Services, group: SimGroup, seconds: int) -> bool:
    return (await svc.storage.chat_settings(group.id)).turn_time == seconds


def test_timer_ids_round_trip_and_refuse_garbage() -> None:
    timer = TimerId("remind", -1001234, 7, "ab12cd", 3, 14, 2)
    assert TimerId.parse(timer.pack()) == timer
    assert TimerId.parse(TimerId("lobby", -5, None, "x1").pack()) == TimerId("lobby", -5, None, "x1")
    for bad in ("", "remind|1|0|t|1|2", "boom|1|0|t|1|2|3", "remind|x|0|t|1|2|3"):
        assert TimerId.parse(bad) is None
    assert Turn(1, 2, 3) == Turn(1, 2, 3)


def _waiting_on_seat_0(preset: str, options: dict[str, Any], deal_no: int, kind: str) -> Deal:
    """A deal where seat 0 must take a decision of ``kind`` (the others' choices made at random)."""
    rules = Rules.make(preset, **options)
    for seed in range(500):
        rng = random.Random(seed)
        try:
            deal = Deal.shuffled(rules, rng, dealer=seed % 4, deal_no=deal_no)
        except KozelError:
            continue
        while not deal.over and deal.to_act is not None:
            legal = view_for(deal, deal.to_act).legal
            if deal.to_act == 0 and any(action_to_json(a)[0] == kind for a in legal):
                return deal
            deal.apply(deal.to_act, rng.choice(legal))
    raise AssertionError(f"no {preset} deal waits for a {kind} decision of seat 0")


@pytest.mark.parametrize(
    ("preset", "options", "deal_no", "kind"),
    [
        ("classic", {}, 1, "play"),
        ("classic", {}, 2, "brag"),
        ("classic", {}, 2, "exchange"),
        ("flip", {}, 1, "swap"),
        ("flip", {"trump_mode": "declare"}, 1, "declare"),
    ],
)
async def test_any_decision_can_time_out(
    app: object, driver: Driver, svc: Services, preset: str, options: dict[str, Any], deal_no: int, kind: str
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    deal = _waiting_on_seat_0(preset, options, deal_no, kind)
    table = Table(
        table_id="t1",
        chat_id=group.id,
        creator_id=anya.id,
        status="playing",
        rules=deal.rules.to_json(),
        seats=[Seat(kind="human", name="Аня", user_id=anya.id)]
        + [Seat(kind="bot", name="bot", level="random") for _ in range(3)],
        match=MatchState(
            first_dealer=deal.dealer, dealer=deal.dealer, deal_no=deal_no, deal_seq=1, current=deal.record()
        ),
    )
    await svc.storage.save_table(table, ttl=60)
    turn = turn_of(table)
    assert turn is not None and turn.seat == 0
    await svc.timers.fire(TimerId("timeout", group.id, None, "t1", 1, turn.moves, 0).pack())
    after = await table_of(svc, group)
    assert after is not None and after.match is not None
    move = move_at(after, 1, turn.moves)
    assert move is not None and move["seat"] == 0, "the bot decided for the absent seat"
    assert after.timeouts == {0: 1}
    await group.wait_bot_message(lambda m: TIMED_OUT in m.content)


async def test_a_change_that_leaves_the_turn_keeps_its_timers(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya, group = await one_human_game(driver)
    timer = await armed(svc, group, "timeout")
    remind = TimerId("remind", *timer.key, timer.table_id, timer.deal_seq, timer.moves, 0).pack()
    before = await pending(svc)
    clock.advance(31)
    await anya.dm.wait_bot_message(lambda m: "осталось" in m.content)
    table = await table_of(svc, group)
    assert table is not None
    await svc.timers.arm(table)  # as after someone's /leave, or at a restart
    after = await pending(svc)
    assert after[timer.pack()] == before[timer.pack()], "the person's time is not reset"
    assert remind not in after, "the reminder is not sent again"


async def test_storage_claims_each_due_timer_once_and_arms_a_turn_once(
    storage: RedisStorage, redis_url: str
) -> None:
    assert await storage.add_timers({"a": 10.0, "b": 20.0, "c": 30.0})
    assert await storage.add_timers({"a": 99.0, "d": 40.0})  # a pending timer keeps its time
    assert not await storage.add_timers({"e": 1.0}, unless="b"), "nothing while the guard is pending"
    assert not await storage.add_timers({"e": 1.0}, unless="b", drop=["x", "y"])
    assert await storage.add_timers({"x": 5.0, "y": 6.0})
    assert not await storage.add_timers({"e": 1.0}, unless="b", drop=["x", "y"]), "dropped all the same"
    assert await storage.claim_timers(25.0) == ["a", "b"]
    assert await storage.claim_timers(25.0) == []
    for member in ("a", "b"):
        await storage.finish_timer(member)  # fired: their leases end with them
    assert await storage.add_timers({"e": 1.0}, unless="b"), "the guard fired: the addition goes ahead"
    assert await storage.claim_timers(100.0) == ["e", "c", "d"]
    for member in ("c", "d", "e"):
        await storage.finish_timer(member)
    # Two clients claiming at once, a few at a time: every timer is taken by exactly one of them.
    await storage.add_timers({f"t{n}": float(n) for n in range(200)})
    other = RedisStorage.from_url(redis_url, prefix=storage.prefix)
    try:
        batches = await asyncio.gather(
            *(s.claim_timers(1000.0, 7) for _ in range(20) for s in (storage, other))
        )
    finally:
        await other.close()
    taken = [member for batch in batches for member in batch]
    assert sorted(taken) == sorted(f"t{n}" for n in range(200))


async def test_a_save_arms_its_timers_only_if_it_is_made(storage: RedisStorage) -> None:
    # One script on a single Redis; on a cluster the save, then the timers' bucket (another slot).
    table = Table(table_id="arm1", chat_id=-100555, creator_id=1, rules={})
    member = TimerId("lobby", table.chat_id, None, table.table_id).pack()
    await storage.save_table(table, ttl=60, timers=TimerPlan({member: 50.0}))
    assert await storage.claim_timers(100.0) == [member]
    await storage.finish_timer(member)
    stale = table.model_copy(update={"version": 0})
    with pytest.raises(StaleWrite):
        await storage.save_table(stale, ttl=60, timers=TimerPlan({member: 60.0}))
    assert await storage.claim_timers(100.0) == [], "a save refused arms nothing"
