"""The core with the outbox: what every part of the adapter that sends to Telegram is built on."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.table.core import Core
from bot.tg.outbox import Outbox


@dataclass
class Parts(Core):
    """Storage, codec and settings (:class:`~bot.table.core.Core`), and the outbox every message goes
    through (:mod:`bot.tg.outbox`)."""

    outbox: Outbox = field(kw_only=True)
