"""The soak's simulated people: one at each table with three bot players, tapping random legal
decisions as soon as their hand asks for one, and "one more match" when a match ends.

Every move the bot acknowledged (the tap on a decision answered without a word: the bot's answer
once the move is saved) is kept as an :class:`AckedMove`, to be looked up in the stored records at
the end (bot/measure/soak/check.py), with how long the person waited for it.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.engine.actions import action_to_json
from bot.measure.soak.instances import Instance
from bot.render.hand_view import as_a_person_picks
from bot.render.i18n import DEFAULT_LANG, Tr
from bot.sandbox import Driver, Emulator, SandboxError, SimGroup, SimUser, StoredMessage
from bot.table.codec import Codec
from bot.table.payloads import Act, BadData, Tick

#: Seconds a simulated person waits for the answer to a tap before taking it as lost (a killed
#: instance had claimed it) and tapping again.
TAP_TIMEOUT = 10.0
#: The simulated people read the bot in its default language; every text they look for is the catalog's.
TR = Tr(DEFAULT_LANG)
STARTED = TR("lobby.started", a="", b="", rules="").splitlines()[0]
FILL, SIT, START, REMATCH = TR("btn.fill"), TR("btn.sit", n=1), TR("btn.start"), TR("btn.rematch")
#: What a hand's title says between the chat's name and the deal's number (" · раздача №").
HAND = TR("hand.title", chat="\x00", n="\x01", seat=0).split("\x00")[1].split("\x01")[0].replace("</b>", "")


@dataclass(frozen=True)
class AckedMove:
    """A move the bot acknowledged: who, at which table and deal, what (its record key and value)."""

    chat_id: int
    user_id: int
    table_id: str
    deal_seq: int
    key: str
    value: Any


@dataclass
class Counts:
    """What the simulated people saw."""

    taps: int = 0
    unanswered: int = 0
    alerts: int = 0
    #: Each alert's text, by how many taps it answered (what the alerts were).
    alert_texts: Counter[str] = field(default_factory=Counter)
    #: Alerts on a decision's first tap on a hand as it showed then (a message, as edited so far):
    #: a keyboard the bot refused before the person had acted on it, not one left over from a move.
    alerts_on_new_keyboards: int = 0
    restarts: int = 0
    #: Thinking workers killed (and replaced).
    worker_kills: int = 0
    #: Instances that did not come up after a kill (started again a second later).
    failed_starts: int = 0
    rematches: int = 0
    delivered: int = 0
    tables_started: int = 0
    #: Every acknowledged move, and the seconds from a person's first tap on a decision to the
    #: acknowledgement (taps unanswered or answered "try again" on the way included).
    moves: list[AckedMove] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)


@dataclass
class Run:
    """Everything a run shares."""

    emulator: Emulator
    driver: Driver
    codec: Codec
    instances: list[Instance]
    secret: str
    stop_at: float
    counts: Counts = field(default_factory=Counts)

    @property
    def over(self) -> bool:
        """Whether the run's time is up."""
        return time.monotonic() >= self.stop_at


def buttons(message: StoredMessage) -> list[tuple[str, str]]:
    """A message's buttons that carry callback data: (label, data)."""
    return [
        (str(b.get("text", "")), b["callback_data"])
        for row in message.buttons
        for b in row
        if b.get("callback_data")
    ]


def decisions(codec: Codec, user: SimUser) -> tuple[StoredMessage, list[str]] | None:
    """The person's hand and its decision buttons, if the hand asks them to act."""
    hands = [m for m in user.dm.bot_messages if HAND in m.content]
    if not hands or "👉" not in hands[-1].content:
        return None
    found = []
    for label, data in buttons(hands[-1]):
        try:
            button, what = codec.read(data)
        except BadData:
            continue
        # A decision, or a card to tick in a choice of several (the exchange's give).
        if isinstance(what, Act) or (isinstance(what, Tick) and what.card is not None):
            found.append((label, data, button.payload))
    out = [data for _, data in as_a_person_picks(found)]
    return (hands[-1], out) if out else None


async def tap(run: Run, user: SimUser, message: StoredMessage, *, text: str | None = None,
              data: str | None = None) -> bool | None:  # fmt: skip
    """Tap and wait for the answer: True if it was an alert, False if not, None if no answer came."""
    answer = await tap_answer(run, user, message, text=text, data=data)
    return None if answer is None else answer[0]


