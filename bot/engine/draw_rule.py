"""``draw``'s lead rule after each trick (RULES.md §4), in one place for every play loop.

The engine's :class:`~bot.engine.deal.Deal`, the fast random play-out (:mod:`bot.engine.fast`) and the
AI's worlds, play-outs and solver all apply the rule through :func:`draw_lead_rule`, so they cannot
drift apart.
"""

from __future__ import annotations

N_SEATS = 4


def draw_lead_rule(hands: list[int], winner: int, leader: int, tm: int) -> bool:
    """Whether ``winner``, who leads next, may not lead a trump (``tm``: the trump mask) while he holds a
    plain card: his pair also led the trick just played, which ``leader`` led. If so and each of the
    pair holds one card, his trump and his partner's plain card are swapped first, in ``hands``."""
    if (winner - leader) % 2:
        return False
    partner = (winner + 2) % N_SEATS
    mine, theirs = hands[winner], hands[partner]
    if mine.bit_count() == 1 and theirs.bit_count() == 1 and mine & tm and not theirs & tm:
        hands[winner], hands[partner] = theirs, mine
    return True
