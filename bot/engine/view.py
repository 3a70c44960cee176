"""What one seat may know: the only window bots and the Telegram layer get onto a deal."""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine.actions import Action
from bot.engine.cards import Card, Suit, cards_of, deck_mask, mask_of
from bot.engine.deal import N_SEATS, Deal, Phase, Trick
from bot.engine.order import Tables
from bot.engine.rules import BragKind, Rules
from bot.engine.scoring import multiplier_for


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything ``seat`` can see at a real table, and nothing else."""

    seat: int
    rules: Rules
    dealer: int
    deal_no: int
    phase: Phase
    #: Whose decision the deal waits for (``None`` when it is over).
    to_act: int | None
    trump: Suit | None
    tables: Tables | None
    hand: tuple[Card, ...]
    #: What ``seat`` may do now (empty unless it is his decision).
    legal: tuple[Action, ...]
    hand_sizes: tuple[int, ...]
    #: Per seat, the cards of that hand this seat has seen (face-up cards, a swapped card).
    seen: tuple[tuple[Card, ...], ...]
    trick: tuple[tuple[int, Card], ...]
    tricks: tuple[Trick, ...]
    points: tuple[int, int]
    tricks_won: tuple[int, int]
    #: Cards left in the deck: draw's stock, or classic's deck during the brag.
    stock_size: int
    events: tuple[str, ...]
    pair_of: tuple[int, ...]
    multiplier: int
    #: Classic's brag: the kind, and the cards laid so far (the bragger's stay ``None`` to the others
    #: until the brag card is turned, in every kind).
    brag_kind: BragKind | None = None
    bragger: int | None = None
    brag_laid: tuple[tuple[int, tuple[Card | None, ...]], ...] = ()
    #: Per seat, how many trumps he took from the deck in the mirror or fishing: everyone counted
    #: them, only he saw them (they are in his ``hand``, in nobody's ``seen``).
    brag_took: tuple[int, ...] = ()
    #: The open hand after an exchange (its cards are in ``seen``).
    open_seat: int | None = None
    #: During the exchange talk: the partner's trump and non-trump counts, all the partners may tell.
    partner_counts: tuple[int, int] | None = None
    #: Flip's swap decisions so far, in order: (seat, whether he passed his trump). Everyone at the
    #: table sees who was asked (only a hand with exactly one trump is) and what he chose.
    swaps: tuple[tuple[int, bool], ...] = ()
    #: ``sochi``: the talon shown to all once dealt, the lone player once the sides are formed, and —
    #: to the lone player alone — the two cards he discarded (nobody else ever sees them).
    talon: tuple[Card, ...] = ()
    lone: int | None = None
    discards: tuple[Card, ...] = ()

    @property
    def partner(self) -> int | None:
        """The seat opposite (four seats); in ``sochi`` the other of the pair, none for the lone player."""
        if len(self.pair_of) == N_SEATS:
            return (self.seat + 2) % N_SEATS
        mates = [
            s for s, side in enumerate(self.pair_of) if side == self.pair_of[self.seat] and s != self.seat
        ]
        return mates[0] if self.lone is not None and mates else None

    @property
    def my_turn(self) -> bool:
        """Whether the deal waits for this seat."""
        return self.to_act == self.seat

    def played(self) -> tuple[Card, ...]:
        """Every card played so far in this deal, trick by trick."""
        return tuple(c for t in self.tricks for _, c in t.plays) + tuple(c for _, c in self.trick)

    def unseen(self) -> tuple[Card, ...]:
        """Cards whose place this seat does not know: not in his hand, not played, not seen elsewhere
        (in a hand, or laid face up in the brag)."""
        m = deck_mask(self.rules.deck_size)
        for c in (*self.hand, *self.played(), *self.discards):
            m &= ~c.bit
        for cs in self.seen:
            for c in cs:
                m &= ~c.bit
        for _, laid in self.brag_laid:
            for face_up in laid:
                if face_up is not None:
                    m &= ~face_up.bit
        return tuple(cards_of(m))


def view_for(deal: Deal, seat: int) -> SeatView:
    """The view of ``deal`` from ``seat``."""
    n = deal.n
    if seat not in range(n):
        raise ValueError(f"no seat {seat!r}")
    t = deal.tables
    brag = deal.brag
    laid: tuple[tuple[int, tuple[Card | None, ...]], ...] = ()
    if brag is not None:
        hidden = not brag.turned
        laid = tuple(
            (s, tuple(None for _ in cs) if hidden and s == brag.bragger and s != seat else cs)
            for s, cs in brag.laid
        )
    counts = None
    plan = deal.exchange
    partner = (seat + 2) % n
    talking = deal.phase in (Phase.EXCHANGE, Phase.EXCHANGE_GIVE)
    if plan is not None and t is not None and talking and seat in (plan.strong, plan.open):
        trumps = (deal.hands[partner] & t.trump_mask).bit_count()
        counts = (trumps, deal.hands[partner].bit_count() - trumps)
    talon = deal.talon
    # The talon is seen in the lone hand until he discards; after that nobody knows which he kept.
    taking = mask_of(talon.talon) if deal.phase is Phase.DISCARD else 0
    seen = []
    for h in range(n):
        shown = deal.shown[h] | (taking if h == talon.lone else 0)
        m = 0 if h == seat else (shown | deal.known[seat][h]) & deal.hands[h]
        cs = cards_of(m)
        seen.append(tuple(t.sorted(cs) if t else cs))
    return SeatView(
        seat=seat,
        rules=deal.rules,
        dealer=deal.dealer,
        deal_no=deal.deal_no,
        phase=deal.phase,
        to_act=deal.to_act,
        trump=deal.trump,
        tables=t,
        hand=tuple(deal.hand(seat)),
        legal=tuple(deal.legal_actions(seat)),
        hand_sizes=tuple(h.bit_count() for h in deal.hands),
        seen=tuple(seen),
        trick=tuple(deal.trick) if deal.phase is Phase.PLAY else (),
        tricks=tuple(deal.tricks),
        points=(deal.points[0], deal.points[1]),
        tricks_won=(deal.tricks_won[0], deal.tricks_won[1]),
        stock_size=len(deal.stock) + (len(brag.stock) if brag is not None else 0),
        events=tuple(deal.events),
        pair_of=deal.pair_of,
        multiplier=multiplier_for(deal.rules, deal.eggs_before),
        brag_kind=brag.kind if brag is not None else None,
        bragger=brag.bragger if brag is not None else None,
        brag_laid=laid,
        brag_took=tuple(brag.took) if brag is not None else (),
        open_seat=deal.open_seat,
        partner_counts=counts,
        swaps=tuple(deal.swaps.log),
        talon=talon.talon,
        lone=talon.lone,
        discards=talon.discards if seat == talon.lone else (),
    )
