"""The checks every stored table state must pass: card conservation in the deal, a sane match.

:class:`bot.storage.RedisStorage` runs :func:`table_problems` on every table it saves and refuses to
store a state that fails (:class:`InvariantViolation`): a bug must not be written into a game.
``deep=True`` also replays every finished deal of the match, checking every state each deal went
through, and recounts the match; the restart tests and ``python -m bot.measure.soak`` scan stored tables so.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from bot.engine import Deal, KozelError, Match, Rules
from bot.engine.invariants import conservation_problems, replay_checked
from bot.storage.models import Table


class InvariantViolation(Exception):
    """A table state that breaks an invariant; the message names the table and what is wrong."""


#: Deals the engine built by applying moves, by the id of the record they gave (with the record, to
#: be sure the id is still that object's): see :func:`vouch`.
_VOUCHED: OrderedDict[int, tuple[Mapping[str, Any], Deal]] = OrderedDict()
VOUCHED_KEPT = 512


def vouch(record: Mapping[str, Any], deal: Deal) -> None:
    """``deal`` is what the engine made of ``record`` (its :meth:`Deal.record`): the quick check of a
    table holding this record checks ``deal`` rather than replaying the record again.

    A move applied and saved would otherwise be replayed once more for the check alone (twice the
    time of this path). The check still makes sure the record is the one ``deal`` gives: a record
    changed since is replayed as before.
    """
    _VOUCHED[id(record)] = (record, deal)
    _VOUCHED.move_to_end(id(record))
    if len(_VOUCHED) > VOUCHED_KEPT:
        _VOUCHED.popitem(last=False)


#: Vouched deals found whole, by id (with the deal, and its number of moves then): a deal checked at
#: a move needs no second check at that move (a save that stores only a message id).
_CONSERVED: OrderedDict[int, tuple[Deal, int]] = OrderedDict()


def _conservation(deal: Deal) -> list[str]:
    """:func:`conservation_problems` of a vouched deal, once per move it is checked at."""
    moves = len(deal.moves)
    seen = _CONSERVED.get(id(deal))
    if seen is not None and seen[0] is deal and seen[1] == moves:
        return []
    found = conservation_problems(deal)
    if not found:
        _CONSERVED[id(deal)] = (deal, moves)
        _CONSERVED.move_to_end(id(deal))
        if len(_CONSERVED) > VOUCHED_KEPT:
            _CONSERVED.popitem(last=False)
    return found


def _vouched(record: Mapping[str, Any]) -> Deal | None:
    found = _VOUCHED.get(id(record))
    if found is None or found[0] is not record or record != found[1].record():
        return None
    return found[1]


def table_problems(table: Table, *, deep: bool = False) -> list[str]:
    """What is wrong with ``table`` (empty when nothing is)."""
    m = table.match
    problems: list[str] = []
    if table.status == "lobby":
        if m is not None:
            problems.append("a lobby with a match")
        return problems
    if m is None:
        return [f"a {table.status} table without a match"]
    try:
        rules = Rules.parse(table.rules)
    except KozelError as e:
        return [f"rules: {e}"]
    if min(m.penalty) < 0:
        problems.append(f"negative penalty {list(m.penalty)}")
    if m.loser is not None and (m.loser not in (0, 1) or table.status != "over"):
        problems.append(f"loser {m.loser} at a {table.status} table")
    if m.goats and table.status != "over":
        problems.append(f"goats {list(m.goats)} at a {table.status} table")
    if min(m.scores, default=0) < 0:
        problems.append(f"negative scores {list(m.scores)}")
    if len(table.seats) != rules.seats:
        problems.append(f"{len(table.seats)} seats for {rules.seats}-seat rules")
    if (table.status == "playing") != (m.current is not None):
        problems.append(f"a {table.status} table {'with' if m.current else 'without'} a deal in play")
    in_play = 1 if m.current is not None else 0
    # One more dealt than stored only when a deal of a form the engine cannot deal ended the match.
    if not len(m.deals) + in_play <= m.deal_seq <= len(m.deals) + in_play + (table.status == "over"):
        problems.append(f"deal_seq {m.deal_seq} with {len(m.deals)} finished deal(s) and {in_play} in play")
    if m.current is not None:
        cur = m.current
        if cur.get("deal_no", 1) != m.deal_no or cur.get("dealer") != m.dealer:
            problems.append(
                f"the deal in play is deal {cur.get('deal_no', 1)} by seat {cur.get('dealer')}, "
                f"the match is at deal {m.deal_no} by seat {m.dealer}"
            )
        deal = None if deep else _vouched(cur)
        if deal is not None:
            found = _conservation(deal)
        else:
            deal, found = replay_checked(cur, rules, every_move=deep)
        problems.extend(f"deal in play, {p}" for p in found)
        if not found and deal is not None and deal.over:
            problems.append("the deal in play is over")
    if deep:
        problems.extend(_match_problems(table, rules))
    return problems


def _match_problems(table: Table, rules: Rules) -> list[str]:
    """Replay every finished deal (checking every state) and recount the match from the results."""
    m = table.match
    assert m is not None
    match = Match(rules, dealer=m.first_dealer)
    problems: list[str] = []
    for i, record in enumerate(m.deals):
        if record.get("dealer") != match.dealer or record.get("deal_no", 1) != match.deal_no:
            problems.append(
                f"finished deal {i} is dealt by {record.get('dealer')} as deal "
                f"{record.get('deal_no', 1)}; the match says {match.dealer}, {match.deal_no}"
            )
        deal, found = replay_checked(record, rules, every_move=True)
        problems.extend(f"finished deal {i}, {p}" for p in found)
        if found or deal is None:
            return problems
        if deal.result is None:
            return [*problems, f"finished deal {i} is not over"]
        try:
            match.add(deal.result)
        except KozelError as e:
            return [*problems, f"finished deal {i}: {e}"]
    counters: dict[str, tuple[Any, Any]] = {
        "penalty": (tuple(match.penalty), tuple(m.penalty)),
        "dealer": (match.dealer, m.dealer),
        "deal_no": (match.deal_no, m.deal_no),
        "eggs": (match.eggs, m.eggs),
        "loser": (match.loser, m.loser),
        # Individual scores (3-person sochi, blind_rotates): each person's total and the goat(s).
        "scores": (list(match.scores), list(m.scores)),
        "goats": (list(match.goats), list(m.goats)),
    }
    for name, (recounted, stored) in counters.items():
        if recounted != stored:
            problems.append(f"stored {name} {stored} but the deals give {recounted}")
    if m.egg_cards and len(m.egg_cards) != 2 * match.eggs_to_draw:
        problems.append(
            f"stored {len(m.egg_cards)} egg cards but the deals give {match.eggs_to_draw} eggs to draw"
        )
    return problems


def check_table(table: Table) -> None:
    """Raise :class:`InvariantViolation` if ``table`` fails :func:`table_problems` (the quick form)."""
    problems = table_problems(table)
    if problems:
        raise InvariantViolation(f"table {table.table_id} in chat {table.chat_id}: " + "; ".join(problems))
