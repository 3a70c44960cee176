"""What each variant's texts say, and the lobby's, /stop's and the links' answers (issue 34, items 5-8):
a variant's target, trumps, scoring and pairing in both languages; options kept across a variant
change; the forms for two and three easy to find; toasts, confirmations and answers that are true."""

from __future__ import annotations

import io
import re

from PIL import Image

from bot.engine import Rules
from bot.render import rules_menu
from bot.render.i18n import LANGS, Tr
from bot.render.lobby_view import lobby_content
from bot.render.rules_text import about, glossary, rules_text
from bot.render.tally import WIDTH, tally_png
from bot.render.words import sixes, tally_text
from bot.sandbox import Driver
from bot.storage import Seat, Table
from bot.table.codec import Codec, Link
from bot.tg.lobby import Carried, carried_text
from bot.tg.services import Services
from tests.bot.helpers import buttons, lobby, sit, start_game, stop_game, table_of

RU = Tr("ru")
_OPEN, _COVERED = (220, 170, 40), (60, 110, 80)


def _dots(png: bytes) -> tuple[int, int]:
    """The first pair's dots under its sixes: (uncovered, still covered)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    row = [image.getpixel((x, 290)) for x in range(WIDTH // 2)]
    runs: list[tuple[int, int, int]] = []
    for pixel in row:
        if pixel in (_OPEN, _COVERED) and (not runs or runs[-1] != pixel):
            runs.append(pixel)
        elif pixel not in (_OPEN, _COVERED) and runs and runs[-1] != (0, 0, 0):
            runs.append((0, 0, 0))
    dots = [r for r in runs if r != (0, 0, 0)]
    return dots.count(_OPEN), dots.count(_COVERED)


def test_the_tally_of_a_match_to_6_is_one_six_and_2_points_uncover_one_pair_of_three() -> None:
    assert sixes(2, 6) == (1,) and sixes(6, 6) == (3,) and sixes(8, 6) == (3,)
    assert sixes(2, 12) == (1, 0) and sixes(12, 12) == (3, 3) and sixes(14, 18) == (3, 3, 1)
    assert tally_text(2, 6) == "⚅●○○" and tally_text(2) == "⚅●○○ ⚅○○○"
    assert _dots(tally_png((2, 0), target=6)) == (1, 2)
    assert _dots(tally_png((2, 0))) == (1, 5)
    assert _dots(tally_png((12, 0), target=24)) == (6, 6)


async def test_score_for_a_match_to_6_draws_the_tally_to_6(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])

    def to_6(table: Table | None) -> None:
        assert table is not None and table.match is not None
        table.rules = Rules.make("classic", match_target=6).to_json()
        table.match.penalty = (2, 0)

    await svc.transact((group.id, None), to_6)
    await anya.send(group, "/score")
    picture = await group.wait_bot_message(lambda m: m.photo_file_id is not None)
    assert "6 — козёл" in picture.content and "⚅●○○" in picture.content and "⚅○○○ ⚅" not in picture.content
    stored = driver.world.files[picture.photo_file_id]  # type: ignore[index]
    assert _dots(stored.data) == (1, 2)


async def test_rules_for_a_match_to_6_say_6_not_12(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    settings = await svc.storage.chat_settings(group.id)
    settings.rules = Rules.make("tricks", match_target=6).to_json()
    await svc.storage.save_chat_settings(group.id, settings)
    await anya.send(group, "/rules")
    text = (await group.wait_text("Словарь")).content
    assert "Игра до 6" in text and "первой набравшая 6 штрафных" in text
    assert "12" not in text


def test_every_variant_text_says_its_target_who_plays_and_fills_every_blank() -> None:
    for lang in LANGS:
        tr = Tr(lang)
        for preset in rules_menu.presets():
            rules = Rules.make(preset, match_target=6)
            text, line = rules_text(tr, rules), about(tr, rules)
            for said in (text, line):
                assert "{" not in said and "}" not in said, (lang, preset)
                assert re.search(r"\b6\b", said), (lang, preset)
                assert not re.search(r"\b12\b", said), (lang, preset, said)
            people = {2: ("двое", "two"), 3: ("трое", "three"), 4: ("четверо", "four")}[rules.people]
            assert people[LANGS.index(lang)] in line.lower(), (lang, preset, line)


def test_the_top_trump_has_one_name_in_every_variant_text() -> None:
    """The glossary calls it «шмон»; the blind's rules once said «шмоха»."""
    for preset in rules_menu.presets():
        text = rules_text(RU, Rules.make(preset))
        assert "шмох" not in text.lower(), preset


def test_the_tricks_glossary_counts_tricks_and_has_no_matadors_eggs_or_brag() -> None:
    text = glossary(RU, Rules.make("tricks"))
    assert "меньше 5 взяток" in text and "ни одной взятки" in text
    for absent in ("60 очков", "Матадоры", "Яйца", "Хвалёж", "Обмен", "♣7"):
        assert absent not in text, absent
    assert "Шмон</b> — самый старший козырь, здесь ♣6" in text


