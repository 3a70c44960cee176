"""A hint (💡): ``hard``'s decision for a person's open decision, asked in a DM or on the live table's page.

Only in a chat whose ``/settings`` allow hints. The decision is taken by the same thinker as a bot
player's; each hint given counts in the person's figures (``/stats``), and the same decision asked
again is answered from memory and counted once. The front end puts it into words.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from bot.engine import Action, SeatView, view_for
from bot.engine.ai import pool
from bot.table.codec import Button
from bot.table.core import Core
from bot.table.game import Notice, Refusal, decider
from bot.table.moves import seat_of_hand
from bot.table.payloads import Hint
from bot.table.usecase import Tables

#: Hints given lately, by (table id, deal, moves, seat): the same decision asked again is not
#: thought (nor counted) again; and the ones being thought now.
_HINTED: OrderedDict[tuple[str, int, int, int], str] = OrderedDict()
_HINTING: set[tuple[str, int, int, int]] = set()
HINTS_KEPT = 4096
#: The level whose decision a hint is.
HINT_LEVEL = "hard"


def hint_seed(table_id: str, deal_seq: int, moves: int) -> int:
    """The seed of a hint's decision: the same decision asked twice is thought the same way."""
    digest = hashlib.sha256(f"hint:{table_id}:{deal_seq}:{moves}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


async def hint_for(
    tables: Tables, button: Button, payload: Hint, user_id: int, words: Callable[[SeatView, Action], str]
) -> str:
    """The hint ``user_id`` asked for with 💡 (in the DM or on the live table's page), put into
    ``words`` (the view and ``hard``'s decision; see :func:`bot.render.coach_view.hint_words`); raises
    :class:`Refusal` (or :class:`Notice`) saying why there is none."""
    svc = tables.core
    if not (await svc.storage.chat_settings(button.chat_id)).hints:
        raise Refusal("hint.off")
    table = await svc.storage.load_table(button.chat_id, button.thread_id)
    seat = seat_of_hand(table, button, user_id)
    assert table is not None and table.match is not None
    m = table.match
    deal = tables.snapshot(table).deal
    to_act = deal.to_act if deal is not None else None
    if deal is None or to_act is None or decider(table, to_act) != seat:
        raise Refusal("alert.not_your_turn")
    if payload.moves != len(deal.moves):
        raise Refusal("hint.stale")
    key = (table.table_id, m.deal_seq, payload.moves, to_act)
    said = _HINTED.get(key)
    if said is not None:
        return said
    if key in _HINTING:
        raise Notice("hint.running")
    view = view_for(deal, to_act)
    seed = hint_seed(table.table_id, m.deal_seq, payload.moves)
    _HINTING.add(key)
    try:
        action = await _hard(svc, view, seed)
    finally:
        _HINTING.discard(key)
    text = words(view, action)
    _HINTED[key] = text
    while len(_HINTED) > HINTS_KEPT:
        _HINTED.popitem(last=False)
    await svc.storage.count_hint(user_id)
    return text


async def _hard(svc: Core, view: Any, seed: int) -> Action:
    if svc.thinker is not None:
        return await svc.thinker.decide(HINT_LEVEL, view, seed)
    return await asyncio.get_running_loop().run_in_executor(None, pool.decide, HINT_LEVEL, view, seed)
