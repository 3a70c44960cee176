"""``sochi``'s discard (RULES.md §5): which two cards the lone player lays away after taking the talon.

The discards' points are his whatever happens, so a card worth points that would probably be lost in
play is best put away, and a short plain suit discarded whole leaves a void to trump in. Trumps are
kept (they win tricks and guard the ♣Q against the шмон); an ace, or a ten guarded by its ace, is a
likely winner in play and is kept too. Every level uses this rule.
"""

from __future__ import annotations

from bot.engine.actions import Action, Discard
from bot.engine.cards import Card, Rank
from bot.engine.order import Tables
from bot.engine.view import SeatView

#: What a void made by the discard is worth, in card points (a suit to trump in).
VOID_BONUS = 6.0
#: What discarding a trump costs, in card points, on top of its strength (a trump is rarely spare).
TRUMP_COST = 30.0
#: What discarding a likely winner (an ace, a ten with its ace) costs, in card points.
WINNER_COST = 8.0


def _likely_winner(c: Card, hand: tuple[Card, ...]) -> bool:
    if c.rank is Rank.ACE:
        return True
    return c.rank is Rank.TEN and Card(Rank.ACE, c.suit) in hand


def _worth(t: Tables, hand: tuple[Card, ...], cs: tuple[Card, ...]) -> float:
    """How good it is to discard ``cs`` from ``hand``, in card points."""
    value = 0.0
    for c in cs:
        if t.is_trump(c):
            value -= TRUMP_COST + t.power[c.id]
        elif _likely_winner(c, hand):
            value += c.points - WINNER_COST
        else:
            value += c.points
    rest = [c for c in hand if c not in cs]
    for suit in {c.suit for c in cs if not t.is_trump(c)}:
        if not any(c.suit is suit and not t.is_trump(c) for c in rest):
            value += VOID_BONUS
    return value


def ranked(view: SeatView) -> list[Discard]:
    """The legal discards of ``view``, best first by the rule's measure; ties go to the weaker cards
    (lower strength), then keep the legal list's order."""
    t = view.tables
    assert t is not None
    options = [a for a in view.legal if isinstance(a, Discard)]
    hand = view.hand

    def key(a: Discard) -> tuple[float, int]:
        return (-_worth(t, hand, a.cards), sum(t.power[c.id] for c in a.cards))

    return sorted(options, key=key)


def choose_discard(view: SeatView) -> Action:
    """The two cards the lone player discards, among ``view.legal``: the rule's best (:func:`ranked`)."""
    return ranked(view)[0]
