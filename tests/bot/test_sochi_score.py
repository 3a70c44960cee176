"""/score with individual scores (3-person ``sochi``): one tally per person, each panel headed by the
person's name, and the same figures as text when Telegram refuses the picture."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.render.i18n import Tr
from bot.render.tally import HEIGHT, WIDTH, people_tally_png
from bot.render.words import tally_text
from bot.sandbox import Driver
from bot.storage import Table
from bot.tg.services import Services
from tests.bot.helpers import lobby, sit
from tests.bot.test_score_fallback import QuickPace
from tests.bot.test_sochi_match import _pick_sochi

SCORES = [4, 0, 10]


def _name_pixels(png: bytes, k: int) -> int:
    """Light pixels in the band where panel ``k``'s name is written."""
    band = Image.open(io.BytesIO(png)).convert("L").crop((k * WIDTH // 2, 36, (k + 1) * WIDTH // 2, 60))
    return sum(1 for p in band.tobytes() if p > 200)


def _dark(png: bytes, k: int) -> int:
    band = Image.open(io.BytesIO(png)).convert("L").crop((k * WIDTH // 2, 60, (k + 1) * WIDTH // 2, 250))
    return sum(1 for p in band.tobytes() if p < 40)


def test_sochi_score_draws_one_tally_per_person_with_their_names() -> None:
    png = people_tally_png(SCORES, ["Аня", "🤖 Бот №2", "Вера"])
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size == (3 * WIDTH // 2, HEIGHT)
    assert all(_name_pixels(png, k) > 100 for k in range(3)), "each person is named"
    assert _dark(png, 1) < _dark(png, 0) < _dark(png, 2), "more penalty uncovers more pips"


@pytest.mark.parametrize("status", [400])
async def test_sochi_score_falls_back_to_text_with_each_persons_total(
    app: object, driver: Driver, svc: Services, monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await _pick_sochi(driver, group, anya, message)
    await sit(anya, message, 0, group)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: "Свободно 2 места" in m.content)
    await anya.tap(message, "с ботами")
    await group.wait_until(message, lambda m: "Игра началась" in m.content)

    def score(table: Table | None) -> None:
        assert table is not None and table.match is not None
        table.match.scores = list(SCORES)

    await svc.transact((group.id, None), score)
    monkeypatch.setattr(svc.outbox, "pace", QuickPace())
    driver.world.inject_faults(method="sendPhoto", status=status, count=1, chat_id=group.id)
    await anya.send(group, "/score")
    text = await group.wait_bot_message(lambda m: "у всех свой" in m.content)
    assert text.photo_file_id is None
    ru = Tr("ru")
    for name, n in zip(("Аня", "🤖 Бот №2", "🤖 Бот №3"), SCORES, strict=True):
        assert ru("summary.tally", names=name, n=n, tally=tally_text(n, 6)) in text.content  # a match to 6
    await anya.send(group, "/score")  # pictures go through again: the same figures as its caption
    picture = await group.wait_bot_message(lambda m: m.photo_file_id is not None)
    assert picture.content == text.content
