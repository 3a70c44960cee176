"""The bench's people: how a table is seated through the real lobby (both modes), how people play
on their DM hands' inline keyboards (the inline mode), and the cards they tap, noted (both modes) for
:mod:`bot.measure.bench.group`."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.engine import Play
from bot.render.i18n import DEFAULT_LANG, Tr
from bot.render.words import card_text
from bot.sandbox import Driver, SimGroup, SimUser, StoredMessage
from bot.storage import ChatSettings, RedisStorage
from bot.table.codec import Codec
from bot.table.payloads import Act, BadData, kind_of

PRESETS = ("classic", "flip", "draw", "tricks")
#: The bench's people and groups use the default language; every label is looked up in its catalog.
TR = Tr(DEFAULT_LANG)


def _mark(key: str) -> str:
    """The emoji a text of ``key`` starts with (the prompt's 👉, the deal summary's 🏁)."""
    return TR(key, n=0, suit="").split()[0]


def title(key: str) -> re.Pattern[str]:
    """A line of the catalog's ``key`` as the group reads it (tags dropped), its ``{n}`` captured."""
    template = re.sub(r"<[^>]+>", "", TR(key))
    parts = re.split(r"(\{\w+\})", template)
    body = "".join(
        r"(\d+)" if p == "{n}" else ".*?" if p.startswith("{") and p.endswith("}") else re.escape(p)
        for p in parts
    )
    return re.compile(body)


#: A hand that waits for its player shows a prompt; every prompt starts with the same mark.
PROMPT = _mark("prompt.other")
SUMMARY = _mark("summary.title")
#: A deal's table message (deleted once the deal's summary is sent).
TABLE = TR("table.title", n=0, dealer="").split()[0]
#: A DM hand's title (the deal's number in it).
HAND_TITLES = (title("hand.title"), title("hand.title_blind"))


_ACTS: dict[str, bool] = {}


def _is_act(codec: Codec, data: str) -> bool:
    # Cached: the same keyboards are read many times while players wait.
    known = _ACTS.get(data)
    if known is None:
        try:
            known = kind_of(codec.unpack(data).payload) is Act
        except BadData:
            known = False
        _ACTS[data] = known
    return known


def legal(
    codec: Codec, users: list[SimUser], done: dict[tuple[int, int], int] | None = None
) -> list[tuple[SimUser, Any, str]]:
    """The buttons the players would tap: a decision in a hand that asks its player for one.

    ``done``: hands (by message) whose player's last tap was taken, with their edit count then; a
    person whose card was taken waits for the hand to change rather than tap it again.
    """
    found = []
    for user in users:
        messages = user.dm.bot_messages
        if not messages:
            continue
        message = messages[-1]
        if PROMPT not in message.content:  # only the player the game waits for looks for a button
            continue
        if done is not None and done.get(message.key) == message.edits:
            continue
        for row in message.buttons:
            for b in row:
                data = b.get("callback_data")
                if data and _is_act(codec, data):
                    found.append((user, message, data))
    return found


def _has_button(label: str) -> Callable[[StoredMessage], bool]:
    return lambda m: any(label in b["text"] for r in m.buttons for b in r)


@dataclass(frozen=True)
class Seating:
    """Who sits at each table: ``bots`` bot players of ``level`` in the last seats, people in the rest."""

    bots: int = 0
    level: str = "hard"


@dataclass
class Seated:
    """A table whose people sat in the lobby: its group, its people and the lobby message; ``since``:
    the number of Bot API calls made when its first deal was started (its deals' calls come after)."""

    group: SimGroup
    users: list[SimUser]
    lobby: StoredMessage
    since: int = 0


async def seat(
    driver: Driver, n: int, preset: str, seating: Seating = Seating(), store: RedisStorage | None = None
) -> Seated:
    """Table ``n``'s people open a lobby, pick the preset and sit (bot players in the last
    ``seating.bots`` seats, at the level the chat's settings in ``store`` name); not started yet."""
    users = [driver.add_user(f"P{n}-{i}") for i in range(4 - seating.bots)]
    group = driver.add_group(f"Bench {n}", users)
    if seating.bots:
        assert store is not None, "bot players' level is set in the chat's settings"
        await store.save_chat_settings(group.id, ChatSettings(bot_level=seating.level))
    await users[0].send(group, "/newgame")
    lobby = await group.wait_bot_message(lambda m: bool(m.buttons), timeout=120)
    if preset != "default":
        label = TR(f"preset.{preset}")
        await users[0].tap(lobby, TR("btn.rules"), timeout=120)
        await group.wait_until(lobby, _has_button(label), timeout=120)
        await users[0].tap(lobby, label, timeout=120)
        await users[0].tap(lobby, TR("btn.back"), timeout=120)
    for place, user in enumerate(users):
        await user.start()
        await user.dm.wait_bot_message(timeout=120)
        sit = TR("btn.sit", n=place + 1)
        await group.wait_until(lobby, _has_button(sit), timeout=120)
        await user.tap(lobby, sit, timeout=120)
    await group.wait_until(lobby, lambda m: all(u.name in m.content for u in users), timeout=120)
    return Seated(group, users, lobby)


