"""A player's hand in the DM: one message per deal with the cards as buttons and every decision asked.

The keyboard is built from ``view.legal`` alone, so any phase the engine adds (the brag, the
exchange, the mirror's cut) is asked without changes here; only its texts are needed.
"""

from __future__ import annotations

from html import escape

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.engine import (
    Action,
    Brag,
    ChooseBragKind,
    Cut,
    Deal,
    Declare,
    Exchange,
    ExchangeGive,
    Phase,
    Play,
    SeatView,
    Swap,
    SwapReturn,
    view_for,
)
from bot.engine.cards import Card
from bot.handlers.codec import Button, Codec
from bot.handlers.game import encode_action
from bot.handlers.i18n import Tr
from bot.handlers.outbox import Content
from bot.handlers.table_view import trick_line
from bot.handlers.words import card_text, cards_text, seat_name, suit_text
from bot.storage import Table

LEGAL_MARK = "✅"
MAX_DECISIONS = 90
CARDS_PER_ROW = 5


def _card_of(action: Action) -> Card | None:
    """The card a one-card decision is about, so it can be taken by tapping that card."""
    match action:
        case Play(c) | SwapReturn(c):
            return c
        case Brag(cs) | ExchangeGive(cs) if len(cs) == 1:
            return cs[0]
    return None


def decision_label(tr: Tr, action: Action) -> str:
    """The button text of a decision that is not a single card."""
    match action:
        case Declare(None):
            return tr("act.declare_last")
        case Declare(suit):
            return tr("act.declare", suit=suit_text(tr, suit))
        case Swap(accept):
            return tr("act.swap_yes" if accept else "act.swap_no")
        case Exchange(accept):
            return tr("act.exchange_yes" if accept else "act.exchange_no")
        case Brag(cs):
            return tr("act.brag", cards=cards_text(tr, cs))
        case ExchangeGive(cs):
            return tr("act.give", cards=cards_text(tr, cs))
        case Cut(at):
            return str(at)
        case ChooseBragKind(kind):
            return tr(f"val.{kind.value}")
    return "?"  # pragma: no cover - every action type is matched above


def keyboard(tr: Tr, codec: Codec, table: Table, view: SeatView) -> InlineKeyboardMarkup:
    """Cards (legal ones marked) and, below them, the other decisions of this seat."""
    assert table.match is not None
    seq = table.match.deal_seq

    def button(text: str, payload: str) -> InlineKeyboardButton:
        data = codec.pack(Button(table.chat_id, table.thread_id, table.table_id, seq, payload))
        return InlineKeyboardButton(text, callback_data=data)

    by_card: dict[Card, Action] = {}
    others: list[Action] = []
    for action in view.legal:
        c = _card_of(action)
        if c is not None and c not in by_card:
            by_card[c] = action
        else:
            others.append(action)
    cards = [
        button(LEGAL_MARK + card_text(tr, c), "A" + encode_action(by_card[c]))
        if c in by_card
        else button(card_text(tr, c), "X" + c.code)
        for c in view.hand
    ]
    rows = [cards[i : i + CARDS_PER_ROW] for i in range(0, len(cards), CARDS_PER_ROW)]
    small = all(isinstance(a, Cut) for a in others)
    decisions = [button(decision_label(tr, a), "A" + encode_action(a)) for a in others[:MAX_DECISIONS]]
    per_row = 8 if small else 2
    rows.extend(decisions[i : i + per_row] for i in range(0, len(decisions), per_row))
    return InlineKeyboardMarkup(rows)


def hand_content(tr: Tr, codec: Codec, table: Table, deal: Deal, seat: int) -> Content:
    """The DM hand of ``seat`` now."""
    view = view_for(deal, seat)
    m = table.match
    assert m is not None
    us, them = seat % 2, 1 - seat % 2
    partner = seat_name(tr, table, (seat + 2) % 4)
    lines = [
        tr("hand.title", chat=escape(table.chat_title), n=deal.deal_no, seat=seat + 1),
        tr("hand.trump", suit=suit_text(tr, view.trump)),
        tr(
            "hand.score",
            partner=partner,
            us=m.penalty[us],
            them=m.penalty[them],
            tu=view.tricks_won[us],
            tt=view.tricks_won[them],
            pu=view.points[us],
            pt=view.points[them],
        ),
    ]
    if view.tricks:
        lines.append(tr("hand.last", trick=trick_line(tr, table, len(view.tricks), view.tricks[-1])))
    if view.phase is Phase.PLAY:
        on_table = " · ".join(f"{seat_name(tr, table, s)} {card_text(tr, c)}" for s, c in view.trick)
        lines.append(tr("table.on_table", cards=on_table or "—"))
    seen = [(s, cs) for s, cs in enumerate(view.seen) if cs and s != seat]
    for s, cs in seen:
        lines.append(tr("hand.seen", name=seat_name(tr, table, s), cards=cards_text(tr, cs)))
    lines.append("")
    if view.my_turn:
        key = f"prompt.{view.phase.value}"
        lines.append(tr(key) if tr.has(key) else tr("prompt.other"))
    elif view.to_act is not None:
        name = seat_name(tr, table, view.to_act)
        key = f"phase.{view.phase.value}"
        lines.append(tr(key, name=name) if tr.has(key) else tr("phase.other", name=name))
    return Content("\n".join(lines), keyboard(tr, codec, table, view))


def finished_hand_content(tr: Tr, table: Table, deal_no: int) -> Content:
    """A hand message once its deal is over (its keyboard goes away)."""
    return Content(tr("hand.over", chat=escape(table.chat_title), n=deal_no))
