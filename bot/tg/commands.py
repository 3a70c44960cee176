"""Commands: /start (and its deep links), /help, /rules, /score, /leave, /stop, /language."""

from __future__ import annotations

import asyncio
import logging
from html import escape

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
    Chat,
    ChatMember,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.error import TelegramError
from telegram.ext import Application

from bot.engine import Deal, Rules
from bot.render import people_view
from bot.render.content import Content
from bot.render.hand_view import finished_hand_content
from bot.render.i18n import LANGS, Tr, pick_lang
from bot.render.rules_text import rules_text
from bot.render.tally import people_tally_png, tally_png
from bot.render.words import pair_names, seat_name, tally_text, three_seats
from bot.stats.entry import entry_of
from bot.storage import Seat, StaleWrite, Table
from bot.table.codec import Button
from bot.table.game import Refusal, target_of
from bot.table.payloads import BadData, Language, StopGame
from bot.table.played_by import person_left
from bot.tg import faults, settings_menu
from bot.tg.calls import Sent
from bot.tg.common import (
    Context,
    chat_tr,
    default_preset,
    quiet_answer,
    say,
    services,
    table_key,
    thread_of,
    user_tr,
)
from bot.tg.lobby import join_by_link
from bot.tg.services import Services, TableKey
from bot.tg.summaries import Unshown, unshown_hands

_LOG = logging.getLogger(__name__)
GROUP_COMMANDS = ("newgame", "score", "rules", "leave", "stop", "settings", "language", "help")
PRIVATE_COMMANDS = ("start", "help", "language", "rules")
#: The standings and history (bot/tg/social.py), after the others in the menus.
SOCIAL_GROUP_COMMANDS = ("top", "stats", "history", "export")
SOCIAL_PRIVATE_COMMANDS = ("stats",)


async def set_commands(application: Application) -> None:  # type: ignore[type-arg]
    """Register the command menus for groups and private chats, in Russian and English.

    The default scope (which Telegram shows nowhere once both others are set) gets the group's
    menu too: the sandbox page offers its commands from it.
    """
    for lang in LANGS:
        tr = Tr(lang)
        code = None if lang == "ru" else lang
        for scope, names in (
            (BotCommandScopeAllGroupChats(), GROUP_COMMANDS + SOCIAL_GROUP_COMMANDS),
            (BotCommandScopeAllPrivateChats(), PRIVATE_COMMANDS + SOCIAL_PRIVATE_COMMANDS),
            (BotCommandScopeDefault(), GROUP_COMMANDS + SOCIAL_GROUP_COMMANDS),
        ):
            commands = [BotCommand(name, tr(f"cmd.{name}")) for name in names]
            await application.bot.set_my_commands(commands, scope=scope, language_code=code)


async def start(update: Update, context: Context) -> None:
    """/start in private: remember the person started the bot; follow a join or hand link."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    if chat.type != Chat.PRIVATE:
        await help_command(update, context)
        return
    settings = await svc.storage.user_settings(user.id)
    if not settings.started:
        settings.started = True
        await svc.storage.save_user_settings(user.id, settings)
    tr = await user_tr(svc, user)
    payload = context.args[0] if context.args else None
    if not payload:
        # A client's "Restart" after blocking the bot sends a plain /start: their seats come back.
        await faults.user_back(svc, user.id)
        say(svc, update, tr("start.hello"))
        return
    try:
        link = svc.codec.read_link(payload)
    except BadData:
        say(svc, update, tr("start.bad_link"))
        return
    key = (link.chat_id, link.thread_id)
    if link.kind == "join":
        try:
            table = await join_by_link(svc, user, key, link.table_id, link.seat)
        except Refusal as refusal:
            say(svc, update, tr(refusal.key))
            return
        title = table.chat_title if table is not None else ""
        say(svc, update, tr("join.seated", chat=escape(title), n=link.seat + 1))
    else:
        await faults.user_back(svc, user.id, [key])
        say(svc, update, tr(await _resend_hand(svc, user.id, key, link.table_id)))


async def _resend_hand(svc: Services, user_id: int, key: tuple[int, int | None], table_id: str) -> str:
    """Send the person's hand again; what to tell them: sent, not seated there, or the game is gone."""

    def change(table: Table | None) -> str:
        if table is None or table.table_id != table_id or table.status == "over":
            return "start.bad_link"
        seat = table.seat_of(user_id)
        if seat is None:
            return "start.hand_not_seated"
        if seat in table.dm_failed:
            table.dm_failed.remove(seat)
        return "start.hand"

    snap, answer = await svc.run(key, lambda c: change(c.table))
    if snap is not None:
        svc.presenter.show(snap)
    return answer


