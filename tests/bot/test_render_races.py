"""Renders racing /leave and /stop (issue #33, 9, 10, 12; #34, 8): a render acts on the table as it
is when it sends, never on the snapshot it began with.

Each race is held open on purpose: Telegram answers a call late (the call is applied, its answer held
back) or says "retry after" a few seconds, so a render is mid-way when the command comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest

from bot.app import services_of
from bot.render.i18n import Tr
from bot.sandbox import Driver, EmulatorConfig, SimGroup, SimUser, StoredMessage
from bot.sandbox.records import ApiCall, Fault
from bot.storage import RedisStorage, Table
from bot.table.core import Limits
from bot.table.payloads import StopGame
from bot.tg.services import Services, Settings
from bot.webhook import SECRET_HEADER
from tests.bot.helpers import buttons, hand_of, inject, play_until, start_game
from tests.deploy.webhooks import webhook_instances

RU = Tr("ru")
#: How long a race is held open: an answer held back, a "retry after" (the command must come first,
#: however loaded the machine).
HELD = 4.0
RETRY = 3


def live_hands(svc: Services, user: SimUser) -> list[StoredMessage]:
    """The user's private messages that still offer a card or a decision."""
    return [
        m for m in user.dm.bot_messages if any(b.payload[:1] in ("A", "C") for _, b, _ in buttons(svc, m))
    ]


def sent_to(driver: Driver, chat_id: int, since: int = 0) -> list[ApiCall]:
    """The messages sent to ``chat_id`` (applied), after the first ``since`` calls of the log."""
    return [c for c in driver.calls()[since:] if c.method == "sendMessage" and c.ok and c.chat_id == chat_id]


async def stored_when(
    svc: Services, group: SimGroup, ok: Callable[[Table | None], bool], what: str
) -> Table | None:
    """Wait until the group's stored table (None if there is none) passes ``ok``."""
    for _ in range(500):
        table = await svc.storage.load_table(group.id, None)
        if ok(table):
            return table
        await asyncio.sleep(0.01)
    raise TimeoutError(what)


async def quiet(driver: Driver, svc: Services, seconds: float) -> None:
    """Let held answers and retries come (``seconds``), then wait until the bot is quiet."""
    await asyncio.sleep(seconds)
    # Bounded: a render that goes round and round (as #33, 10's did) fails here rather than hangs.
    await asyncio.wait_for(svc.driver.idle(), 15)
    await asyncio.wait_for(svc.presenter.idle(), 15)
    await asyncio.wait_for(svc.outbox.drain(), 15)
    await driver.settle(quiet=0.3)


async def deal_ends_held(
    driver: Driver, svc: Services, group: SimGroup, players: list[SimUser], delay: float
) -> Fault:
    """Play the first deal to its end, with the group's next new message (the deal's summary)
    answered ``delay`` s late: the next deal's render waits behind it (its table message, then the
    hands). Returns once the summary is out and the render held."""
    for user in players:
        await hand_of(user)
    fault = driver.world.inject_faults(method="sendMessage", chat_id=group.id, count=1, delay=delay)
    await play_until(driver, svc, players, lambda: fault.hits > 0, rng=random.Random(5))
    summary = sent_to(driver, group.id)[-1]
    assert "Раздача №1" in str(summary.params.get("text")), summary.params
    return fault


async def stop_now(svc: Services, user: SimUser, group: SimGroup, message: StoredMessage) -> None:
    """/stop confirmed at once: a match in play asks first, and its question would queue behind the
    very messages these races hold, so the confirming button itself is tapped (put on ``message``)."""
    table = await svc.storage.load_table(group.id, None)
    assert table is not None
    inject(message, svc.codec.data(group.id, None, table.table_id, 0, StopGame()))
    tap = await user.tap(message, "👆")
    assert not tap.show_alert, tap.answer_text


