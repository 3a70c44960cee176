"""Ticking cards in the exchange's give counts as being there for the turn timers (issue #4).

The give is chosen card by card (tests/bot/test_exchange.py); each tick holds off the reminder and
the timeout, which count from the last tick, and starts the person's timeouts in a row over. Time is
a :class:`FakeClock` the test moves, as in tests/bot/test_timers.py.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.engine import ExchangeGive
from bot.sandbox import Driver
from bot.sandbox.clock import FakeClock
from bot.storage import MatchState, Table
from bot.storage.models import Picking
from bot.table.timers import TimerId, held_until
from bot.tg.services import Services
from tests.bot import test_timers
from tests.bot.helpers import table_of
from tests.bot.test_exchange import _asks_to_give, _at_the_give, _cards, _ticked
from tests.bot.test_timers import AWAY, TIMED_OUT, eventually, pending

REMINDER = "осталось 30 с"


# The fake clock the timers run by, and the bot's settings on it, as in the timer tests.
clock, settings = test_timers.clock, test_timers.settings


async def _due(svc: Services, member: str, when: float) -> None:
    """Wait until ``member`` is pending in Redis for ``when``."""

    async def probe() -> bool:
        return (await pending(svc)).get(member) == pytest.approx(when, abs=1e-3)

    await eventually(probe, f"{member} due at {when}")


async def test_ticking_the_give_holds_off_the_reminder_and_the_timeout(
    app: object, driver: Driver, svc: Services, clock: FakeClock
) -> None:
    anya, group, table, deal = await _at_the_give(driver, svc)
    assert table.match is not None
    gives = [a for a in deal.legal_actions(0) if isinstance(a, ExchangeGive)]
    turn = (group.id, None, table.table_id, table.match.deal_seq, len(deal.moves), 0)
    remind, timeout = TimerId("remind", *turn).pack(), TimerId("timeout", *turn).pack()
    await eventually(lambda: _pending_has(svc, timeout), "the give's timeout")
    start = (await pending(svc))[timeout] - 60  # when the turn came

    def one_timeout_already(stored: Table | None) -> None:
        assert stored is not None
        stored.timeouts[0] = 1  # she timed out on her previous decision

    await svc.transact((group.id, None), one_timeout_already)
    hand = await anya.dm.wait_bot_message(_asks_to_give)

    # 25 s in she ticks a card: present, her timeouts in a row start over.
    clock.advance(25)
    code = next(iter(sorted({c.code for a in gives for c in a.cards})))
    await anya.tap(hand, data=_cards(svc, hand)[code][1])
    await _ticked(driver, svc, anya, hand, 1)
    stored = await table_of(svc, group)
    assert stored is not None and stored.match is not None and stored.match.picking is not None
    ticked = stored.match.picking.at
    assert ticked == pytest.approx(start + 25, abs=1e-3) and stored.timeouts == {}

    # Half time of the turn passes: no reminder; it is due half a turn after her tick instead.
    clock.advance(10)
    await _due(svc, remind, ticked + 30)
    assert not [m for m in anya.dm.bot_messages if REMINDER in m.content]
    clock.advance(21)  # 1 s past half a turn after the tick
    await anya.dm.wait_bot_message(lambda m: REMINDER in m.content)

    # The turn's first 60 s pass: no timeout; it is due a whole turn after her tick.
    clock.advance(5)
    await _due(svc, timeout, ticked + 60)
    await asyncio.sleep(0.2)
    assert not [m for m in group.bot_messages if TIMED_OUT in m.content]
    still = await table_of(svc, group)
    assert still is not None and still.match is not None and still.match.current is not None
    assert len(still.match.current["moves"]) == len(deal.moves), "nobody gave for her"

    # Idle for a whole turn since the tick: the bot gives for her. Her row restarted at the tick, so
    # this is her first timeout in a row, not the second that would make her seat away.
    clock.advance(25)
    notice = await group.wait_bot_message(lambda m: TIMED_OUT in m.content)
    assert "Аня" in notice.content and AWAY not in notice.content
    after = await table_of(svc, group)
    assert after is not None and after.match is not None and after.match.current is not None
    move = after.match.current["moves"][len(deal.moves)]
    assert move["seat"] == 0 and "exchange_give" in move
    assert after.timeouts == {0: 1} and after.away == []


async def _pending_has(svc: Services, member: str) -> bool:
    return member in await pending(svc)


def test_only_a_tick_for_the_timer_s_own_decision_holds_it_off() -> None:
    timer = TimerId("timeout", -100, None, "abc123", deal_seq=3, moves=7, seat=1)
    table = Table(table_id="abc123", chat_id=-100, creator_id=1, rules={}, status="playing")
    table.match = MatchState(first_dealer=0, dealer=0, deal_seq=3)
    assert held_until(table, timer, 60, now=1000.0) is None, "no tick"
    table.match.picking = Picking(deal_seq=3, moves=7, seat=1, cards=["AS"], at=990.0)
    assert held_until(table, timer, 60, now=1000.0) == 1050.0
    assert held_until(table, timer, 60, now=1050.0) is None, "idle a whole turn since the tick"
    for other in (
        Picking(deal_seq=2, moves=7, seat=1, at=990.0),  # an earlier deal
        Picking(deal_seq=3, moves=6, seat=1, at=990.0),  # an earlier decision of this deal
        Picking(deal_seq=3, moves=7, seat=3, at=990.0),  # someone else
    ):
        table.match.picking = other
        assert held_until(table, timer, 60, now=1000.0) is None, other
    assert held_until(None, timer, 60, now=1000.0) is None