async def help_command(update: Update, context: Context) -> None:
    """/help: what the bot does and its commands."""
    svc = services(context)
    chat = update.effective_chat
    assert chat is not None
    tr = await chat_tr(svc, chat, update.effective_user)
    say(svc, update, tr("help.text"))


async def rules_command(update: Update, context: Context) -> None:
    """/rules: the rules this table (or this chat's next table) plays by."""
    svc = services(context)
    chat, message = update.effective_chat, update.effective_message
    assert chat is not None
    tr = await chat_tr(svc, chat, update.effective_user)
    rules: Rules | None = None
    if chat.type != Chat.PRIVATE:
        table = await svc.storage.load_table(*table_key(chat, message))
        if table is not None:
            rules = Rules.parse(table.rules)
        else:
            saved = (await svc.storage.chat_settings(chat.id)).rules
            rules = Rules.parse(saved) if saved else None
    rules = rules or Rules.make(default_preset())
    text = rules_text(tr, rules)
    if chat.type != Chat.PRIVATE:  # the turn timer of /settings
        text += "\n\n" + settings_menu.summary(tr, await svc.storage.chat_settings(chat.id), svc)
    say(svc, update, text)


async def group_only(update: Update, context: Context) -> None:
    """A group command typed in private; /newgame is told how a table is gathered."""
    svc = services(context)
    tr = await user_tr(svc, update.effective_user)
    message = update.effective_message
    words = (message.text or "").split() if message is not None else []
    command = words[0].lstrip("/").split("@")[0].lower() if words else ""
    say(svc, update, tr("wrong.newgame_private" if command == "newgame" else "wrong.group_only"))


def people_score(tr: Tr, table: Table) -> tuple[Content, bytes]:
    """/score's caption and picture with individual scores (``sochi``): one tally per person."""
    assert table.match is not None
    scores = list(table.match.scores) or [0] * len(table.seats)
    names = [seat_name(tr, table, s) for s in range(len(scores))]
    target = target_of(table)
    lines = [tr("score.title_people", target=target)]
    for name, n in zip(names, scores, strict=True):
        lines.append(tr("summary.tally", names=name, n=n, tally=tally_text(n, target)))
    return Content("\n".join(lines)), people_tally_png(scores, names, target)


async def score(update: Update, context: Context) -> None:
    """/score: the shestyorki tally as a picture with a caption (text if the picture fails)."""
    svc = services(context)
    chat, message = update.effective_chat, update.effective_message
    assert chat is not None
    tr = await chat_tr(svc, chat, update.effective_user)
    table = await svc.storage.load_table(*table_key(chat, message))
    if table is None or table.match is None:
        say(svc, update, tr("score.none"))
        return
    if three_seats(table):  # 3-person sochi: a person per seat
        caption, photo = people_score(tr, table)
    elif people_view.individual(table):
        caption, photo = _score_people(tr, table)
    else:
        caption, photo = _score_pairs(tr, table)
    thread_id = thread_of(message)
    sent = svc.outbox.post(chat.id, caption, thread_id=thread_id, photo=photo)

    def fall_back(done: asyncio.Future[Sent]) -> None:
        # The picture was refused (a group may forbid media): the tally as text instead. Not when
        # the bot may not write here at all, nor when the picture may have arrived after all.
        if done.cancelled():
            return
        sent = done.result()
        if sent.message_id is None and not sent.forbidden and not sent.uncertain:
            svc.outbox.post(sent.chat_id or chat.id, caption, thread_id=thread_id)

    sent.add_done_callback(fall_back)


def _score_pairs(tr: Tr, table: Table) -> tuple[Content, bytes]:
    """/score's caption and picture in a pair game: each pair's two sixes."""
    assert table.match is not None
    penalty = table.match.penalty
    target = target_of(table)
    lines = [tr("score.title", target=target)]
    for pair in (0, 1):
        lines.append(
            tr(
                "summary.tally",
                names=pair_names(tr, table, pair),
                n=penalty[pair],
                tally=tally_text(penalty[pair], target),
            )
        )
    names = (pair_names(tr, table, 0), pair_names(tr, table, 1))
    return Content("\n".join(lines)), tally_png(penalty, names, target)


