"""``tricks`` in Telegram (RULES.md §5): picked in the lobby's rules menu, played by four people to the
goat, each deal summed up by tricks, /score's shestyorki tally per pair."""

from __future__ import annotations

import random

from bot.sandbox import Driver
from bot.tg.services import Services
from tests.bot.helpers import NAMES, lobby, play_until, sit


async def test_tricks_four_people_play_a_match_scored_by_tricks(
    app: object, driver: Driver, svc: Services
) -> None:
    users = [driver.add_user(name) for name in NAMES]
    group = driver.add_group("Козлятник", users)
    message = await lobby(driver, group, users[0])
    creator = users[0]
    await creator.tap(message, "Правила")
    await group.wait_until(message, lambda m: any("на взятки" in b["text"] for r in m.buttons for b in r))
    await creator.tap(message, "на взятки")
    # The menu says what the preset is, and offers only the options it takes.
    await group.wait_until(
        message, lambda m: "На взятки: четверо, две пары; 36 карт, считают взятки" in m.content
    )
    labels = [b["text"] for r in message.buttons for b in r]
    assert any(text.startswith("✓ на взятки") for text in labels)
    assert {t.split(": ")[0] for t in labels if ": " in t} == {"Игра до", "Нет масти — бей козырем"}
    await creator.tap(message, "Игра до: 12")  # a short match: to 6
    await group.wait_until(message, lambda m: any(b["text"] == "Игра до: 6" for r in m.buttons for b in r))
    await creator.tap(message, "Назад")
    await group.wait_until(message, lambda m: any("Начать" in b["text"] for r in m.buttons for b in r))
    for seat, user in enumerate(users):
        await sit(user, message, seat, group)
    await creator.tap(message, "Начать")

    def over() -> bool:
        return any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)

    await play_until(driver, svc, users, over, rng=random.Random(3))
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "over" and table.match is not None
    assert table.rules == {"preset": "tricks", "options": {"match_target": 6}}
    assert max(table.match.penalty) >= 6 or table.match.loser is not None
    summaries = [m.content for m in group.bot_messages if m.content.startswith("🏁")]
    assert len(summaries) == len(table.match.deals)
    assert all("Взятки: Аня и Вера — " in s for s in summaries)
    assert all(
        any(c in s for c in ("меньше 5 взяток", "2 взятки или меньше", "ни одной взятки")) for s in summaries
    )
    assert "Козёл" in summaries[-1] or "Козлы" in summaries[-1]
    await users[1].send(group, "/score")
    picture = await group.wait_bot_message(lambda m: m.photo_file_id is not None)
    assert "Счёт на шестёрках" in picture.content and "Аня и Вера" in picture.content
    await driver.settle()
    assert not driver.failed_calls(), driver.failed_calls()[:3]
