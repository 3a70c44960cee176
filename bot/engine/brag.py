"""Classic's brag (хвалёж) (RULES.md §2): the kinds, the lays, the brag tricks; the exchange after it
is :mod:`bot.engine.exchange`'s.

These functions drive a deal through the phases before the first lead of a classic deal after the
first, through the deal's public interface (:class:`bot.engine.phase.DealCore`); the brag's own state
is a :class:`BragState` the deal keeps and hands in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

from bot.engine import exchange, sochi
from bot.engine.actions import Action, Brag, ChooseBragKind, Cut, Exchange, ExchangeGive
from bot.engine.cards import ALL_CARDS, Card, Rank, cards_of
from bot.engine.exchange import ExchangePlan
from bot.engine.phase import DealCore, Phase, Refusal, Trick, refused
from bot.engine.rules import BragKind, ClassicOptions

N_SEATS = 4
#: Shared action values: a single-card brag per card id, and the two exchange answers.
_SINGLE = tuple(Brag((c,)) for c in ALL_CARDS)
_YES_NO = (Exchange(True), Exchange(False))


@dataclass
class BragState:
    """The brag in progress."""

    bragger: int
    #: Seats still to lay, in order (the bragger first, the dealer last).
    turns: list[int]
    #: The cards not yet handed out, top first.
    stock: list[Card]
    #: Per seat, every card received in this deal, in the order received (for the excess rule).
    received: list[list[Card]] = field(default_factory=lambda: [[] for _ in range(N_SEATS)])
    #: Cards laid so far: (seat, cards in brag-card order).
    laid: list[tuple[int, tuple[Card, ...]]] = field(default_factory=list)
    kind: BragKind | None = None
    double: bool = False
    #: The bragger's first pair (or group of four), which decides whether he may brag double.
    first_group: tuple[Card, ...] = ()
    #: Cards each hand holds once the brag and top-ups are over, before the brag cards are laid.
    hand_size: int = 9
    #: Who took the brag (he leads), once the brag cards are turned.
    leader: int = -1
    #: The exchange on offer (or being made) by the non-bragging pair.
    exchange: ExchangePlan | None = None
    #: Per seat, how many trumps he took from the deck in the mirror or fishing (everyone saw how
    #: many; which ones, he alone).
    took: list[int] = field(default_factory=lambda: [0] * N_SEATS)

    def copy(self) -> BragState:
        """An independent copy."""
        return BragState(
            bragger=self.bragger,
            turns=self.turns.copy(),
            stock=self.stock.copy(),
            received=[r.copy() for r in self.received],
            laid=self.laid.copy(),
            kind=self.kind,
            double=self.double,
            first_group=self.first_group,
            hand_size=self.hand_size,
            leader=self.leader,
            exchange=self.exchange,
            took=self.took.copy(),
        )

    @property
    def turned(self) -> bool:
        """Whether the brag cards have been turned (the brag tricks are made)."""
        return self.leader >= 0


def state_for(deal: DealCore) -> BragState:
    """The state of the brag of a classic deal after the first, not yet begun (see :func:`start`)."""
    bragger = deal.left
    n = deal.rules.seats
    return BragState(
        bragger=bragger,
        turns=[(bragger + k) % n for k in range(n)],
        stock=list(deal.deck),
        received=[[] for _ in range(n)],
        hand_size=deal.rules.hand_size,
        took=[0] * n,
    )


def start(deal: DealCore, st: BragState) -> None:
    """Open the brag ``st`` (trump is already known). The deal keeps ``st`` before this: a brag that
    takes no decision (``fishing``) runs to the first lead here, and the blinds' stacks are made from
    what it received."""
    opts = deal.rules.options
    if isinstance(opts, ClassicOptions) and opts.brag_choice:
        deal.wait_for(Phase.BRAG_KIND, st.bragger)
    else:
        begin(deal, st, deal.rules.brag_kind(deal.deal_no))


def begin(deal: DealCore, st: BragState, kind: BragKind) -> None:
    """Start the brag of ``kind``: the bragger's turn (the mirror waits for his cut)."""
    st.kind = kind
    _next_turn(deal, st)


