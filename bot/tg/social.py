"""/top (the chat's standings), /stats (one's own), /history with its replay viewer, and /export."""

from __future__ import annotations

import asyncio
import time
from html import escape
from typing import Any

from telegram import Chat, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update

from bot.engine.errors import RecordError
from bot.engine.record import deals_played, dumps, match_result
from bot.engine.rules import Rules
from bot.render import sochi_view
from bot.render.content import Content
from bot.render.i18n import Tr
from bot.render.labels import match_pair_players
from bot.render.replay_view import STEPS, Unfinished, table_of, view_content
from bot.render.rules_menu import summary
from bot.render.standings_view import personal_text, standings_png, standings_text
from bot.render.words import seat_name, three_seats
from bot.stats.counting import month_of
from bot.stats.entry import entry_id, meta_of, record_of
from bot.stats.standings import personal_of, standings_of
from bot.storage import Table
from bot.storage.redis_store import HISTORY_KEPT
from bot.table.codec import Button
from bot.table.game import Refusal
from bot.table.numbers import ascii_number
from bot.table.payloads import Export, Top, View
from bot.tg.calls import Sent
from bot.tg.common import Context, chat_tr, services, thread_of, user_tr
from bot.tg.services import Services

#: Matches /history lists (each with its buttons).
HISTORY_SHOWN = 5


async def top(update: Update, context: Context) -> None:
    """/top [month]: the chat's standings as a picture with a caption (text if the picture fails)."""
    svc = services(context)
    chat, message = update.effective_chat, update.effective_message
    assert chat is not None
    tr = await chat_tr(svc, chat, update.effective_user)
    args = context.args or []
    month = bool(args) and args[0].lower() in (tr("top.arg_month"), "month")
    await _post_top(svc, tr, chat.id, thread_of(message), month)


async def _post_top(svc: Services, tr: Tr, chat_id: int, thread_id: int | None, month: bool) -> None:
    period = month_of(svc.settings.clock()) if month else "all"
    counts, names = await svc.storage.standings(chat_id, period)
    st = standings_of(counts, names)
    other = Top(0 if month else 1)
    label = tr("top.btn_all" if month else "top.btn_month")
    markup = InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=svc.codec.data(chat_id, None, "0", 0, other))]]
    )
    text = standings_text(tr, st, names, month=month)
    if st.empty:
        svc.outbox.post(chat_id, Content(text, markup), thread_id=thread_id)
        return
    # A caption is at most 1024 characters: the picture says it all, the caption the pairs too.
    caption = Content(
        text if len(text) <= 1000 else tr("top.title_month" if month else "top.title_all"), markup
    )
    sent = svc.outbox.post(
        chat_id, caption, thread_id=thread_id, photo=standings_png(tr, st, names, month=month)
    )

    def fall_back(done: asyncio.Future[Sent]) -> None:
        # The picture was refused (a group may forbid media): the standings as text instead.
        if done.cancelled():
            return
        result = done.result()
        if result.message_id is None and not result.forbidden and not result.uncertain:
            svc.outbox.post(result.chat_id or chat_id, Content(text, markup), thread_id=thread_id)

    sent.add_done_callback(fall_back)


async def top_tap(update: Update, button: Button, payload: Top, svc: Services) -> None:
    """The other period's standings, posted under the first."""
    query = update.callback_query
    assert query is not None
    if query.message is None or query.message.chat.id != button.chat_id or payload.index not in (0, 1):
        raise Refusal("alert.unknown_button")
    tr = await chat_tr(svc, query.message.chat, query.from_user)
    await query.answer()
    await _post_top(svc, tr, button.chat_id, _thread(query.message), payload.index == 1)


def _thread(message: object) -> int | None:
    """The forum topic a tapped message is in (the answer goes there too)."""
    return thread_of(message) if isinstance(message, Message) else None