async def start(driver: Driver, table: Seated, seating: Seating = Seating()) -> None:
    """The table's creator starts the game (the bot players fill the seats left)."""
    users, lobby = table.users, table.lobby
    table.since = len(driver.world.calls)
    await users[0].tap(lobby, TR("btn.start"), timeout=120)
    if seating.bots:
        await table.group.wait_until(lobby, _has_button(TR("btn.fill")), timeout=120)
        await users[0].tap(lobby, TR("btn.fill"), timeout=120)


def finished(table: Seated) -> int:
    """How many of the table's deals are over (their summaries in the group)."""
    return sum(1 for m in table.group.bot_messages if m.content.startswith(SUMMARY))


def match_over(table: Seated) -> bool:
    """Whether the table's match is over (the group offers a rematch)."""
    rematch = TR("btn.rematch")
    return any(rematch in b["text"] for m in table.group.bot_messages for r in m.buttons for b in r)


@dataclass(frozen=True)
class CardTap:
    """A card played by a tap: its group, deal number, card (as the group reads it), and the wall time
    (the emulator's clock) just before the tap."""

    chat_id: int
    deal: int
    card: str
    at: float


@dataclass
class CardTaps:
    """The cards tapped in a run (taps on other decisions are not kept)."""

    codec: Codec
    taps: list[CardTap] = field(default_factory=list)

    def note(self, data: str, deal: int | None, at: float) -> None:
        """A tap of ``data`` at ``at`` in deal ``deal``, taken: kept if it played a card."""
        if deal is None:
            return
        try:
            button, payload = self.codec.read(data)
        except BadData:
            return
        if isinstance(payload, Act) and isinstance(payload.action, Play):
            self.taps.append(CardTap(button.chat_id, deal, card_text(TR, payload.action.card), at))

    def note_on_hand(self, hand: str, data: str, at: float) -> None:
        """A tap of ``data`` on the DM hand whose text is ``hand`` (its title has the deal's number)."""
        self.note(data, deal_number(hand, HAND_TITLES), at)


def deal_number(text: str, titles: Sequence[re.Pattern[str]]) -> int | None:
    """The deal's number in the first line of ``text`` that is one of ``titles``."""
    for line in text.splitlines():
        for pattern in titles:
            found = pattern.fullmatch(line)
            if found:
                return int(found.group(1))
    return None


async def inline_table(
    driver: Driver, codec: Codec, n: int, preset: str, deals: int, rng: random.Random,
    seating: Seating = Seating(), store: RedisStorage | None = None, pace: float = 0.0,
    cards: CardTaps | None = None,
) -> Seated:  # fmt: skip
    """One table played on the DM hands: its people sit and tap random legal decisions until
    ``deals`` are over, each thinking ``pace`` seconds (0.5 to 1.5 times it) before a tap; the cards
    they play are noted in ``cards``."""
    table = await seat(driver, n, preset, seating, store)
    await start(driver, table, seating)
    users, group = table.users, table.group
    done: dict[tuple[int, int], int] = {}
    while finished(table) < deals:
        if match_over(table):
            break
        options = legal(codec, users, done)
        if not options:
            # Polling, not waiting for any change in the world: with many tables that would wake
            # every table's players on every message.
            await asyncio.sleep(0.2)
            continue
        user, message, data = rng.choice(options)
        if pace:
            await asyncio.sleep(pace * rng.uniform(0.5, 1.5))
        edits, hand, at = message.edits, message.content, time.time()
        tap = await user.tap(message, data=data, timeout=120)
        if not tap.show_alert:
            done[message.key] = edits
            if cards is not None:
                cards.note_on_hand(hand, data, at)
        else:
            # The keyboard was older than the game (its edit is paced): wait for the edit, as a person would.
            for _ in range(30):
                if message.edits != edits:
                    break
                await asyncio.sleep(0.1)
    if seating.bots and deals and not match_over(table):
        # Its people are done, but its bot players would play on (and for them once their turns run
        # out), so the bench would never see the bot quiet: the table's creator stops the game.
        await users[0].send(group, "/stop")
    return table
