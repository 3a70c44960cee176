"""What one viewer of the live table is sent: the table as their seat sees it, and nothing more.

A seated person gets their seat's view (``bot.engine.view_for``: the same window the DM hand and the
bot players get), their hand's text and every decision button their DM hand offers (the same signed
callback data, so a tap on the page is a tap on that button). Anyone else gets what every seat at the
table can see: the cards in no one's sole sight. Texts come from the gettext catalogs in the viewer's
language; names and the table's text are sent as plain text (the page never parses HTML).
"""

from __future__ import annotations

import functools
import html
import re
from typing import Any

from bot.engine import Deal, Phase, view_for
from bot.engine.cards import Card
from bot.engine.view import SeatView
from bot.render.brag_view import BRAG_PHASES
from bot.render.hand_view import PICKABLE_MARK, PICKED_MARK, card_of, hand_content
from bot.render.i18n import Tr
from bot.render.table_view import live_content, match_over_lines
from bot.render.words import blind_seats, card_text, pair_names, seat_name, suit_text, tally_text
from bot.storage import Table
from bot.table.codec import Codec, payload_code
from bot.table.game import decider, target_of
from bot.table.payloads import Act, Back, BadData, Held, Payload, Tick, decode

__all__ = ["payload_for", "seen_cards", "viewer_seat"]

_TAG = re.compile(r"<[^>]*>")


def plain(text: str) -> str:
    """Telegram HTML as plain text (the page shows it with ``textContent``)."""
    return html.unescape(_TAG.sub("", text))


def viewer_seat(table: Table, deal: Deal | None, user_id: int) -> tuple[int | None, int | None]:
    """The seat ``user_id`` sits in, and the seat whose hand they are shown now (their blind's while
    they decide its brag, as in the DM); ``(None, None)`` for a watcher."""
    seat = table.seat_of(user_id)
    if seat is None or deal is None:
        return seat, seat
    to_act = deal.to_act
    if to_act is not None and to_act != seat and decider(table, to_act) == seat:
        return seat, to_act
    return seat, seat


def seen_cards(view: SeatView) -> set[Card]:
    """Every card a seat's view shows it: its hand, cards seen in others' hands, the tricks and the
    trick in play, the talon, its own discards and the brag's face-up cards."""
    cards: set[Card] = set(view.hand)
    for cs in view.seen:
        cards.update(cs)
    cards.update(c for _, c in view.trick)
    for trick in view.tricks:
        cards.update(c for _, c in trick.plays)
    cards.update(view.talon)
    cards.update(view.discards)
    for _, laid in view.brag_laid:
        cards.update(c for c in laid if c is not None)
    return cards


def public_cards(deal: Deal) -> set[Card]:
    """The cards every seat at the table sees (what a watcher may be shown)."""
    views = [seen_cards(view_for(deal, s)) for s in range(len(deal.hands))]
    return set.intersection(*views)


def _seats(tr: Tr, table: Table, view: SeatView | None, seat: int | None) -> list[dict[str, Any]]:
    blinds = blind_seats(table)
    out = []
    for i, s in enumerate(table.seats):
        kind = "blind" if i in blinds else ("empty" if s is None else s.kind)
        out.append(
            {
                "seat": i,
                "name": plain(seat_name(tr, table, i)),
                "kind": kind,
                "level": _level(tr, s.level) if s is not None and s.is_bot else None,
                "away": i in table.away,
                "you": i == seat,
                "cards": view.hand_sizes[i] if view is not None and i < len(view.hand_sizes) else None,
            }
        )
    return out


def _level(tr: Tr, level: str | None) -> str | None:
    key = f"level.{level}"
    return tr(key) if level is not None and tr.has(key) else level


def _card(tr: Tr, c: Card) -> dict[str, str]:
    return {"code": c.code, "label": card_text(tr, c)}


def _buttons(codec: Codec, tr: Tr, table: Table, deal: Deal, shown: int, hint: bool) -> tuple[str, list[Any]]:
    """The DM hand's text and its buttons. A button about one card (a card to play, the brag's card,
    the swap's return, a card to tick for the exchange's give or sochi's discard, a card that may not
    go now) names it (``card``) and says what a tap on it is (``kind``: ``act``, ``pick``,
    ``picked`` or ``held``), so the page makes it a tap on that card of the hand."""
    content = hand_content(tr, codec, table, deal, shown, hint=hint)
    rows: list[list[dict[str, Any]]] = []
    if content.markup is not None:
        for row in content.markup.inline_keyboard:
            out = []
            for b in row:
                data = str(b.callback_data) if b.callback_data is not None else ""
                item: dict[str, Any] = {"text": b.text, "data": data}
                payload = _what(data)
                if isinstance(payload, Act) and (card := card_of(payload.action)) is not None:
                    item["card"], item["kind"] = card.code, "act"
                elif isinstance(payload, Held):  # a card that may not go now (a tap says why)
                    item["card"], item["kind"] = payload.card.code, "held"
                elif isinstance(payload, Tick) and payload.card is not None:
                    kind = "picked" if b.text.startswith(PICKED_MARK) else "pick"
                    if not b.text.startswith((PICKED_MARK, PICKABLE_MARK)):
                        kind = "held"  # sochi's ♣Q, which never goes: a tap says why
                    item["card"], item["kind"] = payload.card.code, kind
                out.append(item)
            rows.append(out)
    return plain(content.text), rows


