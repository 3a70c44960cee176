"""/score when Telegram refuses the picture: the tally as text, in the group's language (issue #4).

Faults are injected into the emulator (``World.inject_faults``): a 400 refuses the picture for good
(a group that forbids media), a 5xx that lasts makes the outbox give up after its retries, and a 5xx
that passes is retried until the picture arrives.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.render.i18n import Tr
from bot.render.words import pair_names, tally_text
from bot.sandbox import Driver, SimGroup, SimUser, StoredMessage
from bot.storage import Table
from bot.tg.calls import MAX_ATTEMPTS, LoopPace
from bot.tg.services import Services
from tests.bot.helpers import start_game, table_of

PENALTY = (5, 8)
EN_TITLE = Tr("en")("score.title").split("</b>")[0].split("<b>")[1]  # "The shestyorki tally"


class QuickPace(LoopPace):
    """The loop's clock, but the outbox's backoff after a failed call is not waited out."""

    def __init__(self) -> None:
        self.slept: list[float] = []

    async def sleep(self, seconds: float) -> None:
        """Note the wait and yield once."""
        self.slept.append(seconds)
        await asyncio.sleep(0)


async def _english_table_with_a_score(driver: Driver, svc: Services) -> tuple[SimUser, SimGroup, Table]:
    """A game under way in an English-speaking group, its pairs at 5 and 8 penalty points."""
    anya = driver.add_user("Аня")
    group = driver.add_group("Goat pen", [anya])
    await start_game(driver, group, [anya])

    def score(table: Table | None) -> None:
        assert table is not None and table.match is not None
        table.match.penalty = PENALTY

    await svc.transact((group.id, None), score)
    chat = await svc.storage.chat_settings(group.id)
    chat.lang = "en"
    await svc.storage.save_chat_settings(group.id, chat)
    table = await table_of(svc, group)
    assert table is not None
    return anya, group, table


def _tally_replies(group: SimGroup) -> list[StoredMessage]:
    return [m for m in group.bot_messages if EN_TITLE in m.content]


@pytest.mark.parametrize("status", [400, 500])
async def test_a_refused_picture_gives_the_tally_as_text_with_the_caption_s_figures(
    app: object, driver: Driver, svc: Services, monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    anya, group, table = await _english_table_with_a_score(driver, svc)
    pace = QuickPace()
    monkeypatch.setattr(svc.outbox, "pace", pace)
    # 400: refused at once. 500 on every attempt: the outbox retries, then gives up.
    tries = 1 if status == 400 else MAX_ATTEMPTS
    fault = driver.world.inject_faults(method="sendPhoto", status=status, count=tries, chat_id=group.id)

    await anya.send(group, "/score")
    text = await group.wait_bot_message(lambda m: EN_TITLE in m.content)
    assert text.photo_file_id is None
    assert fault.hits == tries and len(driver.calls("sendPhoto")) == tries
    if status != 400:
        assert len([s for s in pace.slept if s > 0]) >= MAX_ATTEMPTS - 1, "5xx: retried with backoff"
    # In the group's language, with each pair's names, points and pips.
    en = Tr("en")
    for pair in (0, 1):
        line = en(
            "summary.tally",
            names=pair_names(en, table, pair),
            n=PENALTY[pair],
            tally=tally_text(PENALTY[pair]),
        )
        assert line in text.content
    assert "Счёт" not in text.content

    # The same figures as the picture's caption once pictures go through again.
    await anya.send(group, "/score")
    picture = await group.wait_bot_message(lambda m: m.photo_file_id is not None)
    assert picture.content == text.content
    await driver.settle()
    assert len(_tally_replies(group)) == 2, "one text, one picture: the fallback is sent once"


async def test_a_picture_that_fails_once_is_retried_and_not_replaced_by_text(
    app: object, driver: Driver, svc: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    anya, group, _ = await _english_table_with_a_score(driver, svc)
    monkeypatch.setattr(svc.outbox, "pace", QuickPace())
    fault = driver.world.inject_faults(method="sendPhoto", status=502, count=1, chat_id=group.id)
    await anya.send(group, "/score")
    picture = await group.wait_bot_message(lambda m: m.photo_file_id is not None)
    assert EN_TITLE in picture.content and fault.hits == 1
    await driver.settle()
    assert _tally_replies(group) == [picture], "no text tally beside the picture"
