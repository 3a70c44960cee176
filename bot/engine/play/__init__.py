"""The play kernel: the play phase of every preset, written once, on bit masks.

* :mod:`.setup` — :class:`PlayRules`, what stays fixed through a deal's play (card order per led suit,
  each seat's strength row, the trick order from each leader, the pairs, which options apply);
* :mod:`.kernel` — the rules themselves (:func:`lead_mask`, :func:`follow_mask`, :func:`caught`,
  :func:`refill`, :func:`draw_lead_rule`) and :class:`PlayState`, a position moved on card by card;
* :mod:`.playout` — :func:`play_out`, the one loop that plays a position to the end, the choice of
  card a parameter (random, a policy, careless opponents).

:class:`bot.engine.deal.Deal` delegates its play phase to a :class:`PlayState`; every bot player's
worlds are :class:`PlayState` too, and the exact solver calls the kernel's functions.

Adding a preset's play rules means editing this package only: a new constraint on which cards may be
played goes into :func:`lead_mask` / :func:`follow_mask` (a blind's one card: :func:`turned`, with
:attr:`PlayRules.blinds` and :attr:`PlayState.stacks`; with the flag it needs in
:class:`PlayRules`), a different trick order or seating into :func:`trick_orders`, a change to what a
trick's end does into :meth:`PlayState.play`.
"""

from bot.engine.seats import PAIR_OF

from .kernel import (
    FREE,
    GOES_ON,
    OVER,
    RESTRICTED,
    SWAPPED,
    TRICK_DONE,
    PlayState,
    caught,
    draw_lead_rule,
    follow_mask,
    lead_mask,
    refill,
    turned,
)
from .playout import Chooser, nth_card, play_out, random_choice
from .setup import QC_BIT, PlayRules, play_rules, trick_orders

__all__ = [
    "FREE",
    "GOES_ON",
    "OVER",
    "PAIR_OF",
    "QC_BIT",
    "RESTRICTED",
    "SWAPPED",
    "TRICK_DONE",
    "Chooser",
    "PlayRules",
    "PlayState",
    "caught",
    "draw_lead_rule",
    "follow_mask",
    "lead_mask",
    "nth_card",
    "play_out",
    "play_rules",
    "random_choice",
    "refill",
    "trick_orders",
    "turned",
]
