"""Telegram's limits, one test per violation, checked through python-telegram-bot's own exceptions."""

from __future__ import annotations

import datetime as dt
import warnings

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, RetryAfter

from bot.sandbox import Driver, EmulatorConfig, FakeClock
from bot.sandbox.world import NOT_MODIFIED, QUERY_TOO_OLD

# PTB 22 warns on every RetryAfter that retry_after will become a timedelta; not this suite's concern.
pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")


def keyboard(rows: int, per_row: int, data: str = "x") -> InlineKeyboardMarkup:
    """A keyboard of ``rows`` x ``per_row`` callback buttons."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(f"{r}.{c}", callback_data=data) for c in range(per_row)] for r in range(rows)]
    )


def retry_seconds(error: RetryAfter) -> float:
    """``retry_after`` in seconds, whether PTB gives an int (22.x default) or a timedelta."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PTB 22 warns that the type will become timedelta
        value = error.retry_after
    return value.total_seconds() if isinstance(value, dt.timedelta) else float(value)


def last_description(driver: Driver) -> str | None:
    """Telegram's exact description of the last refused call."""
    return driver.failed_calls()[-1].description


async def test_callback_data_over_64_bytes_is_button_data_invalid(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    await bot.send_message(anya.id, "ok", reply_markup=keyboard(1, 1, data="x" * 64))
    # 33 Cyrillic letters are 66 bytes: the limit is in bytes, not characters.
    with pytest.raises(BadRequest, match=r"(?i)button_data_invalid"):
        await bot.send_message(anya.id, "too long", reply_markup=keyboard(1, 1, data="я" * 33))
    assert last_description(driver) == "Bad Request: BUTTON_DATA_INVALID"


async def test_text_over_4096_characters_is_too_long(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    await bot.send_message(anya.id, "а" * 4096)
    await bot.send_message(anya.id, "<b>" + "а" * 4096 + "</b>", parse_mode="HTML")  # tags do not count
    with pytest.raises(BadRequest, match=r"(?i)message is too long"):
        await bot.send_message(anya.id, "а" * 4097)
    assert last_description(driver) == "Bad Request: message is too long"


async def test_more_than_100_buttons_is_refused(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    await bot.send_message(anya.id, "100", reply_markup=keyboard(20, 5))
    with pytest.raises(BadRequest, match=r"(?i)reply markup is too long"):
        await bot.send_message(anya.id, "101", reply_markup=keyboard(101, 1))
    assert last_description(driver) == "Bad Request: reply markup is too long"


async def test_more_than_8_buttons_in_a_row_is_refused(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    await bot.send_message(anya.id, "8", reply_markup=keyboard(1, 8))
    with pytest.raises(BadRequest, match=r"(?i)reply markup is too long"):
        await bot.send_message(anya.id, "9", reply_markup=keyboard(1, 9))


async def test_writing_to_a_user_who_never_started_the_bot_is_forbidden(bot: Bot, driver: Driver) -> None:
    boris = driver.add_user("Борис")
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(boris.id, "Ваши карты")
    assert last_description(driver) == "Forbidden: bot can't initiate conversation with a user"
    assert driver.failed_calls()[-1].error_code == 403


async def test_writing_to_a_user_who_blocked_the_bot_is_forbidden(bot: Bot, driver: Driver) -> None:
    vera = driver.add_user("Вера")
    await vera.start()
    await bot.send_message(vera.id, "Привет")
    vera.block_bot()
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(vera.id, "Ваши карты")
    assert last_description(driver) == "Forbidden: bot was blocked by the user"
    await vera.start()  # "Restart" in the client unblocks
    await bot.send_message(vera.id, "С возвращением")


@pytest.fixture
def limited(config: EmulatorConfig) -> EmulatorConfig:
    """Switch the flood limits on (the emulator fixture reads this same config object)."""
    config.rate_limits = True
    return config


@pytest.mark.usefixtures("limited")
async def test_more_than_20_group_messages_a_minute_is_429(
    bot: Bot, driver: Driver, clock: FakeClock
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    first = await bot.send_message(group.id, "0")
    for n in range(1, 20):
        clock.advance(1.5)  # slow enough for the per-chat limit, too fast for the per-group one
        if n % 2:
            await bot.edit_message_text(f"edit {n}", group.id, first.message_id)  # edits count too
        else:
            await bot.send_message(group.id, str(n))
    clock.advance(1.5)
    with pytest.raises(RetryAfter) as refused:
        await bot.send_message(group.id, "21st")
    elapsed = 19 * 1.5 + 1.5
    assert retry_seconds(refused.value) == pytest.approx(60 - elapsed)
    assert last_description(driver) == f"Too Many Requests: retry after {int(60 - elapsed)}"
    clock.advance(retry_seconds(refused.value))
    await bot.send_message(group.id, "after the pause")


@pytest.mark.usefixtures("limited")
async def test_more_than_about_one_message_a_second_in_a_chat_is_429(
    bot: Bot, driver: Driver, clock: FakeClock
) -> None:
    gleb = driver.add_user("Глеб")
    await gleb.start()
    for n in range(3):  # a short burst passes, as on Telegram
        await bot.send_message(gleb.id, f"burst {n}")
    with pytest.raises(RetryAfter) as refused:
        await bot.send_message(gleb.id, "one too many")
    assert retry_seconds(refused.value) == 1
    raw = driver.failed_calls()[-1]
    assert (raw.error_code, raw.description) == (429, "Too Many Requests: retry after 1")
    clock.advance(1.0)
    await bot.send_message(gleb.id, "after a second")
    with pytest.raises(RetryAfter):
        await bot.send_message(gleb.id, "again too soon")


@pytest.mark.usefixtures("limited")
async def test_more_than_30_messages_a_second_overall_is_429(
    bot: Bot, driver: Driver, clock: FakeClock
) -> None:
    users = [driver.add_user(f"Игрок {n}") for n in range(31)]
    for user in users:
        await user.start()
    for user in users[:30]:
        await bot.send_message(user.id, "раздача")
    with pytest.raises(RetryAfter):
        await bot.send_message(users[30].id, "раздача")
    clock.advance(1.0)
    await bot.send_message(users[30].id, "раздача")


async def test_limits_are_off_unless_switched_on(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    for n in range(10):
        await bot.send_message(anya.id, str(n))
    assert not driver.failed_calls()


async def test_an_edit_that_changes_nothing_is_not_modified(bot: Bot, driver: Driver) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    sent = await bot.send_message(anya.id, "<b>Ход</b> Ани", parse_mode="HTML", reply_markup=keyboard(1, 2))
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_text(
            "<b>Ход</b> Ани", anya.id, sent.message_id, parse_mode="HTML", reply_markup=keyboard(1, 2)
        )
    assert last_description(driver) == NOT_MODIFIED
    with pytest.raises(BadRequest, match=r"(?i)message is not modified"):
        await bot.edit_message_reply_markup(anya.id, sent.message_id, reply_markup=keyboard(1, 2))
    # Same text but different formatting, or same text without the keyboard, is a real change.
    await bot.edit_message_text("Ход Ани", anya.id, sent.message_id, reply_markup=keyboard(1, 2))
    await bot.edit_message_text("Ход Ани", anya.id, sent.message_id)


async def test_a_callback_answered_late_is_query_too_old(bot: Bot, driver: Driver, clock: FakeClock) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    sent = await bot.send_message(anya.id, "Козыри?", reply_markup=keyboard(1, 1, data="trump"))
    prompt = anya.dm.message(sent.message_id)
    late = await anya.tap(prompt, wait_answer=False)
    assert late.callback is not None
    clock.advance(16)
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await bot.answer_callback_query(late.callback.id, "поздно")
    assert last_description(driver) == QUERY_TOO_OLD
    fresh = await anya.tap(prompt, wait_answer=False)
    assert fresh.callback is not None
    await bot.answer_callback_query(fresh.callback.id, "вовремя")
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):  # a second answer is refused too
        await bot.answer_callback_query(fresh.callback.id, "ещё раз")
