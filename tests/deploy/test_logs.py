"""Structured logs carry the chat and game id of the update being handled."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from bot.logs import ContextFilter, JsonFormatter, bind, clear


def _line(record_msg: str) -> dict[str, object]:
    logger = logging.getLogger("kozel.test")
    record = logger.makeRecord("kozel.test", logging.INFO, __file__, 1, record_msg, (), None)
    ContextFilter().filter(record)
    parsed: dict[str, object] = json.loads(JsonFormatter().format(record))
    return parsed


def test_log_lines_are_json_with_chat_and_game() -> None:
    clear()
    assert _line("idle")["chat_id"] is None
    bind(chat_id=-1001, game_id="g42")
    line = _line("card played")
    assert line["msg"] == "card played" and line["chat_id"] == -1001 and line["game_id"] == "g42"
    assert line["level"] == "INFO" and "ts" in line
    clear()


@pytest.mark.asyncio
async def test_log_context_stays_with_its_own_update() -> None:
    async def handle(chat: int) -> object:
        bind(chat_id=chat)
        await asyncio.sleep(0.01)
        return _line("x")["chat_id"]

    assert await asyncio.gather(handle(1), handle(2)) == [1, 2]