def test_the_glossary_explains_matadors_exactly_where_the_menu_offers_the_option() -> None:
    for preset in rules_menu.presets():
        offered = "matadors" in {name for name, _ in rules_menu.options_of(preset)}
        text = glossary(RU, Rules.make(preset))
        assert ("Матадоры" in text) == offered, preset
        if offered:
            assert f"«{RU('opt.matadors')}»" in text


def test_a_variant_change_keeps_the_options_it_has_and_names_those_it_drops() -> None:
    before = Rules.make("classic", match_target=6, must_trump_when_void=True, matadors=True)
    after, kept, dropped = rules_menu.carried(before, "tricks")
    assert after == Rules.make("tricks", match_target=6, must_trump_when_void=True)
    assert kept == {"match_target": 6, "must_trump_when_void": True} and dropped == {"matadors": True}
    carried: Carried = (before, after, kept, dropped)
    toast = carried_text(RU, carried)
    assert toast is not None and "Игра до: 6" in toast and "Нет масти — бей козырем: да" in toast
    assert "сброшено: Матадоров можно придержать: да" in toast
    # Back to classic: what tricks had is kept again; nothing changed, nothing to say.
    assert rules_menu.carried(after, "classic")[0] == Rules.make(
        "classic", match_target=6, must_trump_when_void=True
    )
    assert rules_menu.carried(Rules.make("classic"), "sochi")[1:] == ({}, {})
    assert carried_text(RU, (before, before, {}, {})) is None


