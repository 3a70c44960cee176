"""``flip``'s dealing (RULES.md §3): trump turned up or chosen, and the one-trump swap.

These functions drive a deal through the phases before the first lead of a flip deal, through the
deal's public interface (:class:`bot.engine.phase.DealCore`); the swap's own state is a
:class:`SwapState` the deal keeps and hands in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.engine.actions import Action, Declare, Swap, SwapReturn
from bot.engine.cards import ALL_CARDS, JACK_OF_CLUBS, QUEEN_OF_CLUBS, SUITS, Card, Rank, Suit, cards_of
from bot.engine.errors import Reason
from bot.engine.phase import DealCore, Phase, Refusal, refused
from bot.engine.rules import FlipOptions, TrumpMode
from bot.engine.seats import CLOCKWISE

N_SEATS = 4
_HIGH_RANKS = frozenset((Rank.QUEEN, Rank.JACK))
#: The decisions on offer, made once (they are frozen values): asked for at every decision, and a
#: decision is checked by finding it among them.
_DECLARES = tuple(Declare(s) for s in SUITS)
_BY_THE_LAST = Declare(None)
_SWAPS = (Swap(True), Swap(False))
_RETURNS = tuple(SwapReturn(c) for c in ALL_CARDS)


@dataclass(slots=True)
class SwapState:
    """The swap decisions still to take before the first lead."""

    queue: list[int] = field(default_factory=list)
    swapper: int | None = None
    #: The decisions taken so far, in order: (seat, whether he passed his trump). Public: the table
    #: shows who is deciding (only a one-trump hand is asked) and whether a swap took place.
    log: list[tuple[int, bool]] = field(default_factory=list)

    def copy(self) -> SwapState:
        """An independent copy."""
        return SwapState(self.queue.copy(), self.swapper, self.log.copy())


def deal_cards(deal: DealCore, swaps: SwapState) -> None:
    """Deal a flip deal in its trump mode; stops at the first decision (declare or swap) or the lead."""
    opts = deal.rules.options
    assert isinstance(opts, FlipOptions)
    mode = opts.trump_mode
    if mode is TrumpMode.JACK_DECLARES and deal.deal_no > 1:
        mode = TrumpMode.TURN_UP
    if mode is TrumpMode.TURN_UP:
        _turn_up(deal, swaps, opts)
    elif mode is TrumpMode.FIRST_CARD:
        deal.one_at_a_time(deal.deck, deal.left)
        _after_flip_trump(deal, swaps, deal.deck[0].suit)
    elif mode is TrumpMode.DECLARE:
        deal.give(deal.left, deal.deck[:3])
        deal.wait_for(Phase.DECLARE, deal.left)
    else:  # jack_declares, first deal
        deal.one_at_a_time(deal.deck, deal.left)
        deal.wait_for(Phase.DECLARE, deal.holder(JACK_OF_CLUBS))


def declaring_after_three(deal: DealCore) -> bool:
    """Whether trump is being declared on three cards (``declare``): the rest are not dealt yet."""
    return deal.phase is Phase.DECLARE and sum(h.bit_count() for h in deal.hands) < len(deal.deck)


def legal(deal: DealCore, swaps: SwapState, seat: int) -> list[Action]:
    """The declare and swap decisions ``seat`` (the seat to act) may take now."""
    if deal.phase is Phase.DECLARE:
        acts: list[Action] = list(_DECLARES)
        if declaring_after_three(deal):
            acts.append(_BY_THE_LAST)
        return acts
    if deal.phase is Phase.SWAP:
        return list(_SWAPS)
    if deal.phase is Phase.SWAP_RETURN:
        t = deal.tables
        assert t is not None
        return [_RETURNS[c.id] for c in t.sorted(cards_of(deal.hands[seat]))]
    return []


def refusal(deal: DealCore, swaps: SwapState, seat: int, action: Action) -> Refusal | None:
    """Why the seat to act may not take ``action`` now (``None``: he may)."""
    if action in legal(deal, swaps, seat):
        return None
    if isinstance(action, SwapReturn) and deal.phase is Phase.SWAP_RETURN:
        return Reason.NOT_IN_HAND, f"{action.card} is not in his hand"
    if isinstance(action, Declare) and deal.phase is Phase.DECLARE:
        return Reason.BY_THE_LAST, "'by the last' is allowed only when trump is declared after three cards"
    return refused(deal.phase, action)


def apply(deal: DealCore, swaps: SwapState, seat: int, action: Action) -> None:
    """Take a declare or swap decision (already checked by :func:`refusal`)."""
    if isinstance(action, Swap):
        swap(deal, swaps, seat, action.accept)
    elif isinstance(action, SwapReturn):
        swap_return(deal, swaps, seat, action.card)
    elif isinstance(action, Declare):
        declare(deal, swaps, seat, action.suit)


def _turn_up(deal: DealCore, swaps: SwapState, opts: FlipOptions) -> None:
    top = deal.rules.top_trump
    n = 0
    while deal.deck[n].id == top.id or deal.deck[n].rank in _HIGH_RANKS:
        n += 1
    n += 1  # the card that set trump stays face up in the hand too
    shown = deal.deck[:n]
    hand_size = deal.rules.hand_size
    if n > hand_size:
        deal.give(deal.left, shown[:hand_size])
        deal.shown[deal.left] = deal.hands[deal.left]
        deal.void("deal_passes", same_dealer=False)
        return
    deal.give(deal.left, shown)
    deal.shown[deal.left] = deal.hands[deal.left]
    if opts.pass_on_bad_turn:
        others = [c for c in shown if c.rank in (Rank.QUEEN, Rank.JACK) and c != QUEEN_OF_CLUBS]
        if top in shown or QUEEN_OF_CLUBS in shown or len(others) >= 3:
            deal.void("deal_passes", same_dealer=False)
            return
    pos = n
    for k in range(1, N_SEATS):
        deal.give((deal.left + k) % N_SEATS, deal.deck[pos : pos + n])
        pos += n
    deal.one_at_a_time(deal.deck[pos:], deal.left)
    _after_flip_trump(deal, swaps, shown[-1].suit)


def _after_flip_trump(deal: DealCore, swaps: SwapState, trump: Suit) -> None:
    deal.set_trump(trump)
    if deal.redeal_if_four_queens():
        return
    swaps.queue = list(CLOCKWISE[deal.left])
    _next_swap(deal, swaps)


def declare(deal: DealCore, swaps: SwapState, seat: int, suit: Suit | None) -> None:
    """``seat`` names trump (``None``: "by the last"); then the swaps, then the first lead."""
    if declaring_after_three(deal):
        # The declarer has seen three cards; now the others get three each, then the rest singly.
        rest = deal.deck[3:]
        for k in range(1, N_SEATS):
            deal.give((seat + k) % N_SEATS, rest[3 * (k - 1) : 3 * k])
        singles = rest[3 * (N_SEATS - 1) :]
        deal.one_at_a_time(singles, seat)
        if suit is None:
            suit = singles[(deal.rules.hand_size - 3 - 1) * N_SEATS].suit
    assert suit is not None, "legal_actions offers 'by the last' only after three cards"
    deal.events.append(f"declared_{suit.value}")
    _after_flip_trump(deal, swaps, suit)


def _trump_mask(deal: DealCore) -> int:
    t = deal.tables
    assert t is not None
    return t.trump_mask


def _next_swap(deal: DealCore, swaps: SwapState) -> None:
    q = swaps.queue
    tm = _trump_mask(deal)
    hands = deal.hands
    while q:
        seat = q.pop(0)
        if (hands[seat] & tm).bit_count() == 1:
            deal.wait_for(Phase.SWAP, seat)
            return
    deal.start_play(deal.left)


def swap(deal: DealCore, swaps: SwapState, seat: int, accept: bool) -> None:
    """The one-trump holder passes his trump to his partner, or keeps it."""
    swaps.log.append((seat, accept))
    if not accept:
        _next_swap(deal, swaps)
        return
    swaps.swapper = seat
    deal.wait_for(Phase.SWAP_RETURN, (seat + 2) % N_SEATS)


def swap_return(deal: DealCore, swaps: SwapState, seat: int, c: Card) -> None:
    """The partner gives ``c`` back for the trump; both now know one card of the other's hand."""
    swapper = swaps.swapper
    assert swapper is not None
    trump_bit = deal.hands[swapper] & _trump_mask(deal)
    deal.hands[swapper] ^= trump_bit | c.bit
    deal.hands[seat] ^= trump_bit | c.bit
    deal.shown[swapper] &= ~trump_bit
    deal.shown[seat] &= ~c.bit
    deal.known[swapper][seat] |= trump_bit
    deal.known[seat][swapper] |= c.bit
    deal.events.append("swap")
    swaps.swapper = None
    _next_swap(deal, swaps)
