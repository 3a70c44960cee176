"""The standings read back from a chat's (or a person's) counters: rows ranked, pairs best and worst."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from bot.stats.entry import BLIND_KEY
from bot.stats.facts import FIGURES

#: Pairs shown as best and as worst.
PAIRS_SHOWN = 3


@dataclass(frozen=True)
class Row:
    """A player's figures (see :data:`bot.stats.facts.FIGURES`)."""

    key: str
    name: str
    figures: dict[str, int]

    @property
    def is_person(self) -> bool:
        """A person (not a bot player)."""
        return self.key.startswith("u")

    @property
    def share(self) -> float:
        """Matches won out of played."""
        played = self.figures.get("played", 0)
        return self.figures.get("won", 0) / played if played else 0.0


@dataclass(frozen=True)
class Pair:
    """Two people who partnered: matches together, won together."""

    a: str
    b: str
    matches: int
    won: int

    @property
    def share(self) -> float:
        """Matches won out of those played together."""
        return self.won / self.matches if self.matches else 0.0


@dataclass(frozen=True)
class Standings:
    """People ranked (most won, then best share, then most played), bot players apart, and pairs."""

    people: list[Row]
    bots: list[Row]
    best: list[Pair]
    worst: list[Pair]

    @property
    def empty(self) -> bool:
        """No match counted."""
        return not self.people and not self.bots


def standings_of(counts: dict[str, int], names: dict[str, str]) -> Standings:
    """Rank the counters of a chat's standings (``<player>|<figure>``, ``p|<a>|<b>|n``/``won``)."""
    players: dict[str, dict[str, int]] = {}
    pairs: dict[tuple[str, str], list[int]] = {}
    for field, n in counts.items():
        parts = field.split("|")
        if parts[0] == "p" and len(parts) == 4:
            slot = pairs.setdefault((parts[1], parts[2]), [0, 0])
            slot[0 if parts[3] == "n" else 1] += n
        elif len(parts) == 2 and parts[1] in FIGURES:
            players.setdefault(parts[0], dict.fromkeys(FIGURES, 0))[parts[1]] = n
    rows = [Row(k, names.get(k, ""), f) for k, f in players.items() if f.get("played") and k != BLIND_KEY]
    rows.sort(key=lambda r: (-r.figures["won"], -r.share, -r.figures["played"], r.name))
    together = [Pair(a, b, n, won) for (a, b), (n, won) in pairs.items() if n]
    ranked = sorted(together, key=lambda p: (-p.share, -p.matches, p.a, p.b))
    # With few pairs, the better half is the best and the rest the worst: no pair is in both.
    n_best = min(PAIRS_SHOWN, (len(ranked) + 1) // 2)
    n_worst = min(PAIRS_SHOWN, len(ranked) - n_best)
    best = ranked[:n_best]
    worst = list(reversed(ranked[len(ranked) - n_worst :])) if n_worst else []
    return Standings(
        people=[r for r in rows if r.is_person],
        bots=[r for r in rows if not r.is_person],
        best=best,
        worst=worst,
    )


@dataclass(frozen=True)
class Personal:
    """A person's figures across chats, streak (+ won in a row, − lost) and favourite partner."""

    figures: dict[str, int]
    streak: int
    best_streak: int
    #: The favourite partner (most matches together): a key as in the standings, and a name.
    partner_key: str | None
    partner_name: str
    partner_matches: int
    partner_won: int
    #: The achievements earned (bot/stats/achievements.py) and when (Unix time).
    earned: dict[str, float] = dataclasses.field(default_factory=dict)
    #: 💡 hints the person was given (bot/tg/coach.py).
    hints: int = 0

    @property
    def empty(self) -> bool:
        """No match counted."""
        return not self.figures.get("played")


def personal_of(raw: dict[str, str]) -> Personal:
    """A person's counters (``bot/storage/stats_store.py``) read back."""
    figures = {f: int(raw.get(f, 0)) for f in FIGURES}
    partners: dict[str, list[int]] = {}
    for field, value in raw.items():
        parts = field.split("|")
        if parts[0] == "partner" and len(parts) == 3 and parts[1] != BLIND_KEY:
            partners.setdefault(parts[1], [0, 0])[0 if parts[2] == "n" else 1] += int(value)
    earned = {f[4:]: float(v) for f, v in raw.items() if f.startswith("ach|")}
    favourite = max(partners.items(), key=lambda kv: (kv[1][0], kv[1][1], kv[0]), default=None)
    return Personal(
        figures=figures,
        streak=int(raw.get("streak", 0)),
        best_streak=int(raw.get("best_streak", 0)),
        partner_key=favourite[0] if favourite else None,
        partner_name=raw.get(f"name|{favourite[0]}", "") if favourite else "",
        partner_matches=favourite[1][0] if favourite else 0,
        partner_won=favourite[1][1] if favourite else 0,
        earned=earned,
        hints=int(raw.get("hints", 0)),
    )
