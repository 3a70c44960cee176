"""The engine behind a stored table: rebuild the match and the deal in play, apply a decision, deal on.

Pure functions over :class:`bot.storage.Table`: no Telegram, no Redis. A deal is persisted as its
record (rules, deck, dealer, moves) and rebuilt by replaying the moves, which takes well under a
millisecond; the match is persisted as the engine's counters. The table use case
(:mod:`bot.table.usecase`) rebuilds a deal once per change (or takes it from its cache) and
hands it in: :func:`play` applies a decision to that deal, and every :class:`Progress` says which
deal is in play afterwards.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from bot.engine import Action, Deal, Match, Rules, RulesError
from bot.engine.cards import Card, Suit
from bot.engine.rules import decider_of
from bot.storage import MatchState, Table
from bot.storage.invariants import vouch
from bot.storage.models import PendingSummary
from bot.table.payloads import decode_action as decode_action  # re-exported: its old home
from bot.table.payloads import encode_action as encode_action
from bot.table.rotation import reseat

#: A suit's symbol, as a refusal names it (``alert.must_follow_suit``) and every text shows it.
SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦"}


class Refusal(Exception):
    """A request refused for a reason the user is told (``key`` is a locale message key)."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


class Notice(Refusal):
    """A tap that changes nothing and needs no reading (a double tap, a seat taken, a button only the
    creator may use): answered with a toast, not an alert to dismiss."""


@dataclass(frozen=True, slots=True)
class FinishedDeal:
    """A deal just ended: the index of its record in ``match.deals`` and the messages that showed it."""

    index: int
    table_message_id: int | None
    hand_messages: dict[int, int]
    #: The hand messages of the deal before it ("deal N is over" lines) to delete, by person's id.
    earlier: dict[int, int] = field(default_factory=dict)


@dataclass
class Progress:
    """What a change did, for the presenter: finished deals in order, and whether the match is over.

    ``deal``: the deal in play afterwards, as the engine built it (None once the match is over);
    shared with every reader of the new state, so never changed.
    """

    finished: list[FinishedDeal] = field(default_factory=list)
    match_over: bool = False
    unsupported: bool = False
    deal: Deal | None = None


def decider(table: Table, seat: int) -> int:
    """The seat whose occupant takes ``seat``'s decisions: a blind's partner brags for it."""
    return decider_of(str(table.rules.get("preset")), seat)


def rules_of(table: Table) -> Rules:
    """The table's rules, validated once per distinct form (every tap and every render asks; rules are
    frozen, so one instance serves every table with the same ones; a bad form raises each time)."""
    form = repr(table.rules)  # JSON values: an equal repr is an equal form
    rules = _PARSED.get(form)
    if rules is None:
        rules = Rules.parse(table.rules)
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.clear()
        _PARSED[form] = rules
    return rules


#: Rules by the repr of their stored form, at most :data:`_PARSED_KEPT` (then forgotten at once).
_PARSED: dict[str, Rules] = {}
_PARSED_KEPT = 1024


def target_of(table: Table) -> int:
    """The penalty that makes the goat at this table (the rules' match target, 12 unless changed)."""
    return rules_of(table).options.match_target


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
        scores=list(m.scores),
        goats=tuple(m.goats),
    )


def _store_match(table: Table, match: Match) -> None:
    state = table.match
    assert state is not None
    # ``blind_rotates``: the people move to their seats of the next deal with the deal number.
    reseat(table, match.rules, state.deal_no, match.deal_no)
    state.scores = list(match.scores)
    state.goats = list(match.goats)
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
    deal = Deal.from_record(record, rules)
    for move in record.get("moves", []):
        deal.apply_recorded(move)
    return deal


def deal_of(table: Table, rules: Rules | None = None) -> Deal | None:
    """The deal in play, if any, rebuilt from its record (tools and tests; the bot's own path takes
    it from the use case's snapshot, which rebuilds it once)."""
    if table.match is None or table.match.current is None:
        return None
    return replay(table.match.current, rules)


def start_match(table: Table, rng: random.Random) -> Progress:
    """Begin a match at a full table: the first dealer is drawn at random (RULES.md §1)."""
    first = rng.randrange(rules_of(table).seats)
    table.match = MatchState(first_dealer=first, dealer=first)
    table.status = "playing"
    match = match_of(table)
    _store_match(table, match)  # individual scores: everyone at 0 from the start
    return deal_on(table, match, rng, Progress())


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
            progress.deal = deal
            return progress
        assert deal.result is not None
        state.deals.append(deal.record())
        match.add(deal.result)
        _store_match(table, match)
    state.current = None
    if match.eggs_to_draw and not match.egg_cards:
        # The losing pair draws its eggs now, once, with the table's randomness (as a deck is shuffled).
        match.draw_eggs(random.Random(rng.getrandbits(64)))
    _store_match(table, match)
    table.status = "over"
    progress.match_over = True
    return progress


def apply(table: Table, seat: int, action: Action, rng: random.Random) -> Progress:
    """Take ``action`` for ``seat`` in the deal in play, rebuilt from its record (tools and tests)."""
    return play(table, deal_of(table), seat, action, rng)


def play(table: Table, built: Deal | None, seat: int, action: Action, rng: random.Random) -> Progress:
    """Take ``action`` for ``seat`` in ``built``, the deal in play of ``table`` (never changed: a copy
    takes the move); an illegal one raises the engine's error."""
    state = table.match
    if table.status != "playing" or state is None or state.current is None or built is None:
        raise Refusal("alert.no_game")
    deal = built.copy()
    deal.apply(seat, action)
    progress = Progress()
    if not deal.over:
        state.current = deal.record()
        vouch(state.current, deal)
        progress.deal = deal
        return progress
    assert deal.result is not None
    state.deals.append(deal.record())
    # The private chats keep one "deal N is over" line: this deal's hands become it, the last go.
    earlier = dict(table.over_lines)
    table.over_lines = {
        person.user_id: table.hand_messages[seat]
        for seat, person in table.humans
        if person.user_id is not None and seat in table.hand_messages
    }
    progress.finished.append(
        FinishedDeal(len(state.deals) - 1, table.table_message_id, dict(table.hand_messages), earlier)
    )
    if table.table_message_id is not None or table.hand_messages or earlier:
        # Until the presenter has the summary shown: a restart in between must still show it.
        table.pending_summaries.append(
            PendingSummary(
                index=len(state.deals) - 1,
                table_message_id=table.table_message_id,
                hand_messages=dict(table.hand_messages),
                earlier=earlier,
            )
        )
    table.table_message_id = None
    table.hand_messages = {}
    table.pushed = {}
    table.dm_failed = []
    rules = deal.rules
    match = match_of(table, rules)
    match.add(deal.result)
    _store_match(table, match)
    return deal_on(table, match, rng, progress)


def decided_himself(table: Table, seat: int) -> None:
    """A person took a decision: their timeouts in a row start over and they are no longer away."""
    table.timeouts.pop(seat, None)
    if seat in table.away:
        table.away.remove(seat)


def match_record(table: Table) -> dict[str, Any]:
    """The match so far as a match record (RULES.md §7)."""
    deals = list(table.match.deals) if table.match else []
    record: dict[str, Any] = {"rules": table.rules, "deals": deals}
    if table.match is not None and table.match.egg_cards:
        record["egg_cards"] = list(table.match.egg_cards)
    return record
