"""Deal and match records (RULES.md §7): replay them, refuse bad ones with the move's index and why."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.engine.actions import KEYS, action_from_json
from bot.engine.cards import Card
from bot.engine.deal import Deal
from bot.engine.errors import KozelError, RecordError
from bot.engine.match import Match
from bot.engine.rules import VERSION, Rules

_MOVE_KEYS = frozenset(KEYS.values())
_M = TypeVar("_M", bound=BaseModel)


class DealRecord(BaseModel):
    """The JSON shape of one deal's record."""

    model_config = ConfigDict(extra="forbid")

    rules: dict[str, Any] | None = None
    deal_no: int = Field(1, ge=1)
    dealer: int = Field(ge=0, le=3)
    deck: list[str]
    moves: list[dict[str, Any]] = Field(default_factory=list)
    #: ``flip``: how many 60-60 deals in a row came just before (the penalty multiplier); a match
    #: record derives it.
    eggs_before: int | None = Field(None, ge=0)
    #: The reading of the rules the deal was played by (:data:`bot.engine.rules.VERSION`); 1 if absent.
    version: int = Field(1, ge=1, le=VERSION)


class MatchRecord(BaseModel):
    """The JSON shape of a match record: the rules and every deal's record in order."""

    model_config = ConfigDict(extra="forbid")

    rules: dict[str, Any]
    deals: list[DealRecord]
    #: The cards the losing pair drew for the eggs at the end (two per egg, the diameter first).
    egg_cards: list[str] | None = None


def is_match_record(data: Any) -> bool:
    """Whether ``data`` looks like a match record rather than a deal record."""
    return isinstance(data, dict) and "deals" in data


def replay_deal(data: Any, rules: Rules | None = None, match: Match | None = None) -> Deal:
    """Replay a deal record to its end; raises :class:`RecordError` naming the move and the reason."""
    rec = _validate(DealRecord, data)
    if rec.rules is not None:
        own = _rules(rec.rules)
        if rules is not None and own != rules:
            raise RecordError("the deal's rules differ from the match's")
        rules = own
    if rules is None:
        raise RecordError("the record has no rules")
    deck = []
    for i, code in enumerate(rec.deck):
        try:
            deck.append(Card.parse(code))
        except KozelError as e:
            raise RecordError(f"deck[{i}]: {e}") from None
    eggs_before = rec.eggs_before or 0
    if match is not None:
        if rec.dealer != match.dealer or rec.deal_no != match.deal_no:
            raise RecordError(
                f"deal_no {rec.deal_no} dealt by seat {rec.dealer}, but the match is at deal_no "
                f"{match.deal_no} dealt by seat {match.dealer}"
            )
        if rec.eggs_before is not None and rec.eggs_before != match.eggs_before:
            raise RecordError(f"eggs_before is {rec.eggs_before}, but the match has {match.eggs_before}")
        eggs_before = match.eggs_before
    try:
        deal = Deal(rules, deck, rec.dealer, rec.deal_no, eggs_before, version=rec.version)
    except KozelError as e:
        raise RecordError(str(e)) from None
    for i, move in enumerate(rec.moves):
        if deal.over:
            raise RecordError(f"move {i}: the deal is already over", i)
        seat, action = _move(i, move, rules.seats)
        try:
            deal.apply(seat, action)
        except KozelError as e:
            raise RecordError(f"move {i}: {e}", i) from None
    if not deal.over:
        n = len(rec.moves)
        raise RecordError(
            f"move {n}: missing: the deal is not over, seat {deal.to_act} is to "
            f"{deal.phase.value.replace('_', ' ')}",
            n,
        )
    return deal


def deal_result(data: Any) -> dict[str, Any]:
    """The result JSON of a deal record (RULES.md §7)."""
    deal = replay_deal(data)
    assert deal.result is not None
    return deal.result.to_json()


