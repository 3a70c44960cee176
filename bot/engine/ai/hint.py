"""A hint: the ``hard`` player's decision for the seat's view, and one line of why where a rule says it.

The decision itself is ``hard``'s (taken wherever bot players think, :mod:`bot.thinking`), so a hint
is exactly what the strongest level would do; :func:`why` only reads the view to name the rule the
card follows, from what the seat can see.
"""

from __future__ import annotations

from bot.engine.actions import Action, Play
from bot.engine.cards import card
from bot.engine.view import SeatView

_QC = card("QC")


def why(view: SeatView, action: Action) -> str | None:
    """The rule ``action`` follows in ``view``, as a key: ``take`` (it takes the trick from the
    opponents), ``give_points`` (the partner holds the trick: points for him), ``cheapest`` (the
    trick is the opponents': the cheapest card), ``keep_queen`` (the ♣Q held back while an opponent
    may still hold the шмон), ``lead_trump`` / ``lead_plain`` (a lead); else ``None`` (decisions
    before the first lead too)."""
    t = view.tables
    if not isinstance(action, Play) or t is None:
        return None
    c = action.card
    plays = [a.card for a in view.legal if isinstance(a, Play)]
    if not view.trick:
        return "lead_trump" if t.is_trump(c) else "lead_plain"
    led = t.eff[view.trick[0][1].id]
    top_seat, top = view.trick[0]
    for s, x in view.trick[1:]:
        if t.beats(x, top, led):
            top_seat, top = s, x
    ours = view.pair_of[top_seat] == view.pair_of[view.seat]
    if not ours and t.beats(c, top, led):
        return "take"
    if ours and not t.beats(c, top, led) and c.points >= 10 and c.points == max(p.points for p in plays):
        return "give_points"
    shmon = view.rules.top_trump
    shmon_out = shmon not in view.hand and shmon not in view.played() and view.rules.preset != "tricks"
    if c != _QC and _QC in plays and shmon_out:
        return "keep_queen"
    if not ours and not any(t.beats(p, top, led) for p in plays) and c.points == min(p.points for p in plays):
        return "cheapest"
    return None


__all__ = ["why"]
