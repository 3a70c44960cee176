"""How soon the group's table message shows a card played (both modes).

A card's tap is noted (:class:`~bot.measure.bench.players.CardTap`) with the wall time just before
it is posted (the page's ``api/act``, or the DM hand's button), the group, the deal's number and the
card as the group reads it. The emulator logs every Bot API call with the same clock and the message
it left, so the group's table message is followed call by call: each ``sendMessage`` and
``editMessageText`` to the group whose text has the table's title for that deal (``table.title``). A
card is *shown* once the message lists it among the deal's played cards: in a trick line under
``table.tricks``, or in the ``table.on_table`` line. A card played stays listed until the deal ends,
so the first such call at or after the tap is when the group could see it.

The deal's summary in the group (its trick lines, in play order) tells which trick each card was in
and whether it ended that trick. The deal's last trick is left out: it ends the deal, whose summary (a
message of its own) shows it, not the table message. Reported: every card's tap → shown (a card inside
a trick included, which the Mini App mode shows only with its trick's end), the trick-ending card's tap
→ shown, and how many cards the table message never showed (the group's pace folded the deal's edits
into fewer, and the deal ended first). What may hold a trick's edit back is the group's pace (a call
every ``Limits.group_interval``): the trick-ending taps that came sooner than that after the group's
previous call are counted; and the cards a minute a table played tell how many calls a minute a group
table showing every card would need.
"""

from __future__ import annotations

import bisect
import re
import statistics
from dataclasses import dataclass, field
from typing import Any

from bot.measure.bench.figures import SPENDING, ms
from bot.measure.bench.players import TR, CardTap, deal_number, title
from bot.sandbox import ApiCall
from bot.table.core import Limits

#: The calls that leave a message's text (the table message is text).
SHOWING = frozenset({"sendMessage", "editMessageText"})
_TRICK = re.compile(r"(\d+)\. (.+?)(?: → .*)?")
TABLE_TITLE = title("table.title")
SUMMARY_TITLE = title("summary.title")
TRICKS = TR("table.tricks")
ON_TABLE = TR("table.on_table", cards="")


def _cards(plays: str) -> list[str]:
    """``Аня 10♠ · Борис Т♠``: each play's card, its last word."""
    return [p.rsplit(" ", 1)[-1] for p in plays.split(" · ")]


def _trick_lines(lines: list[str]) -> list[list[str]]:
    """The cards of the trick lines at the start of ``lines``, one list a trick."""
    out = []
    for line in lines:
        found = _TRICK.fullmatch(line)
        if found is None:
            break
        out.append(_cards(found.group(2)))
    return out


def shown_cards(text: str) -> set[str]:
    """The cards a table message lists as played: its trick lines and the cards on the table."""
    lines = text.splitlines()
    shown: set[str] = set()
    if TRICKS in lines:
        for trick in _trick_lines(lines[lines.index(TRICKS) + 1 :]):
            shown.update(trick)
    for line in lines:
        if line.startswith(ON_TABLE) and line != ON_TABLE + "—":
            shown.update(_cards(line[len(ON_TABLE) :]))
    return shown


def summary_tricks(text: str) -> list[list[str]]:
    """A deal summary's tricks (the lines right under its title), each trick's cards in play order."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if SUMMARY_TITLE.fullmatch(line):
            return _trick_lines(lines[i + 1 :])
    return []


@dataclass
class Followed:
    """Each card's tap and the seconds until the group's table message showed it (``ending``: the
    cards that ended a trick), how many cards it never showed (the deals' last tricks left out), and
    how many trick-ending taps came sooner than the group's pace after its previous call (``paced``:
    their edit may wait for the pace)."""

    every: list[tuple[CardTap, float]] = field(default_factory=list)
    ending: list[tuple[CardTap, float]] = field(default_factory=list)
    never: int = 0
    paced: int = 0


def follow(calls: list[ApiCall], taps: list[CardTap], pace: float = Limits().group_interval) -> Followed:
    """How soon each group's table message showed the cards tapped (the Bot API ``calls`` in order;
    ``pace``: seconds between two calls to a group)."""
    shows: dict[tuple[int, int], list[tuple[float, set[str]]]] = {}
    tricks: dict[tuple[int, int], list[list[str]]] = {}
    spent: dict[int, list[float]] = {}
    for call in calls:
        if not call.ok or call.chat_id is None:
            continue
        if call.method in SPENDING:
            spent.setdefault(call.chat_id, []).append(call.time)
        if call.method not in SHOWING:
            continue
        text = call.result.get("text") if isinstance(call.result, dict) else None
        if not text:
            continue
        deal = deal_number(text, [TABLE_TITLE])
        if deal is not None:
            shows.setdefault((call.chat_id, deal), []).append((call.time, shown_cards(text)))
            continue
        done = deal_number(text, [SUMMARY_TITLE])
        if done is not None:
            tricks.setdefault((call.chat_id, done), summary_tricks(text))
    out = Followed()
    for tap in taps:
        key = (tap.chat_id, tap.deal)
        where = [(i, t.index(tap.card), len(t)) for i, t in enumerate(tricks.get(key, [])) if tap.card in t]
        if not where or where[0][0] == len(tricks[key]) - 1:
            continue  # a deal with no summary (stopped), or its last trick
        _, place, size = where[0]
        shown = next((t for t, cards in shows.get(key, []) if t >= tap.at and tap.card in cards), None)
        if shown is None:
            out.never += 1
            continue
        out.every.append((tap, shown - tap.at))
        if place == size - 1:
            out.ending.append((tap, shown - tap.at))
            times = spent.get(tap.chat_id, [])
            before = bisect.bisect_left(times, tap.at)
            out.paced += bool(before) and tap.at - times[before - 1] < pace
    return out


def group_figures(calls: list[ApiCall], taps: list[CardTap]) -> dict[str, Any]:
    """The figures of :func:`follow`: median, p95 and max of each kind of card, the counts, and how
    many cards a minute a table played (a group table showing each would need as many calls)."""
    got = follow(calls, taps)
    every, ending = [s for _, s in got.every], [s for _, s in got.ending]
    deals: dict[tuple[int, int], list[float]] = {}
    for tap in taps:
        deals.setdefault((tap.chat_id, tap.deal), []).append(tap.at)
    # Cards played a minute at a table, from its deal's first card to its last.
    rates = [60 * (len(t) - 1) / (max(t) - min(t)) for t in deals.values() if max(t) > min(t)]
    return {
        "cards_a_minute_at_a_table_median": round(statistics.median(rates), 1) if rates else None,
        "group_table_cards_measured": len(every),
        "group_table_trick_ends_measured": len(ending),
        "group_table_trick_ends_within_the_pace": got.paced,
        "group_table_cards_never_shown": got.never,
        "tap_to_group_table_ms_median": ms(every, 0.5),
        "tap_to_group_table_ms_p95": ms(every, 0.95),
        "tap_to_group_table_ms_max": round(1000 * max(every), 1) if every else None,
        "trick_end_to_group_table_ms_median": ms(ending, 0.5),
        "trick_end_to_group_table_ms_p95": ms(ending, 0.95),
        "trick_end_to_group_table_ms_max": round(1000 * max(ending), 1) if ending else None,
    }
