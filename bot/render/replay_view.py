"""The replay viewer of a past match: one message stepping trick by trick through each deal.

A step is a deal's start (the decisions before the first lead: brag, exchange, trump; every hand as
play begins) or the end of one of its tricks (the tricks so far, what each hand still holds); the
last step of a deal adds the points, events and penalty. Only deals whose record replays to the end
are shown (:func:`steps_of` refuses any other), so no hand of an unfinished deal is ever shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.engine import Deal
from bot.engine.cards import Card, Suit
from bot.engine.errors import RecordError
from bot.engine.record import deals_played, replay_deal
from bot.engine.rules import Rules
from bot.render import sochi_view
from bot.render.content import Content
from bot.render.i18n import Tr
from bot.render.labels import card_player, move_player, pair_players, seat_player
from bot.render.table_view import trick_line, void_lines
from bot.render.words import cards_text, suit_text, three_seats
from bot.stats.entry import entry_id, meta_of
from bot.storage import MatchState, Seat, Table
from bot.table.codec import Codec
from bot.table.payloads import View
from bot.table.rotation import entry_seated


class Unfinished(Exception):
    """The deal does not replay to its end: it is not shown."""


@dataclass(frozen=True)
class Steps:
    """A finished deal, where each step's moves end (``cuts[k]``: the moves taken at step ``k``) and
    each seat's cards at that step (``hands[k][seat]``)."""

    deal: Deal
    cuts: list[int]
    hands: list[tuple[tuple[Card, ...], ...]]

    @property
    def last(self) -> int:
        """The last step's number."""
        return len(self.cuts) - 1


def steps_of(record: dict[str, Any], rules: Rules) -> Steps:
    """A deal's steps; raises :class:`Unfinished` unless the record replays to the deal's end.

    Step ``k`` is the end of the deal's ``k``-th trick as the engine took it, not a count of moves:
    a blind's cards are played with no move of its own, ``sochi`` has three seats and the brag trick
    is laid by brag moves before play. Step 0 is play's start (every decision before the first card
    played); the brag trick, taken by then, is step 1 with the same hands. A step's hands are what
    each seat held once its trick was taken: the cards a blind has already turned for the next
    trick (automatically, after the move that ended this one) are still in its hand.
    """
    try:
        deal = replay_deal(record, rules)
    except RecordError as e:
        raise Unfinished(str(e)) from None
    moves = record.get("moves", [])
    first = next((i for i, m in enumerate(moves) if "play" in m), len(moves))
    live = Deal.from_record(record, rules)
    for move in moves[:first]:
        live.apply_recorded(move)
    cuts, hands = [first], [_held(live)]
    for _ in live.tricks:  # the brag's, taken before play
        cuts.append(first)
        hands.append(hands[0])
    for i in range(first, len(moves)):
        live.apply_recorded(moves[i])
        while len(cuts) <= len(live.tricks):
            cuts.append(i + 1)
            hands.append(_held(live))
    assert deal.result is not None
    # A void deal shows no trick (a redeal after the brag's trick was taken): its one step is its end.
    shown = len(deal.result.tricks) + 1
    cuts, hands = cuts[:shown], hands[:shown]
    cuts[-1] = len(moves)
    return Steps(deal, cuts, hands)


def _held(deal: Deal) -> tuple[tuple[Card, ...], ...]:
    """Each seat's cards as the last trick taken left them: its hand and any card it has put into
    the trick in play since (a blind's, turned automatically; none once the deal is over)."""
    placed = deal.trick if deal.result is None else []
    out = []
    for seat in range(deal.n):
        cs = deal.hand(seat) + [c for s, c in placed if s == seat]
        out.append(tuple(deal.tables.sorted(cs) if deal.tables is not None else cs))
    return tuple(out)


def table_of(entry: dict[str, Any], tr: Tr) -> Table:
    """A stand-in table naming the entry's players, for the shared views (seat and pair names)."""
    meta = meta_of(entry)
    seats: list[Seat | None] = []
    rules = Rules.parse(entry["rules"])
    n = rules.seats  # three in sochi
    for i, person in enumerate(rules.seating(1)):
        player = meta.seats[i] if meta is not None and len(meta.seats) == n else None
        if person is None:  # a blind: nobody sits there, it is named after its partner as at the table
            seats.append(None)
        elif player is None:
            seats.append(Seat(kind="human", name=tr("replay.seat", n=i + 1)))
        else:
            kind: Literal["human", "bot"] = "human" if player.is_person else "bot"
            seats.append(Seat(kind=kind, name=player.name, user_id=player.user_id, level=player.level))
    # Who played what where it was not the seat's last player: the viewer names each deal's cards,
    # decisions and seats as the table did (bot/render/labels.py).
    match = MatchState(
        first_dealer=0,
        dealer=0,
        played_by=meta.played_by if meta is not None else {},
        left=meta.left if meta is not None else {},
    )
    return Table(
        table_id=meta.id if meta is not None else "0",
        chat_id=meta.chat_id if meta is not None else 0,
        creator_id=0,
        rules=entry["rules"],
        seats=seats,
        match=match,
    )