@functools.lru_cache(maxsize=8192)
def _what(data: str) -> Payload | None:
    """What a button of the bot's own keyboard does (made here, so its signature is not checked again:
    a tap's is, when it comes back)."""
    code = payload_code(data)
    try:
        return decode(code) if code is not None else None
    except BadData:
        return None


def _hand_cards(tr: Tr, view: SeatView, rows: list[Any]) -> list[dict[str, Any]]:
    """The hand as cards, each with the data of its button (if any) and what a tap on it does."""
    by_card = {b["card"]: b for row in rows for b in row if "card" in b}
    out = []
    for c in view.hand:
        b = by_card.get(c.code)
        card: dict[str, Any] = {**_card(tr, c), "legal": b is not None and b["kind"] == "act"}
        if b is not None:
            card["data"], card["kind"] = b["data"], b["kind"]
        out.append(card)
    return out


def payload_for(
    tr: Tr,
    codec: Codec,
    table: Table,
    deal: Deal | None,
    user_id: int,
    *,
    hint: bool = False,
    deadline: float | None = None,
    now: float = 0.0,
    memo: dict[Any, Any] | None = None,
) -> dict[str, Any]:
    """The JSON-ready state of ``table`` for ``user_id`` (seated or watching); ``hint``: the chat
    allows hints; ``deadline``: when the turn waited for times out (Unix time, as ``now``); ``memo``: a
    dict kept for this version of the table, where the parts every viewer shares are made once (the
    table's text in each language, the cards every seat sees)."""
    memo = {} if memo is None else memo
    seat, shown = viewer_seat(table, deal, user_id)
    out: dict[str, Any] = {
        "table_id": table.table_id,
        "version": table.version,
        "status": table.status,
        "lang": tr.lang,
        "seat": seat,
        "title": plain(table.chat_title),
    }
    if table.match is not None:
        m = table.match
        pairs = len(table.seats) == 4 and not m.scores  # a pair's penalty, kept on two sixes
        out["match"] = {
            "penalty": list(m.scores or m.penalty),
            "target": target_of(table),
            "tally": (
                [
                    {"names": plain(pair_names(tr, table, pair)), "tally": tally_text(p, target_of(table))}
                    for pair, p in enumerate(m.penalty)
                ]
                if pairs
                else None
            ),
        }
        if table.status == "over":
            out["result"] = plain("\n".join(match_over_lines(tr, table)))
    if deal is None or table.status != "playing" or table.match is None:
        out["seats"] = _seats(tr, table, None, seat)
        return out
    watcher = shown is None
    # A watcher's public part is any seat's view with everything private cut below.
    view = view_for(deal, 0 if shown is None else shown)
    out["seats"] = _seats(tr, table, view, seat)
    out["deal"] = {
        "no": deal.deal_no,
        "dealer": view.dealer,
        "phase": view.phase.value,
        "to_act": view.to_act,
        "trump": plain(suit_text(tr, view.trump)) if view.trump is not None else None,
        "trick": [{"seat": s, **_card(tr, c)} for s, c in view.trick],
        "last_trick": (
            [{"seat": s, **_card(tr, c)} for s, c in view.tricks[-1].plays] if view.tricks else []
        ),
        "tricks": len(view.tricks),
        "points": list(view.points),
        "tricks_won": list(view.tricks_won),
        "pair_of": list(view.pair_of),
        "stock": view.stock_size,
        # Whose turn and the seconds left of it (the turn timer's), from when this was sent.
        "turn": (
            {"seat": view.to_act, "left": round(max(0.0, deadline - now), 1)}
            if deadline is not None and view.to_act is not None
            else None
        ),
    }
    if view.phase in BRAG_PHASES:  # the cards laid in the brag so far, face down as None
        public = _public(memo, deal) if watcher else None
        out["deal"]["brag"] = [
            {
                "seat": s,
                "cards": [
                    _card(tr, c) if c is not None and (public is None or c in public) else None for c in laid
                ],
            }
            for s, laid in view.brag_laid
        ]
    text_key = ("table_text", tr.lang)
    if text_key not in memo:
        memo[text_key] = plain(live_content(tr, table, deal).text)
    out["table_text"] = memo[text_key]
    if watcher:
        talon = [c for c in view.talon if c in _public(memo, deal)]
        out["deal"]["talon"] = [_card(tr, c) for c in talon]
        out["hand"] = None
        return out
    assert shown is not None and seat is not None
    out["deal"]["talon"] = [_card(tr, c) for c in view.talon]
    text, rows = _buttons(codec, tr, table, deal, shown, hint)
    away = seat in table.away
    out["hand"] = {
        "seat": shown,
        "cards": _hand_cards(tr, view, rows),
        "text": text,
        # What the DM hand asks of the person now (its last line), or whose decision it is.
        "prompt": text.rsplit("\n", 1)[-1],
        "buttons": rows,
        "your_turn": view.my_turn and view.phase is not Phase.OVER,
        # A person the turn timers marked away: the bot plays for them until "I'm back" (the same
        # button the group and their DM got).
        "away": tr("webapp.away_note") if away else None,
        "back": (
            {"text": tr("timer.back_button"), "data": codec.data(*_table_of(table), 0, Back())}
            if away
            else None
        ),
    }
    return out


def _public(memo: dict[Any, Any], deal: Deal) -> set[Card]:
    if "public" not in memo:
        memo["public"] = public_cards(deal)
    found: set[Card] = memo["public"]
    return found


def _table_of(table: Table) -> tuple[int, int | None, str]:
    return table.chat_id, table.thread_id, table.table_id
