"""A timeout takes the person's whole decision, and says what happened in words that are true
(issue 34, item 8), on the fake clock of tests/bot/test_timers.py."""

from __future__ import annotations

import random

from bot.engine import Exchange, ExchangeGive, Match, Phase, Rules
from bot.sandbox import Driver
from bot.sandbox.clock import FakeClock
from bot.storage import ChatSettings, MatchState
from bot.table import game
from bot.tg.services import Services
from tests.bot import test_timers
from tests.bot.helpers import legal_hand, start_game, table_of
from tests.bot.test_exchange import _put_match
from tests.bot.test_timers import armed, eventually

# The fake clock the timers run by, and the bot's settings on it, as in the timer tests.
clock, settings = test_timers.clock, test_timers.settings


def _exchange_answer_match() -> MatchState:
    """A classic match whose second deal asks seat 0 whether to exchange, where a yes makes seat 0
    the strong hand that then gives (so the one decision has two steps)."""
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
        while deal.phase not in (Phase.EXCHANGE, Phase.PLAY, Phase.OVER) or (
            deal.phase is Phase.EXCHANGE and deal.to_act != 0
        ):
            assert deal.to_act is not None
            acts = deal.legal_actions(deal.to_act)
            deal.apply(deal.to_act, Exchange(True) if Exchange(True) in acts else rng.choice(acts))
        if deal.phase is not Phase.EXCHANGE or deal.to_act != 0:
            continue
        then = deal.copy()
        then.apply(0, Exchange(True))
        if then.phase is not Phase.EXCHANGE_GIVE or then.to_act != 0:
            continue
        state = MatchState(first_dealer=first, dealer=match.dealer, deals=deals, current=deal.record())
        state.deal_no, state.penalty, state.eggs = (
            match.deal_no,
            (match.penalty[0], match.penalty[1]),
            match.eggs,
        )
        state.eggs_in_row, state.deal_seq = match.eggs_in_row, len(deals) + 1
        return state
    raise AssertionError("no such deal")  # pragma: no cover - the seeds above hold many


async def test_a_timeout_at_the_exchange_takes_the_whole_decision(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await start_game(driver, group, [anya])
    await legal_hand(driver, svc, anya)
    _, deal = await _put_match(svc, group.id, _exchange_answer_match())
    assert deal.phase is Phase.EXCHANGE and deal.to_act == 0
    timer = await armed(svc, group, "timeout")
    assert timer.moves == len(deal.moves)
    clock.advance(61)

    async def taken() -> bool:
        stored = await table_of(svc, group)
        now = game.deal_of(stored) if stored is not None else None
        return now is not None and len(now.moves) >= len(deal.moves) + 2

    await eventually(taken, "the exchange answered and the cards given")
    stored = await table_of(svc, group)
    assert stored is not None
    now = game.deal_of(stored)
    assert now is not None
    # The bot said yes and chose the cards too: nothing is left for Anya to pick on a fresh timer.
    yes, give = now.moves[len(deal.moves)], now.moves[len(deal.moves) + 1]
    assert yes == (0, Exchange(True)) and give[0] == 0 and isinstance(give[1], ExchangeGive)
    assert not (now.phase is Phase.EXCHANGE_GIVE and now.to_act == 0)
    assert stored.timeouts.get(0) == 1 and stored.away == []  # one timeout, not two


async def test_the_first_timeout_under_bot_takes_over_does_not_say_again(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    await svc.storage.save_chat_settings(group.id, ChatSettings(turn_time=30, timeout_action="away"))
    await start_game(driver, group, [anya])
    await armed(svc, group, "timeout")
    clock.advance(31)
    notice = await group.wait_bot_message(lambda m: "дальше играет бот" in m.content)
    assert (
        "время вышло — дальше играет бот" in notice.content and "снова" not in notice.content.split("пока")[0]
    )
