"""The button that opens the live table (the Mini App), on the group's table message and the DM hand.

A ``web_app`` button works only in a private chat (a group refuses it), so the group's message gets
a URL button to the Mini App's direct link (``t.me/<bot>?startapp=…``) and the hand a ``web_app``
button to the page itself. Without ``WEBAPP_URL`` neither is added and nothing else changes.
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.engine import Deal
from bot.render.content import Content
from bot.render.hand_view import hand_content
from bot.render.i18n import Tr
from bot.render.table_view import live_content
from bot.storage import Table
from bot.table.core import Core


async def on_page(core: Core, table: Table) -> frozenset[int]:
    """Who at ``table`` has the live table's page open (any instance): the bot spends no private call
    on their hands, whose state and turns the page shows."""
    return await core.live_present(table) if core.live_present is not None else frozenset()


def everyone(table: Table, present: frozenset[int]) -> bool:
    """Whether every person seated at ``table`` has the page open: the group's table message then
    shows each trick once it is done rather than each card (the players follow the page)."""
    people = [p.user_id for _, p in table.humans]
    return bool(people) and all(user in present for user in people)


def table_message(core: Core, tr: Tr, table: Table, deal: Deal) -> Content:
    """The group's table message during a deal, with the live table's button."""
    return with_live_table(core, tr, table, live_content(tr, table, deal), private=False)


def hand_message(core: Core, tr: Tr, table: Table, deal: Deal, seat: int, *, hint: bool) -> Content:
    """``seat``'s DM hand (``hint``: the chat allows hints), with the live table's button."""
    content = hand_content(tr, core.codec, table, deal, seat, hint=hint)
    return with_live_table(core, tr, table, content, private=True)


def with_live_table(core: Core, tr: Tr, table: Table, content: Content, *, private: bool) -> Content:
    """``content`` with the live table's button as its last row (as it was, with the live table off)."""
    links = core.live_links(table)
    if links is None:
        return content
    direct, page = links
    text = tr("webapp.open_button")
    button = (
        InlineKeyboardButton(text, web_app=WebAppInfo(url=page))
        if private
        else InlineKeyboardButton(text, url=direct)
    )
    rows = list(content.markup.inline_keyboard) if content.markup is not None else []
    return Content(content.text, InlineKeyboardMarkup([*rows, [button]]))