#: The cut points the bots and the keyboards offer, by name (RULES.md allows any of 1 … n-1).
CUT_NAMES = ("top", "third", "half", "two_thirds", "bottom")


def cut_points(n: int) -> list[tuple[str, int]]:
    """The handful of cut points offered for a deck of ``n`` cards (n ≥ 2), by name: the top card, a
    third, half, two thirds, all but the bottom card; a point another name already took is left out."""
    out: list[tuple[str, int]] = []
    for name, at in zip(CUT_NAMES, (1, n // 3, n // 2, 2 * n // 3, n - 1), strict=True):
        if 1 <= at < n and all(at != a for _, a in out):
            out.append((name, at))
    return out


def cut(deal: DealCore, st: BragState, at: int) -> None:
    """The mirror: the seat to act lifts the top ``at`` cards and looks at them from the bottom card up:
    trumps go into his hand, the first non-trump is the card he lays; the rest of the packet goes back
    on top. A packet of trumps only is kept, and he cuts again."""
    t = deal.tables
    assert t is not None
    seat = st.turns[0]
    stock = st.stock
    for i in range(at - 1, -1, -1):
        c = stock[i]
        if t.is_trump(c):
            continue
        taken = stock[i + 1 : at][::-1]
        st.stock = stock[:i] + stock[at:]
        _take(deal, st, seat, taken)
        _receive(deal, st, seat, [c])
        lay(deal, st, seat, (c,))
        return
    _take(deal, st, seat, stock[:at][::-1])
    del stock[:at]
    _mirror_turn(deal, st, seat)


def _mirror_turn(deal: DealCore, st: BragState, seat: int) -> None:
    """``seat`` cuts; with one card left he takes it uncut; with none the deal is void."""
    stock = st.stock
    if len(stock) >= 2:
        deal.wait_for(Phase.CUT, seat)
        return
    t = deal.tables
    assert t is not None
    if stock and not t.is_trump(stock[0]):
        c = stock.pop()
        _receive(deal, st, seat, [c])
        lay(deal, st, seat, (c,))
        return
    _take(deal, st, seat, stock)
    stock.clear()
    deal.void("redeal", same_dealer=True)


def _fish(deal: DealCore, st: BragState, seat: int) -> None:
    """Fishing: ``seat`` draws from the middle of the deck, keeping trumps, until a non-trump, which he
    lays; the deck running out first voids the deal."""
    t = deal.tables
    assert t is not None
    stock = st.stock
    while stock:
        c = stock.pop(len(stock) // 2)
        if not t.is_trump(c):
            _receive(deal, st, seat, [c])
            lay(deal, st, seat, (c,))
            return
        _take(deal, st, seat, [c])
    deal.void("redeal", same_dealer=True)


def _take(deal: DealCore, st: BragState, seat: int, trumps: list[Card]) -> None:
    """``seat`` takes ``trumps`` from the deck into his hand, seen by him alone (the others count them)."""
    _receive(deal, st, seat, trumps)
    st.took[seat] += len(trumps)


def apply(deal: DealCore, st: BragState, seat: int, action: Action) -> None:
    """Take a decision of the brag or the exchange (already checked by :func:`refusal`)."""
    # Most frequent first: four brag lays per brag deal.
    if isinstance(action, Brag):
        lay(deal, st, seat, action.cards)
    elif isinstance(action, Exchange):
        assert st.exchange is not None
        st.exchange = exchange.answer(deal, st.exchange, st.bragger, st.leader, seat, action.accept)
    elif isinstance(action, ExchangeGive):
        assert st.exchange is not None
        exchange.give(deal, st.exchange, st.leader, action.cards)
    elif isinstance(action, ChooseBragKind):
        deal.events.append(f"brag_{action.kind.value}")
        begin(deal, st, action.kind)
    elif isinstance(action, Cut):
        cut(deal, st, action.at)


def refusal(deal: DealCore, st: BragState, seat: int, action: Action) -> Refusal | None:
    """Why the seat to act may not take ``action`` now (``None``: he may)."""
    phase = deal.phase
    # Checked directly: cheaper than listing every choice, which can run to dozens.
    if isinstance(action, Brag) and phase is Phase.BRAG:
        ok = can_lay(deal, st, seat, action.cards)
    elif isinstance(action, Cut) and phase is Phase.CUT:
        ok = 1 <= action.at < len(st.stock)
    elif isinstance(action, ExchangeGive) and phase is Phase.EXCHANGE_GIVE:
        assert st.exchange is not None
        ok = exchange.can_give(deal, st.exchange, seat, action.cards)
    else:
        ok = action in legal(deal, st, seat)
    return None if ok else refused(phase, action)


def legal(deal: DealCore, st: BragState, seat: int) -> list[Action]:
    """The brag and exchange decisions ``seat`` may take now."""
    phase = deal.phase
    t = deal.tables
    assert t is not None
    if phase is Phase.BRAG:
        plain = cards_of(deal.hands[seat] & ~t.trump_mask)
        if seat == st.bragger:
            firsts = [c for c in st.first_group if not t.is_trump(c)]
            doubles = [Brag(p) for p in permutations(firsts, 2) if _double_pair(*p)]
            return [*(_SINGLE[c.id] for c in plain), *doubles]
        if st.double:
            return [Brag(p) for p in permutations(plain, 2)]
        return [_SINGLE[c.id] for c in plain]
    if phase is Phase.EXCHANGE:
        return list(_YES_NO)
    if phase is Phase.BRAG_KIND:
        opts = deal.rules.options
        assert isinstance(opts, ClassicOptions)
        return [ChooseBragKind(k) for k in opts.brag_choice]
    if phase is Phase.CUT:
        return [Cut(i) for i in range(1, len(st.stock))]
    if phase is Phase.EXCHANGE_GIVE:
        assert st.exchange is not None
        return exchange.gifts(deal, st.exchange, seat)
    return []


def can_lay(deal: DealCore, st: BragState, seat: int, laid: tuple[Card, ...]) -> bool:
    """Whether ``seat`` may lay ``laid`` now: non-trumps he holds, one or (double brag) two."""
    t = deal.tables
    assert t is not None
    mask = 0
    for c in laid:
        mask |= c.bit
    if mask & t.trump_mask or mask & deal.hands[seat] != mask or mask.bit_count() != len(laid):
        return False
    if seat == st.bragger:
        if len(laid) == 1:
            return True
        return len(laid) == 2 and all(c in st.first_group for c in laid) and _double_pair(*laid)
    return len(laid) == (2 if st.double else 1)


def _double_pair(a: Card, b: Card) -> bool:
    """Two non-trumps the bragger may brag double with: of one suit, or two aces."""
    return a.suit is b.suit or a.rank is b.rank is Rank.ACE


def lay(deal: DealCore, st: BragState, seat: int, laid: tuple[Card, ...]) -> None:
    """``seat`` lays his brag card(s); he is topped up, his excess goes to his partner, the next lays."""
    for c in laid:
        deal.hands[seat] &= ~c.bit
    if deal.rules.blind_mask >> seat & 1:
        # The blind's partner bragged for it: he saw what it keeps (not its top-up, dealt face down).
        deal.known[(seat + 2) % N_SEATS][seat] |= deal.hands[seat]
    st.laid.append((seat, laid))
    if seat == st.bragger:
        st.double = len(laid) == 2
    target = st.hand_size - (2 if st.double else 1)
    short = target - deal.hands[seat].bit_count()
    if short > 0:
        top = st.stock[:short]
        del st.stock[:short]
        st.received[seat] += top
        for c in top:
            deal.hands[seat] |= 1 << c.id
    excess = deal.hands[seat].bit_count() - target
    if excess > 0:
        # With no partners during the brag (``sochi``: the sides are formed after it) the excess goes
        # back under the deck.
        partner = (seat + 2) % N_SEATS if deal.rules.seats == N_SEATS else None
        mine = deal.hands[seat]
        latest = [c for c in reversed(st.received[seat]) if mine & c.bit][:excess]
        for c in latest:
            deal.hands[seat] &= ~c.bit
            if partner is not None and partner in st.turns:
                _receive(deal, st, partner, [c])
            else:
                st.stock.append(c)
    st.turns.pop(0)
    _next_turn(deal, st)


def _next_turn(deal: DealCore, st: BragState) -> None:
    if not st.turns:
        _resolve(deal, st)
        return
    seat = st.turns[0]
    t = deal.tables
    assert t is not None
    if st.kind is BragKind.MIRROR:
        _mirror_turn(deal, st, seat)
        return
    if st.kind is BragKind.FISHING:
        _fish(deal, st, seat)
        return
    half = 2 if st.kind is BragKind.BIG_PANTS else 1
    need = 2 if st.double else 1
    stock, received, plain = st.stock, st.received[seat], ~t.trump_mask
    hand = deal.hands[seat]
    got = 0
    while not got or (hand & plain).bit_count() < need:
        if not stock:
            deal.hands[seat] = hand
            deal.void("redeal", same_dealer=True)
            return
        # A pair is the top card and the bottom card (big pants: two of each; one card when one is left).
        group = stock[:half]
        del stock[:half]
        if stock:
            group += stock[-half:][::-1]
            del stock[-half:]
        for c in group:
            hand |= 1 << c.id
        received += group
        if not got and seat == st.bragger:
            st.first_group = tuple(group)
        got += 1
    deal.hands[seat] = hand
    deal.wait_for(Phase.BRAG, seat)


def _receive(deal: DealCore, st: BragState, seat: int, cs: list[Card]) -> None:
    received = st.received[seat]
    m = deal.hands[seat]
    for c in cs:
        m |= 1 << c.id
        received.append(c)
    deal.hands[seat] = m


def _resolve(deal: DealCore, st: BragState) -> None:
    """Turn the brag card(s): the brag tricks, who won the brag, then the exchange or the first lead.
    ``sochi``: the two cards left are the talon, which forms the sides first (or voids the deal); the
    brag tricks count for their takers' sides, and the lone player discards before the first lead."""
    t = deal.tables
    assert t is not None
    talon = deal.talon if deal.rules.talon_size else None
    if talon is not None:
        rest, st.stock = st.stock, []
        if not sochi.form_sides(deal, talon, rest):
            return
    results = []
    for i in range(2 if st.double else 1):
        plays = tuple([(seat, cs[i]) for seat, cs in st.laid])
        suit = plays[0][1].suit
        winner, best, pts = -1, -1, 0
        for seat, c in plays:
            pts += c.points
            if c.suit is suit and t.power[c.id] > best:
                winner, best = seat, t.power[c.id]
        deal.count_trick(Trick(st.bragger, plays, winner))
        results.append((winner, pts))
    bragging = deal.pair_of[st.bragger]
    if len(results) == 1:
        leader = results[0][0]
    else:
        (w1, p1), (w2, p2) = results
        if deal.pair_of[w1] == deal.pair_of[w2]:
            leader = w2 if p2 > p1 else w1
        elif p1 != p2:
            leader = w1 if p1 > p2 else w2
        else:
            leader = w1 if deal.pair_of[w1] == bragging else w2
    st.leader = leader
    deal.events.append("brag_won" if deal.pair_of[leader] == bragging else "brag_lost")
    if talon is not None:
        sochi.await_discard(deal, talon, leader)
        return
    if deal.redeal_if_four_queens():
        return
    if deal.pair_of[leader] == bragging and deal.rules.exchange_allowed:
        plan = exchange.offer(t, deal.hands, st.bragger)
        if plan is not None:
            st.exchange = plan
            deal.wait_for(Phase.EXCHANGE, (st.bragger + 1) % N_SEATS)
            return
    deal.start_play(leader)