async def test_choosing_a_variant_in_the_lobby_keeps_the_target_and_says_so(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    message = await lobby(driver, group, anya)
    await anya.tap(message, "Правила")
    await group.wait_until(message, lambda m: "Словарь" in m.content)
    await anya.tap(message, "Игра до")
    await group.wait_until(message, lambda m: "Игра до: 6" in m.content)
    await anya.tap(message, "Нет масти")
    await group.wait_until(message, lambda m: "Нет масти — бей козырем: да" in m.content)
    tap = await anya.tap(message, "со слепым")
    assert not tap.show_alert and tap.answer_text is not None
    assert "сохранено: Игра до: 6, Нет масти — бей козырем: да" in tap.answer_text
    await group.wait_until(message, lambda m: "Правила: со слепым, Игра до: 6" in m.content)
    table = await table_of(svc, group)
    assert table is not None
    assert table.rules == {"preset": "dummy", "options": {"match_target": 6, "must_trump_when_void": True}}
    # The rules picker's words follow the variant: its goal and its glossary's goat.
    assert "Игра до 6" in message.content and "первой набравшая 6 штрафных" in message.content


def test_the_rematch_lobby_promises_no_same_rules() -> None:
    table = Table(
        table_id="abc123",
        chat_id=-5,
        thread_id=None,
        chat_title="Козлятник",
        creator_id=1,
        rules=Rules.make("tricks", match_target=6).to_json(),
        seats=[
            Seat(kind="human", name="Аня", user_id=1),
            None,
            Seat(kind="human", name="Вера", user_id=3),
            None,
        ],
        bot_level="easy",
        created_at=0.0,
        updated_at=0.0,
    )
    table.unconfirmed = [3]
    for lang in LANGS:
        content = lobby_content(Tr(lang), Codec(b"secret"), table).text
        assert "те же правила" not in content and "same rules" not in content
        assert (
            Tr(lang)("lobby.rules", rules=rules_menu.summary(Tr(lang), Rules.parse(table.rules))) in content
        )


def test_a_lobby_with_blinds_says_where_they_sit_and_offers_no_form_for_three_or_two() -> None:
    """The classic lobby's hint points those who are three or two to the rules menu; a lobby that has
    chosen a blind variant is told where its people and blinds sit instead. A blind whose partner's
    seat is still free is not called "blind (free)"."""
    for preset, blinds in (("dummy", ("4",)), ("two_dummies", ("3", "4"))):
        table = Table(
            table_id="abc123",
            chat_id=-5,
            thread_id=None,
            chat_title="Козлятник",
            creator_id=1,
            rules=Rules.make(preset, match_target=6).to_json(),
            seats=[Seat(kind="human", name="Аня", user_id=1), None, None, None],
            bot_level="easy",
            created_at=0.0,
            updated_at=0.0,
        )
        for lang in LANGS:
            tr = Tr(lang)
            content = lobby_content(tr, Codec(b"secret"), table).text
            assert tr("lobby.hint") not in content, (preset, lang)
            assert tr("lobby.hint_blind" if len(blinds) == 1 else "lobby.hint_blinds") in content
            assert all(n in content for n in blinds), (preset, lang)
            assert tr("seat.blind_unpartnered") in content and tr("seat.empty") + ")" not in content
            if preset == "two_dummies":
                assert tr("seat.blind", name="Аня") in content  # Аня is seated: her blind is named so


async def test_help_and_the_lobby_show_the_forms_for_three_and_two(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await anya.send(group, "/help")
    help_text = (await group.wait_text("/newgame")).content
    assert "втроём" in help_text and "вдвоём" in help_text and "с двумя слепыми" in help_text
    message = await lobby(driver, group, anya)
    assert "вариант на троих или на двоих" in message.content
    await anya.tap(message, "Правила")
    await group.wait_until(message, lambda m: "Словарь" in m.content)
    labels = [label for label, _, _ in buttons(svc, message)]
    assert "со слепым · трое" in labels and "с двумя слепыми · двое" in labels
    assert "сочинский на троих · трое" in labels and "✓ классический козёл · четверо" in labels


async def test_newgame_in_private_says_how_to_start_a_table(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    await anya.start()
    await anya.dm.wait_bot_message()
    await anya.send(anya.dm, "/newgame")
    answer = await anya.dm.wait_text("/newgame")
    assert answer.content == RU("wrong.newgame_private") and "добавьте меня в группу" in answer.content
    await anya.send(anya.dm, "/score")
    assert (await anya.dm.wait_bot_message()).content == RU("wrong.group_only")


async def test_stop_asks_to_confirm_with_one_tap_and_a_stale_confirm_says_so(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya])
    await anya.send(group, "/stop")
    confirm = await group.wait_bot_message(lambda m: "Остановить игру?" in m.content)
    table = await table_of(svc, group)
    assert table is not None and table.status == "playing"  # nothing ends before the tap
    refused = await boris.tap(confirm, "Да, остановить")  # not his to stop
    assert refused.answer_text == RU("stop.not_allowed")
    assert await table_of(svc, group) is not None
    await anya.send(group, "/stop")
    second = await group.wait_bot_message(lambda m: "Остановить игру?" in m.content)
    tap = await anya.tap(confirm, "Да, остановить")
    assert not tap.show_alert
    await group.wait_until(confirm, lambda m: m.content == RU("stop.done") and not m.buttons)
    assert await table_of(svc, group) is None
    late = await anya.tap(second, "Да, остановить")
    assert late.answer_text == RU("stop.stale")
    # A new game is not stopped by the old game's button.
    await start_game(driver, group, [anya])
    again = await anya.tap(second, "Да, остановить")
    assert again.answer_text == RU("stop.stale")
    assert await table_of(svc, group) is not None
    await stop_game(anya, group)


async def test_a_stranger_opening_the_hand_link_is_told_they_are_not_seated(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, gleb = driver.add_user("Аня"), driver.add_user("Глеб")
    group = driver.add_group("Козлятник", [anya, gleb])
    await start_game(driver, group, [anya])
    table = await table_of(svc, group)
    assert table is not None
    link = svc.codec.link(Link("hand", group.id, None, table.table_id))
    await gleb.start(link)
    answer = await gleb.dm.wait_bot_message()
    assert answer.content == RU("start.hand_not_seated")
    await anya.start(link)
    assert (await anya.dm.wait_text("присылаю карты")).content == RU("start.hand")


async def test_a_taken_seat_and_a_creator_only_button_answer_with_a_toast(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    message = await lobby(driver, group, anya)
    await sit(anya, message, 0, group)
    await sit(boris, message, 1, group)
    taken = await boris.tap(message, "Место 1")
    assert not taken.show_alert and taken.answer_text == RU("alert.seat_taken")
    creator_only = await boris.tap(message, "Правила")
    assert not creator_only.show_alert and creator_only.answer_text == RU("alert.creator_only")


def test_the_export_caption_and_the_review_footer_speak_to_players() -> None:
    for lang in LANGS:
        tr = Tr(lang)
        caption = tr("export.caption", when="05.12.2026", deals=7)
        footer = tr("review.footer", worlds=200, threshold="0,5")
        for said in (caption, footer):
            for jargon in ("RULES.md", "python", "bot.engine", "§", "стандартн", "standard error"):
                assert jargon not in said, (lang, jargon, said)
        assert "7" in caption and "200" in footer


def test_a_variant_change_keeps_options_the_picker_does_not_offer_and_says_only_real_resets() -> None:
    before = Rules.make("sochi4", brag_rotation=["mirror", "pants"], match_target=6)
    after, kept, dropped = rules_menu.carried(before, "sochi")
    assert after == Rules.make("sochi", brag_rotation=["mirror", "pants"], match_target=6)
    assert kept == {"match_target": 6} and dropped == {}  # the rotation is no button: kept, not named
    # sochi4's deck is 32 whatever was chosen: a 32-card classic loses nothing; a 24-card one is told.
    assert rules_menu.carried(Rules.make("classic", deck=32), "sochi4")[1:] == ({}, {})
    assert rules_menu.carried(Rules.make("classic", deck=24), "sochi4")[2] == {"deck": 24}