async def test_a_person_who_leaves_as_a_deal_ends_never_gets_the_next_deals_hand(
    app: object, driver: Driver, svc: Services
) -> None:
    """#33, 9: the next deal's render began before /leave; the hand of the seat a bot now plays is
    not sent to the person who left (nor kept in the table), and their finished hand is closed."""
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya, boris])
    await deal_ends_held(driver, svc, group, [anya, boris], delay=HELD)
    await boris.send(group, "/leave")
    table = await stored_when(
        svc, group, lambda t: t is not None and t.seats[1].is_bot, "Борис's seat taken by a bot"
    )
    assert table is not None and table.match is not None and table.match.deal_seq == 2
    assert not [c for c in sent_to(driver, group.id) if "Раздача №2" in str(c.params.get("text"))], "held"
    await quiet(driver, svc, HELD)

    assert not [c for c in sent_to(driver, boris.id) if "раздача №2" in str(c.params.get("text"))]
    assert not live_hands(svc, boris), [m.content for m in live_hands(svc, boris)]
    (finished,) = [m for m in boris.dm.bot_messages if "раздача №1" in m.content]
    assert "окончена" in finished.content
    stored = await svc.storage.load_table(group.id, None)
    assert stored is not None and stored.hand_messages
    for seat in stored.hand_messages:
        person = stored.seats[seat]
        assert person is not None and person.user_id == anya.id, (seat, stored.seats)
    assert live_hands(svc, anya), "Аня plays on: her hand of deal 2 is there"
    assert not driver.failed_calls(), driver.failed_calls()


async def test_stop_as_a_deal_ends_sends_nothing_of_the_next_deal(
    app: object, driver: Driver, svc: Services
) -> None:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    lobby_message = await start_game(driver, group, [anya, boris])
    await deal_ends_held(driver, svc, group, [anya, boris], delay=HELD)
    await stop_now(svc, anya, group, lobby_message)
    await stored_when(svc, group, lambda t: t is None, "the table stopped")
    assert not [c for c in sent_to(driver, group.id) if "Раздача №2" in str(c.params.get("text"))], "held"
    await quiet(driver, svc, HELD)

    texts = [str(c.params.get("text")) for c in driver.calls("sendMessage") if c.ok]
    assert not [t for t in texts if "Раздача №2" in t or "раздача №2" in t], texts
    for user in (anya, boris):
        assert not live_hands(svc, user), (user, [m.content for m in live_hands(svc, user)])
    assert svc.presenter.live() == 0
    assert not driver.failed_calls(), driver.failed_calls()


async def push_held(driver: Driver, svc: Services, players: list[SimUser], user: SimUser) -> Fault:
    """Play until a new message to ``user`` (a hand sent anew: their decision came due after the
    bots' moves) is told "retry after" (``RETRY`` s); returns once it waits for its retry."""
    for player in players:
        await hand_of(player)
    fault = driver.world.inject_faults(method="sendMessage", chat_id=user.id, status=429, retry_after=RETRY)
    await play_until(driver, svc, players, lambda: fault.hits > 0, rng=random.Random(7))
    refused = [c for c in driver.failed_calls() if c.chat_id == user.id]
    assert [c.error_code for c in refused] == [429]
    return fault


async def test_stop_while_a_hand_is_sent_anew_sends_nothing_more_and_does_not_loop(
    app: object, driver: Driver, svc: Services
) -> None:
    """#33, 10: /stop while a bot's move brought a decision due ("👉 Ваш ход!" on its way): the hand
    is not sent, nothing is edited back to live, and nothing more comes (it used to repeat every 2 s)."""
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    lobby_message = await start_game(driver, group, [anya])
    await push_held(driver, svc, [anya], anya)
    since = len(driver.calls())
    await stop_now(svc, anya, group, lobby_message)
    await stored_when(svc, group, lambda t: t is None, "the table stopped")
    assert not sent_to(driver, anya.id, since), "held"
    await quiet(driver, svc, RETRY + 2)

    assert not sent_to(driver, anya.id, since), driver.calls()[since:]
    assert not live_hands(svc, anya), [m.content for m in live_hands(svc, anya)]
    assert [m.content for m in group.bot_messages if m.buttons and "Раздача" in m.content] == []
    assert svc.presenter.live() == 0
    calls = len(driver.calls())
    await asyncio.sleep(2.5)
    later = [c.method for c in driver.calls()[calls:] if c.method.lower() != "getupdates"]
    assert later == []


