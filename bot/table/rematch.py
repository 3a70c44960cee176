"""A rematch: a finished match's table becomes a lobby with the same rules and seats.

Who may ask for one (a person seated at the finished match, on its own summary's button), and what
the table becomes (:func:`reopen`); the Telegram handler (:mod:`bot.tg.rematch`) runs both in one
change of the table and posts the new lobby.
"""

from __future__ import annotations

from bot.storage import Table
from bot.table.codec import Button
from bot.table.game import Notice, Refusal


def may_rematch(table: Table | None, button: Button, user_id: int) -> Table:
    """``table`` if ``user_id`` may start its rematch from ``button`` (its finished match's); raises
    :class:`Notice` when someone was first, :class:`Refusal` when the button is stale or the person
    was not seated."""
    if table is not None and table.table_id != button.table_id and table.status != "over":
        raise Notice("rematch.taken")  # someone tapped first: the new lobby is below
    if table is None or table.table_id != button.table_id or table.status != "over":
        raise Refusal("alert.stale")
    if table.seat_of(user_id) is None:
        raise Refusal("alert.not_seated")
    return table


def reopen(table: Table, user_id: int, table_id: str, now: float) -> None:
    """Turn a finished match's table into a lobby with its rules and seats; ``user_id`` tapped 🔁."""
    if table.seat_of(table.creator_id) is None:
        table.creator_id = user_id
    table.table_id = table_id  # a new id: keyboards of the finished match must not act on the lobby
    table.status = "lobby"
    table.lobby_view = "seats"
    table.match = None
    table.lobby_message_id = None
    table.table_message_id = None
    table.hand_messages = {}
    table.pushed = {}
    table.dm_failed = []
    table.pending_summaries = []
    table.timeouts = {}
    table.away = []
    table.blocked = []
    # Who tapped plays; the others say so (or leave) in the lobby.
    table.unconfirmed = [p.user_id for _, p in table.humans if p.user_id is not None and p.user_id != user_id]
    table.created_at = table.updated_at = now
