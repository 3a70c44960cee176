"""The Telegram adapter: python-telegram-bot's handlers, and everything that talks to Telegram.

This module registers the handlers and claims each update once; the update handlers (``play``,
``lobby``, ``commands``, ``settings_menu``, ``social``, ``coach``, ``rematch``, ``faults``) decode
an update, call the table's application layer (:mod:`bot.table`) and answer; the presenter and its
helpers (``presenter``, ``summaries``, ``announcer``, ``timer_notices``, ``leftovers``, ``lost``)
show each saved snapshot in the chats; the outbox (``outbox``, ``calls``) paces every call to the
Bot API; ``services`` builds it all once.

The rule: this package may import anything below it (:mod:`bot.table`, :mod:`bot.render`); nothing
in :mod:`bot.table` or :mod:`bot.render` imports it (``tests/bot/test_layout_imports.py``).
"""

from __future__ import annotations

import logging
from typing import Any

from telegram import Update
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import logs
from bot.polling import SOLE_CONSUMER
from bot.storage.errors import STORAGE_DOWN
from bot.table.core import mark_taken
from bot.tg import commands, faults, lobby, play, settings_menu, social
from bot.tg.common import services

_LOG = logging.getLogger(__name__)
AnyApplication = Application[Any, Any, Any, Any, Any, Any]
#: The handler group that marks an update done; after every other group.
FINISH_GROUP = 1_000


#: ``bot_data`` key: ids of updates this process found leased by another (see :func:`left_to_others`).
LEFT_TO_OTHERS = "left_to_others"


def left_to_others(application: AnyApplication, update_id: int) -> bool:
    """Whether handling ``update_id`` here stopped because another process holds its claim (the id is
    forgotten once asked). The webhook then answers "busy", so Telegram delivers the update again: by
    then it is done (and answered at once) or its holder died and the lease ended (and it is handled)."""
    left: set[int] | None = application.bot_data.get(LEFT_TO_OTHERS)
    if left is None or update_id not in left:
        return False
    left.discard(update_id)
    return True


def register(application: AnyApplication) -> None:
    """Add every handler to ``application``."""
    groups, private = filters.ChatType.GROUPS, filters.ChatType.PRIVATE
    # First, in groups of their own: handle an update once even when two processes both get it
    # (a retried or duplicated webhook delivery), and tag every log line with its chat. Last, in a
    # group of its own: mark it done (see _claim_once).
    application.add_handler(TypeHandler(Update, _claim_once), group=-2)
    application.add_handler(TypeHandler(Update, _finish), group=FINISH_GROUP)
    application.add_handler(TypeHandler(Update, _bind_log_context), group=-1)
    application.add_handler(CommandHandler("start", commands.start))
    application.add_handler(CommandHandler("help", commands.help_command))
    application.add_handler(CommandHandler("rules", commands.rules_command))
    application.add_handler(CommandHandler("language", commands.language))
    application.add_handler(CommandHandler("newgame", lobby.new_game, filters=groups))
    application.add_handler(CommandHandler("score", commands.score, filters=groups))
    application.add_handler(CommandHandler("leave", commands.leave, filters=groups))
    application.add_handler(CommandHandler("stop", commands.stop, filters=groups))
    application.add_handler(CommandHandler("settings", settings_menu.settings_command, filters=groups))
    application.add_handler(CommandHandler("top", social.top, filters=groups))
    application.add_handler(CommandHandler("history", social.history, filters=groups))
    application.add_handler(CommandHandler("export", social.export, filters=groups))
    application.add_handler(CommandHandler("stats", social.stats))
    application.add_handler(
        CommandHandler(
            ["newgame", "score", "leave", "stop", "settings"], commands.group_only, filters=private
        )
    )
    application.add_handler(
        CommandHandler(["top", "history", "export"], commands.group_only, filters=private)
    )
    application.add_handler(CallbackQueryHandler(play.on_tap))
    # Faults (bot/tg/faults.py): a group upgraded to a supergroup, a person who blocks the bot,
    # and Redis down — that error handler comes first and answers "try again".
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, faults.on_migrate))
    application.add_handler(ChatMemberHandler(faults.on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
    application.add_error_handler(faults.on_error)


async def tick(context: ContextTypes.DEFAULT_TYPE) -> None:
    """The periodic JobQueue job: fire the timers that are due (bot/table/timers.py)."""
    await services(context).timers.tick()


async def _bind_log_context(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Tag the log lines written while handling ``update`` with its chat id."""
    logs.clear()
    if update.effective_chat is not None:
        logs.bind(chat_id=update.effective_chat.id)


async def _claim_once(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Stop here when this update is done, or another process (or delivery) is handling it now.

    The claim is a lease of ``Settings.update_lease`` seconds, made "done" by :func:`_finish` once
    every handler has run. A process killed while handling an update leaves only the lease, so a
    delivery of that update after the lease ended (the offset was never confirmed, a webhook
    retried) is handled rather than lost.
    """
    mark_taken(context)  # handling times (the bench) count from here
    svc = context.application.bot_data.get("svc")
    if svc is None:
        return
    now, lease = svc.settings.clock(), svc.settings.update_lease
    # Under bot.polling.Poller this process is the only one receiving updates and never takes one
    # twice itself: a live lease on an update offered again belongs to a process that died.
    takeover = bool(context.application.bot_data.get(SOLE_CONSUMER))
    if not await svc.storage.claim_update(update.update_id, now=now, lease=lease, takeover=takeover):
        if not await svc.storage.update_done(update.update_id):
            # Another process holds it now. Not ours to confirm: if that process dies, the update
            # must be delivered again once its lease ends (see left_to_others).
            context.application.bot_data.setdefault(LEFT_TO_OTHERS, set()).add(update.update_id)
        raise ApplicationHandlerStop


async def _finish(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every handler ran (an error too was handled): no later delivery of this update is handled.

    PTB runs the groups in order and goes on to the next group after an error handler returns, so
    this runs after every outcome but ApplicationHandlerStop: a claim skipped (nothing to mark) or
    storage down (the lease ends by itself; the person was told to try again).
    """
    svc = context.application.bot_data.get("svc")
    if svc is None:
        return
    try:
        await svc.storage.finish_update(update.update_id)
    except STORAGE_DOWN as e:
        # Handled already: not the error handler's "try again". Only the lease is left, so a
        # delivery of this update after it ends would be handled again.
        _LOG.warning("could not mark update %s done: %s", update.update_id, e)