async def test_a_person_who_leaves_while_their_hand_is_sent_anew_gets_nothing_more(
    app: object, driver: Driver, svc: Services
) -> None:
    """/leave while a bot's move brought Борис's decision due: the seat is the bot's, so its hand
    is not sent to him, and his last hand stays closed ("you left") rather than live or frozen."""
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya, boris])
    await push_held(driver, svc, [anya, boris], boris)
    since = len(driver.calls())
    await boris.send(group, "/leave")
    await stored_when(svc, group, lambda t: t is not None and t.seats[1].is_bot, "Борис replaced")
    assert not sent_to(driver, boris.id, since), "held"
    await quiet(driver, svc, RETRY + 0.5)

    assert not sent_to(driver, boris.id, since), driver.calls()[since:]
    assert not live_hands(svc, boris), [m.content for m in live_hands(svc, boris)]
    assert boris.dm.bot_messages[-1].content == RU("leave.hand")


async def test_stop_right_after_newgame_leaves_no_live_lobby(
    app: object, driver: Driver, svc: Services
) -> None:
    """#33, 12: /stop while the lobby's message is on its way: once out, it is closed."""
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    driver.world.inject_faults(method="sendMessage", chat_id=group.id, count=1, delay=1.5)
    await anya.send(group, "/newgame")
    await stored_when(svc, group, lambda t: t is not None, "the lobby stored")
    await anya.send(group, "/stop")
    await stored_when(svc, group, lambda t: t is None, "the lobby stopped")
    await quiet(driver, svc, 2.0)

    first = sent_to(driver, group.id)[0]
    posted = group.message(first.result["message_id"])
    assert "собираемся за столом" in str(first.params.get("text"))
    assert posted.buttons == [] and posted.content == RU("stop.message"), posted.content
    assert RU("stop.done") in [m.content for m in group.bot_messages]
    assert not driver.failed_calls(), driver.failed_calls()


