"""3-person ``sochi``'s talon and discard (RULES.md §5): who plays alone this deal, and his two cards out.

After the cards are dealt (deal 1: ten each one at a time and two to the talon; a brag deal: once
everyone is topped up, the two cards left in the deck) the talon is shown to all. With the ♣Q in it the
deal is void and the same dealer deals again. Otherwise the sides of this deal are formed: the ♣Q
holder (the *lone* player) is side 0, the other two side 1 (``Deal.pair_of``), so the play kernel,
the queen catch and the scoring work on two sides exactly as on two pairs. The lone player takes the
talon and discards two cards face down (never the ♣Q); their points count for him. He leads, unless a
brag decided the lead.

These functions drive the deal through its public interface (:class:`bot.engine.phase.DealCore`), as
:mod:`bot.engine.brag` and :mod:`bot.engine.flip` do; the talon's state is a
:class:`~bot.engine.phase.TalonState` the deal keeps and hands in.
"""

from __future__ import annotations

from itertools import combinations

from bot.engine.actions import Action, Discard
from bot.engine.cards import QUEEN_OF_CLUBS, Card, cards_of
from bot.engine.phase import DealCore, Phase, Refusal, TalonState, refused

#: The lone player's side and the pair's, in ``Deal.pair_of`` and in every per-side figure.
LONE, PAIR = 0, 1
#: Cards the lone player discards.
N_DISCARDS = 2


def sides(n: int, lone: int) -> tuple[int, ...]:
    """``pair_of`` of a deal whose lone player is ``lone``: he is side 0, the other two side 1."""
    return tuple(LONE if s == lone else PAIR for s in range(n))


def deal_first(deal: DealCore, st: TalonState) -> None:
    """Deal 1 of a match: ten each one at a time clockwise from the dealer's left, the last two cards
    to the talon; then the talon (:func:`form_sides`) and, unless void, the discard."""
    size = deal.rules.talon_size
    deal.one_at_a_time(deal.deck[:-size], deal.left)
    if form_sides(deal, st, list(deal.deck[-size:])):
        await_discard(deal, st, None)


def form_sides(deal: DealCore, st: TalonState, talon: list[Card]) -> bool:
    """The talon is shown: the ♣Q in it voids the deal (same dealer), as do four queens in a hand;
    else the ♣Q holder plays alone and takes the talon. Whether the deal goes on."""
    st.talon = tuple(talon)
    if QUEEN_OF_CLUBS in talon:
        deal.void("talon_queen", same_dealer=True)
        return False
    if deal.redeal_if_four_queens():
        return False
    lone = deal.holder(QUEEN_OF_CLUBS)
    st.lone = lone
    deal.set_sides(sides(deal.rules.seats, lone))
    deal.give(lone, talon)
    return True


def await_discard(deal: DealCore, st: TalonState, leader: int | None) -> None:
    """The lone player is to discard; ``leader`` (the brag's taker, if any) leads after it."""
    assert st.lone is not None
    st.leader = st.lone if leader is None else leader
    deal.wait_for(Phase.DISCARD, st.lone)


def can_discard(deal: DealCore, st: TalonState, seat: int, cs: tuple[Card, ...]) -> bool:
    """Whether ``seat`` may discard ``cs``: two cards of his hand, not the ♣Q."""
    mask = 0
    for c in cs:
        mask |= c.bit
    return (
        seat == st.lone
        and len(cs) == N_DISCARDS == mask.bit_count()
        and mask & deal.hands[seat] == mask
        and not mask & QUEEN_OF_CLUBS.bit
    )


def legal(deal: DealCore, st: TalonState, seat: int) -> list[Action]:
    """The discards ``seat`` may make now: every two cards of his hand but the ♣Q."""
    if deal.phase is not Phase.DISCARD or seat != st.lone:
        return []
    hand = cards_of(deal.hands[seat] & ~QUEEN_OF_CLUBS.bit)
    return [Discard(cs) for cs in combinations(hand, N_DISCARDS)]


def refusal(deal: DealCore, st: TalonState, seat: int, action: Action) -> Refusal | None:
    """Why the seat to act may not take ``action`` now (``None``: he may)."""
    if (
        isinstance(action, Discard)
        and deal.phase is Phase.DISCARD
        and can_discard(deal, st, seat, action.cards)
    ):
        return None
    return refused(deal.phase, action)


def apply(deal: DealCore, st: TalonState, seat: int, action: Action) -> None:
    """The lone player discards (already checked by :func:`refusal`): the cards leave his hand, their
    points count for his side, and the first trick is led — unless he kept four queens, the talon's
    among them: that voids the deal as classic's exchange does (RULES.md §5; from version 2 on)."""
    assert isinstance(action, Discard) and st.leader is not None
    for c in action.cards:
        deal.hands[seat] &= ~c.bit
    st.discards = tuple(action.cards)
    deal.bank(LONE, sum(c.points for c in action.cards))
    if deal.version > 1 and deal.redeal_if_four_queens():
        return
    deal.start_play(st.leader)