async def stats(update: Update, context: Context) -> None:
    """/stats: one's own figures across every chat (in private, or in a group for oneself)."""
    svc = services(context)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    tr = await (user_tr(svc, user) if chat.type == Chat.PRIVATE else chat_tr(svc, chat, user))
    figures = personal_of(await svc.storage.personal(user.id))
    svc.outbox.post(
        chat.id,
        Content(personal_text(tr, user.first_name, figures)),
        thread_id=thread_of(update.effective_message),
    )


def _when(at: float) -> str:
    return time.strftime("%d.%m.%Y", time.gmtime(at))


def _goats_result(tr: Tr, table: Table, result: dict[str, Any]) -> str:
    """Individual scores (``blind_rotates``): the goat(s) and every person's total; the entry's seat
    ``p`` is person ``p``."""
    names = [seat_name(tr, table, p) for p in range(len(result["scores"]))]
    goats = [names[g] for g in result["goats"]]
    who = goats[0] if len(goats) == 1 else tr("pair.names", a=goats[0], b=goats[-1])
    totals = ":".join(str(n) for n in result["scores"])
    drivers = result["title"] == "goat_with_drivers"
    key = "history.goat_drivers_people" if drivers else "history.goat_people"
    return tr(key, names=who, totals=totals)


def _result(tr: Tr, entry: dict[str, Any]) -> str:
    meta = meta_of(entry)
    table = table_of(entry, tr)
    if meta is None or not meta.finished:
        return tr("history.stopped")
    try:
        result = match_result(record_of(entry))
    except RecordError:
        return tr("history.stopped")
    if three_seats(table) and "goats" in result:  # 3-person sochi: the goat(s), everyone's total
        return sochi_view.history_result(tr, table, result)
    if result.get("goats"):
        return _goats_result(tr, table, result)
    if result["loser"] is None:
        return tr("history.stopped")
    key = "history.goat_drivers" if result["title"] == "goat_with_drivers" else "history.goat"
    a, b = result["penalty"]
    return tr(key, names=match_pair_players(tr, table, result["loser"]), a=a, b=b)


def _deals(tr: Tr, entry: dict[str, Any]) -> str:
    """The deals a match played, and its redeals where it had any: a void deal is in the record but
    was dealt again under the same number (RULES.md §1)."""
    records = entry["deals"]
    played = deals_played(records, Rules.parse(entry["rules"]))
    redealt = len(records) - played
    return tr("history.deals_redealt", played=played, redealt=redealt) if redealt else str(played)


def _players(tr: Tr, table: Table, rules: Rules) -> str:
    """Who played: the pairs (a blind named after its partner, as at the table), or the people where
    everyone keeps his own score and the sides change every deal (``sochi``, ``blind_rotates``)."""
    if rules.individual_scores:
        return ", ".join(seat_name(tr, table, s) for s, p in enumerate(rules.seating(1)) if p is not None)
    return tr("history.players", a=match_pair_players(tr, table, 0), b=match_pair_players(tr, table, 1))


async def history(update: Update, context: Context) -> None:
    """/history: the chat's last matches, each with the replay viewer's and the export's buttons."""
    svc = services(context)
    chat, message = update.effective_chat, update.effective_message
    assert chat is not None
    tr = await chat_tr(svc, chat, update.effective_user)
    entries = await svc.storage.history(chat.id, HISTORY_SHOWN)
    if not entries:
        svc.outbox.post(chat.id, Content(tr("history.none")), thread_id=thread_of(message))
        return
    lines = [tr("history.title")]
    rows = []
    for n, entry in enumerate(entries, 1):
        meta = meta_of(entry)
        table = table_of(entry, tr)
        rules = Rules.parse(entry["rules"])
        when = _when(meta.at) if meta is not None else "—"
        lines.append(
            tr(
                "history.row",
                n=n,
                when=when,
                variant=summary(tr, rules),
                players=_players(tr, table, rules),
                result=_result(tr, entry),
                deals=_deals(tr, entry),
            )
        )
        match_id = entry_id(entry)
        rows.append(
            [
                InlineKeyboardButton(
                    tr("history.btn_view", n=n),
                    callback_data=svc.codec.data(chat.id, None, match_id, 0, View(0, 0)),
                ),
                InlineKeyboardButton(
                    tr("history.btn_export", n=n),
                    callback_data=svc.codec.data(chat.id, None, match_id, 0, Export()),
                ),
            ]
        )
    svc.outbox.post(
        chat.id, Content("\n".join(lines), InlineKeyboardMarkup(rows)), thread_id=thread_of(message)
    )


