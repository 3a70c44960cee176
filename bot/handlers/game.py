"""The engine behind a stored table: rebuild the match and the deal in play, apply a decision, deal on.

Pure functions over :class:`bot.storage.Table`: no Telegram, no Redis. A deal is persisted as its
record (rules, deck, dealer, moves) and rebuilt by replaying the moves, which takes well under a
millisecond; the match is persisted as the engine's counters.
"""

from __future__ import annotations

import json
import random
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from bot.engine import Action, Deal, KozelError, Match, Rules, RulesError
from bot.engine.actions import action_from_json, action_to_json
from bot.engine.cards import Card
from bot.storage import MatchState, Table
from bot.storage.invariants import vouch
from bot.storage.models import PendingSummary


class Refusal(Exception):
    """A request refused for a reason the user is told (``key`` is a locale message key)."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


@dataclass(frozen=True, slots=True)
class FinishedDeal:
    """A deal just ended: the index of its record in ``match.deals`` and the messages that showed it."""

    index: int
    table_message_id: int | None
    hand_messages: dict[int, int]


@dataclass
class Progress:
    """What a change did, for the presenter: finished deals in order, and whether the match is over."""

    finished: list[FinishedDeal] = field(default_factory=list)
    match_over: bool = False
    unsupported: bool = False


def rules_of(table: Table) -> Rules:
    """The table's rules."""
    return Rules.parse(table.rules)


def match_of(table: Table, rules: Rules | None = None) -> Match:
    """The engine's match rebuilt from the stored counters."""
    m = table.match
    assert m is not None
    return Match(
        rules=rules or rules_of(table),
        dealer=m.dealer,
        deal_no=m.deal_no,
        penalty=list(m.penalty),
        eggs=m.eggs,
        eggs_in_row=m.eggs_in_row,
        loser=m.loser,
        title=m.title,
        egg_cards=tuple(Card.parse(code) for code in m.egg_cards),
    )


def _store_match(state: MatchState, match: Match) -> None:
    state.dealer = match.dealer
    state.deal_no = match.deal_no
    state.penalty = (match.penalty[0], match.penalty[1])
    state.eggs = match.eggs
    state.eggs_in_row = match.eggs_in_row
    state.loser = match.loser
    state.title = match.title
    state.egg_cards = [c.code for c in match.egg_cards]


def replay(record: dict[str, Any], rules: Rules | None = None) -> Deal:
    """A deal rebuilt from its record, finished or not."""
    rules = rules or Rules.parse(record["rules"])
    deck = [Card.parse(code) for code in record["deck"]]
    deal = Deal(rules, deck, record["dealer"], record.get("deal_no", 1), record.get("eggs_before", 0))
    for move in record.get("moves", []):
        key = next(k for k in move if k != "seat")
        deal.apply(move["seat"], action_from_json(key, move[key]))
    return deal


#: Deals rebuilt lately, by their record's JSON: a move is read by the presenter, the bot players
#: and the timers, and each would otherwise replay it.
_DEALS: OrderedDict[str, Deal] = OrderedDict()
DEALS_KEPT = 512


def _remember(key: str, deal: Deal) -> None:
    _DEALS[key] = deal
    _DEALS.move_to_end(key)
    if len(_DEALS) > DEALS_KEPT:
        _DEALS.popitem(last=False)


def deal_of(table: Table, rules: Rules | None = None) -> Deal | None:
    """The deal in play, if any: shared with other readers of the same state, so never change it."""
    if table.match is None or table.match.current is None:
        return None
    key = json.dumps(table.match.current, separators=(",", ":"))
    deal = _DEALS.get(key)
    if deal is None:
        deal = replay(table.match.current, rules)
    _remember(key, deal)
    return deal


def start_match(table: Table, rng: random.Random) -> Progress:
    """Begin a match at a full table: the first dealer is drawn at random (RULES.md §1)."""
    first = rng.randrange(4)
    table.match = MatchState(first_dealer=first, dealer=first)
    table.status = "playing"
    return deal_on(table, match_of(table), rng, Progress())


