"""When the turn a table waits for runs out: the live table shows the time left, as the turn timer
counts it (:mod:`bot.table.timers`).

The deadline is the turn's ``timeout`` timer as stored (armed with the save that made the turn, so a
page that reads the table after its version was published finds it); a person ticking cards for a
choice of several holds it off (:func:`bot.table.timer_ids.held_until`): it then counts from the
last tick. None on a bot player's turn, an away person's (the bot plays it at once), or in a chat
with no turn timer.
"""

from __future__ import annotations

from bot.table.core import Core
from bot.table.game import decider
from bot.table.timer_ids import TimerId, turn_of, turn_time
from bot.table.usecase import Snapshot

__all__ = ["turn_deadline"]


async def turn_deadline(core: Core, snap: Snapshot) -> float | None:
    """The Unix time the decision ``snap``'s table waits for times out, or None (see the module)."""
    turn = turn_of(snap)
    table = snap.table
    if turn is None or decider(table, turn.seat) in table.away:
        return None
    key = (table.chat_id, table.thread_id)
    timer = TimerId("timeout", *key, table.table_id, turn.deal_seq, turn.moves, turn.seat)
    due = await core.storage.timer_due(timer.pack())
    if due is None:
        return None
    m = table.match
    p = m.picking if m is not None else None
    if p is not None and (p.deal_seq, p.moves, p.seat) == (turn.deal_seq, turn.moves, turn.seat):
        seconds = turn_time(await core.storage.chat_settings(table.chat_id), core.settings)
        due = max(due, p.at + seconds)
    return due
