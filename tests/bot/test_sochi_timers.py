"""3-person ``sochi``'s discard under the turn timers: a lone player who lets the turn run out gets
the bot's discard (two cards, never the ♣Q), and the group is told, as for any decision."""

from __future__ import annotations

import random

from bot.sandbox import Driver, SimGroup, StoredMessage
from bot.sandbox.clock import FakeClock
from bot.table import game
from bot.tg.services import Services
from tests.bot import test_timers
from tests.bot.helpers import lobby, play_until, sit
from tests.bot.test_sochi_match import _pick_sochi
from tests.bot.test_timers import TIMED_OUT, armed, played

# The fake clock the timers run by, and the bot's settings on it, as in the timer tests.
clock, settings = test_timers.clock, test_timers.settings


async def _discarding(svc: Services, group: SimGroup) -> bool:
    table = await svc.storage.load_table(group.id, None)
    deal = game.deal_of(table) if table is not None else None
    return deal is not None and deal.to_act == 0 and deal.phase.value == "discard"


async def test_sochi_discard_timed_out_is_made_by_the_bot(
    app: object, driver: Driver, svc: Services, clock: FakeClock
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

    def asked() -> bool:  # her DM asks for the discard
        dm = [m for m in anya.dm.bot_messages if m.buttons]
        return bool(dm) and "Снесите две карты" in dm[-1].content

    def has(m: StoredMessage, label: str) -> bool:
        return any(label in b["text"] for r in m.buttons for b in r)

    def over() -> list[StoredMessage]:
        return [m for m in group.bot_messages if has(m, "Ещё партию")]

    rng = random.Random(1)
    for _ in range(5):  # who holds the ♣Q is the deal's: another match until she does
        await play_until(driver, svc, [anya], lambda: asked() or bool(over()), rng=rng, max_taps=3000)
        if asked():
            break
        await anya.tap(over()[-1], "Ещё партию")  # the rematch's lobby: she alone, so she starts
        again = await group.wait_bot_message(lambda m: has(m, "Начать"))
        await anya.tap(again, "Начать")
        await group.wait_until(again, lambda m: "Игра началась" in m.content)
        await driver.wait_for(lambda: not over() or None, what="the old summary's 🔁 gone")
    assert await _discarding(svc, group)
    timer = await armed(svc, group, "timeout")
    clock.advance(61)
    notice = await group.wait_bot_message(lambda m: TIMED_OUT in m.content)
    assert "Аня" in notice.content
    move = await played(svc, group, timer)
    assert move["seat"] == 0 and len(move["discard"]) == 2 and "QC" not in move["discard"]
