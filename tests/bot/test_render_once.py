"""What a move costs the bot: each content made once, no record replayed for a save, updates parsed once.

A move changes every hand, so each person's hand is made once per move; the renders that follow a
message id being stored (a hand sent anew, the table message posted) show the same state and take
the contents already made. A save of a table whose deal this process holds is checked on that deal,
not by replaying the record. An update offered again while it is being handled is not parsed again.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from typing import Any

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update

import bot.render.live_buttons as live_buttons_module
import bot.storage.invariants as invariants_module
from bot.engine import Deal
from bot.polling import Poller
from bot.sandbox import Driver, Emulator
from bot.storage import Table
from bot.tg.calls import markup_json
from bot.tg.services import Services
from tests.bot.helpers import hand_of, play_until, start_game


async def test_each_hand_is_made_once_per_state_and_no_save_replays_the_deal(
    app: object, driver: Driver, svc: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: Counter[tuple[int, int, int, int]] = Counter()
    real_hand = live_buttons_module.hand_content

    def counting_hand(tr: Any, codec: Any, table: Table, deal: Deal, seat: int, **kw: Any) -> Any:
        assert table.match is not None
        made[(table.version, seat, table.match.deal_seq, len(deal.moves))] += 1
        return real_hand(tr, codec, table, deal, seat, **kw)

    replays: list[int] = []
    real_replay = invariants_module.replay_checked

    def counting_replay(*args: Any, **kwargs: Any) -> Any:
        replays.append(1)
        return real_replay(*args, **kwargs)

    users = [driver.add_user(name) for name in ("Аня", "Борис", "Вера", "Глеб")]
    group = driver.add_group("Козлятник", users)
    await start_game(driver, group, users)
    await hand_of(users[0])
    monkeypatch.setattr(live_buttons_module, "hand_content", counting_hand)
    monkeypatch.setattr(invariants_module, "replay_checked", counting_replay)

    moves_before = len(svc.stats.tap_times)
    await play_until(
        driver, svc, users, lambda: len(svc.stats.tap_times) >= moves_before + 12, rng=random.Random(5)
    )
    await svc.presenter.idle()
    await svc.outbox.drain()
    await svc.presenter.idle()
    assert made, "hands were rendered"
    # A hand made for one seat, one state, once — even across the renders after its message ids were
    # stored (those leave the content version as it was).
    states = Counter((seat, seq, moves) for (_version, seat, seq, moves) in made)
    assert max(states.values()) == 1, sorted(made)
    assert replays == [], "every save was checked on the deal this process holds"


def test_a_keyboards_json_is_what_python_telegram_bot_makes_of_it() -> None:
    cards = [InlineKeyboardButton(f"✅{i}♠ «x»", callback_data=f"k1:-100123:abc:{i}") for i in range(5)]
    link = InlineKeyboardButton("Открыть", url="https://t.me/kozel_bot?start=x")
    other = InlineKeyboardButton("Скопировать", copy_text=None, switch_inline_query="кто")
    for markup in (
        InlineKeyboardMarkup([cards[:3], cards[3:]]),
        InlineKeyboardMarkup([[link]]),
        InlineKeyboardMarkup([[cards[0], other], [link]]),
        InlineKeyboardMarkup([]),
    ):
        ours = markup_json(markup)
        theirs = json.dumps(markup.to_dict(), ensure_ascii=False, separators=(",", ":"))
        assert json.loads(ours) == json.loads(theirs)
        assert ours == theirs


async def test_an_update_offered_again_while_in_flight_is_not_parsed_again(
    emulator: Emulator, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: list[int] = []
    real = Update.de_json

    def counting(data: Any, bot: Any = None) -> Any:
        parsed.append(data["update_id"])
        return real(data, bot)

    monkeypatch.setattr(Update, "de_json", staticmethod(counting))
    anya = driver.add_user("Аня")
    async with Bot(emulator.token, base_url=emulator.base_url) as bot:
        release = asyncio.Event()
        seen: list[int] = []

        class Consumer:
            def __init__(self) -> None:
                self.bot = bot
                self.bot_data: dict[str, Any] = {}

            async def process_update(self, update: Update) -> None:
                seen.append(update.update_id)
                await release.wait()

        poller = Poller(Consumer(), timeout=1)  # type: ignore[arg-type]
        poller.start()
        await anya.start()
        async with asyncio.timeout(10):
            while not seen:
                await asyncio.sleep(0.02)
        # Polls go on meanwhile, each answered with the update still in flight.
        await asyncio.sleep(1.5)
        release.set()
        await poller.close()
    assert seen == parsed == seen[:1], (seen, parsed)