async def tap_answer(run: Run, user: SimUser, message: StoredMessage, *, text: str | None = None,
                     data: str | None = None) -> tuple[bool, str] | None:  # fmt: skip
    """Tap and wait for the answer: (whether an alert, its text); None if no answer came."""
    try:
        result = await user.tap(message, text, data=data, timeout=TAP_TIMEOUT)
    except SandboxError:
        return False, "gone"  # the button is gone: the message was edited meanwhile
    except TimeoutError:
        run.counts.taps += 1
        run.counts.unanswered += 1
        return None
    run.counts.taps += 1
    if result.show_alert:
        run.counts.alerts += 1
        run.counts.alert_texts[result.answer_text or ""] += 1
    return result.show_alert, result.answer_text or ""


async def wait(run: Run, probe: Any, seconds: float) -> Any:
    """``probe()`` once it is not None, or None after ``seconds`` (or when the run is over)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not run.over:
        found = probe()
        if found is not None:
            return found
        # Polled: waiting for any change in the world would wake every table on every message.
        await asyncio.sleep(0.25)
    return None


async def open_table(run: Run, user: SimUser, group: SimGroup) -> bool:
    """/newgame, take seat 1, start with bot players; each step again if its update was lost."""
    while user.dm.last_bot_message is None and not run.over:
        await user.start()
        await wait(run, lambda: user.dm.last_bot_message, 10)
    lobby: StoredMessage | None = None
    while not run.over:
        if lobby is None:
            await user.send(group, "/newgame")
            lobby = await wait(run, lambda: next((m for m in group.bot_messages if m.buttons), None), 15)
            continue
        if STARTED in lobby.content:
            return True
        labels = [text for text, _ in buttons(lobby)]
        if FILL in labels:
            label = FILL
        elif user.name not in lobby.content:
            label = SIT
        elif START in labels:
            label = START
        else:
            await asyncio.sleep(0.25)
            continue
        edits = lobby.edits
        await tap(run, user, lobby, text=label)
        await wait(run, lambda m=lobby, e=edits: True if m.edits != e else None, 10)
    return False


def acked_move(codec: Codec, user: SimUser, data: str) -> AckedMove | None:
    """The move a decision button makes, if it is a move (not a card ticked)."""
    button, what = codec.read(data)
    if not isinstance(what, Act):
        return None
    key, value = action_to_json(what.action)
    return AckedMove(button.chat_id, user.id, button.table_id, button.deal_seq, key, value)


async def play_table(run: Run, n: int, rng: Any) -> None:
    """One table: a person and three bot players, playing match after match until the run is over."""
    user = run.driver.add_user(f"Soak{n}")
    group = run.driver.add_group(f"Soak {n}", [user])
    if not await open_table(run, user, group):
        return
    run.counts.tables_started += 1
    rematched: set[int] = set()
    #: The decision asked (the hand message as it was) and when the person first tapped on it.
    asked: tuple[tuple[int, int], float] | None = None
    #: The hands (message, edits) the person has had an answer to a tap on.
    answered: set[tuple[int, int]] = set()
    while not run.over:
        lobby = next(
            (m for m in reversed(group.bot_messages) if any(t == START for t, _ in buttons(m))), None
        )
        if lobby is not None:  # a rematch's lobby: the same seats, and she tapped 🔁, so she starts
            await tap(run, user, lobby, text=START)
            await wait(run, lambda m=lobby: None if any(t == START for t, _ in buttons(m)) else True, 10)
            continue
        summary = next(
            (m for m in reversed(group.bot_messages)
             if m.message_id not in rematched and any(t == REMATCH for t, _ in buttons(m))),
            None,
        )  # fmt: skip
        if summary is not None:
            if await tap(run, user, summary, text=REMATCH) is not None:
                rematched.add(summary.message_id)
                run.counts.rematches += 1
            continue
        found = decisions(run.codec, user)
        if found is None:
            await asyncio.sleep(0.3)
            continue
        message, options = found
        edits = message.edits
        point = (message.message_id, edits)
        if asked is None or asked[0] != point:
            asked = (point, time.monotonic())
        data = rng.choice(options)
        answer = await tap_answer(run, user, message, data=data)
        if answer is not None:
            if answer[0] and point not in answered:
                run.counts.alerts_on_new_keyboards += 1
            answered.add(point)
        move = acked_move(run.codec, user, data)
        if answer == (False, "") and move is not None:  # the bot's quiet answer: the move is saved
            run.counts.moves.append(move)
            run.counts.waits.append(time.monotonic() - asked[1])
            asked = None
        alert = answer is not None and answer[0]
        # Wait a little for the hand to show the tap (a person does not tap again on the same
        # keyboard at once); after an alert the keyboard may be current (a card ticked too many for
        # the give), so the wait is short.
        await wait(run, lambda m=message, e=edits: True if m.edits != e else None, 2 if alert else 5)
