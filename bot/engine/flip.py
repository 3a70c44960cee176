"""``flip``'s dealing (RULES.md §3): trump turned up or chosen, and the one-trump swap.

These functions drive a :class:`bot.engine.deal.Deal` through the phases before the first lead of a
flip deal; the deal calls them and stays the only owner of the state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.engine.cards import JACK_OF_CLUBS, QUEEN_OF_CLUBS, Card, Rank, Suit
from bot.engine.phase import Phase
from bot.engine.rules import FlipOptions, TrumpMode

if TYPE_CHECKING:
    from bot.engine.deal import Deal

N_SEATS = 4
_HIGH_RANKS = frozenset((Rank.QUEEN, Rank.JACK))


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


def deal_cards(deal: Deal) -> None:
    """Deal a flip deal in its trump mode; stops at the first decision (declare or swap) or the lead."""
    opts = deal.rules.options
    assert isinstance(opts, FlipOptions)
    mode = opts.trump_mode
    if mode is TrumpMode.JACK_DECLARES and deal.deal_no > 1:
        mode = TrumpMode.TURN_UP
    if mode is TrumpMode.TURN_UP:
        _turn_up(deal, opts)
    elif mode is TrumpMode.FIRST_CARD:
        deal._one_at_a_time(deal.deck, deal.left)
        _after_flip_trump(deal, deal.deck[0].suit)
    elif mode is TrumpMode.DECLARE:
        deal._give(deal.left, deal.deck[:3])
        deal._declaring_after_three = True
        deal._await(Phase.DECLARE, deal.left)
    else:  # jack_declares, first deal
        deal._one_at_a_time(deal.deck, deal.left)
        deal._await(Phase.DECLARE, deal._holder(JACK_OF_CLUBS))


def _turn_up(deal: Deal, opts: FlipOptions) -> None:
    top = deal.rules.top_trump
    n = 0
    while deal.deck[n].id == top.id or deal.deck[n].rank in _HIGH_RANKS:
        n += 1
    n += 1  # the card that set trump stays face up in the hand too
    shown = deal.deck[:n]
    hand_size = deal.rules.hand_size
    if n > hand_size:
        deal._give(deal.left, shown[:hand_size])
        deal.shown[deal.left] = deal.hands[deal.left]
        deal._void("deal_passes", same_dealer=False)
        return
    deal._give(deal.left, shown)
    deal.shown[deal.left] = deal.hands[deal.left]
    if opts.pass_on_bad_turn:
        others = [c for c in shown if c.rank in (Rank.QUEEN, Rank.JACK) and c != QUEEN_OF_CLUBS]
        if top in shown or QUEEN_OF_CLUBS in shown or len(others) >= 3:
            deal._void("deal_passes", same_dealer=False)
            return
    pos = n
    for k in range(1, N_SEATS):
        deal._give((deal.left + k) % N_SEATS, deal.deck[pos : pos + n])
        pos += n
    deal._one_at_a_time(deal.deck[pos:], deal.left)
    _after_flip_trump(deal, shown[-1].suit)


def _after_flip_trump(deal: Deal, trump: Suit) -> None:
    deal._set_trump(trump)
    if deal._four_queens_redeal():
        return
    deal.swaps.queue = [(deal.left + k) % N_SEATS for k in range(N_SEATS)]
    _next_swap(deal)


def declare(deal: Deal, seat: int, suit: Suit | None) -> None:
    """``seat`` names trump (``None``: "by the last"); then the swaps, then the first lead."""
    if deal._declaring_after_three:
        # The declarer has seen three cards; now the others get three each, then the rest singly.
        deal._declaring_after_three = False
        rest = deal.deck[3:]
        for k in range(1, N_SEATS):
            deal._give((seat + k) % N_SEATS, rest[3 * (k - 1) : 3 * k])
        singles = rest[3 * (N_SEATS - 1) :]
        deal._one_at_a_time(singles, seat)
        if suit is None:
            suit = singles[(deal.rules.hand_size - 3 - 1) * N_SEATS].suit
    assert suit is not None, "legal_actions offers 'by the last' only after three cards"
    deal.events.append(f"declared_{suit.value}")
    _after_flip_trump(deal, suit)


def _trump_count(deal: Deal, seat: int) -> int:
    return (deal.hands[seat] & deal._tables.trump_mask).bit_count()


def _next_swap(deal: Deal) -> None:
    q = deal.swaps.queue
    while q:
        seat = q.pop(0)
        if _trump_count(deal, seat) == 1:
            deal._await(Phase.SWAP, seat)
            return
    deal._start_play(deal.left)


def swap(deal: Deal, seat: int, accept: bool) -> None:
    """The one-trump holder passes his trump to his partner, or keeps it."""
    deal.swaps.log.append((seat, accept))
    if not accept:
        _next_swap(deal)
        return
    deal.swaps.swapper = seat
    deal._await(Phase.SWAP_RETURN, (seat + 2) % N_SEATS)


def swap_return(deal: Deal, seat: int, c: Card) -> None:
    """The partner gives ``c`` back for the trump; both now know one card of the other's hand."""
    swapper = deal.swaps.swapper
    assert swapper is not None
    trump_bit = deal.hands[swapper] & deal._tables.trump_mask
    deal.hands[swapper] ^= trump_bit | c.bit
    deal.hands[seat] ^= trump_bit | c.bit
    deal.shown[swapper] &= ~trump_bit
    deal.shown[seat] &= ~c.bit
    deal.known[swapper][seat] |= trump_bit
    deal.known[seat][swapper] |= c.bit
    deal.events.append("swap")
    deal.swaps.swapper = None
    _next_swap(deal)
