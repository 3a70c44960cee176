"""python-telegram-bot handlers: decode an update, call the engine, save, render."""

from __future__ import annotations

from typing import Any

from telegram.ext import Application, CallbackQueryHandler, CommandHandler, filters

from bot.handlers import commands, lobby, play

AnyApplication = Application[Any, Any, Any, Any, Any, Any]


def register(application: AnyApplication) -> None:
    """Add every handler to ``application``."""
    groups, private = filters.ChatType.GROUPS, filters.ChatType.PRIVATE
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