def _move_line(tr: Tr, table: Table, index: int, k: int, move: dict[str, Any]) -> str | None:
    key = next((k for k in move if k != "seat"), None)
    if key is None or key == "play" or not tr.has(f"replay.move.{key}"):
        return None
    value = move[key]
    if isinstance(value, bool):
        shown = tr("val.on" if value else "val.off")
    elif isinstance(value, list):
        shown = cards_text(tr, [Card.parse(c) for c in value])
    elif key == "declare":
        shown = tr("replay.last") if value == "last" else suit_text(tr, Suit(value))
    elif key == "swap_return":
        shown = cards_text(tr, [Card.parse(value)])
    else:
        shown = str(value)
    return tr(f"replay.move.{key}", name=move_player(tr, table, index, move["seat"], k), value=shown)


def view_content(tr: Tr, codec: Codec, entry: dict[str, Any], index: int, step: int, chat_id: int) -> Content:
    """Deal ``index`` of the entry's match at ``step`` (clamped), with its ◀ ▶ keyboard."""
    rules = Rules.parse(entry["rules"])
    records = entry["deals"]
    record = records[index]
    steps = steps_of(record, rules)
    step = max(0, min(step, steps.last))
    # ``blind_rotates``: the entry's seats are the people's of deal 1; this deal has them moved.
    table = entry_seated(table_of(entry, tr), rules, record.get("deal_no", 1))
    moves = record.get("moves", [])
    deal = steps.deal
    result = deal.result
    assert result is not None
    lines = [
        _title(tr, deal, records, rules, step, steps.last),
        tr("table.title", n=deal.deal_no, dealer=card_player(tr, table, index, deal.dealer, None)),
        tr("table.trump", suit=suit_text(tr, deal.trump)),
        *_talon_lines(tr, table, index, deal),
    ]
    decided = [
        line
        for k, m in enumerate(moves[: steps.cuts[step]])
        if (line := _move_line(tr, table, index, k, m)) is not None
    ]
    if decided:
        lines += ["", *decided]
    if step > 0:
        lines += ["", tr("table.tricks")]
        lines.extend(trick_line(tr, table, i + 1, t, index) for i, t in enumerate(result.tricks[:step]))
    # The deal is over at its last step: every hand as play began.
    held = steps.hands[0 if step == steps.last else step]
    lines += ["", tr("replay.hands_start" if step == steps.last else "replay.hands")]
    for seat in range(len(table.seats)):
        lines.append(f"{seat_player(tr, table, index, seat)}: {cards_text(tr, held[seat]) or '—'}")
    if step == steps.last and result.void:  # and why, as the next deal's table said it
        lines += ["", tr("replay.void"), *void_lines(tr, table, index, deal)]
    elif step == steps.last:
        # sochi: the sides were formed for this deal
        shown = three_seats(table) and sochi_view.replay_result_line(tr, table, result)
        lines += ["", shown or _result_line(tr, table, index, result.points, result.penalty)]
        lines.extend(tr(f"event.{e}") for e in result.events if tr.has(f"event.{e}") and e != "swap")
    return Content(
        "\n".join(lines), _keyboard(tr, codec, chat_id, entry, index, step, steps.last, len(records))
    )


def _title(tr: Tr, deal: Deal, records: list[dict[str, Any]], rules: Rules, step: int, last: int) -> str:
    """The viewer's first line: the deal's number in the match, as its table showed it, of the deals
    played; a void deal (dealt again under the same number, RULES.md §1) is no deal of its own."""
    assert deal.result is not None
    if deal.result.void:  # no trick is taken in a void deal (its result has none): no step to name
        return tr("replay.title_void", n=deal.deal_no)
    return tr("replay.title", n=deal.deal_no, of=deals_played(records, rules), step=step, last=last)


def _talon_lines(tr: Tr, table: Table, index: int, deal: Deal) -> list[str]:
    """sochi: the talon, shown to all at the table, and who took it to play alone (at every step:
    his hand holds its cards); a talon holding the ♣Q was nobody's (the deal is void)."""
    t = deal.talon
    if not three_seats(table) or not t.talon:
        return []
    cards = cards_text(tr, t.talon)
    if t.lone is None:
        return [tr("sochi.talon", cards=cards)]
    return [tr("sochi.lone_was", name=seat_player(tr, table, index, t.lone), cards=cards)]


def _result_line(tr: Tr, table: Table, index: int, points: tuple[int, int], penalty: tuple[int, int]) -> str:
    return tr(
        "replay.result",
        a=pair_players(tr, table, index, 0),
        b=pair_players(tr, table, index, 1),
        pa=points[0],
        pb=points[1],
        qa=penalty[0],
        qb=penalty[1],
    )


#: The viewer's step buttons (by which a viewer message is told from the /history list it came from).
STEPS = ("◀", "▶")


def _keyboard(
    tr: Tr, codec: Codec, chat_id: int, entry: dict[str, Any], index: int, step: int, last: int, deals: int
) -> InlineKeyboardMarkup:
    match_id = entry_id(entry)

    def button(text: str, d: int, s: int) -> InlineKeyboardButton:
        return InlineKeyboardButton(text, callback_data=codec.data(chat_id, None, match_id, 0, View(d, s)))

    back = (index, step - 1) if step > 0 else (index - 1, 999) if index > 0 else None
    forward = (index, step + 1) if step < last else (index + 1, 0) if index + 1 < deals else None
    row = []
    if back is not None:
        row.append(button(STEPS[0], *back))
    if forward is not None:
        row.append(button(STEPS[1], *forward))
    jumps = []
    if index > 0:
        jumps.append(button(tr("replay.prev_deal"), index - 1, 0))
    if index + 1 < deals:
        jumps.append(button(tr("replay.next_deal"), index + 1, 0))
    return InlineKeyboardMarkup([r for r in (row, jumps) if r])
