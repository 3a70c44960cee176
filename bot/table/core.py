"""The parts every layer shares, built once by the composition root: settings, bench timings, and
:class:`Core` (storage, codec, settings, where bot players think).

The Telegram side is three packages, each importing only those before it (see each package's
docstring; ``tests/bot/test_layout_imports.py`` checks the direction, ``tests/bot/test_layers.py``
that no module imports itself back):

1. :mod:`bot.table`, the application layer: this module; the button payloads and their codec;
   :mod:`~bot.table.usecase` (the one path a change of a table takes, ending in a
   :class:`~bot.table.usecase.Snapshot` handed to the renderers); the moves, hints, timers, bot
   players and rematch built on it. No python-telegram-bot.
2. :mod:`bot.render`: message content from table state (the views, words, labels, the tally).
3. :mod:`bot.tg`, the Telegram adapter: the update handlers, the presenter and what it sends with,
   the outbox, and :class:`~bot.tg.services.Services` (all of the above for the handlers).
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from bot.storage import Storage, Table
from bot.table.codec import Codec
from bot.table.links import TableLink, Tokens
from bot.thinking import Thinker

TableKey = tuple[int, int | None]


@dataclass(frozen=True)
class Limits:
    """Seconds between two calls to one group, to one private chat, and to Telegram at all."""

    # 20 a minute would be 3.0 s; the margin keeps clock jitter from making a 21st call in a minute.
    group_interval: float = 3.1
    private_interval: float = 1.0
    global_interval: float = 1 / 30
    #: Seconds a non-urgent edit (a card inside a trick) waits, both since the chat's last call and
    #: since its content last changed: it shows a table that waits for someone. Quick players (and
    #: players slowed by a busy bot) then cost one group edit per trick; a slow one is still shown.
    relaxed_interval: float = 6.0

    @classmethod
    def off(cls) -> Limits:
        """No pacing (for tests against an emulator with its flood limits off)."""
        return cls(0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Settings:
    """Tunables: bot thinking delay, expiry times, pacing."""

    #: Seconds a bot player waits before each decision, so people can follow the play.
    bot_delay: float = 1.0
    lobby_ttl: float = 15 * 60
    #: An abandoned game (nobody acted for this long) expires.
    table_ttl: float = 3 * 24 * 3600
    #: A finished match stays for a rematch this long.
    over_ttl: float = 6 * 3600
    limits: Limits = field(default_factory=Limits)
    #: Seconds a person has for a decision in a chat that chose none in /settings (0: no timer).
    turn_time: int = 60
    #: How often the timers stored in Redis are checked for due ones (seconds).
    timer_interval: float = 1.0
    #: The Unix time, for timers and expiry; tests pass a clock they move by hand.
    clock: Callable[[], float] = time.time
    #: Seconds an update is held by the process handling it; a delivery after that (the process
    #: died) is handled again. Longer than any handler takes.
    update_lease: float = 30.0
    #: Seconds a claimed timer is held by the process firing it; after that (the process died) it
    #: is due again.
    timer_lease: float = 60.0
    #: The operator's language (``DEFAULT_LANGUAGE``), where no chat or person has one.
    default_language: str = "ru"
    #: Handling times kept for the bench (:class:`Stats`): the latest this many of each kind.
    timings_kept: int = 10_000
    #: Where bot players think (``BOT_THINKING``, :mod:`bot.thinking`): ``threads`` of this process,
    #: ``processes`` of this instance, or ``redis`` (jobs for ``python -m bot.worker`` processes).
    thinking: str = "threads"
    #: Processes (``processes``) or fallback threads (``redis``) of this instance; 0: one per CPU.
    bot_workers: int = 0
    #: The live table's public page (``WEBAPP_URL``, https, ending in ``/``); None: no live table.
    webapp_url: str | None = None
    #: The Mini App's short name (``WEBAPP_NAME``, BotFather's /newapp); None: the bot's main Mini App.
    webapp_name: str | None = None
    #: Seconds a live table's ``initData`` stays good (Telegram leaves its expiry to the bot).
    webapp_max_age: float = 24 * 3600


@dataclass
class Stats:
    """Handling times of taps (seconds, network excluded), for the bench: the latest ones only."""

    kept: int = 10_000
    tap_times: deque[float] = field(init=False)
    #: From a move's update being taken until the presenter has queued its messages (up to the
    #: first call it must wait for: a new message's id).
    queued_times: deque[float] = field(init=False)

    #: A bot decision's wait, from asking the thinker to its answer (queue and thought).
    bot_waits: deque[float] = field(init=False)

    def __post_init__(self) -> None:
        self.tap_times = deque(maxlen=self.kept)
        self.queued_times = deque(maxlen=self.kept)
        self.bot_waits = deque(maxlen=self.kept)


_TAKEN = "kozel_taken_at"


def mark_taken(context: object) -> None:
    """Note when the update of ``context`` was taken (its first handler runs), for handling times."""
    vars(context)[_TAKEN] = time.perf_counter()


def taken_at(context: object) -> float:
    """When the update of ``context`` was taken (now, if nobody noted it)."""
    at = vars(context).get(_TAKEN)
    return at if isinstance(at, float) else time.perf_counter()


def key_of(table: Table) -> TableKey:
    """The storage key of a table: its chat and forum topic."""
    return (table.chat_id, table.thread_id)


@dataclass
class Core:
    """Storage, codec and settings: what the use case and every renderer is built on (the Telegram
    adapter adds its outbox: :class:`bot.tg.parts.Parts`)."""

    storage: Storage
    codec: Codec
    settings: Settings
    bot_username: str
    #: Where bot players think (:mod:`bot.thinking`); None: in a thread of the event loop's default pool.
    thinker: Thinker | None = None
    rng: random.Random = field(default_factory=random.SystemRandom)
    #: Signs the live table's links (made from the bot token); None: the live table is off.
    links: Tokens | None = None
    #: Who has the live table's page open at a table (any instance); None: the live table is off.
    live_present: Callable[[Table], Awaitable[frozenset[int]]] | None = None
    stats: Stats = field(init=False)

    def __post_init__(self) -> None:
        self.stats = Stats(self.settings.timings_kept)

    def deep_link(self, payload: str) -> str:
        """A t.me link that opens the bot's DM with a start payload."""
        return f"https://t.me/{self.bot_username}?start={payload}"

    def live_links(self, table: Table) -> tuple[str, str] | None:
        """The live table's links for ``table``: the direct link for the group's message and the page's
        URL for a DM's ``web_app`` button; None when the live table is off (no ``WEBAPP_URL``)."""
        url = self.settings.webapp_url
        if url is None or self.links is None:
            return None
        param = self.links.start_param(TableLink(table.chat_id, table.thread_id, table.table_id))
        app = f"/{self.settings.webapp_name}" if self.settings.webapp_name else ""
        return f"https://t.me/{self.bot_username}{app}?startapp={param}", f"{url}?t={param}"
