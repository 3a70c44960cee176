"""The bot that teaches: a finished deal's analysis ("🔍 Review") and a hint (💡) on request.

**Review.** Each person's "deal N is over" line in private carries a button for the analysis of that
deal for their seat (:func:`bot.engine.ai.analysis.analyse`: ``hard``'s search on
:data:`~bot.engine.ai.analysis.WORLDS` worlds per decision, a mistake when another card was worth
:data:`~bot.engine.ai.analysis.THRESHOLD` penalty points more). The deal's record is the stored one:
the finished deal in the table's match, or once the match has left the table (a rematch, expiry) in
the chat's history. Only the person who sat in that seat gets it. The analysis takes up to a few
seconds of CPU, so it runs where bot players think, off the event loop (:meth:`Thinker.run
<bot.thinking.Thinker.run>`: a process of this instance's pool, its threads, or for ``redis``
thinking this instance's fallback pool), and the text comes as a message of its own. A tap while
the same analysis runs in this process gets a toast and starts nothing.

**Hint.** In a chat whose ``/settings`` allow hints (off by default), the hand carries 💡 while the
decision is the person's. The answer is ``hard``'s decision for that view, taken by the same thinker
as a bot player's, with :func:`bot.engine.ai.hint.why`'s line; it is a callback alert, which only the
person who tapped sees. Each hint given counts in the person's figures (``/stats``); the same
decision asked again is answered from memory and counted once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram import Update

from bot.engine import KozelError
from bot.engine.ai.analysis import Mistake, analyse
from bot.render.coach_view import hint_words, review_text
from bot.render.content import Content
from bot.stats.entry import entry_id, meta_of
from bot.storage.redis_store import HISTORY_KEPT
from bot.table.codec import Button
from bot.table.game import Notice, Refusal
from bot.table.hints import hint_for
from bot.table.payloads import Hint, Review
from bot.tg.common import alert, private_tapper, quiet_answer, user_tr
from bot.tg.services import Services

_LOG = logging.getLogger(__name__)

#: Analyses running in this process: (table id, deal index, seat).
_REVIEWING: set[tuple[str, int, int]] = set()


async def _deal_record(
    svc: Services, button: Button, seat: int, user_id: int
) -> tuple[dict[str, Any], str, set[str]]:
    """The finished deal's record, the chat's title and the cards of it someone else played for the seat."""
    index = button.deal_seq
    table = await svc.storage.load_table(button.chat_id, button.thread_id)
    if table is not None and table.table_id == button.table_id and table.match is not None:
        if index >= len(table.match.deals):
            raise Refusal("review.unfinished")
        person = table.seats[seat]
        if person is None or person.user_id != user_id:
            raise Refusal("review.not_yours")
        others = set(table.match.played_by.get(index, {}))
        return table.match.deals[index], table.chat_title, others
    for entry in await svc.storage.history(button.chat_id, HISTORY_KEPT):
        if entry_id(entry) != button.table_id:
            continue
        meta = meta_of(entry)
        deals = entry.get("deals", [])
        if meta is None or index >= len(deals):
            raise Refusal("review.gone")
        if seat >= len(meta.seats) or meta.seats[seat].user_id != user_id:
            raise Refusal("review.not_yours")
        return deals[index], meta.chat_title, set()
    raise Refusal("review.gone")


async def review_tap(update: Update, button: Button, payload: Review, svc: Services) -> None:
    """ "🔍 Review" under a finished deal's line in private: its analysis for the person's seat."""
    query = update.callback_query
    assert query is not None
    user = private_tapper(query)
    record, title, others = await _deal_record(svc, button, payload.seat, user.id)
    job = (button.table_id, button.deal_seq, payload.seat)
    if job in _REVIEWING:
        raise Notice("review.running")
    tr = await user_tr(svc, user)
    _REVIEWING.add(job)
    try:
        await quiet_answer(query, tr("review.started"))
        try:
            found = await _analyse(svc, record, payload.seat)
        except KozelError:
            _LOG.exception("the deal %s of table %s does not replay", button.deal_seq, button.table_id)
            svc.outbox.post(user.id, Content(tr("review.failed")))
            return
    finally:
        _REVIEWING.discard(job)
    # Cards a bot played for the seat (its person away) are not the person's mistakes.
    mine = [m for m in found if m.played.code not in others]
    deal_no = int(record.get("deal_no", 1))
    svc.outbox.post(user.id, Content(review_text(tr, title, deal_no, mine)))


async def _analyse(svc: Services, record: dict[str, Any], seat: int) -> list[Mistake]:
    if svc.thinker is not None:
        return await svc.thinker.run(analyse, record, seat)
    return await asyncio.get_running_loop().run_in_executor(None, analyse, record, seat)


async def hint_tap(update: Update, button: Button, payload: Hint, svc: Services) -> None:
    """💡 in a hand: ``hard``'s decision for the person's open decision, as an alert only they see."""
    query = update.callback_query
    assert query is not None
    user = private_tapper(query)
    tr = await user_tr(svc, user)
    await alert(query, await hint_for(svc.tables, button, payload, user.id, hint_words(tr)))
