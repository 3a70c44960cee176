"""Structured logs: one JSON object per line, with the chat and game id of the update being handled.

Handlers call :func:`bind` when they know the chat (and the game); every log line written while that
update is handled carries them, including lines from libraries, because they travel in contextvars.
"""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

_CHAT: ContextVar[int | None] = ContextVar("chat_id", default=None)
_GAME: ContextVar[str | None] = ContextVar("game_id", default=None)


def bind(chat_id: int | None = None, game_id: str | None = None) -> None:
    """Tag the log lines of the current task with ``chat_id`` and ``game_id`` (``None`` leaves one as is)."""
    if chat_id is not None:
        _CHAT.set(chat_id)
    if game_id is not None:
        _GAME.set(game_id)


def clear() -> None:
    """Forget the chat and game of the current task."""
    _CHAT.set(None)
    _GAME.set(None)


class ContextFilter(logging.Filter):
    """Adds ``chat_id`` and ``game_id`` to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Always keep the record; only annotate it."""
        record.chat_id = _CHAT.get()
        record.game_id = _GAME.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, chat_id, game_id (and the traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line."""
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
            "chat_id": getattr(record, "chat_id", None),
            "game_id": getattr(record, "game_id", None),
        }
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def setup_logging(level: str = "INFO", fmt: str = "json") -> None:
    """Route every logger to stderr in ``fmt`` ("json" or "text") at ``level``."""
    handler = logging.StreamHandler()
    handler.addFilter(ContextFilter())
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            logging.Formatter(
                "%(asctime)s %(levelname)s %(name)s [chat=%(chat_id)s game=%(game_id)s] %(message)s"
            )
        )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # httpx logs every request and APScheduler every job run at INFO: they would drown the game's lines.
    for noisy in ("httpx", "apscheduler"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
