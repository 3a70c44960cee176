"""Counting a finished match into the standings: the chat's counters once, then each person's."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from bot.stats.achievements import earned_in
from bot.stats.entry import Meta, Player, meta_of
from bot.stats.facts import MatchFacts, facts_of
from bot.storage.protocol import Storage


def month_of(at: float) -> str:
    """``YYYY-MM`` (UTC) of a Unix time: the standings' month."""
    return time.strftime("%Y-%m", time.gmtime(at))


def chat_counts(facts: MatchFacts) -> dict[str, int]:
    """The chat counters a match adds: ``<player>|<figure>``, ``p|<a>|<b>|n`` and ``…|won``."""
    counts: dict[str, int] = {}
    for key, figures in facts.figures.items():
        for figure, n in figures.items():
            if n:
                counts[f"{key}|{figure}"] = n
    for a, b, won in facts.pairs:
        counts[f"p|{a}|{b}|n"] = counts.get(f"p|{a}|{b}|n", 0) + 1
        counts[f"p|{a}|{b}|won"] = counts.get(f"p|{a}|{b}|won", 0) + int(won)
    return counts


@dataclass(frozen=True)
class Earned:
    """An achievement a person earned with a match (:mod:`bot.stats.achievements`)."""

    player: Player
    achievement: str


@dataclass(frozen=True)
class Archived:
    """What keeping a finished match did: counted it now (``new``), and the achievements it earned."""

    new: bool
    earned: list[Earned] = field(default_factory=list)


async def archive(storage: Storage, entry: dict[str, Any], *, push: bool = True) -> bool:
    """Keep ``entry`` in its chat's history and count it, once (False: it was counted already).

    ``push=False`` counts an entry already in the history (a rebuild). Each person's own figures are
    counted after the chat's, each once, so calling this again after a crash finishes the job.
    """
    return (await finish(storage, entry, push=push)).new


async def finish(storage: Storage, entry: dict[str, Any], *, push: bool = True) -> Archived:
    """:func:`archive`, then award the match's achievements: those earned now (never before).

    An achievement is marked earned once for ever (``HSETNX``), so a finish handled again, by this
    process or another, earns nothing the second time; nor does a rebuild after the first.
    """
    meta = meta_of(entry)
    if meta is None:
        return Archived(False)
    facts = facts_of(entry, meta)
    new = await storage.archive_match(
        meta.chat_id,
        meta.id,
        at=meta.at,
        month=month_of(meta.at),
        entry=entry if push else None,
        counts=chat_counts(facts),
        names=facts.names,
    )
    await _count_people(storage, meta, facts)
    earned: list[Earned] = []
    people = {p.key: p for p in meta.seats if p.is_person}
    for key, ids in earned_in(facts, meta).items():
        player = people[key]
        assert player.user_id is not None
        for achievement in await storage.award(player.user_id, ids, at=meta.at):
            earned.append(Earned(player, achievement))
    return Archived(new, earned)


async def _count_people(storage: Storage, meta: Meta, facts: MatchFacts) -> None:
    for player in meta.seats:
        key = player.key
        if not player.is_person or key not in facts.outcome or player.user_id is None:
            continue
        won, partner = facts.outcome[key]
        counts = {f: n for f, n in facts.figures[key].items() if n}
        counts[f"partner|{partner}|n"] = 1
        counts[f"partner|{partner}|won"] = int(won)
        values = {"name": player.name, f"name|{partner}": facts.names.get(partner, "")}
        await storage.count_person(
            player.user_id, f"{meta.chat_id}:{meta.id}", at=meta.at, won=won, counts=counts, values=values
        )