def _score_people(tr: Tr, table: Table) -> tuple[Content, bytes]:
    """/score's caption and picture where every person keeps his own score: one tally per person."""
    totals = people_view.scores(table)
    lines = [tr("score.title_people", target=target_of(table)), *people_view.tally_lines(tr, table, totals)]
    return Content("\n".join(lines)), people_tally_png(totals, people_view.names(tr, table), target_of(table))


async def leave(update: Update, context: Context) -> None:
    """/leave: stand up in the lobby; during a match a bot player takes the seat over."""
    svc = services(context)
    chat, message, user = update.effective_chat, update.effective_message, update.effective_user
    assert chat is not None and user is not None
    tr = await chat_tr(svc, chat, user)

    left_hand: list[int] = []
    left_over: list[Unshown] = []  # their hands of finished deals whose summaries are not out yet

    def change(table: Table | None, deal: Deal | None) -> str:
        if table is None:
            return "leave.no_table"
        seat = table.seat_of(user.id)
        if seat is None:
            return "leave.not_seated"
        if table.status == "over":  # nothing to leave: the next match needs a new lobby or the rematch
            return "leave.over"
        if table.status == "lobby":
            table.seats[seat] = None
        else:
            person_left(table, deal, seat)  # what they did so far keeps their name
            left_over[:] = [h for h in unshown_hands(table) if h.user_id == user.id]
            table.seats[seat] = Seat(kind="bot", name="bot", level=table.bot_level)
            hand = table.hand_messages.pop(seat, None)
            left_hand[:] = [hand] if hand is not None else []
        return "leave.done"

    snap, key = await svc.run(table_key(chat, message), lambda c: change(c.table, c.deal))
    say(svc, update, tr(key, name=escape(user.first_name)))
    if snap is not None and key == "leave.done":
        await svc.publish(snap)
        own = await user_tr(svc, user)
        for hand in left_hand:
            svc.outbox.edit(user.id, hand, Content(own("leave.hand")))
        # The summary will not close them: the seat is a bot's now. Closed as it would have.
        for h in left_over:
            over = finished_hand_content(own, snap.table, h.deal_no, svc.codec, h.deal_index, h.seat)
            svc.outbox.edit(user.id, h.message_id, over)


async def stop(update: Update, context: Context) -> None:
    """/stop: end the game (its creator or a chat admin); a match in play asks to confirm first."""
    svc = services(context)
    chat, message, user = update.effective_chat, update.effective_message, update.effective_user
    assert chat is not None and user is not None
    tr = await chat_tr(svc, chat, user)
    key = table_key(chat, message)
    table = await svc.storage.load_table(*key)
    if table is None:
        say(svc, update, tr("stop.no_table"))
        return
    if not await _may_manage(context, chat.id, user.id, table):
        # Only a running game is worth saying who may stop it; a lobby or a finished match is none.
        say(svc, update, tr("stop.not_allowed" if table.status == "playing" else "stop.no_table"))
        return
    if table.status == "playing":
        # A match is too much to lose to a stray command: one tap on the button ends it.
        data = svc.codec.data(chat.id, key[1], table.table_id, 0, StopGame())
        markup = InlineKeyboardMarkup([[InlineKeyboardButton(tr("btn.stop"), callback_data=data)]])
        say(svc, update, tr("stop.confirm"), markup)
        return
    if await _stop_table(svc, key, tr, None):
        say(svc, update, tr("stop.done"))
    else:
        say(svc, update, tr("stop.no_table"))


async def stop_tap(update: Update, button: Button, svc: Services, context: Context) -> None:
    """/stop's button: end the game it was asked for (by its creator or a chat admin)."""
    query = update.callback_query
    assert query is not None
    message = query.message
    if message is None or message.chat.id != button.chat_id:
        raise Refusal("alert.unknown_button")
    key = (button.chat_id, button.thread_id)
    table = await svc.storage.load_table(*key)
    if table is None or table.table_id != button.table_id or table.status != "playing":
        raise Refusal("stop.stale")  # that game has ended (or was stopped): a later one is left alone
    if not await _may_manage(context, button.chat_id, query.from_user.id, table):
        raise Refusal("stop.not_allowed")
    tr = await svc.presenter.group_tr(button.chat_id)
    if not await _stop_table(svc, key, tr, button.table_id):
        raise Refusal("stop.stale")
    await quiet_answer(query)
    svc.outbox.edit(button.chat_id, message.message_id, Content(tr("stop.done")))


