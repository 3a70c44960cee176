"""The emulator's faults: injected 429/5xx and late answers, a user who blocks the bot, a group upgrade.

Each is checked through python-telegram-bot's own exceptions, as the bot would meet them.
"""

from __future__ import annotations

import pytest
from telegram import Bot
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TimedOut
from telegram.request import HTTPXRequest

from bot.sandbox import Driver, Emulator, SandboxError
from bot.sandbox.records import MIGRATED
from tests.sandbox.test_sandbox_limits import retry_seconds

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


async def test_an_injected_429_carries_retry_after_and_is_not_applied(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    fault = driver.world.inject_faults(method="sendMessage", status=429, count=1, retry_after=7)
    with pytest.raises(RetryAfter) as caught:
        await bot.send_message(anya.id, "one")
    assert retry_seconds(caught.value) == 7
    assert fault.hits == 1 and fault.count == 0
    assert [m.content for m in anya.dm.bot_messages] == []
    await bot.send_message(anya.id, "two")
    assert [m.content for m in anya.dm.bot_messages] == ["two"]


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_injected_server_errors_are_network_errors_and_change_nothing(
    bot: Bot, driver: Driver, status: int
) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    message = await bot.send_message(anya.id, "before")
    driver.world.inject_faults(method="editMessageText", status=status, count=2)
    for _ in range(2):
        with pytest.raises(NetworkError) as caught:
            await bot.edit_message_text("after", chat_id=anya.id, message_id=message.message_id)
        assert not isinstance(caught.value, BadRequest)
    assert anya.dm.message(message.message_id).content == "before"
    await bot.edit_message_text("after", chat_id=anya.id, message_id=message.message_id)
    assert anya.dm.message(message.message_id).content == "after"
    assert [c.error_code for c in driver.calls("editMessageText")] == [status, status, None]


async def test_faults_can_be_narrowed_to_one_chat(bot: Bot, driver: Driver) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    await anya.start()
    await boris.start()
    driver.world.inject_faults(status=500, count=5, chat_id=boris.id)
    await bot.send_message(anya.id, "to Anya")
    with pytest.raises(NetworkError):
        await bot.send_message(boris.id, "to Boris")
    assert [m.content for m in anya.dm.bot_messages] == ["to Anya"]
    assert boris.dm.bot_messages == []


async def test_a_fault_with_a_probability_fails_some_calls_until_its_count(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    fault = driver.world.inject_faults(method="sendMessage", status=502, count=3, probability=0.5)
    failed = 0
    for i in range(40):
        try:
            await bot.send_message(anya.id, f"m{i}")
        except NetworkError:
            failed += 1
    assert failed == 3 == fault.hits
    assert len(anya.dm.bot_messages) == 37


async def test_an_unknown_fault_status_is_refused(driver: Driver) -> None:
    with pytest.raises(SandboxError):
        driver.world.inject_faults(status=418)


async def test_a_late_answer_times_out_a_call_that_took_effect(emulator: Emulator, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    request = HTTPXRequest(read_timeout=0.2)
    async with Bot(emulator.token, base_url=emulator.base_url, request=request) as impatient:
        driver.world.inject_faults(method="sendMessage", count=1, delay=0.6)
        with pytest.raises(TimedOut):
            await impatient.send_message(anya.id, "sent, answer lost")
    # The message is there although the client never learnt its id.
    assert [m.content for m in anya.dm.bot_messages] == ["sent, answer lost"]


async def test_a_user_who_blocks_the_bot_gets_403_and_the_bot_is_told(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    anya.block_bot()
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(anya.id, "hello?")
    updates = await bot.get_updates()
    kicked = [u.my_chat_member for u in updates if u.my_chat_member is not None]
    assert kicked and kicked[-1].new_chat_member.status == "kicked"
    assert kicked[-1].chat.id == anya.id
    # Restarting the bot in the client unblocks it.
    await anya.start()
    await bot.send_message(anya.id, "welcome back")


async def test_a_group_upgraded_to_a_supergroup_moves_to_a_new_id(bot: Bot, driver: Driver) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris], supergroup=False)
    old = await bot.send_message(group.id, "table")
    joined = await bot.get_updates()  # the bot's own joining, not under test
    supergroup = group.upgrade(by=anya)
    assert supergroup.id != group.id and driver.world.chats[supergroup.id].type == "supergroup"
    updates = await bot.get_updates(offset=joined[-1].update_id + 1)
    services = [u.message for u in updates if u.message is not None]
    assert [m.migrate_to_chat_id for m in services if m.chat.id == group.id] == [supergroup.id]
    assert [m.migrate_from_chat_id for m in services if m.chat.id == supergroup.id] == [group.id]
    # Every call naming the old id fails with the new id in ResponseParameters.
    with pytest.raises(ChatMigrated) as caught:
        await bot.send_message(group.id, "hello")
    assert caught.value.new_chat_id == supergroup.id
    with pytest.raises(ChatMigrated):
        await bot.edit_message_text("edited", chat_id=group.id, message_id=old.message_id)
    assert driver.failed_calls()[-1].description == MIGRATED
    sent = await bot.send_message(supergroup.id, "table, again")
    assert sent.chat.type == "supergroup"
    # People write in the supergroup now; the old group is read-only history.
    with pytest.raises(SandboxError):
        await anya.send(group, "/score")
    await anya.send(supergroup, "/score")


async def test_only_a_basic_group_is_upgraded_and_only_by_an_admin(driver: Driver) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris], supergroup=False)
    with pytest.raises(SandboxError):
        group.upgrade(by=boris)
    supergroup = group.upgrade(by=anya)
    with pytest.raises(SandboxError):
        supergroup.upgrade(by=anya)
    with pytest.raises(SandboxError):
        group.upgrade(by=anya)
