"""A player's hand in the DM: one message per deal with the cards as buttons and every decision asked.

The keyboard is built from ``view.legal`` alone, so any phase the engine adds (the brag, the
exchange) is asked without changes here; only its texts are needed. The mirror's cut, which may be
any of dozens of points, offers the engine's handful (:func:`bot.engine.cut_points`).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import partial
from html import escape

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.engine import (
    PARTNER_OF,
    Action,
    Brag,
    ChooseBragKind,
    Cut,
    Deal,
    Declare,
    Discard,
    Exchange,
    ExchangeGive,
    Phase,
    Play,
    SeatView,
    Swap,
    SwapReturn,
    cut_points,
    view_for,
)
from bot.engine.cards import Card
from bot.render import people_view, sochi_view
from bot.render.brag_view import BRAG_PHASES, brag_lines
from bot.render.content import Content
from bot.render.i18n import Tr
from bot.render.labels import brag_player, card_player
from bot.render.table_view import trick_line
from bot.render.words import blind_seats, card_text, cards_text, seat_name, suit_text, three_seats
from bot.storage import Table
from bot.table.codec import Codec
from bot.table.game import decider
from bot.table.moves import PICK_PHASES, pick_choices, picked
from bot.table.payloads import Act, Held, Hint, Payload, Review, Tick, kind_of
from bot.table.played_by import current_index

LEGAL_MARK = "✅"
#: A card ticked in a choice of several cards (the exchange's give), and one that may be ticked.
PICKED_MARK = "☑️"
PICKABLE_MARK = "▫️"
MAX_DECISIONS = 90
CARDS_PER_ROW = 5
#: Keyboards built lately (see :func:`keyboard`); a few per seat of a few hundred live tables.
KEYBOARDS_KEPT = 4096
_KEYBOARDS: OrderedDict[Hashable, InlineKeyboardMarkup] = OrderedDict()


def card_of(action: Action) -> Card | None:
    """The card a one-card decision is about, so it can be taken by tapping that card."""
    match action:
        case Play(c) | SwapReturn(c):
            return c
        case Brag(cs) if len(cs) == 1:  # the exchange's give is ticked card by card instead
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
        case Discard(cs):
            return tr("act.discard", cards=cards_text(tr, cs))
        case Cut(at):
            return tr("act.cut", n=at)
        case ChooseBragKind(kind):
            return tr(f"val.{kind.value}")
    return "?"  # pragma: no cover - every action type is matched above


def keyboard(
    tr: Tr, codec: Codec, table: Table, view: SeatView, moves: int, *, hint: bool = False
) -> InlineKeyboardMarkup:
    """Cards (legal ones marked) and, below them, the other decisions of this seat; with ``hint``
    (the chat allows hints), a 💡 button while the decision is the seat's.

    ``moves`` is the number of moves of the deal so far: it tells a choice in progress, and while the
    decision is the seat's every button of the hand carries it, so a tap on that keyboard is never
    taken for a later decision (:func:`bot.table.moves.drawn_for_now`). A waiting seat's keyboard
    carries no count: the others' moves leave it as it was (no message edited for them), and a tap
    on it is taken as always — refused while it is not the seat's turn, played once it is (the hand
    shown is the hand held). A keyboard drawn again for the same state (the DM and the live page, a
    render repeated) is taken from a cache keyed by everything it shows (the same object, so the
    outbox's comparison with what a message shows is cheap too).
    """
    assert table.match is not None
    seq = table.match.deal_seq
    chosen = tuple(picked(table, view.seat, moves)) if view.phase in PICK_PHASES else ()
    hint_at = moves if hint and view.my_turn and view.legal else None
    drawn_at = moves if view.legal else None
    key = (codec, tr.lang, table.chat_id, table.thread_id, table.table_id, seq, drawn_at, view.phase,
           view.seat, view.hand, view.legal, chosen, hint_at)  # fmt: skip
    markup = _KEYBOARDS.get(key)
    if markup is None:
        markup = _build_keyboard(tr, codec, table, view, list(chosen), drawn_at)
        if hint_at is not None:
            data = codec.data(table.chat_id, table.thread_id, table.table_id, seq, Hint(hint_at))
            hint_row = [InlineKeyboardButton(tr("act.hint"), callback_data=data)]
            markup = InlineKeyboardMarkup([*markup.inline_keyboard, hint_row])
        _KEYBOARDS[key] = markup
        if len(_KEYBOARDS) > KEYBOARDS_KEPT:
            _KEYBOARDS.popitem(last=False)
    else:
        _KEYBOARDS.move_to_end(key)
    return markup


def _build_keyboard(
    tr: Tr, codec: Codec, table: Table, view: SeatView, chosen: list[Card], moves: int | None
) -> InlineKeyboardMarkup:
    """:func:`keyboard` without its cache; ``chosen``: the cards ticked for a choice of several;
    ``moves``: the deal's moves so far, which every button carries (None: no count carried)."""
    assert table.match is not None
    seq = table.match.deal_seq

    def button(text: str, payload: Payload) -> InlineKeyboardButton:
        data = codec.data(table.chat_id, table.thread_id, table.table_id, seq, payload, moves=moves)
        return InlineKeyboardButton(text, callback_data=data)

    if view.phase in PICK_PHASES and view.legal:
        return _pick_keyboard(tr, view, chosen, button)
    if view.phase is Phase.CUT and view.legal:
        return _cut_keyboard(tr, view, button)
    by_card: dict[Card, Action] = {}
    others: list[Action] = []
    for action in view.legal:
        c = card_of(action)
        if c is not None and c not in by_card:
            by_card[c] = action
        else:
            others.append(action)
    cards = [
        button(LEGAL_MARK + card_text(tr, c), Act(by_card[c]))
        if c in by_card
        else button(card_text(tr, c), Held(c))
        for c in view.hand
    ]
    rows = [cards[i : i + CARDS_PER_ROW] for i in range(0, len(cards), CARDS_PER_ROW)]
    decisions = [button(decision_label(tr, a), Act(a)) for a in others[:MAX_DECISIONS]]
    rows.extend(decisions[i : i + 2] for i in range(0, len(decisions), 2))
    return InlineKeyboardMarkup(rows)


def _cut_keyboard(
    tr: Tr, view: SeatView, button: Callable[[str, Payload], InlineKeyboardButton]
) -> InlineKeyboardMarkup:
    """The mirror's cut: the hand (nothing to tap), then the handful of cut points, one per row."""
    cards = [button(card_text(tr, c), Held(c)) for c in view.hand]
    rows = [cards[i : i + CARDS_PER_ROW] for i in range(0, len(cards), CARDS_PER_ROW)]
    for name, at in cut_points(view.stock_size):
        if Cut(at) in view.legal:
            rows.append([button(tr(f"act.cut_{name}", n=at), Act(Cut(at)))])
    return InlineKeyboardMarkup(rows)


#: Decisions of several cards ticked one by one: the exchange's give, sochi's discard.
def _pick_keyboard(
    tr: Tr, view: SeatView, chosen: list[Card], button: Callable[[str, Payload], InlineKeyboardButton]
) -> InlineKeyboardMarkup:
    """The exchange's give (the non-trumps) or sochi's discard (any two but the ♣Q): the cards that may
    go as toggles, and a confirm button live at the right count.

    The choice in progress is the table's (``MatchState.picking``); the confirm button carries the
    engine's :class:`ExchangeGive` (:class:`Discard`) of the ticked cards, so the tap that ends it is an
    ordinary move.
    """
    gives = pick_choices(view.legal)
    need = len(gives[0].cards)
    pickable = {c for a in gives for c in a.cards}
    cards = []
    for c in view.hand:
        if c in pickable:
            mark = PICKED_MARK if c in chosen else PICKABLE_MARK
            cards.append(button(mark + card_text(tr, c), Tick(c)))
        elif view.phase is Phase.DISCARD:
            # The ♣Q never goes: a tap on it is answered why (bot/tg/play.py, pick_tap).
            cards.append(button(card_text(tr, c), Tick(c)))
        else:
            cards.append(button(card_text(tr, c), Held(c)))
    rows = [cards[i : i + CARDS_PER_ROW] for i in range(0, len(cards), CARDS_PER_ROW)]
    discard = view.phase is Phase.DISCARD
    label = tr("act.discard_chosen" if discard else "act.give_chosen", k=len(chosen), n=need)
    if len(chosen) == need:
        ordered = tuple(c for c in view.hand if c in chosen)
        confirm: Action = Discard(ordered) if discard else ExchangeGive(ordered)
        rows.append([button(LEGAL_MARK + label, Act(confirm))])
    else:
        # Not yet: a tap says how many to tick.
        rows.append([button(label, Tick(None))])
    return InlineKeyboardMarkup(rows)


def hand_content(tr: Tr, codec: Codec, table: Table, deal: Deal, seat: int, *, hint: bool = False) -> Content:
    """The DM hand of ``seat`` now; ``hint``: the chat allows hints (a 💡 button on the seat's turn)."""
    view = view_for(deal, seat)
    # The bot player takes an away person's decisions (turn timers) at once: their hand says so and
    # offers no decision to tap, which the bot's move would have made stale before it came.
    away = view.my_turn and decider(table, seat) in table.away
    if away:
        view = dataclasses.replace(view, legal=())
    m = table.match
    assert m is not None
    lines = [
        # The blind's seat is not the reader's own: its partner reads its hand (when it brags).
        tr(
            "hand.title_blind" if seat in blind_seats(table) else "hand.title",
            chat=escape(table.chat_title),
            n=deal.deal_no,
            seat=seat + 1,
        ),
        *([tr("hand.for_blind")] if seat in blind_seats(table) else []),
        tr("hand.trump", suit=suit_text(tr, view.trump)),
        *people_view.partner_lines(tr, table),
    ]
    if three_seats(table):
        lines.append(sochi_view.hand_score_line(tr, table, deal, seat))
        # The DM's score line says whom the person plays with: only the talon, while it lies open.
        lines.extend(sochi_view.talon_lines(tr, table, deal, lone_line=False, reader=seat))
        partner = ""
    else:
        us = view.pair_of[seat]
        them = 1 - us
        # The blind's hand is read by its partner, for whom "вы с партнёром" is he and his blind.
        partner = seat_name(tr, table, seat if seat in blind_seats(table) else PARTNER_OF[seat])
        if people_view.individual(table):
            # ``blind_rotates``: this deal's pair, then each person's own penalty.
            score_deal = tr(
                "hand.score_deal",
                partner=partner,
                tu=view.tricks_won[us],
                tt=view.tricks_won[them],
                pu=view.points[us],
                pt=view.points[them],
            )
            lines += [score_deal, people_view.scores_line(tr, table)]
        else:
            lines.append(
                tr(
                    "hand.score",
                    partner=partner,
                    us=m.penalty[us],
                    them=m.penalty[them],
                    tu=view.tricks_won[us],
                    tt=view.tricks_won[them],
                    pu=view.points[us],
                    pt=view.points[them],
                )
            )
    if view.discards:  # the lone player alone sees what he put away
        lines.append(tr("sochi.discards", cards=cards_text(tr, view.discards)))
    if view.tricks:
        lines.append(tr("hand.last", trick=trick_line(tr, table, len(view.tricks), view.tricks[-1])))
    if view.phase is Phase.PLAY:
        at = current_index(table)
        on_table = " · ".join(f"{card_player(tr, table, at, s, c)} {card_text(tr, c)}" for s, c in view.trick)
        lines.append(tr("table.on_table", cards=on_table or "—"))
    if view.partner_counts is not None:
        # All the partners may tell each other before the exchange (RULES.md §2).
        trumps, plain = view.partner_counts
        lines.append(tr("hand.partner_counts", name=partner, trumps=trumps, plain=plain))
    seen = [(s, cs) for s, cs in enumerate(view.seen) if cs and s != seat]
    for s, cs in seen:
        lines.append(tr("hand.seen", name=seat_name(tr, table, s), cards=cards_text(tr, cs)))
    turned = view.phase not in BRAG_PHASES
    layer = partial(brag_player, tr, table, deal)  # a person who left since keeps their brag
    lines.extend(brag_lines(tr, layer, view.brag_kind, view.brag_laid, view.brag_took, turned=turned))
    if any(view.brag_took) and view.brag_took[seat]:
        lines.append(tr.n("hand.took", view.brag_took[seat]))
    if view.phase is Phase.PLAY:
        for b in blind_seats(table):  # the blind's stack: how many cards it has left to turn
            lines.append(tr.n("table.blind_stack", view.hand_sizes[b], name=seat_name(tr, table, b)))
    lines.append("")
    if away:
        lines.append(tr("prompt.away"))
    elif view.my_turn:
        key = f"prompt.{view.phase.value}"
        lines.append(tr(key, n=view.stock_size) if tr.has(key) else tr("prompt.other"))
    elif view.to_act is not None:
        name = seat_name(tr, table, view.to_act)
        key = f"phase.{view.phase.value}"
        lines.append(tr(key, name=name) if tr.has(key) else tr("phase.other", name=name))
    return Content("\n".join(lines), keyboard(tr, codec, table, view, len(deal.moves), hint=hint))


def finished_hand_content(
    tr: Tr, table: Table, deal_no: int, codec: Codec | None = None, index: int = 0, seat: int = 0
) -> Content:
    """A hand message once its deal is over: the cards go, and (given the ``codec``) a "🔍 Review"
    button asks for the analysis of the deal at ``index`` of the match for ``seat``
    (:mod:`bot.tg.coach`)."""
    text = tr("hand.over", chat=escape(table.chat_title), n=deal_no)
    if codec is None:
        return Content(text)
    data = codec.data(table.chat_id, table.thread_id, table.table_id, index, Review(seat))
    review = InlineKeyboardButton(tr("review.button"), callback_data=data)
    return Content(text, InlineKeyboardMarkup([[review]]))


def as_a_person_picks(found: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """Of a keyboard's decisions ``(label, callback data, payload)``, the ones a person would tap.

    For simulated players (the soak, the tests): the bot itself never calls it.

    In a choice of several cards (the exchange's give) a person ticks cards not yet ticked and
    confirms once the count is right, rather than toggling at random (which can take hundreds of
    taps to land on the right count and then hit the confirm button).
    """
    kinds = [(label, data, kind_of(payload)) for label, data, payload in found]
    ticks = [(label, data) for label, data, kind in kinds if kind is Tick]
    if not ticks:
        return [(label, data) for label, data, _ in found]
    confirm = [(label, data) for label, data, kind in kinds if kind is Act]
    unticked = [(label, data) for label, data in ticks if label.startswith(PICKABLE_MARK)]
    return confirm or unticked or ticks
