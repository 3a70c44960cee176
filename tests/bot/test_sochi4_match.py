"""``sochi4`` in Telegram (RULES.md §5): picked in the lobby's rules menu with its one-line description,
played by four people to the goat, the table naming each round's kind of brag."""

from __future__ import annotations

import random

from bot.engine import result_of
from bot.sandbox import Driver
from bot.tg.services import Services
from tests.bot.helpers import NAMES, lobby, play_until, sit


async def test_sochi4_four_people_play_a_match_with_the_brag_rotating(
    app: object, driver: Driver, svc: Services
) -> None:
    users = [driver.add_user(name) for name in NAMES]
    group = driver.add_group("Козлятник", users)
    message = await lobby(driver, group, users[0])
    creator = users[0]
    await creator.tap(message, "Правила")
    await group.wait_until(message, lambda m: any("сочинский" in b["text"] for r in m.buttons for b in r))
    await creator.tap(message, "сочинский на четверых")
    await group.wait_until(
        message, lambda m: "Сочинский на четверых: четверо, две пары; классика на 32 картах" in m.content
    )
    labels = [b["text"] for r in message.buttons for b in r]
    assert any(text.startswith("✓ сочинский на четверых") for text in labels)
    # The options the preset fixes are not offered.
    offered = {t.split(": ")[0] for t in labels if ": " in t}
    assert "Колода" not in offered and "Хвалёж" not in offered and "Игра до" in offered
    # A longer match (to 18) so the second round's kind (mirror, from deal 5) is reached.
    await creator.tap(message, "Игра до: 12")
    await group.wait_until(message, lambda m: any(b["text"] == "Игра до: 6" for r in m.buttons for b in r))
    await creator.tap(message, "Игра до: 6")
    await group.wait_until(message, lambda m: any(b["text"] == "Игра до: 18" for r in m.buttons for b in r))
    await creator.tap(message, "Назад")
    await group.wait_until(message, lambda m: any("Начать" in b["text"] for r in m.buttons for b in r))
    for seat, user in enumerate(users):
        await sit(user, message, seat, group)
    await creator.tap(message, "Начать")

    kinds_shown: set[str] = set()

    def over() -> bool:
        # The brag lines last only while the brag is on the table: note them as they show.
        for m in [*group.bot_messages[-3:], *(m for u in users for m in u.dm.bot_messages[-3:])]:
            kinds_shown.update(k for k in ("штаны", "зеркало", "рыбалка") if f"Хвалёж ({k})" in m.content)
        return any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)

    await play_until(driver, svc, users, over, rng=random.Random(5))
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.status == "over" and table.match is not None
    assert table.rules == {"preset": "sochi4", "options": {"match_target": 18}}
    assert table.match.loser is not None
    result = result_of({"rules": table.rules, "deals": table.match.deals})
    rotation = ["pants", "mirror", "fishing"]
    for d in result["deals"]:
        no = d["deal_no"]
        assert d.get("brag_kind") == (None if no == 1 else rotation[(no - 1) // 4 % 3])
    assert max(d["deal_no"] for d in result["deals"]) >= 5
    assert {"штаны", "зеркало"} <= kinds_shown
    await driver.settle()
    assert not driver.failed_calls(), driver.failed_calls()[:3]
