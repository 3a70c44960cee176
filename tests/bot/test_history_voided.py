"""A void deal (four queens in one hand, sochi's ♣Q in the talon, flip's deal passing) is dealt again
under the same number (RULES.md §1): /history, /export and the replay viewer count it as no deal
played, and the viewer shows it as what it was — the deal's number, redealt, and why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.engine.record import deals_played, replay_deal
from bot.engine.rules import Rules
from bot.render.i18n import Tr
from bot.render.replay_view import view_content
from bot.sandbox import Driver, SimGroup, SimUser, StoredMessage
from bot.stats.counting import archive
from bot.stats.entry import Meta, Player, make_entry
from bot.table.codec import Codec
from bot.tg.services import Services

RECORDS = Path(__file__).resolve().parents[1] / "records"
NAMES = ("Аня", "Борис", "Вера", "Глеб")


def _record(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDS / f"{name}.json").read_text())
    return data


def _entry(record: dict[str, Any], chat_id: int, match_id: str, *, finished: bool = True) -> dict[str, Any]:
    seats = [Player(kind="human", name=n, user_id=100 + i) for i, n in enumerate(NAMES)]
    meta = Meta(id=match_id, chat_id=chat_id, at=1_796_000_000.0, seats=seats, finished=finished)
    return make_entry(record, meta)


def test_the_golden_match_has_one_four_queens_redeal_in_its_middle() -> None:
    """``classic_match_redeal``: deal 3 was void — Вера (seat 2) held all four queens after the brag —
    and was dealt again as deal 3 by the same dealer; eight records, seven deals played."""
    record = _record("classic_match_redeal")
    rules = Rules.parse(record["rules"])
    deals = [replay_deal(d, rules) for d in record["deals"]]
    assert [d.deal_no for d in deals] == [1, 2, 3, 3, 4, 5, 6, 7]
    assert [i for i, d in enumerate(deals) if d.result is not None and d.result.void] == [2]
    void = deals[2]
    assert void.result is not None and "redeal" in void.result.events and void.result.tricks == ()
    assert sorted(c.code for c in void.hand(2) if c.code[0] == "Q") == ["QC", "QD", "QH", "QS"]
    assert deals[3].dealer == void.dealer == 3


def test_deals_played_leaves_out_void_deals_and_keeps_a_deal_cut_short() -> None:
    """The one count /history, /export and the viewer share: eight records, one void, seven played; a
    record that does not replay to its end cannot be told void and is counted."""
    record = _record("classic_match_redeal")
    rules = Rules.parse(record["rules"])
    assert deals_played(record["deals"], rules) == 7
    assert deals_played(record["deals"][:3], rules) == 2
    cut = dict(record["deals"][0], moves=record["deals"][0]["moves"][:5])
    assert deals_played([cut, *record["deals"][1:3]], rules) == 2


async def _viewer_deals(group: SimGroup, user: SimUser, listing: StoredMessage) -> list[str]:
    """Tap the first match's replay, then step deal by deal to the last: each deal's first view."""
    await user.tap(listing, "Просмотр 1")
    viewer = await group.wait_bot_message(lambda m: "Просмотр" in m.content and "раздача" in m.content)
    texts = [viewer.content]
    while any(b["text"] == "Раздача ⏭" for row in viewer.buttons for b in row):
        before = viewer.edits
        await user.tap(viewer, "Раздача ⏭")
        await group.wait_until(viewer, lambda m, before=before: m.edits > before)
        texts.append(viewer.content)
    return texts


def _titles(texts: list[str]) -> list[str]:
    return [t.splitlines()[0] for t in texts]


async def test_history_export_and_the_viewer_count_a_redealt_deal_once(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await archive(svc.storage, _entry(_record("classic_match_redeal"), group.id, "rd0001"))
    await anya.send(group, "/history")
    listing = await group.wait_text("Последние партии")
    # Seven deals played; the eighth record is deal 3's redeal, said as such.
    assert "раздач: 7, пересдач: 1" in listing.content, listing.content

    deals = await _viewer_deals(group, anya, listing)
    assert _titles(deals) == [
        "🎬 Просмотр · раздача 1 из 7 · шаг 0 из 3",
        "🎬 Просмотр · раздача 2 из 7 · шаг 0 из 9",
        "🎬 Просмотр · раздача 3 — пересдача",
        "🎬 Просмотр · раздача 3 из 7 · шаг 0 из 9",
        "🎬 Просмотр · раздача 4 из 7 · шаг 0 из 9",
        "🎬 Просмотр · раздача 5 из 7 · шаг 0 из 9",
        "🎬 Просмотр · раздача 6 из 7 · шаг 0 из 9",
        "🎬 Просмотр · раздача 7 из 7 · шаг 0 из 9",
    ], _titles(deals)
    void = deals[2]
    assert "Раздача №3" in void and "Раздача не засчитана." in void
    assert "♻️ Пересдача: все четыре дамы у одного игрока — Вера. Снова сдаёт Глеб." in void

    await anya.send(group, "/export")
    document = await group.wait_bot_message(lambda m: m.document_file_id is not None)
    assert "раздач: 7, пересдач: 1" in document.content, document.content
    # The record itself keeps every deal as dealt: the redeal's too.
    data = json.loads(driver.world.files[document.document_file_id].data)  # type: ignore[index]
    assert len(data["deals"]) == 8
    await driver.settle()
    assert not driver.failed_calls(), driver.failed_calls()[:3]


async def test_a_match_stopped_after_a_redeal_counts_only_the_deals_played(
    app: object, driver: Driver, svc: Services
) -> None:
    """Stopped while deal 3 was being dealt again: two deals played, and the void deal 3 shown as a
    redeal (never "deal 3 of 2")."""
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    record = _record("classic_match_redeal")
    record["deals"] = record["deals"][:3]
    await archive(svc.storage, _entry(record, group.id, "rd0002", finished=False))
    await anya.send(group, "/history")
    listing = await group.wait_text("Последние партии")
    assert "раздач: 2, пересдач: 1" in listing.content and "остановлена" in listing.content
    deals = await _viewer_deals(group, anya, listing)
    assert [t.split(" · шаг")[0] for t in _titles(deals)] == [
        "🎬 Просмотр · раздача 1 из 2",
        "🎬 Просмотр · раздача 2 из 2",
        "🎬 Просмотр · раздача 3 — пересдача",
    ]
    await driver.settle()


async def test_history_in_english_counts_the_deals_played(app: object, driver: Driver, svc: Services) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Goat pen", [anya])
    chat = await svc.storage.chat_settings(group.id)
    chat.lang = "en"
    await svc.storage.save_chat_settings(group.id, chat)
    await archive(svc.storage, _entry(_record("classic_match_redeal"), group.id, "rd0003"))
    await anya.send(group, "/history")
    listing = await group.wait_text("Latest matches")
    assert "deals: 7, redeals: 1" in listing.content, listing.content
    await driver.settle()


@pytest.mark.parametrize(
    ("name", "numbers", "void"),
    [
        # a four-queens redeal in classic
        ("classic_match_redeal", [1, 2, 3, 3, 4, 5, 6, 7], [2]),
        # a redeal where the people move a seat every deal (a redeal keeps them), with a blind
        ("dummy_match_blind_rotates", [1, 2, 2, 3, 4], [1]),
        # sochi's ♣Q in the talon
        ("sochi_match_brag_rotation", [1, 2, 3, 4, 5, 6, 7, 7, 8], [6]),
        # flip: the deal passes to the next dealer, under the same number
        ("flip_deal_passes", [1], [0]),
    ],
)
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_viewer_numbers_each_deal_as_the_table_did(
    name: str, numbers: list[int], void: list[int], lang: str
) -> None:
    """Every deal's title carries its number in the match and the deals played; a void one says it
    was redealt (and, below, why), as the table's own title and the next deal's table said."""
    record = _record(name)
    if "deals" not in record:  # one deal's record: a match of that one deal
        record = {"rules": record.pop("rules"), "deals": [record]}
    tr = Tr(lang)
    entry = _entry(record, -1, "rd0004")
    played = len(numbers) - len(void)
    for index, n in enumerate(numbers):
        text = view_content(tr, Codec(b"k"), entry, index, 0, -1).text
        title = text.splitlines()[0]
        if index in void:  # "deal n — redealt": a void deal takes no trick, so it has no step to name
            assert title == tr("replay.title_void", n=n), (index, title)
            assert tr("replay.void") in text
        else:  # the step's part aside: "deal n of played"
            shown = tr("replay.title", n=n, of=played, step=0, last=0).rsplit(" · ", 1)[0]
            assert title.rsplit(" · ", 1)[0] == shown, (index, title)