async def first_deal_over_unshown(
    driver: Driver, svc: Services, group: SimGroup, players: list[SimUser], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Play the first deal to its end with its summary never shown (as when the process that was to
    show it died): its hands still show the deal's last state."""
    for user in players:
        await hand_of(user)

    async def not_shown(*args: object) -> None:
        return None

    monkeypatch.setattr(svc.presenter.summaries, "show", not_shown)

    def next_deal() -> bool:
        return any(t.match is not None and t.match.deal_seq >= 2 for t in svc.presenter.tables())

    await play_until(driver, svc, players, next_deal, rng=random.Random(11))
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and [p.index for p in table.pending_summaries] == [0]


async def test_a_person_who_leaves_before_a_deals_summary_is_out_gets_that_hand_closed(
    app: object, driver: Driver, svc: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#34, 8: the seat is a bot's once Борис leaves, so the summary (shown later, or by another
    process) does not close his hand of the finished deal: /leave closes it as a finished hand is,
    rather than leave it frozen at "раздача №1 · ваше место 2" into the next game."""
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya, boris])
    await first_deal_over_unshown(driver, svc, group, [anya, boris], monkeypatch)
    (hand,) = [m for m in boris.dm.bot_messages if "раздача №1" in m.content]
    assert "окончена" not in hand.content
    await boris.send(group, "/leave")
    await stored_when(svc, group, lambda t: t is not None and t.seats[1].is_bot, "Борис replaced")
    await quiet(driver, svc, 0.5)

    hand = boris.dm.message(hand.message_id)
    assert "раздача №1 окончена" in hand.content, hand.content
    assert not live_hands(svc, boris), [m.content for m in live_hands(svc, boris)]
    assert not driver.failed_calls(), driver.failed_calls()


async def test_stop_before_a_deals_summary_is_out_closes_that_deals_messages(
    app: object, driver: Driver, svc: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The summary of a stopped game's finished deal will never be shown: /stop closes its hands and
    table message too."""
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    lobby_message = await start_game(driver, group, [anya, boris])
    await first_deal_over_unshown(driver, svc, group, [anya, boris], monkeypatch)
    hands = [m for user in (anya, boris) for m in user.dm.bot_messages if "раздача №1" in m.content]
    assert len(hands) == 2
    await stop_now(svc, anya, group, lobby_message)
    await stored_when(svc, group, lambda t: t is None, "the table stopped")
    await quiet(driver, svc, 0.5)

    for hand in hands:
        assert driver.world.message(hand.chat_id, hand.message_id).content == RU("stop.message")
    for user in (anya, boris):
        assert not live_hands(svc, user), [m.content for m in live_hands(svc, user)]
    assert not [m.content for m in group.bot_messages if "Раздача №1" in m.content]
    assert not driver.failed_calls(), driver.failed_calls()


async def test_a_hand_already_on_its_way_to_a_person_who_leaves_is_deleted_not_kept_for_the_bot(
    app: object, driver: Driver, svc: Services
) -> None:
    """#33, 9's root: the next deal's hand went out to Борис, its answer late, when he left. Its id
    is not stored for the seat the bot now plays (where nothing would ever close it): it is deleted."""
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya, boris])
    await deal_ends_held(driver, svc, group, [anya, boris], delay=1.0)
    driver.world.inject_faults(method="sendMessage", chat_id=boris.id, count=1, delay=HELD)

    def on_its_way() -> ApiCall | None:
        found = [c for c in sent_to(driver, boris.id) if "раздача №2" in str(c.params.get("text"))]
        return found[0] if found else None

    call = await driver.wait_for(on_its_way, what="Борис's hand of deal 2 on its way")
    await boris.send(group, "/leave")
    await stored_when(svc, group, lambda t: t is not None and t.seats[1].is_bot, "Борис replaced")
    await quiet(driver, svc, HELD)

    assert boris.dm.message(call.result["message_id"]).deleted
    assert not live_hands(svc, boris), [m.content for m in live_hands(svc, boris)]
    stored = await svc.storage.load_table(group.id, None)
    assert stored is not None and 1 not in stored.hand_messages, stored.hand_messages
    assert not driver.failed_calls(), driver.failed_calls()


# ----- two processes: /leave handled by the other one ------------------------------------------------


@contextlib.asynccontextmanager
async def two_processes(
    redis_url: str, storage: RedisStorage
) -> AsyncIterator[tuple[Driver, list[Services], Callable[[dict[str, Any]], int]]]:
    """Two bot applications behind webhooks on one Redis (the test's keys) and one emulator; every
    update goes to the first, unless ``route`` (set by the caller: update -> 0 or 1) says otherwise.
    Yields the driver, both services and ``route``'s holder."""
    settings = Settings(bot_delay=0.0, limits=Limits.off())
    routes: list[Callable[[dict[str, Any]], int]] = [lambda update: 0]
    async with webhook_instances(
        redis_url, storage.prefix, EmulatorConfig(), settings, "races"
    ) as (emulator, ports, apps), aiohttp.ClientSession() as http:  # fmt: skip

        async def deliver(update: dict[str, Any]) -> None:
            url = f"http://127.0.0.1:{ports[routes[0](update)]}/tg"
            while True:  # as Telegram: again until it is answered 200
                async with http.post(url, json=update, headers={SECRET_HEADER: "races"}) as response:
                    if response.status == 200:
                        return
                await asyncio.sleep(0.2)

        async def pump() -> None:
            while True:
                for update in emulator.world.take_updates():
                    task = asyncio.create_task(deliver(update))
                    pending.add(task)
                    task.add_done_callback(pending.discard)
                await emulator.world.wait_change(0.05)

        pending: set[asyncio.Task[None]] = set()
        pumping = asyncio.create_task(pump())
        try:
            yield Driver(emulator.world, default_timeout=10.0), [services_of(a) for a in apps], routes
        finally:
            pumping.cancel()
            for task in pending:
                task.cancel()
            await asyncio.gather(pumping, *pending, return_exceptions=True)