async def _entry(svc: Services, chat_id: int, match_id: str) -> dict[str, Any]:
    # Most taps are on the matches /history lists: those are read first, the whole history only if not.
    for limit in (HISTORY_SHOWN, HISTORY_KEPT):
        for entry in await svc.storage.history(chat_id, limit):
            if entry_id(entry) == match_id:
                return entry
    raise Refusal("alert.replay_gone")


async def view_tap(update: Update, button: Button, payload: View, svc: Services) -> None:
    """A step of the replay viewer: the message is edited to show it."""
    query = update.callback_query
    assert query is not None
    message = query.message
    if message is None or message.chat.id != button.chat_id:
        raise Refusal("alert.unknown_button")
    entry = await _entry(svc, button.chat_id, button.table_id)
    if payload.deal >= len(entry["deals"]):
        raise Refusal("alert.unknown_button")
    tr = await chat_tr(svc, message.chat, query.from_user)
    try:
        content = view_content(tr, svc.codec, entry, payload.deal, payload.step, button.chat_id)
    except Unfinished:
        raise Refusal("alert.replay_unfinished") from None
    await query.answer()
    if _is_viewer(message):
        svc.outbox.edit(button.chat_id, message.message_id, content)
    else:  # from /history: the viewer is a message of its own
        svc.outbox.post(button.chat_id, content, thread_id=_thread(message))


def _is_viewer(message: Any) -> bool:
    markup = message.reply_markup
    if markup is None:
        return False
    return any(b.text in STEPS for row in markup.inline_keyboard for b in row)


async def export(update: Update, context: Context) -> None:
    """/export [n]: the n-th latest match's record (RULES.md §7) as a JSON document."""
    svc = services(context)
    chat, message = update.effective_chat, update.effective_message
    assert chat is not None
    tr = await chat_tr(svc, chat, update.effective_user)
    n = ascii_number(context.args[0]) if context.args else 1
    if n is None or not 1 <= n <= HISTORY_KEPT:
        svc.outbox.post(chat.id, Content(tr("export.bad_number")), thread_id=thread_of(message))
        return
    entries = await svc.storage.history(chat.id, n)
    if len(entries) < n:
        svc.outbox.post(chat.id, Content(tr("history.none")), thread_id=thread_of(message))
        return
    _send_record(svc, tr, chat.id, thread_of(message), entries[n - 1])


def _send_record(svc: Services, tr: Tr, chat_id: int, thread_id: int | None, entry: dict[str, Any]) -> None:
    record = record_of(entry)
    meta = meta_of(entry)
    name = f"kozel-{entry_id(entry)}.json"
    when = _when(meta.at) if meta is not None else "—"
    caption = Content(tr("export.caption", when=escape(when), deals=_deals(tr, record)))
    data = (dumps(record) + "\n").encode()
    svc.outbox.post(chat_id, caption, thread_id=thread_id, document=(name, data))


async def export_tap(update: Update, button: Button, payload: Export, svc: Services) -> None:
    """The export button under /history."""
    query = update.callback_query
    assert query is not None
    message = query.message
    if message is None or message.chat.id != button.chat_id:
        raise Refusal("alert.unknown_button")
    entry = await _entry(svc, button.chat_id, button.table_id)
    tr = await chat_tr(svc, message.chat, query.from_user)
    await query.answer()
    _send_record(svc, tr, button.chat_id, _thread(message), entry)
