"""The exchange's give in the DM: tick the non-trumps, see "chosen k of n", confirm at the right count."""

from __future__ import annotations

import random

import pytest

from bot.app import build_application, services_of
from bot.engine import Deal, Exchange, ExchangeGive, Match, Phase, Rules
from bot.engine.actions import action_from_json
from bot.render.hand_view import PICKABLE_MARK, PICKED_MARK
from bot.sandbox import Driver, Emulator, SimGroup, SimUser, StoredMessage, running_bot
from bot.sandbox.driver import AnyApplication
from bot.storage import MatchState, RedisStorage, Table
from bot.table import game
from bot.table.codec import Button
from bot.table.core import Limits
from bot.tg.services import Services, Settings
from tests.bot.helpers import buttons, inject, legal_hand, start_game


def _exchange_give_match(seat: int) -> MatchState:
    """A classic match whose second deal waits for ``seat`` to give several non-trumps, with a choice.

    The first deal is played out at random, as the stored table would have it.
    """
    rules = Rules.make("classic")
    for seed in range(10_000):
        rng = random.Random(seed)
        first = seed % 4
        match = Match(rules, dealer=first)
        deals = []
        while True:
            deal = match.new_deal(rng=random.Random(rng.getrandbits(64)))
            if deal.deal_no >= 2 and not deal.over:
                break
            while not deal.over:
                assert deal.to_act is not None
                deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
            assert deal.result is not None
            deals.append(deal.record())
            match.add(deal.result)
        while deal.phase not in (Phase.EXCHANGE_GIVE, Phase.PLAY, Phase.OVER):
            assert deal.to_act is not None
            acts = deal.legal_actions(deal.to_act)
            deal.apply(deal.to_act, Exchange(True) if Exchange(True) in acts else rng.choice(acts))
        if deal.phase is not Phase.EXCHANGE_GIVE or deal.to_act != seat:
            continue
        gives = [a for a in deal.legal_actions(seat) if isinstance(a, ExchangeGive)]
        if len(gives[0].cards) >= 2 and len(gives) >= 6:
            state = MatchState(first_dealer=first, dealer=match.dealer, deals=deals, current=deal.record())
            state.deal_no, state.penalty, state.eggs = (
                match.deal_no,
                (match.penalty[0], match.penalty[1]),
                match.eggs,
            )
            state.eggs_in_row, state.deal_seq = match.eggs_in_row, len(deals) + 1
            return state
    raise AssertionError("no such deal")  # pragma: no cover - the seeds above hold many


async def _put_match(svc: Services, chat_id: int, state: MatchState) -> tuple[Table, Deal]:
    """Make ``state`` the table's match, its deal in play just dealt; returns the table and that deal."""

    def change(table: Table | None) -> Table:
        assert table is not None
        table.rules = Rules.make("classic").to_json()
        table.match = state.model_copy(deep=True)
        table.table_message_id = None
        table.hand_messages = {}
        return table

    table, _ = await svc.transact((chat_id, None), change)
    assert table is not None
    await svc.after_change(table, None)
    deal = game.deal_of(table)
    assert deal is not None
    return table, deal


async def _at_the_give(driver: Driver, svc: Services) -> tuple[SimUser, SimGroup, Table, Deal]:
    """Anya alone with three bot players, made seat 0 of a classic deal that waits for her give."""
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    await legal_hand(driver, svc, anya)
    table, deal = await _put_match(svc, group.id, _exchange_give_match(0))
    return anya, group, table, deal


def _cards(svc: Services, hand: StoredMessage) -> dict[str, tuple[str, str]]:
    """Card code -> (label, callback data) of the tick buttons."""
    return {
        b.payload[1:]: (label, data)
        for label, b, data in buttons(svc, hand)
        if b.payload[:1] == "C" != b.payload
    }


def _asks_to_give(message: StoredMessage) -> bool:
    """A hand message with the give's confirm button."""
    return any("Отдать" in str(b.get("text")) for r in message.buttons for b in r)


def _confirm(svc: Services, hand: StoredMessage) -> tuple[str, Button, str]:
    """The confirm button (the last row)."""
    return next(t for t in buttons(svc, hand) if "Отдать" in t[0])


