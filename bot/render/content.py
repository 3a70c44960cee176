"""What a message shows: what every renderer makes, and the outbox (:mod:`bot.tg.outbox`) sends."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import InlineKeyboardMarkup


@dataclass(frozen=True)
class Content:
    """A message's text (HTML) and inline keyboard."""

    text: str
    markup: InlineKeyboardMarkup | None = None
