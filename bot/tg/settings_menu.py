"""``/settings`` in a group: the turn time, what happens at a timeout and whether hints are allowed
(the 💡 button in the hands, off unless the chat turns it on), per chat, in Redis.

Who may change them: the creator of the table in this chat (or forum topic) and the chat's admins.
Everyone else gets a short answer; a tap on the menu by someone else is refused the same way.
"""

from __future__ import annotations

from telegram import Bot, Chat, ChatMember, InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.render.content import Content
from bot.render.i18n import Tr
from bot.storage import ChatSettings
from bot.table.codec import Button
from bot.table.game import Refusal
from bot.table.payloads import Hints, OnTimeout, TurnTime
from bot.table.timers import turn_time
from bot.tg.common import Context, chat_tr, say, services, table_key
from bot.tg.services import Services

#: The turn times offered (seconds; 0: no turn timer).
TURN_TIMES = (0, 30, 60, 120, 300)
#: What a timeout does: the bot player decides once (two in a row: the seat is away), or at once away.
ACTIONS = ("bot", "away")


def turn_label(tr: Tr, seconds: int) -> str:
    """``off``, ``30 s``, ``2 min``."""
    if seconds == 0:
        return tr("settings.off")
    if seconds % 60 == 0:
        return tr("settings.minutes", n=seconds // 60)
    return tr("settings.seconds", n=seconds)


def summary(tr: Tr, chat: ChatSettings, svc: Services) -> str:
    """One line for /rules and the menu: the turn time, the timeout action and the hints."""
    seconds = turn_time(chat, svc.settings)
    line = tr(
        "settings.summary", turn=turn_label(tr, seconds), action=tr(f"settings.action.{chat.timeout_action}")
    )
    return line + " " + tr("settings.hints_on" if chat.hints else "settings.hints_off")


def menu(tr: Tr, svc: Services, chat_id: int, thread_id: int | None, chat: ChatSettings) -> Content:
    """The menu: the current values, a row of turn times and a row of timeout actions."""
    seconds = turn_time(chat, svc.settings)

    def button(label: str, chosen: bool, payload: TurnTime | OnTimeout | Hints) -> InlineKeyboardButton:
        data = svc.codec.data(chat_id, thread_id, "0", 0, payload)
        return InlineKeyboardButton(
            tr("settings.chosen", label=label) if chosen else label, callback_data=data
        )

    times = [button(turn_label(tr, t), t == seconds, TurnTime(i)) for i, t in enumerate(TURN_TIMES)]
    actions = [
        button(tr(f"settings.action.{a}"), a == chat.timeout_action, OnTimeout(i))
        for i, a in enumerate(ACTIONS)
    ]
    hints = [button(tr("settings.hints_button"), chat.hints, Hints())]
    text = "\n\n".join((tr("settings.title"), summary(tr, chat, svc), tr("settings.help")))
    return Content(text, InlineKeyboardMarkup([times, actions, hints]))


async def may_change(bot: Bot, svc: Services, chat_id: int, thread_id: int | None, user_id: int) -> bool:
    """Whether ``user_id`` created the table here or is an admin of the chat."""
    table = await svc.storage.load_table(chat_id, thread_id)
    if table is not None and table.creator_id == user_id:
        return True
    member = await bot.get_chat_member(chat_id, user_id)
    return member.status in (ChatMember.ADMINISTRATOR, ChatMember.OWNER)


async def settings_command(update: Update, context: Context) -> None:
    """/settings: the menu, for the table's creator or a chat admin."""
    svc = services(context)
    chat, message, user = update.effective_chat, update.effective_message, update.effective_user
    assert chat is not None and user is not None
    tr = await chat_tr(svc, chat, user)
    chat_id, thread_id = table_key(chat, message)
    if not await may_change(context.bot, svc, chat_id, thread_id, user.id):
        say(svc, update, tr("settings.not_allowed"))
        return
    content = menu(tr, svc, chat_id, thread_id, await svc.storage.chat_settings(chat_id))
    say(svc, update, content.text, content.markup)


async def settings_tap(
    update: Update, button: Button, payload: TurnTime | OnTimeout | Hints, svc: Services
) -> None:
    """A tap on the menu: store the choice for the chat and show the menu again."""
    query = update.callback_query
    assert query is not None
    message = query.message
    choices = len(TURN_TIMES) if isinstance(payload, TurnTime) else len(ACTIONS)
    if (
        message is None
        or message.chat.id != button.chat_id
        or message.chat.type == Chat.PRIVATE
        or (not isinstance(payload, Hints) and payload.index >= choices)
    ):
        raise Refusal("alert.unknown_button")
    if not await may_change(query.get_bot(), svc, button.chat_id, button.thread_id, query.from_user.id):
        raise Refusal("settings.not_allowed")
    chat = await svc.storage.chat_settings(button.chat_id)
    if isinstance(payload, TurnTime):
        chat.turn_time = TURN_TIMES[payload.index]
    elif isinstance(payload, Hints):
        chat.hints = not chat.hints
    else:
        chat.timeout_action = "away" if ACTIONS[payload.index] == "away" else "bot"
    await svc.storage.save_chat_settings(button.chat_id, chat)
    svc.presenter.forget_hints(button.chat_id)
    tr = await svc.presenter.group_tr(button.chat_id)
    await query.answer(tr("settings.saved"))
    svc.outbox.edit(button.chat_id, message.message_id, menu(tr, svc, button.chat_id, button.thread_id, chat))
