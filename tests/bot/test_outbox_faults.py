"""The outbox against Telegram's faults, through the emulator: what is retried, what is not, and why.

A fake pace records the backoff instead of sleeping, so the schedule itself is checked.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.request import HTTPXRequest

from bot.render.content import Content
from bot.sandbox import Driver, Emulator, EmulatorConfig
from bot.sandbox.world import NOT_MODIFIED
from bot.table.core import Limits
from bot.tg.calls import MAX_ATTEMPTS
from bot.tg.outbox import Outbox

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


class RecordingPace:
    """The outbox's clock: real time, but every wait is recorded and cut to nothing."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []

    def now(self) -> float:
        """The loop's time."""
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        """Record the wait; yield once."""
        self.sleeps.append(round(seconds, 3))
        await asyncio.sleep(0)


@pytest.fixture
async def emulator() -> AsyncIterator[Emulator]:
    """A running emulator (real clock)."""
    async with Emulator(EmulatorConfig()) as running:
        yield running


@pytest.fixture
def driver(emulator: Emulator) -> Driver:
    """Simulated users."""
    return Driver(emulator.world, default_timeout=5.0)


@pytest.fixture
async def bot(emulator: Emulator) -> AsyncIterator[Bot]:
    """A Bot that gives up waiting for an answer after 0.3 s."""
    request = HTTPXRequest(read_timeout=0.3)
    async with Bot(emulator.token, base_url=emulator.base_url, request=request) as client:
        yield client


def outbox_for(bot: Bot) -> tuple[Outbox, RecordingPace]:
    """An unpaced outbox on ``bot`` with a recording pace."""
    pace = RecordingPace()
    return Outbox(bot, limits=Limits.off(), pace=pace), pace


