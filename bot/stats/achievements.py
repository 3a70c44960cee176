"""Achievements: a few feats a Kozel table cheers, each read from one finished match (pure, no I/O).

A person earns each at most once for ever (the first match that shows it; the date is that match's
end), so "first goat" is simply being the goat. Bot players earn none. Each is decided from the
match's record alone (RULES.md §7), through :class:`~bot.stats.facts.MatchFacts`:

* ``first_goat`` — the person's pair lost the match (the goat, with drivers or not);
* ``shmon`` — the person played the шмон (the top trump) into the trick that caught the opponents'
  ♣Q (the standings' "♣Q caught");
* ``shestak`` — the person's pair gave the opponents a шестак (in ``tricks``: left them no trick),
  as the standings count a шестак given;
* ``all_tricks`` — the person's pair took every trick of a deal played to its end (the brag tricks
  included; a deal stopped by a caught queen, or void, shows none);
* ``eggs`` — a deal of the match ended 60–60 (eggs: every person at the table);
* ``clean_win`` — the person's pair won the match without a penalty point (under ``score_winners``,
  where a deal's winner scores: the opponents never scored);
* ``comeback`` — the person's pair won the match after trailing by :data:`COMEBACK_DEFICIT` or more
  penalty points after some deal (its running total that many above the opponents'; under
  ``score_winners`` that many below);
* ``drivers`` — the person's pair won a match whose losers ended goats with drivers (14 and more).

With individual scores (3-person ``sochi``) each person's own result counts: the goat is a person
(everyone else won), "the pair" of a deal is the seat's side in that deal, a clean win is a match won
at 0, and a comeback is measured against the best placed of the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.engine import GOAT_WITH_DRIVERS, Deal
from bot.engine.rules import ClassicOptions
from bot.stats.entry import Meta
from bot.stats.facts import MatchFacts

#: Penalty points behind (after a deal) a pair must have been to win a comeback.
COMEBACK_DEFICIT = 10


@dataclass(frozen=True)
class Seat:
    """One person's seat in a finished match, as the rules below read it."""

    seat: int
    key: str
    facts: MatchFacts

    @property
    def pair(self) -> int:
        """The seat's pair (0: A, 1: B)."""
        return self.facts.pair_of[self.seat]

    @property
    def individual(self) -> bool:
        """Every person kept their own score (3-person ``sochi``, ``blind_rotates``): the sides changed
        every deal; ``seat`` is the person's seat in deal 1."""
        return self.facts.result is not None and "goats" in self.facts.result

    @property
    def won(self) -> bool:
        """The seat's pair won the match (with individual scores: the person is no goat)."""
        assert self.facts.result is not None
        if self.individual:
            return self.seat not in self.facts.result["goats"]
        return bool(self.facts.result["loser"] == 1 - self.pair)

    def figure(self, name: str) -> int:
        """A standings figure of this match for the seat's player."""
        return self.facts.figures.get(self.key, {}).get(name, 0)


def first_goat(s: Seat) -> bool:
    """The pair lost the match: the goat."""
    return s.figure("goat") > 0


def shmon(s: Seat) -> bool:
    """The seat's шмон caught the opponents' ♣Q."""
    return s.figure("caught") > 0


def shestak(s: Seat) -> bool:
    """The pair gave the opponents a шестак."""
    return s.figure("shestak") > 0


def all_tricks(s: Seat) -> bool:
    """The pair took every trick of a deal played to its end."""
    for deal in s.facts.deals:
        result = deal.result
        if result is None or result.void or "queen_caught" in result.events or not result.tricks:
            continue
        side = result.pair_of[_seat_in(s, deal)]  # the seat's side in this deal (sochi forms them per deal)
        if result.tricks_won[1 - side] == 0 and result.tricks_won[side] == len(result.tricks):
            return True
    return False


def _seat_in(s: Seat, deal: Deal) -> int:
    """Where the person of ``s`` (their seat in deal 1) sat in ``deal``: elsewhere only under
    ``blind_rotates``, where the people move a seat each deal (``Rules.seating``)."""
    seating = s.facts.rules.seating(deal.deal_no) if s.facts.rules is not None else ()
    return seating.index(s.seat) if s.seat in seating else s.seat


def eggs(s: Seat) -> bool:
    """A deal of the match ended 60–60."""
    return any(d.result is not None and "eggs" in d.result.events for d in s.facts.deals)


def _winners_score(s: Seat) -> bool:
    opts = s.facts.rules.options if s.facts.rules is not None else None
    return isinstance(opts, ClassicOptions) and opts.score_winners


def _behind(s: Seat, totals: list[int]) -> int:
    """How many points closer to losing than the opponents the pair is at ``totals`` (individual
    scores: than the best placed of the others)."""
    if s.individual:
        return totals[s.seat] - min(t for i, t in enumerate(totals) if i != s.seat)
    mine, theirs = totals[s.pair], totals[1 - s.pair]
    return theirs - mine if _winners_score(s) else mine - theirs


def clean_win(s: Seat) -> bool:
    """The pair won without a penalty point (``score_winners``: the opponents never scored)."""
    assert s.facts.result is not None
    if s.individual:
        return s.won and s.facts.result["scores"][s.seat] == 0
    penalty = s.facts.result["penalty"]
    return s.won and penalty[1 - s.pair if _winners_score(s) else s.pair] == 0


def comeback(s: Seat) -> bool:
    """The pair won after trailing by :data:`COMEBACK_DEFICIT` or more after a deal."""
    assert s.facts.result is not None
    worst = max((_behind(s, d["totals"]) for d in s.facts.result["deals"]), default=0)
    return s.won and worst >= COMEBACK_DEFICIT


def drivers(s: Seat) -> bool:
    """The pair won and the losers are goats with drivers."""
    assert s.facts.result is not None
    return s.won and s.facts.result["title"] == GOAT_WITH_DRIVERS


#: Every achievement, in the order they are shown, with its rule.
RULES: dict[str, Callable[[Seat], bool]] = {
    "first_goat": first_goat,
    "shmon": shmon,
    "shestak": shestak,
    "all_tricks": all_tricks,
    "eggs": eggs,
    "clean_win": clean_win,
    "comeback": comeback,
    "drivers": drivers,
}
#: The achievements' ids, as stored and shown.
ACHIEVEMENTS = tuple(RULES)


def earned_in(facts: MatchFacts, meta: Meta) -> dict[str, list[str]]:
    """Per person (standings key, ``u<id>``): the achievements the match shows, in their order."""
    out: dict[str, list[str]] = {}
    if facts.result is None or (facts.result.get("loser") is None and not facts.result.get("goats")):
        return out
    for i, player in enumerate(meta.seats):
        if not player.is_person or player.user_id is None:
            continue
        seat = Seat(i, player.key, facts)
        ids = [name for name, rule in RULES.items() if rule(seat)]
        if ids:
            out[player.key] = ids
    return out
