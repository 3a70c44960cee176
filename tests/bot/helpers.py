"""Simulated players for end-to-end tests: sit at a table, and play any decision the bot offers."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable

from bot.engine import Rules
from bot.render.hand_view import PICKABLE_MARK, PICKED_MARK, as_a_person_picks
from bot.render.i18n import Tr
from bot.sandbox import Driver, SimGroup, SimUser, StoredMessage
from bot.storage import Seat, Table
from bot.table import game
from bot.table.codec import Button
from bot.table.payloads import BadData
from bot.tg.services import Services

NAMES = ("Аня", "Борис", "Вера", "Глеб")


def buttons(svc: Services, message: StoredMessage) -> list[tuple[str, Button, str]]:
    """(label, decoded button, raw data) of every callback button of a message."""
    out = []
    for row in message.buttons:
        for b in row:
            data = b.get("callback_data")
            if data is None:
                continue
            try:
                out.append((str(b["text"]), svc.codec.unpack(data), data))
            except BadData:
                continue
    return out


async def lobby(driver: Driver, group: SimGroup, creator: SimUser) -> StoredMessage:
    """/newgame by ``creator``; the lobby message."""
    await creator.send(group, "/newgame")
    return await group.wait_bot_message(
        lambda m: any("🪑" in b.get("text", "") for r in m.buttons for b in r)
    )


async def sit(user: SimUser, lobby_message: StoredMessage, seat: int, group: SimGroup) -> None:
    """Start the bot (if needed), then take ``seat`` in the lobby."""
    if not user.record.started_bot:
        await user.start()
        await user.dm.wait_bot_message()
    before = lobby_message.edits
    tap = await user.tap(lobby_message, f"Место {seat + 1}")
    assert not tap.show_alert, tap.answer_text
    await group.wait_until(lobby_message, lambda m: m.edits > before and user.name in m.content)


async def play_until(
    driver: Driver,
    svc: Services,
    users: list[SimUser],
    done: Callable[[], bool],
    *,
    rng: random.Random,
    max_taps: int = 5000,
    max_seconds: float = 60.0,
) -> int:
    """Tap random legal decisions in the players' DMs until ``done()``; returns the number of taps.

    Fails when nothing at all changes in the emulator for ``max_seconds`` (a stuck game), not after a
    fixed total time: a loaded machine plays the same match more slowly.
    """
    taps = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max_seconds
    seen = driver.world.version
    while not done():
        if driver.world.version != seen:
            seen, deadline = driver.world.version, loop.time() + max_seconds
        if loop.time() > deadline:
            transcript = "\n".join(f"{u.name}: {u.dm.transcript()[-600:]}" for u in users)
            raise TimeoutError(f"the game made no progress for {max_seconds} s\n{transcript}")
        candidates = []
        for user in users:
            for message in user.dm.bot_messages[-3:]:
                found = [
                    (label, data, button.payload)
                    for label, button, data in buttons(svc, message)
                    # A decision, or a card to tick in a choice of several (the exchange's give).
                    if button.payload.startswith("A") or button.payload[:1] == "C" != button.payload
                ]
                for label, data in as_a_person_picks(found):
                    candidates.append((user, message, data, label))
        if not candidates:
            await driver.world.wait_change(0.2)
            continue
        user, message, data, label = rng.choice(candidates)
        version, edits = driver.world.version, message.edits
        tap = await user.tap(message, data=data)
        taps += 1
        assert taps < max_taps, "the match does not end"
        if tap.show_alert and driver.world.version == version:
            # A keyboard older than the state (its edit is on the way): wait for the next change.
            await driver.world.wait_change(0.2)
        elif not tap.show_alert and (label.startswith(PICKABLE_MARK) or label.startswith(PICKED_MARK)):
            # A card ticked: a person waits to see the tick before the next tap.
            with contextlib.suppress(TimeoutError):
                await driver.wait_for(lambda m=message, e=edits: m.edits != e or None, timeout=2)
    return taps


async def table_of(svc: Services, group: SimGroup, thread_id: int | None = None) -> Table | None:
    """The stored table of a group."""
    return await svc.storage.load_table(group.id, thread_id)


async def start_game(driver: Driver, group: SimGroup, humans: list[SimUser]) -> StoredMessage:
    """A game with ``humans`` in seats 0, 1, … and bots in the rest; returns the lobby message."""
    message = await lobby(driver, group, humans[0])
    for seat, user in enumerate(humans):
        await sit(user, message, seat, group)
    await humans[0].tap(message, "Начать")
    if len(humans) < 4:
        await group.wait_until(message, lambda m: "Посадить туда" in m.content)
        await humans[0].tap(message, "с ботами")
    await group.wait_until(message, lambda m: "Игра началась" in m.content)
    return message


async def stop_game(user: SimUser, group: SimGroup) -> StoredMessage:
    """/stop a match in play by ``user`` and confirm it with the button; the confirm message, once it
    says the game is stopped."""
    await user.send(group, "/stop")
    confirm = await group.wait_bot_message(lambda m: "Остановить игру?" in m.content and bool(m.buttons))
    tap = await user.tap(confirm, "Да, остановить")
    assert not tap.show_alert, tap.answer_text
    await group.wait_until(confirm, lambda m: m.content == Tr("ru")("stop.done"))
    return confirm


async def hand_of(user: SimUser) -> StoredMessage:
    """The user's current hand message (the newest DM message with card buttons)."""
    return await user.dm.wait_bot_message(lambda m: "раздача №" in m.content and bool(m.buttons))


def inject(message: StoredMessage, data: str, text: str = "👆") -> None:
    """Put a button with ``data`` on ``message``, as a modified client or a stale keyboard would."""
    message.reply_markup = {"inline_keyboard": [[{"text": text, "callback_data": data}]]}


async def legal_hand(driver: Driver, svc: Services, user: SimUser) -> StoredMessage:
    """Wait until the user's newest DM message offers a decision; return it."""

    def probe() -> StoredMessage | None:
        messages = user.dm.bot_messages
        if messages and any(b.payload.startswith("A") for _, b, _ in buttons(svc, messages[-1])):
            return messages[-1]
        return None

    return await driver.wait_for(probe, what=f"a decision in {user.name}'s DM", chat=user.dm)


def started_table(preset: str, people: int, seed: int = 7) -> Table:
    """A table of ``preset`` whose first ``people`` seats are people (the rest bots), its match
    started on shuffles seeded by ``seed`` — no chat, no storage: for renderers and rules."""
    rules = Rules.make(preset)
    names = ("Аня", "Борис", "Вера", "Глеб")
    seats: list[Seat | None] = [
        Seat(kind="human", name=names[s], user_id=s + 1) if p is not None and s < people else None
        for s, p in enumerate(rules.seating(1))
    ]
    table = Table(table_id="aw1", chat_id=-100, creator_id=1, rules=rules.to_json(), seats=seats)
    game.start_match(table, random.Random(seed))
    return table
