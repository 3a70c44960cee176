"""python-telegram-bot handlers: decode an update, call the engine, save, render."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    TypeHandler,
    filters,
)

from bot import logs
from bot.handlers import commands, lobby, play

AnyApplication = Application[Any, Any, Any, Any, Any, Any]


def register(application: AnyApplication) -> None:
    """Add every handler to ``application``."""
    groups, private = filters.ChatType.GROUPS, filters.ChatType.PRIVATE
    # First, in groups of their own: handle an update once even when two processes both get it
    # (a retried or duplicated webhook delivery), and tag every log line with its chat.
    application.add_handler(TypeHandler(Update, _claim_once), group=-2)
    application.add_handler(TypeHandler(Update, _bind_log_context), group=-1)
    application.add_handler(CommandHandler("start", commands.start))
    application.add_handler(CommandHandler("help", commands.help_command))
    application.add_handler(CommandHandler("rules", commands.rules_command))
    application.add_handler(CommandHandler("language", commands.language))
    application.add_handler(CommandHandler("newgame", lobby.new_game, filters=groups))
    application.add_handler(CommandHandler("score", commands.score, filters=groups))
    application.add_handler(CommandHandler("leave", commands.leave, filters=groups))
    application.add_handler(CommandHandler("stop", commands.stop, filters=groups))
    application.add_handler(
        CommandHandler(["newgame", "score", "leave", "stop"], commands.group_only, filters=private)
    )
    application.add_handler(CallbackQueryHandler(play.on_tap))


async def _bind_log_context(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Tag the log lines written while handling ``update`` with its chat id."""
    logs.clear()
    if update.effective_chat is not None:
        logs.bind(chat_id=update.effective_chat.id)


async def _claim_once(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Stop here when another process (or an earlier delivery) has already taken this update."""
    svc = context.application.bot_data.get("svc")
    if svc is not None and not await svc.storage.claim_update(update.update_id):
        raise ApplicationHandlerStop