def match_result(data: Any) -> dict[str, Any]:
    """The result JSON of a match record: every deal, the running penalty, the loser and the title."""
    rec = _validate(MatchRecord, data)
    rules = _rules(rec.rules)
    if not rec.deals:
        raise RecordError("the match record has no deals")
    match = Match(rules, dealer=rec.deals[0].dealer)
    deals = []
    for j, d in enumerate(rec.deals):
        if match.over:
            raise RecordError(f"deal {j}: the match is already over", j)
        try:
            deal = replay_deal(d.model_dump(exclude_none=True), rules, match)
        except RecordError as e:
            raise RecordError(f"deal {j}: {e}", j) from None
        assert deal.result is not None
        seating = match.seating
        match.add(deal.result)
        # Individual scores (``sochi``, ``blind_rotates``): the running totals are per person.
        totals = match.scores if match.people else match.penalty
        entry: dict[str, Any] = {"deal_no": deal.deal_no, "dealer": deal.dealer}
        if rules.blind_rotates:
            # Who sat where this deal: the person at each seat, the blind's (seat 3) no one.
            entry["people"] = list(seating)
        deals.append(entry | deal.result.to_json() | {"totals": list(totals)})
    out: dict[str, Any] = {"deals": deals}
    if match.people:
        out |= {"scores": list(match.scores), "eggs": match.eggs, "goats": list(match.goats)}
    else:
        out |= {"penalty": list(match.penalty), "eggs": match.eggs, "loser": match.loser}
    out["title"] = match.title
    if rec.egg_cards is not None:
        try:
            match.set_egg_cards([Card.parse(code) for code in rec.egg_cards])
        except KozelError as e:
            raise RecordError(f"egg_cards: {e}") from None
        draw = match.egg_draw
        out["egg_draw"] = draw.to_json() if draw is not None else None
    return out


def deals_played(records: Iterable[Any], rules: Rules) -> int:
    """How many deals a match's deal ``records`` played, as people count them.

    A void deal (four queens in one hand, ``sochi``'s ♣Q in the talon, ``flip``'s deal passing) is
    dealt again under the same number (RULES.md §1): it is in the record, but no deal played. A record
    that does not replay to its end (one cut short) cannot be told void: it counts as played.
    """
    played = 0
    for data in records:
        try:
            result = replay_deal(data, rules).result
        except RecordError:
            result = None
        played += result is None or not result.void
    return played


def result_of(data: Any) -> dict[str, Any]:
    """The result JSON of a deal or a match record."""
    return match_result(data) if is_match_record(data) else deal_result(data)


def dumps(obj: Any, indent: int = 0, width: int = 100) -> str:
    """JSON with small parts on one line (a trick per line), for people reading replays."""
    flat = json.dumps(obj, ensure_ascii=False)
    if len(flat) + indent <= width or not isinstance(obj, dict | list) or not obj:
        return flat
    pad = " " * (indent + 2)
    if isinstance(obj, dict):
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: {dumps(v, indent + 2, width)}" for k, v in obj.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + dumps(v, indent + 2, width) for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def _move(i: int, move: dict[str, Any], seats: int = 4) -> tuple[int, Any]:
    seat = move.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in range(seats):
        raise RecordError(f"move {i}: 'seat' must be a seat 0-{seats - 1}, not {seat!r}", i)
    keys = [k for k in move if k != "seat"]
    if len(keys) != 1:
        raise RecordError(
            f"move {i}: a move has 'seat' and exactly one of {', '.join(sorted(_MOVE_KEYS))}", i
        )
    try:
        return seat, action_from_json(keys[0], move[keys[0]])
    except KozelError as e:
        raise RecordError(f"move {i}: {e}", i) from None


def _rules(data: dict[str, Any]) -> Rules:
    try:
        return Rules.parse(data)
    except KozelError as e:
        raise RecordError(str(e)) from None


def _validate(model: type[_M], data: Any) -> _M:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'record'}: {err['msg']}" for err in e.errors()
        )
        raise RecordError(f"malformed record: {problems}") from None
