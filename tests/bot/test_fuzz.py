"""Hostile input at a running table: random and mutated taps and commands change nothing, raise
nothing, and no hand ever shows up in the group (issue 7's fuzz, bounded to a few hundred updates)."""

from __future__ import annotations

import logging
import random
import string
from collections.abc import Iterator

import pytest

from bot.engine import Phase
from bot.render.i18n import Tr
from bot.render.words import card_text
from bot.sandbox import Driver, SimUser
from bot.table.game import deal_of
from bot.tg.services import Services
from tests.bot.helpers import buttons, inject, start_game

COMMANDS = ["/newgame", "/score", "/leave", "/stop", "/language", "/rules", "/help", "/start", "/settings"]
ODD_ARGS = ["", " x", " 99999999999", " ♣♠♥♦", " --rules=flip", " " + "я" * 300, "@OtherBot", " \u202e\u0000"]


@pytest.fixture(autouse=True)
def no_errors_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Nothing hostile input does may reach the error log."""
    with caplog.at_level(logging.WARNING):
        yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


def _junk(rng: random.Random) -> str:
    """Random callback data of up to 64 bytes."""
    alphabet = string.printable + "ёжзийклмнопрстуфхцчшщъыьэюя♣♠♥♦🃏"
    while True:
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 64)))
        if 0 < len(text.encode()) <= 64:
            return text


def _mutate(data: str, rng: random.Random) -> str:
    """A real button's data, damaged the way a modified client would."""
    i = rng.randrange(len(data))
    choice = rng.randrange(4)
    if choice == 0:
        return data[:i]
    if choice == 1:
        return data[:i] + rng.choice(string.ascii_letters + string.digits + ".") + data[i + 1 :]
    if choice == 2:
        return data[::-1]
    return (data + data)[:64]


async def _state(svc: Services, chat_id: int) -> object:
    table = await svc.storage.load_table(chat_id, None)
    assert table is not None
    return (table.seats, table.status, table.match.model_dump() if table.match else None)


async def test_hostile_input_changes_nothing(app: object, driver: Driver, svc: Services) -> None:
    rng = random.Random(20261129)
    people = [driver.add_user(n) for n in ("Аня", "Борис", "Вера", "Глеб")]
    stranger = driver.add_user("Чужой")
    group = driver.add_group("Козлятник", [*people, stranger])
    other_group = driver.add_group("Другая группа", [stranger, people[0]])
    await start_game(driver, group, people)
    # Someone has a decision to take; collect every real button there is.
    await driver.wait_for(
        lambda: all(any(m.buttons for m in u.dm.bot_messages) for u in people) or None,
        what="every player's hand in private",
    )
    await driver.settle()
    hands = {u.name: next(m for m in reversed(u.dm.bot_messages) if m.buttons) for u in people}
    # Snapshot the real buttons: the injections below overwrite the messages' keyboards.
    hand_data = {name: [d for _, _, d in buttons(svc, m)] for name, m in hands.items()}
    real = [d for ds in hand_data.values() for d in ds]
    real += [d for _, _, d in buttons(svc, group.bot_messages[-1])]
    assert real, "no buttons to mutate"
    before = await _state(svc, group.id)
    alerts = 0
    log: list[str] = []

    for step in range(300):
        kind = rng.randrange(5)
        user: SimUser = rng.choice([*people, stranger])
        log.append(f"{step}: kind {kind} by {user.name}")
        if kind == 0:  # random bytes as callback data, on the group table message
            message = group.bot_messages[-1]
            inject(message, _junk(rng))
            alerts += (await user.tap(message, "👆")).answered
        elif kind == 1:  # a real button, damaged
            damaged = _mutate(rng.choice(real), rng)
            if damaged in real:
                continue  # "damaged" into a real button: that would be a legal tap, not hostile input
            message = group.bot_messages[-1]
            inject(message, damaged)
            alerts += (await user.tap(message, "👆")).answered
        elif kind == 2 and user is not stranger and user.dm.bot_messages:
            # someone else's hand button, tapped from one's own DM
            data = [d for name, ds in hand_data.items() if name != user.name for d in ds]
            if data:
                message = user.dm.bot_messages[-1]
                chosen = rng.choice(data)
                log.append(f"  {user.name} taps {svc.codec.unpack(chosen)}")
                inject(message, chosen)
                alerts += (await user.tap(message, "👆")).answered
        elif kind == 3:  # commands with odd arguments, in the group, in the DM or in another group
            text = rng.choice(COMMANDS) + rng.choice(ODD_ARGS)
            if text.startswith(("/newgame", "/stop", "/leave")) and rng.random() < 0.8:
                text = "/score" + rng.choice(ODD_ARGS)  # mostly harmless ones at the running table
            chat = rng.choice([group, other_group]) if user in (stranger, people[0]) else group
            if text.startswith(("/stop", "/leave")) and chat is group:
                continue  # these are legal ways to change a table; the fuzz is about illegal ones
            await user.send(chat, text)
        else:  # plain chatter and a random "command" to the bot's DM
            if not user.record.started_bot:
                await user.start()
            await user.send_dm(_junk(rng).replace("/", "") or "?")
        if step % 25 == 0:
            await driver.settle()
            assert await _state(svc, group.id) == before, f"step {step} changed the table: {log[-25:]}"
    await driver.settle()
    assert await _state(svc, group.id) == before
    assert alerts > 150, "every hostile tap gets an answer"

    # No card in anyone's hand (unless shown to everyone) appears in any group message.
    table = await svc.storage.load_table(group.id, None)
    assert table is not None
    deal = deal_of(table)
    assert deal is not None and deal.phase is not Phase.OVER
    hidden = {c for s in range(4) for c in deal.hand(s) if not (deal.shown[s] >> c.id) & 1}
    assert len(hidden) > 20 and len(group.messages) > 5
    for lang in ("ru", "en"):
        tr = Tr(lang)
        for message in [*group.messages, *other_group.messages]:
            text = message.content
            leaked = [card_text(tr, c) for c in hidden if card_text(tr, c) in text]
            assert not leaked, f"hidden cards {leaked} shown in the group: {text!r}"
