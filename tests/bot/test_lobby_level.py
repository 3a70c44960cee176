"""The bot players' level in the lobby is the table creator's choice, like the rules (issue #4).

Seats stay everyone's: anyone may put a bot player in an empty seat. The level button cycles the
level of the bots to be seated and of those already seated, as its label says.
"""

from __future__ import annotations

from bot.sandbox import Driver, SimUser, StoredMessage
from bot.table.bots import levels
from bot.tg.services import Services
from tests.bot.helpers import buttons, lobby, table_of

LEVEL_BUTTON = "Уровень ботов"


def _data(svc: Services, message: StoredMessage, payload: str) -> str:
    """The callback data of the lobby button with ``payload``."""
    return next(data for _, b, data in buttons(svc, message) if b.payload == payload)


async def _add_bot(svc: Services, user: SimUser, message: StoredMessage, seat: int) -> None:
    before = message.edits
    tap = await user.tap(message, data=_data(svc, message, f"B{seat}"))
    assert not tap.show_alert, tap.answer_text
    await user.driver.wait_for(lambda: message.edits > before or None, what=f"a bot in seat {seat + 1}")


async def test_only_the_creator_sets_the_bot_level_and_it_reaches_seated_bots(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    boris = driver.add_user("Борис", language_code="en")
    group = driver.add_group("Козлятник", [anya, boris])
    message = await lobby(driver, group, anya)
    found = levels()
    assert len(found) >= 2, "the build has bot levels to choose from"
    first = await table_of(svc, group)
    assert first is not None and first.bot_level in found

    # Anyone may seat a bot player; it plays at the table's level.
    await _add_bot(svc, boris, message, 1)
    seated = await table_of(svc, group)
    assert seated is not None and seated.seats[1] is not None and seated.seats[1].is_bot
    assert seated.seats[1].level == first.bot_level

    # Not the creator: an alert in his own language, and nothing changes.
    refused = await boris.tap(message, LEVEL_BUTTON)
    assert not refused.show_alert and refused.answer_text == "Only whoever gathered the table can do that."
    unchanged = await table_of(svc, group)
    assert unchanged is not None and unchanged.model_dump() == seated.model_dump()

    # The creator cycles it: the next level, for the bot already seated and for the next one.
    after = found[(found.index(first.bot_level) + 1) % len(found)]
    before = message.edits
    tap = await anya.tap(message, LEVEL_BUTTON)
    assert not tap.show_alert, tap.answer_text
    await group.wait_until(message, lambda m: m.edits > before)
    changed = await table_of(svc, group)
    assert changed is not None and changed.bot_level == after
    assert changed.seats[1] is not None and changed.seats[1].level == after
    await _add_bot(svc, anya, message, 3)
    both = await table_of(svc, group)
    assert both is not None
    assert [s.level for s in both.seats if s is not None and s.is_bot] == [after, after]