def leave_to_second(update: dict[str, Any]) -> int:
    """/leave goes to the second process; everything else to the first."""
    return 1 if update.get("message", {}).get("text") == "/leave" else 0


async def quiet_both(driver: Driver, services: list[Services], seconds: float) -> None:
    await asyncio.sleep(seconds)
    for svc in services:
        await quiet(driver, svc, 0)


async def test_leave_on_the_other_process_while_the_next_deals_hand_waits_sends_the_leaver_nothing(
    redis_url: str, storage: RedisStorage
) -> None:
    """Process A renders the next deal; Борис's hand waits in his chat (Telegram said "retry after")
    when his /leave is handled by process B. A's snapshot still has him in the seat; the table as
    stored when the hand's turn comes does not: nothing is sent to him (not sent and then deleted)."""
    async with two_processes(redis_url, storage) as (driver, (svc, other), routes):
        routes[0] = leave_to_second
        anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
        group = driver.add_group("Козлятник", [anya, boris])
        await start_game(driver, group, [anya, boris])
        summary = await deal_ends_held(driver, svc, group, [anya, boris], delay=1.0)
        # His next new message is deal 2's hand (a deal over sends no hand anew).
        held = driver.world.inject_faults(
            method="sendMessage", chat_id=boris.id, status=429, retry_after=RETRY
        )
        await driver.wait_for(lambda: held.hits > 0 or None, what="Борис's hand of deal 2 waiting")
        assert summary.hits == 1
        since = len(driver.calls())
        await boris.send(group, "/leave")
        await stored_when(svc, group, lambda t: t is not None and t.seats[1].is_bot, "Борис replaced")
        await quiet_both(driver, [svc, other], RETRY + 1)

        assert not [c for c in sent_to(driver, boris.id) if "раздача №2" in str(c.params.get("text"))]
        assert not live_hands(svc, boris), [m.content for m in live_hands(svc, boris)]
        assert not [
            c for c in driver.calls()[since:] if c.method == "deleteMessage" and c.chat_id == boris.id
        ]
        assert live_hands(svc, anya), "Аня plays on"


async def test_leave_on_the_other_process_while_a_hand_is_sent_anew_sends_the_leaver_nothing(
    redis_url: str, storage: RedisStorage
) -> None:
    """The same while Борис's hand is being sent anew (his decision came due): B handles his /leave,
    A's push finds the seat a bot's in the stored table when its retry comes, and sends nothing."""
    async with two_processes(redis_url, storage) as (driver, (svc, other), routes):
        routes[0] = leave_to_second
        anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
        group = driver.add_group("Козлятник", [anya, boris])
        await start_game(driver, group, [anya, boris])
        await push_held(driver, svc, [anya, boris], boris)
        since = len(driver.calls())
        await boris.send(group, "/leave")
        await stored_when(svc, group, lambda t: t is not None and t.seats[1].is_bot, "Борис replaced")
        await quiet_both(driver, [svc, other], RETRY + 1)

        assert not sent_to(driver, boris.id, since), driver.calls()[since:]
        assert not live_hands(svc, boris), [m.content for m in live_hands(svc, boris)]
        assert boris.dm.bot_messages[-1].content == RU("leave.hand")