async def _stop_table(svc: Services, key: TableKey, tr: Tr, table_id: str | None) -> bool:
    """Delete the table (only the one ``table_id`` names, if given), archiving a match in play, and
    mark its messages stopped; False if there was no such table."""
    # The game may move on while we look (bot players, message ids): delete the latest version.
    for _ in range(8):
        async with svc.lock(key):
            table = await svc.storage.load_table(*key)
            if table is None or (table_id is not None and table.table_id != table_id):
                return False
            archive = (
                entry_of(table, at=svc.settings.clock())
                if table.match is not None and table.status == "playing"
                else None
            )
            try:
                await svc.storage.delete_table(table, archive=archive)
            except StaleWrite:
                continue
            break
    else:
        raise StaleWrite(f"table {key} is too busy to stop")
    svc.presenter.forget(table)
    svc.notices.leftovers.forget(table)  # the reminder and "I'm back" keyboards of the stopped game
    ended = Content(tr("stop.message"))
    chat_id = key[0]
    lobby = table.lobby_message_id if table.status == "lobby" else None
    # A finished deal's messages too, if its summary is not on its way: it never will be now.
    shown = svc.presenter.summaries.shown
    unshown = [p for p in table.pending_summaries if not shown(table.table_id, p.index)]
    for message_id in (table.table_message_id, lobby, *(p.table_message_id for p in unshown)):
        if message_id is not None:
            svc.outbox.edit(chat_id, message_id, ended)
    langs = {p.user_id: p.lang for _, p in table.humans}
    hands = [(table.seats[seat], message_id) for seat, message_id in table.hand_messages.items()]
    closing = [(p.user_id, message_id) for p, message_id in hands if p is not None and p.user_id is not None]
    closing += [(h.user_id, h.message_id) for h in unshown_hands(table, unshown)]
    for user_id, message_id in closing:
        svc.outbox.edit(user_id, message_id, Content(Tr(pick_lang(langs.get(user_id)))("stop.message")))
    return True


async def _may_manage(context: Context, chat_id: int, user_id: int, table: Table | None) -> bool:
    """Whether the person may stop the group's game or set its language: the creator or an admin."""
    if table is not None and user_id == table.creator_id:
        return True
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError as e:
        _LOG.info("getChatMember failed in chat %s: %s", chat_id, e)
        return False
    return member.status in (ChatMember.ADMINISTRATOR, ChatMember.OWNER)


async def language(update: Update, context: Context) -> None:
    """/language: buttons to choose the group's language (its table's creator or an admin) or one's own."""
    svc = services(context)
    chat, message, user = update.effective_chat, update.effective_message, update.effective_user
    assert chat is not None and user is not None
    tr = await chat_tr(svc, chat, user)
    key = table_key(chat, message)
    if chat.type != Chat.PRIVATE:
        table = await svc.storage.load_table(*key)
        if not await _may_manage(context, chat.id, user.id, table):
            say(svc, update, tr("lang.not_allowed"))
            return
    rows = [
        [
            InlineKeyboardButton(
                Tr(lang)("lang.name"),
                callback_data=svc.codec.data(chat.id, key[1], "0", 0, Language(lang)),
            )
            for lang in LANGS
        ]
    ]
    say(svc, update, tr("lang.choose"), InlineKeyboardMarkup(rows))


async def language_tap(
    update: Update, button: Button, payload: Language, svc: Services, context: Context
) -> None:
    """A language chosen: the group's (by its table's creator or an admin) or the person's own."""
    query = update.callback_query
    assert query is not None
    lang = payload.lang
    message = query.message
    if lang not in LANGS or message is None or message.chat.id != button.chat_id:
        raise Refusal("alert.unknown_button")
    if message.chat.type != Chat.PRIVATE:
        # The buttons are in the group for everyone to see: who taps is checked, not who asked.
        table = await svc.storage.load_table(button.chat_id, button.thread_id)
        if not await _may_manage(context, message.chat.id, query.from_user.id, table):
            raise Refusal("lang.not_allowed")
    if message.chat.type == Chat.PRIVATE:
        settings = await svc.storage.user_settings(query.from_user.id)
        settings.lang = lang
        await svc.storage.save_user_settings(query.from_user.id, settings)
    else:
        chat_settings = await svc.storage.chat_settings(message.chat.id)
        chat_settings.lang = lang
        await svc.storage.save_chat_settings(message.chat.id, chat_settings)
    svc.presenter.forget_lang(message.chat.id)
    tr = Tr(lang)
    await query.answer(tr("lang.set"))
    svc.outbox.edit(message.chat.id, message.message_id, Content(tr("lang.set")))