def deal_on(table: Table, match: Match, rng: random.Random, progress: Progress) -> Progress:
    """Deal the next deal, counting void deals (redeal, the deal passes) until one needs a decision."""
    state = table.match
    assert state is not None
    while not match.over:
        state.deal_seq += 1
        try:
            deal = match.new_deal(rng=random.Random(rng.getrandbits(64)))
        except RulesError:
            # A later deal of a form the engine cannot deal yet: end the match rather than hang.
            progress.unsupported = True
            break
        if not deal.over:
            state.current = deal.record()
            vouch(state.current, deal)
            return progress
        assert deal.result is not None
        state.deals.append(deal.record())
        match.add(deal.result)
        _store_match(state, match)
    state.current = None
    if match.eggs_to_draw and not match.egg_cards:
        # The losing pair draws its eggs now, once, with the table's randomness (as a deck is shuffled).
        match.draw_eggs(random.Random(rng.getrandbits(64)))
    _store_match(state, match)
    table.status = "over"
    progress.match_over = True
    return progress


def apply(table: Table, seat: int, action: Action, rng: random.Random) -> Progress:
    """Take ``action`` for ``seat`` in the deal in play; an illegal one raises the engine's error."""
    state = table.match
    if table.status != "playing" or state is None or state.current is None:
        raise Refusal("alert.no_game")
    rules = rules_of(table)
    built = deal_of(table, rules)
    assert built is not None
    deal = built.copy()  # the shared one is never changed
    deal.apply(seat, action)
    progress = Progress()
    if not deal.over:
        state.current = deal.record()
        _remember(json.dumps(state.current, separators=(",", ":")), deal)
        vouch(state.current, deal)
        return progress
    assert deal.result is not None
    state.deals.append(deal.record())
    progress.finished.append(
        FinishedDeal(len(state.deals) - 1, table.table_message_id, dict(table.hand_messages))
    )
    if table.table_message_id is not None or table.hand_messages:
        # Until the presenter has the summary shown: a restart in between must still show it.
        table.pending_summaries.append(
            PendingSummary(
                index=len(state.deals) - 1,
                table_message_id=table.table_message_id,
                hand_messages=dict(table.hand_messages),
            )
        )
    table.table_message_id = None
    table.hand_messages = {}
    table.dm_failed = []
    match = match_of(table, rules)
    match.add(deal.result)
    _store_match(state, match)
    return deal_on(table, match, rng, progress)


def match_record(table: Table) -> dict[str, Any]:
    """The match so far as a match record (RULES.md §7)."""
    deals = list(table.match.deals) if table.match else []
    record: dict[str, Any] = {"rules": table.rules, "deals": deals}
    if table.match is not None and table.match.egg_cards:
        record["egg_cards"] = list(table.match.egg_cards)
    return record


def encode_action(action: Action) -> str:
    """A short form of an action for callback data: ``pQC``, ``dS``, ``d-``, ``s1``, ``bASKS``, ``c12``…"""
    key, value = action_to_json(action)
    letter = _LETTERS[key]
    if isinstance(value, bool):
        return letter + ("1" if value else "0")
    if isinstance(value, list):
        return letter + "".join(value)
    if key == "declare" and value == "last":
        return letter + "-"
    return letter + str(value)


def decode_action(code: str) -> Action:
    """The inverse of :func:`encode_action`; raises :class:`KozelError` for anything malformed."""
    if not code:
        raise KozelError("empty action")
    key = _KEYS.get(code[0])
    rest = code[1:]
    if key is None:
        raise KozelError(f"unknown action {code!r}")
    value: Any
    if key in ("swap", "exchange"):
        if rest not in ("0", "1"):
            raise KozelError(f"bad flag {code!r}")
        value = rest == "1"
    elif key in ("brag", "exchange_give"):
        if len(rest) % 2:
            raise KozelError(f"bad cards {code!r}")
        value = [rest[i : i + 2] for i in range(0, len(rest), 2)]
    elif key == "declare":
        value = "last" if rest == "-" else rest
    elif key == "cut":
        if not rest.isdigit():
            raise KozelError(f"bad cut {code!r}")
        value = int(rest)
    else:
        value = rest
    return action_from_json(key, value)


_LETTERS = {
    "play": "p",
    "declare": "d",
    "swap": "s",
    "swap_return": "r",
    "brag": "b",
    "exchange": "e",
    "exchange_give": "g",
    "cut": "c",
    "brag_kind": "k",
}
_KEYS = {v: k for k, v in _LETTERS.items()}
