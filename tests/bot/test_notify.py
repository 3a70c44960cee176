"""Turn notifications (issue 20, item 1): a decision that comes due after others' moves reaches the
person as a new message (Telegram notifies of new messages, not of edits), once per decision."""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from collections.abc import Callable

from bot.render.hand_view import as_a_person_picks
from bot.render.i18n import Tr
from bot.sandbox import Driver, SimGroup, SimUser, StoredMessage
from bot.sandbox.formatting import parse_text
from bot.storage import Seat, Table
from bot.table.timers import TimerId, turn_of
from bot.tg.services import Services
from tests.bot.helpers import buttons, start_game
from tests.bot.test_match_end import _before_the_last_move


def plain(html: str) -> str:
    """The text a client shows for bot HTML."""
    return parse_text(html, "HTML")[0]


DEAL_NO = re.compile(r"раздача №(\d+) ·")


async def play_hands(
    driver: Driver,
    svc: Services,
    group: SimGroup,
    users: list[SimUser],
    done: Callable[[], bool],
    rng: random.Random,
) -> None:
    """Each person taps only the hand message the table holds for their seat (never a deleted or a
    replaced one), as a person does who opens the newest message."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while not done():
        assert loop.time() < deadline, "the match does not end"
        table = await svc.storage.load_table(group.id, None)
        assert table is not None
        tapped = False
        for seat, user in enumerate(users):
            message = next(
                (m for m in user.dm.bot_messages if m.message_id == table.hand_messages.get(seat)), None
            )
            if message is None or table.status != "playing":
                continue
            found = [
                (label, data, b.payload)
                for label, b, data in buttons(svc, message)
                if b.payload.startswith("A") or b.payload[:1] == "C" != b.payload
            ]
            picks = as_a_person_picks(found)
            if not picks:
                continue
            _, data = rng.choice(picks)
            version = driver.world.version
            tap = await user.tap(message, data=data)
            tapped = tapped or not tap.show_alert or driver.world.version != version
        if not tapped:
            await driver.world.wait_change(0.2)
        else:
            deadline = loop.time() + 60


def expected_pushes(moves: list[int], seat: int) -> int:
    """The hand sent at the deal's start, and once more per decision of ``seat`` that followed
    another seat's move; none for a deal void as dealt (its hands are never sent)."""
    if not moves:
        return 0
    return 1 + sum(1 for i in range(1, len(moves)) if moves[i] == seat and moves[i - 1] != seat)


async def _two_people_play_a_match(driver: Driver, svc: Services) -> tuple[SimGroup, list[SimUser], Table]:
    anya, boris = driver.add_user("Аня"), driver.add_user("Борис")
    group = driver.add_group("Козлятник", [anya, boris])
    await start_game(driver, group, [anya, boris])

    def over() -> bool:
        return any("Ещё партию" in b["text"] for m in group.bot_messages for r in m.buttons for b in r)

    await play_hands(driver, svc, group, [anya, boris], over, random.Random(5))
    await svc.driver.idle()
    await svc.presenter.idle()
    await svc.outbox.drain()
    table = await svc.storage.load_table(group.id, None)
    assert table is not None and table.match is not None and table.status == "over"
    return group, [anya, boris], table


async def test_a_decision_due_after_others_moves_is_sent_as_a_new_message_once(
    app: object, driver: Driver, svc: Services
) -> None:
    group, users, table = await _two_people_play_a_match(driver, svc)
    assert table.match is not None
    sends = [c for c in driver.calls("sendMessage") if c.ok]
    for seat, user in enumerate(users):
        # The notifying messages: new messages in the person's DM, counted per deal.
        got = Counter(
            int(found.group(1))
            for c in sends
            if c.chat_id == user.id and (found := DEAL_NO.search(str(c.params.get("text", ""))))
        )
        want: Counter[int] = Counter()
        for deal in table.match.deals:
            want[deal.get("deal_no", 1)] += expected_pushes([m["seat"] for m in deal["moves"]], seat)
        assert got == want, (user.name, got, want)
        # Each push replaced the hand, and each "deal N is over" the one before (item 6): one is left.
        hands = [m for m in user.dm.bot_messages if "раздача №" in m.content]
        assert len(hands) == 1 and "окончена" in hands[0].content, user.dm.transcript()
    # The group gets no extra message for it: none of these sends went there.
    assert not any(DEAL_NO.search(str(c.params.get("text", ""))) for c in sends if c.chat_id == group.id)


def _match_messages(group: SimGroup) -> list[StoredMessage]:
    """The group's bot messages but the achievements a finish earned (announced after the result,
    bot/tg/announcer.py)."""
    announced = plain(Tr("ru")("ach.announce"))
    return [m for m in group.bot_messages if not m.content.startswith(announced)]


async def test_each_deals_summary_is_a_new_group_message_and_the_goat_the_last(
    app: object, driver: Driver, svc: Services
) -> None:
    group, _, table = await _two_people_play_a_match(driver, svc)
    assert table.match is not None
    # A deal void as it is dealt (the deal passes) has no summary: the next table says why.
    deals = len([d for d in table.match.deals if d["moves"]])
    sent = [c for c in driver.calls("sendMessage") if c.ok and c.chat_id == group.id]
    summaries = [c for c in sent if "окончена</b>" in str(c.params.get("text", ""))]
    assert len(summaries) == deals >= 2
    # No summary is an edit any more, and the deals' table messages are gone: the summaries tell
    # their tricks.
    edits = [c for c in driver.calls("editMessageText") if c.ok and c.chat_id == group.id]
    assert not any("окончена</b>" in str(c.params.get("text", "")) for c in edits)
    visible = group.bot_messages
    assert len([m for m in visible if "Раздача №" in m.content]) == deals
    last = _match_messages(group)[-1]
    assert "Козёл" in last.content or "Козлы" in last.content, group.transcript()[-800:]
    assert any("Ещё партию" in b["text"] for r in last.buttons for b in r)


async def test_a_timeout_that_ends_the_match_leaves_the_goat_the_last_message(
    app: object, driver: Driver, svc: Services
) -> None:
    anya = driver.add_user("Аня")
    group = driver.add_group("Козлятник", [anya])
    table, seat, _ = _before_the_last_move()
    # Anya holds the seat of the match's last card; she runs out of time on it.
    table.chat_id, table.creator_id, table.chat_title = group.id, anya.id, group.title
    table.seats = [
        Seat(kind="human", name="Аня", user_id=anya.id) if i == seat else Seat(kind="bot", name="bot")
        for i in range(4)
    ]
    await svc.storage.save_table(table, ttl=60)
    turn = turn_of(table)
    assert turn is not None and turn.seat == seat
    await svc.timers.fire(
        TimerId("timeout", group.id, None, table.table_id, turn.deal_seq, turn.moves, seat).pack()
    )
    goat = await group.wait_bot_message(lambda m: "Козлы" in m.content or "Козёл —" in m.content)
    await driver.settle()
    await svc.presenter.idle()
    await svc.outbox.drain()
    after = await svc.storage.load_table(group.id, None)
    assert after is not None and after.status == "over"
    assert _match_messages(group)[-1].message_id == goat.message_id, group.transcript()
    assert not any("время вышло" in m.content for m in group.bot_messages)
