"""Helpers shared by the handlers: services from the context, where a message belongs, languages."""

from __future__ import annotations

import asyncio
import logging
import random
from functools import lru_cache

from telegram import CallbackQuery, Chat, InlineKeyboardMarkup, Message, Update, User
from telegram.error import BadRequest
from telegram.ext import ContextTypes

from bot.engine import Deal, Rules, RulesError
from bot.render.content import Content
from bot.render.i18n import Tr, pick_lang
from bot.table.game import Refusal
from bot.tg.calls import Sent
from bot.tg.services import Services, TableKey

Context = ContextTypes.DEFAULT_TYPE
_LOG = logging.getLogger(__name__)


def services(context: Context) -> Services:
    """The bot's services, put in ``bot_data`` by the composition root."""
    svc: Services = context.bot_data["svc"]
    return svc


def thread_of(message: Message | None) -> int | None:
    """The forum topic a message is in (None outside forums and in the General topic)."""
    if message is None or not message.is_topic_message:
        return None
    return message.message_thread_id


def table_key(chat: Chat, message: Message | None) -> TableKey:
    """Storage key of the table a group message belongs to."""
    return (chat.id, thread_of(message) if chat.is_forum else None)


async def user_tr(svc: Services, user: User | None) -> Tr:
    """Texts in a person's language: their choice (``/language``), else Telegram's language code."""
    if user is None:
        return Tr(pick_lang())
    own = await svc.presenter.lang_of(user.id)
    return Tr(pick_lang(own, user.language_code))


async def chat_tr(svc: Services, chat: Chat, user: User | None) -> Tr:
    """Texts for a chat: a group's language in groups, the person's own in private."""
    if chat.type == Chat.PRIVATE:
        return await user_tr(svc, user)
    return Tr(pick_lang((await svc.storage.chat_settings(chat.id)).lang))


async def alert(query: CallbackQuery, text: str, *, url: str | None = None) -> None:
    """Answer a tap with an alert (or open ``url``); a query that is too old is not worth an error."""
    try:
        if url is not None:
            await query.answer(url=url)
        else:
            await query.answer(text, show_alert=True)
    except BadRequest as e:
        _LOG.info("could not answer a callback query: %s", e.message)


async def quiet_answer(query: CallbackQuery, text: str | None = None) -> None:
    """Answer a tap with a toast (or nothing): Telegram clients spin until a tap is answered."""
    try:
        await query.answer(text)
    except BadRequest as e:
        _LOG.info("could not answer a callback query: %s", e.message)


def say(
    svc: Services,
    update: Update,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    *,
    reply_to: int | None = None,
) -> asyncio.Future[Sent] | None:
    """Answer a command in its chat (and forum topic) through the outbox, which paces the chat.

    Not awaited: the reply waits its turn in the outbox while the handler is done. ``None`` when the
    update has no chat.
    """
    chat, message = update.effective_chat, update.effective_message
    if chat is None:
        return None
    return svc.outbox.post(chat.id, Content(text, markup), thread_id=thread_of(message), reply_to=reply_to)


@lru_cache(maxsize=1)
def private_tapper(query: CallbackQuery) -> User:
    """Who tapped a button that only ever stands in the tapper's own private chat (a hand); refused
    as unknown anywhere else."""
    chat = query.message.chat if query.message is not None else None
    if chat is None or chat.type != Chat.PRIVATE or chat.id != query.from_user.id:
        raise Refusal("alert.unknown_button")
    return query.from_user


def default_preset() -> str:
    """``classic``, once the engine deals its later deals (the brag); ``flip`` until then."""
    try:
        Deal.shuffled(Rules.make("classic"), random.Random(0), 0, deal_no=2)
    except RulesError:
        return "flip"
    return "classic"