async def _ticked(driver: Driver, svc: Services, user: SimUser, hand: StoredMessage, k: int) -> None:
    await driver.wait_for(lambda: f"выбрано {k} из" in _confirm(svc, hand)[0] or None, what=f"{k} ticked")


@pytest.fixture
def settings() -> Settings:
    """Bot players never move here: the deal waits for the person."""
    return Settings(bot_delay=0.0, limits=Limits.off())


async def test_the_give_is_chosen_card_by_card_and_confirmed(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, group, table, deal = await _at_the_give(driver, svc)
    gives = [a for a in deal.legal_actions(0) if isinstance(a, ExchangeGive)]
    need = len(gives[0].cards)
    pickable = sorted({c.code for a in gives for c in a.cards})
    hand = await anya.dm.wait_bot_message(_asks_to_give)

    # What the partners may tell each other: the open hand's trumps and non-trumps.
    assert deal.tables is not None
    open_hand = deal.hand(2)
    trumps = sum(1 for c in open_hand if deal.tables.is_trump(c))
    assert f"У партнёра (🤖 Бот №3): козырей {trumps}, простых {len(open_hand) - trumps}." in hand.content

    # One toggle per non-trump, no button per combination, a counter on an inactive confirm.
    ticks = _cards(svc, hand)
    assert sorted(ticks) == pickable
    assert all(label.startswith(PICKABLE_MARK) for label, _ in ticks.values())
    assert not [b for _, b, _ in buttons(svc, hand) if b.payload.startswith("Ag")]
    label, button, _ = _confirm(svc, hand)
    assert label == f"Отдать: выбрано 0 из {need}" and button.payload == "C"
    early = await anya.tap(hand, label)
    assert early.show_alert and early.answer_text == f"Отметьте карты для партнёра: нужно {need}, выбрано 0."

    # Tick, untick, tick the right number; one more is refused.
    first = pickable[0]
    await anya.tap(hand, data=ticks[first][1])
    await _ticked(driver, svc, anya, hand, 1)
    assert _cards(svc, hand)[first][0].startswith(PICKED_MARK)
    stored = await svc.storage.load_table(group.id, None)
    assert stored is not None and stored.match is not None and stored.match.picking is not None
    assert stored.match.picking.cards == [first]
    await anya.tap(hand, data=_cards(svc, hand)[first][1])
    await _ticked(driver, svc, anya, hand, 0)
    chosen = pickable[-need:]
    for k, code in enumerate(chosen, 1):
        await anya.tap(hand, data=_cards(svc, hand)[code][1])
        await _ticked(driver, svc, anya, hand, k)
    if len(pickable) > need:
        extra = await anya.tap(hand, data=_cards(svc, hand)[pickable[0]][1])
        assert extra.show_alert
        assert extra.answer_text == f"Уже выбрано {need} — снимите отметку с одной из карт."

    # The confirm is live now and carries the engine's ExchangeGive of exactly those cards.
    label, button, data = _confirm(svc, hand)
    assert label.endswith(f"Отдать: выбрано {need} из {need}") and button.payload.startswith("Ag")
    done = await anya.tap(hand, label)
    assert not done.show_alert, done.answer_text
    # A second tap on it (the keyboard as it was before its edit arrived): a toast, nothing more.
    inject(hand, data, label)
    again = await anya.tap(hand, label)
    assert not again.show_alert and again.answer_text == "Это уже сделано."
    stored = await svc.storage.load_table(group.id, None)
    assert stored is not None and stored.match is not None and stored.match.current is not None
    move = stored.match.current["moves"][len(deal.moves)]
    assert move["seat"] == 0
    given = action_from_json("exchange_give", move["exchange_give"])
    assert isinstance(given, ExchangeGive) and sorted(c.code for c in given.cards) == sorted(chosen)
    assert stored.match.picking is None
    assert table.table_id == stored.table_id


async def test_forged_and_stale_ticks_get_the_usual_alerts(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, group, table, deal = await _at_the_give(driver, svc)
    assert table.match is not None
    trump = next(c for c in deal.hand(0) if deal.tables is not None and deal.tables.is_trump(c))
    plain = next(c for c in deal.hand(0) if deal.tables is not None and not deal.tables.is_trump(c))
    hand = await anya.dm.wait_bot_message(_asks_to_give)
    seq = table.match.deal_seq
    before = await svc.storage.load_table(group.id, None)
    assert before is not None and before.match is not None

    def forged(
        payload: str, deal_seq: int = seq, table_id: str = table.table_id, moves: int | None = None
    ) -> str:
        return svc.codec.pack(Button(group.id, None, table_id, deal_seq, payload, moves))

    cases = [
        (forged("C" + trump.code), "Отдать можно только свои некозырные карты."),
        (forged("CZZ"), "Эта кнопка не работает."),
        (forged("C" + plain.code, seq - 1), "Это карты прошлой раздачи."),
        (forged("C" + plain.code, table_id="ffffff"), "Эта игра уже закончилась."),
        # A tick from a keyboard drawn before the give was asked.
        (
            forged("C" + plain.code, moves=len(deal.moves) - 1),
            "Эта клавиатура устарела: ход уже другой. Ничего не сыграно.",
        ),
    ]
    for data, text in cases:
        inject(hand, data)
        tap = await anya.tap(hand, "👆")
        assert tap.show_alert and tap.answer_text == text, data
    # Someone not at the table.
    boris = driver.add_user("Борис")
    await boris.start()
    greeting = await boris.dm.wait_bot_message()
    inject(greeting, forged("C" + plain.code))
    tap = await boris.tap(greeting, "👆")
    assert tap.show_alert and tap.answer_text == "Вы не сидите за этим столом."
    after = await svc.storage.load_table(group.id, None)
    assert after is not None and after.match is not None
    assert after.match.model_dump() == before.match.model_dump()


async def test_the_choice_in_progress_survives_a_restart(
    emulator: Emulator, storage: RedisStorage, settings: Settings
) -> None:
    def factory(token: str, **kwargs: object) -> AnyApplication:
        return build_application(token, storage=storage, settings=settings, rate_limiter=False, **kwargs)  # type: ignore[arg-type]

    driver = Driver(emulator.world, default_timeout=10.0)
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    state = _exchange_give_match(0)
    async with running_bot(factory, emulator) as app:
        svc = services_of(app)
        await start_game(driver, group, [anya])
        await legal_hand(driver, svc, anya)
        _, deal = await _put_match(svc, group.id, state)
        gives = [a for a in deal.legal_actions(0) if isinstance(a, ExchangeGive)]
        chosen = [c.code for c in gives[-1].cards]
        hand = await anya.dm.wait_bot_message(_asks_to_give)
        for k, code in enumerate(chosen, 1):
            await anya.tap(hand, data=_cards(svc, hand)[code][1])
            await _ticked(driver, svc, anya, hand, k)
        await svc.outbox.drain()
    async with running_bot(factory, emulator) as app:
        svc = services_of(app)
        # The restarted bot still has the ticks: they are the table's, not the old process's.
        stored = await svc.storage.load_table(group.id, None)
        assert stored is not None and stored.match is not None and stored.match.picking is not None
        assert sorted(stored.match.picking.cards) == sorted(chosen)
        # Unticking one counts down from the stored choice (a lost one would make it a first tick).
        await anya.tap(hand, data=_cards(svc, hand)[chosen[0]][1])
        await _ticked(driver, svc, anya, hand, len(chosen) - 1)
        await anya.tap(hand, data=_cards(svc, hand)[chosen[0]][1])
        await _ticked(driver, svc, anya, hand, len(chosen))
        assert all(_cards(svc, hand)[code][0].startswith(PICKED_MARK) for code in chosen)
        done = await anya.tap(hand, _confirm(svc, hand)[0])
        assert not done.show_alert, done.answer_text
        stored = await svc.storage.load_table(group.id, None)
        assert stored is not None and stored.match is not None and stored.match.current is not None
        move = stored.match.current["moves"][len(deal.moves)]
        assert sorted(move["exchange_give"]) == sorted(chosen)
