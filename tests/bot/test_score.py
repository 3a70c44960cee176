"""/score: the shestyorki tally as a picture of the expected size, with a caption; /leave and /stop."""

from __future__ import annotations

import io
import random

from PIL import Image

from bot.render.tally import HEIGHT, WIDTH, drawable, tally_png
from bot.sandbox import Driver
from bot.tg.services import Services
from tests.bot.helpers import legal_hand, lobby, play_until, sit, start_game, stop_game


def test_the_tally_picture_is_a_png_of_the_expected_size() -> None:
    for penalty in ((0, 0), (2, 7), (12, 14), (30, 0)):
        image = Image.open(io.BytesIO(tally_png(penalty)))
        assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)


def test_more_penalty_uncovers_more_pips() -> None:
    def dark(penalty: int) -> int:
        image = Image.open(io.BytesIO(tally_png((penalty, 0)))).convert("L").crop((0, 60, WIDTH // 2, 250))
        return sum(1 for p in image.tobytes() if p < 40)

    assert dark(0) < dark(4) < dark(8) < dark(12)


def _name_pixels(png: bytes, pair: int) -> int:
    """Light pixels in the band where a pair's names are written."""
    band = Image.open(io.BytesIO(png)).convert("L").crop((pair * WIDTH // 2, 36, (pair + 1) * WIDTH // 2, 60))
    return sum(1 for p in band.tobytes() if p > 200)


def test_the_picture_names_each_pair_without_the_emoji_the_font_lacks() -> None:
    assert drawable("Аня и 🤖 Бот №3") == "Аня и Бот №3"
    plain = tally_png((2, 4))
    named = tally_png((2, 4), ("Аня и 🤖 Бот №3", "Борис и Вера"))
    assert _name_pixels(plain, 0) == _name_pixels(plain, 1) == 0
    assert _name_pixels(named, 0) > 100 and _name_pixels(named, 1) > 100
    # A long name is made to fit its half of the picture.
    long = tally_png((0, 0), ("Аня и 🤖 Бот №3", "Константин Константинопольский и Вера Прекраснейшая"))
    assert _name_pixels(long, 1) > 100 and Image.open(io.BytesIO(long)).size == (WIDTH, HEIGHT)


async def test_score_sends_the_picture_with_a_caption(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await anya.send(group, "/score")
    assert "нет игры" in (await group.wait_bot_message()).content
    await start_game(driver, group, [anya])
    await play_until(driver, svc, [anya], lambda: any(m.content.startswith("🏁") for m in group.bot_messages),
                     rng=random.Random(4))  # fmt: skip
    await anya.send(group, "/score")
    picture = await group.wait_bot_message(lambda m: m.photo_file_id is not None)
    assert "Счёт на шестёрках" in picture.content and "Аня и 🤖 Бот №3" in picture.content
    stored = driver.world.files[picture.photo_file_id]  # type: ignore[index]
    assert Image.open(io.BytesIO(stored.data)).size == (WIDTH, HEIGHT)
    assert _name_pixels(stored.data, 0) > 100 and _name_pixels(stored.data, 1) > 100, "each pair is named"


async def test_leave_gives_the_seat_to_a_bot_and_stop_ends_the_game(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris, vera = driver.add_user("Аня"), driver.add_user("Борис"), driver.add_user("Вера")
    group = driver.add_group("Козлятник", [anya, boris, vera])
    await start_game(driver, group, [anya, boris])
    await boris.send(group, "/leave")
    await group.wait_text("Борис выходит из-за стола")
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.seats[1] is not None and table.seats[1].is_bot
    await legal_hand(driver, svc, anya)  # the game goes on without him
    await vera.send(group, "/stop")
    await group.wait_text("Остановить игру может создатель стола")
    await stop_game(anya, group)
    assert await svc.storage.load_table(group.id, None) is None
    assert (await svc.storage.history(group.id))[0]["rules"] == table.rules


async def test_score_names_the_tables_match_target_as_the_goat(
    app: object, driver: Driver, svc: Services
) -> None:
    # A match to 6 (the lobby's "Игра до" option): the caption must not say 12 makes the goat.
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await anya.tap(message, "Правила")
    await group.wait_until(message, lambda m: any(b["text"] == "Игра до: 12" for r in m.buttons for b in r))
    await anya.tap(message, "Игра до: 12")
    await group.wait_until(message, lambda m: any(b["text"] == "Игра до: 6" for r in m.buttons for b in r))
    await anya.tap(message, "Назад")
    await group.wait_until(message, lambda m: any("Начать" in b["text"] for r in m.buttons for b in r))
    await sit(anya, message, 0, group)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: "Посадить туда" in m.content)
    await anya.tap(message, "с ботами")
    await group.wait_until(message, lambda m: "Игра началась" in m.content)
    await anya.send(group, "/score")
    picture = await group.wait_bot_message(lambda m: m.photo_file_id is not None)
    assert "6 — козёл" in picture.content and "12 — козёл" not in picture.content