async def test_a_5xx_is_retried_with_exponential_backoff(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    outbox, pace = outbox_for(bot)
    driver.world.inject_faults(method="sendMessage", status=500, count=1)
    driver.world.inject_faults(method="sendMessage", status=502, count=1)
    driver.world.inject_faults(method="sendMessage", status=503, count=1)
    sent = await outbox.send(anya.id, Content("hello"))
    assert sent.message_id is not None and not sent.uncertain
    assert [m.content for m in anya.dm.bot_messages] == ["hello"]
    assert [c.error_code for c in driver.calls("sendMessage")] == [500, 502, 503, None]
    assert [s for s in pace.sleeps if s > 0] == [0.5, 1.0, 2.0]


async def test_a_429_is_waited_out_for_its_retry_after(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    outbox, pace = outbox_for(bot)
    message = await outbox.send(anya.id, Content("v1"))
    assert message.message_id is not None
    driver.world.inject_faults(method="editMessageText", status=429, count=1, retry_after=3)
    outbox.edit(anya.id, message.message_id, Content("v2"))
    await outbox.drain()
    assert anya.dm.message(message.message_id).content == "v2"
    assert 3.0 in pace.sleeps


async def test_a_delete_drops_the_edit_still_waiting_and_is_retried_after_a_5xx(
    bot: Bot, driver: Driver
) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    outbox, _ = outbox_for(bot)
    message = await outbox.send(anya.id, Content("⏳ reminder"))
    assert message.message_id is not None
    driver.world.inject_faults(method="deleteMessage", status=502, count=1)
    outbox.edit(anya.id, message.message_id, Content("never shown"), urgent=False)
    deleted = outbox.delete(anya.id, message.message_id)
    assert (await deleted).message_id == message.message_id
    await outbox.drain()
    assert anya.dm.message(message.message_id).deleted
    assert driver.calls("editMessageText") == []
    assert [c.error_code for c in driver.calls("deleteMessage")] == [502, None]


async def test_a_delete_while_the_edit_waits_for_its_turn_drops_it_and_the_chat_goes_on(
    bot: Bot, driver: Driver
) -> None:
    # The edit is the chat's next call and already waiting out the chat's pace when the delete of
    # its message comes: the worker must not trip over the edit gone from its queue (it once raised
    # ValueError there, and the delete and every later call to the chat then waited for ever).
    anya = driver.add_user("Аня")
    await anya.start()
    outbox = Outbox(bot, limits=dataclasses.replace(Limits.off(), private_interval=0.3))
    message = await outbox.send(anya.id, Content("⏳ reminder"))
    assert message.message_id is not None
    outbox.edit(anya.id, message.message_id, Content("never shown"))
    await asyncio.sleep(0.1)  # the worker has taken the edit and waits for the chat's turn
    deleted = outbox.delete(anya.id, message.message_id)
    assert (await asyncio.wait_for(deleted, 5)).message_id == message.message_id
    assert (await asyncio.wait_for(outbox.send(anya.id, Content("next")), 5)).message_id is not None
    assert anya.dm.message(message.message_id).deleted
    assert driver.calls("editMessageText") == []


async def test_a_call_that_keeps_failing_is_given_up(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    outbox, _ = outbox_for(bot)
    driver.world.inject_faults(method="sendMessage", status=500, count=100)
    sent = await outbox.send(anya.id, Content("never"))
    assert sent.message_id is None
    assert len(driver.calls("sendMessage")) == MAX_ATTEMPTS
    # The chat's worker lives on: the next call goes through once Telegram is well.
    driver.world.clear_faults()
    assert (await outbox.send(anya.id, Content("later"))).message_id is not None


async def test_a_timed_out_send_is_not_repeated_but_a_timed_out_edit_is(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    outbox, _ = outbox_for(bot)
    # Telegram applies the send but its answer comes after the client gave up: repeating it would
    # show the message twice, so the outbox reports it as uncertain instead.
    driver.world.inject_faults(method="sendMessage", count=1, delay=0.8)
    sent = await outbox.send(anya.id, Content("once"))
    assert sent.uncertain and sent.message_id is None
    assert [m.content for m in anya.dm.bot_messages] == ["once"]
    assert len(driver.calls("sendMessage")) == 1
    # An edit is safe to repeat: applied twice it is just "not modified".
    message = anya.dm.bot_messages[0]
    driver.world.inject_faults(method="editMessageText", count=1, delay=0.8)
    outbox.edit(anya.id, message.message_id, Content("edited"))
    await outbox.drain()
    assert anya.dm.message(message.message_id).content == "edited"
    edits = driver.calls("editMessageText")
    assert len(edits) == 2 and edits[0].ok and edits[1].description == NOT_MODIFIED


async def test_a_newer_edit_replaces_one_waiting_to_be_retried(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    pace = RecordingPace()
    release = asyncio.Event()

    async def slow_sleep(seconds: float) -> None:
        pace.sleeps.append(seconds)
        await release.wait()

    pace.sleep = slow_sleep  # type: ignore[method-assign]
    outbox = Outbox(bot, limits=Limits.off(), pace=pace)
    message = await outbox.send(anya.id, Content("v1"))
    assert message.message_id is not None
    driver.world.inject_faults(method="editMessageText", status=502, count=1)
    outbox.edit(anya.id, message.message_id, Content("v2"))
    while not pace.sleeps:
        await asyncio.sleep(0.01)
    outbox.edit(anya.id, message.message_id, Content("v3"))
    release.set()
    await outbox.drain()
    assert anya.dm.message(message.message_id).content == "v3"
    assert [c.params["text"] for c in driver.calls("editMessageText")] == ["v2", "v3"]


async def test_a_user_who_blocked_the_bot_is_reported_once_per_call(bot: Bot, driver: Driver) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    await anya.start()
    outbox, _ = outbox_for(bot)
    reported: list[int] = []
    outbox.on_blocked = reported.append
    anya.block_bot()
    sent = await outbox.send(anya.id, Content("hello?"))
    assert sent.forbidden and sent.blocked and reported == [anya.id]
    # Boris never started the bot: forbidden too, but that is not a block (#4's path, not a handover).
    sent = await outbox.send(boris.id, Content("hello?"))
    assert sent.forbidden and not sent.blocked and reported == [anya.id]


async def test_sends_to_an_upgraded_group_go_to_the_supergroup(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya], supergroup=False)
    outbox, _ = outbox_for(bot)
    moved: list[tuple[int, int]] = []
    outbox.on_migrated = lambda old, new: moved.append((old, new))
    table = await outbox.send(group.id, Content("table"))
    assert table.message_id is not None
    supergroup = group.upgrade(by=anya)
    # The send learns of the upgrade from Telegram's answer and goes to the supergroup.
    sent = await outbox.send(group.id, Content("again"))
    assert sent.chat_id == supergroup.id and sent.message_id is not None
    assert moved == [(group.id, supergroup.id)]
    assert [m.content for m in supergroup.bot_messages] == ["again"]
    # From then on nothing is sent to the old id; edits of its old messages are dropped.
    calls = len(driver.calls())
    outbox.edit(group.id, table.message_id, Content("edited"))
    later = await outbox.send(group.id, Content("third"))
    await outbox.drain()
    assert later.chat_id == supergroup.id
    assert [c.chat_id for c in driver.calls()[calls:]] == [supergroup.id]
    assert group.message(table.message_id).content == "table"


async def test_an_edit_goes_straight_to_the_api_with_its_keyboard_made_into_json_once(
    bot: Bot, driver: Driver
) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    outbox, _ = outbox_for(bot)
    message = await outbox.send(anya.id, Content("v1"))
    assert message.message_id is not None
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("♣Д", callback_data="d1")]])
    for text in ("v2", "v3"):
        sent = await outbox.edited(anya.id, message.message_id, Content(text, markup))
        assert sent.message_id == message.message_id
    shown = anya.dm.message(message.message_id)
    assert shown.content == "v3" and [[b["text"] for b in row] for row in shown.buttons] == [["♣Д"]]
    assert outbox._markup_json(markup) is outbox._markup_json(markup)
    # Telegram's refusals still come back as python-telegram-bot's errors, mapped as before.
    gone = await outbox.edited(anya.id, 999_999, Content("nowhere", markup))
    assert gone.message_id is None
    assert driver.calls("editMessageText")[-1].error_code == 400


async def test_a_retried_edit_waits_its_chats_turn_again(bot: Bot, driver: Driver) -> None:
    """A timed-out edit reached Telegram (it is applied, only the answer was lost) and counts in the
    chat's budget: the attempt after it keeps the chat's interval, not just the backoff."""
    anya = driver.add_user("Аня")
    await anya.start()
    interval = 2.0
    limits = Limits(
        group_interval=interval, private_interval=interval, global_interval=0.0, relaxed_interval=0.0
    )
    outbox = Outbox(bot, limits=limits)
    message = await outbox.send(anya.id, Content("v1"))
    assert message.message_id is not None
    await asyncio.sleep(interval)
    driver.world.inject_faults(method="editMessageText", count=1, delay=0.8)
    outbox.edit(anya.id, message.message_id, Content("v2"))
    await outbox.drain()
    first, second = driver.calls("editMessageText")
    assert first.ok and second.description == NOT_MODIFIED
    assert second.time - first.time >= interval - 0.05
