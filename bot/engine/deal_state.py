"""A deal's state and the operations that change it, below the decisions: the cards held, the
interface the phases before the first lead drive the deal by, and the play phase's bookkeeping.

:class:`DealState` is what :class:`bot.engine.deal.Deal` is made of: the deck, the seats' hands and
what each seat has seen, whose decision the deal waits for, the tricks, the events and the result.
Before the first lead the cards are a :class:`Holding`; from it the play kernel's
:class:`~bot.engine.play.PlayState` plays each card, and this module records it (the trick with its
cards, the events) and scores the end. Classic's brag and exchange (:mod:`bot.engine.brag`), flip's
trump and swap (:mod:`bot.engine.flip`) and ``sochi``'s talon (:mod:`bot.engine.sochi`) change the
deal through the operations here that :class:`bot.engine.phase.DealCore` lists. Which preset deals how,
and which decision goes to which phase, is :class:`~bot.engine.deal.Deal`'s; why a decision is
refused, :mod:`bot.engine.refusal`'s.

The blind (``dummy``, ``two_dummies``; RULES.md §5) has no decision in play: as soon as its turn comes
— after the previous card, or at the first lead — the deal turns the top card of its stack and plays
it itself (the kernel gives a blind one legal card, :func:`~bot.engine.play.turned`). That card is not
a move: ``Deal.moves``, and so the deal record, hold decisions only (RULES.md §7), and replaying the
decisions plays the blind's cards again from the deck, so a record stays replayable and cannot hold a
blind card other than the one its stack gives. ``to_act`` is never a blind in play. The blind's stack
is its hand in the order it received the cards (the deck's order in a deal dealt one at a time, the
brag's order of receipt otherwise). Its brag decisions are the blind seat's own moves, taken by its
partner (:meth:`bot.engine.rules.Rules.decider`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.engine import flip, sochi
from bot.engine.actions import Action
from bot.engine.brag import BragState
from bot.engine.cards import ALL_CARDS, JACK_OF_CLUBS, SUITS, Card, Rank, Suit, cards_of, mask_of
from bot.engine.errors import KozelError
from bot.engine.order import Tables, tables_for
from bot.engine.phase import Phase, TalonState, Trick
from bot.engine.play import GOES_ON, PlayState, play_rules
from bot.engine.result import DealResult
from bot.engine.rules import Rules
from bot.engine.seats import N_SEATS, PAIR_OF, PARTNER_OF

_QUEENS_MASK = mask_of([Card(Rank.QUEEN, s) for s in SUITS])
_JC_BIT = JACK_OF_CLUBS.bit
#: Shared per seat and card: a card as a place in a trick (a card played allocates none).
PLACED = tuple(tuple((seat, c) for c in ALL_CARDS) for seat in range(N_SEATS))
#: ``Trick(leader, plays, winner)`` as the named tuple's own ``__new__`` makes it, without the call to
#: that generated Python function (a trick is built per trick of every deal dealt).
_new_trick = tuple.__new__


class Holding:
    """The cards in hands and the points taken before the play phase (the brag tricks'); the play
    kernel's :class:`~bot.engine.play.PlayState` takes over from it at the first lead."""

    __slots__ = ("drawn", "hands", "pts", "stock", "won")
    #: As in the kernel: nobody is to play and no card may be played (so a play is refused at once).
    seat = -1
    mask = 0

    def __init__(self, seats: int = N_SEATS) -> None:
        self.hands = [0] * seats
        self.pts = [0, 0]
        self.won = [0, 0]
        #: draw's stock, top card first, as bits (``stock[drawn:]`` is left), as in the kernel.
        self.stock: tuple[int, ...] = ()
        self.drawn = 0

    def copy(self) -> Holding:
        """An independent copy."""
        h = Holding(len(self.hands))
        h.hands, h.pts, h.won, h.stock = self.hands.copy(), self.pts.copy(), self.won.copy(), self.stock
        return h


class DealState:
    """The state of one deal and the operations on it that the rules drive; :class:`bot.engine.deal.Deal`
    checks what it is given and takes the decisions."""

    def __init__(
        self, rules: Rules, deck: tuple[Card, ...], dealer: int, deal_no: int, eggs_before: int, version: int
    ) -> None:
        """``deck``: the whole deck, top card first, already checked."""
        #: How many seats play (4; 3 in ``sochi``).
        self.n = n = rules.seats
        #: The reading of the rules this deal is played by (:data:`bot.engine.rules.VERSION`).
        self.version = version
        self.rules = rules
        self.deck = deck
        self.dealer = dealer
        self.deal_no = deal_no
        self.eggs_before = eggs_before
        self.left = (dealer + 1) % n
        #: The side of each seat: fixed pairs with four seats; ``sochi`` forms its sides once the talon
        #: is shown (:func:`bot.engine.sochi.form_sides`; until then the dealer's left is side 0).
        self.pair_of: tuple[int, ...] = PAIR_OF if n == N_SEATS else sochi.sides(n, self.left)
        self._cards: Holding | PlayState = Holding(n)
        #: Cards every seat has seen in each hand (flip's turned-up cards); only the part still held counts.
        self.shown = [0] * n
        #: ``known[o][h]``: cards seat ``o`` privately knows seat ``h`` holds (the swap); same caveat.
        self.known = [[0] * n for _ in range(n)]
        self.trump: Suit | None = None
        self._t: Tables | None = None
        self.phase = Phase.PLAY
        self.to_act: int | None = None
        self.tricks: list[Trick] = []
        #: The trick in play as ``(seat, card)``, each put here as it is played (the kernel keeps bits).
        self._placed: list[tuple[int, Card]] = []
        self.events: list[str] = []
        self.moves: list[tuple[int, Action]] = []
        self.result: DealResult | None = None
        self.jack_holder: int | None = None
        #: Classic's brag and exchange (deals after the first), flip's swap decisions.
        self.brag: BragState | None = None
        self.swaps = flip.SwapState()
        #: ``sochi``'s talon, the lone player and his discards.
        self.talon = TalonState()
        #: The open hand after an exchange: it plays last and never wins.
        self.open_seat: int | None = None
        #: The card the first lead must be, if the leader holds it (classic's ``first_lead_trump_ace``).
        self.first_lead: Card | None = None

    # ------------------------------------------------------------------ the cards

    @property
    def hands(self) -> list[int]:
        """The hands as bit masks over ``Card.id``."""
        return self._cards.hands

    @property
    def points(self) -> list[int]:
        """Card points taken per pair."""
        return self._cards.pts

    @property
    def tricks_won(self) -> list[int]:
        """Tricks taken per pair."""
        return self._cards.won

    @property
    def stock(self) -> list[Card]:
        """draw's stock, top card first."""
        c = self._cards
        return [ALL_CARDS[b.bit_length() - 1] for b in c.stock[c.drawn :]]

    @property
    def play_state(self) -> PlayState | None:
        """The play kernel's position once play has begun (``None`` before): never change it."""
        c = self._cards
        return c if isinstance(c, PlayState) else None

    @property
    def trick(self) -> list[tuple[int, Card]]:
        """The trick in play (the cut-short last one once a caught queen ends the deal)."""
        st = self.play_state
        return [] if st is None else [(s, ALL_CARDS[b.bit_length() - 1]) for s, b in st.trick]

    @property
    def order(self) -> tuple[int, ...]:
        """The seats in playing order for the current trick."""
        st = self.play_state
        return () if st is None else st.s.orders[st.leader]

    @property
    def tables(self) -> Tables | None:
        """The card order of this deal, once trump is known."""
        return self._t

    def hand(self, seat: int) -> list[Card]:
        """``seat``'s cards in display order (trump-suit-agnostic id order before trump is known)."""
        cs = cards_of(self._cards.hands[seat])
        return self._t.sorted(cs) if self._t else cs

    # The interface the phases before the first lead drive the deal through (bot.engine.phase.DealCore).

    def one_at_a_time(self, cs: Sequence[Card], first: int) -> None:
        """Deal ``cs`` one at a time clockwise from ``first``."""
        hands = self._cards.hands
        n = self.n
        for k in range(n):
            m = 0
            for c in cs[k::n]:
                m |= c.bit
            hands[(first + k) % n] |= m
        for seat, hand in enumerate(hands):
            if hand & _JC_BIT:
                self.jack_holder = seat

    def give(self, seat: int, cs: Sequence[Card]) -> None:
        """Put ``cs`` into ``seat``'s hand."""
        m = 0
        for c in cs:
            m |= c.bit
        self._cards.hands[seat] |= m
        if m & _JC_BIT:
            self.jack_holder = seat

    def holder(self, c: Card) -> int:
        """The seat holding ``c``."""
        for seat, hand in enumerate(self._cards.hands):
            if hand & c.bit:
                return seat
        raise KozelError(f"{c} is in no hand")  # pragma: no cover - every card is dealt

    def set_trump(self, trump: Suit) -> None:
        """Trump is known: the card order follows from it."""
        self.trump = trump
        self._t = tables_for(self.rules, trump)

    @property
    def _tables(self) -> Tables:
        assert self._t is not None, "trump is not known yet"
        return self._t

    def redeal_if_four_queens(self) -> bool:
        """Void the deal if a hand holds all four queens and the rules say so; whether it was."""
        if not self.rules.options.redeal_four_queens:
            return False
        for hand in self._cards.hands:
            if hand & _QUEENS_MASK == _QUEENS_MASK:
                self.void("redeal", same_dealer=True)
                return True
        return False

    def void(self, event: str, *, same_dealer: bool) -> None:
        """The deal is void (``event`` says why); ``same_dealer``: he deals again."""
        self.events.append(event)
        self.phase = Phase.OVER
        self.to_act = None
        self.result = DealResult(
            trump=self.trump,
            tricks=(),
            points=(0, 0),
            tricks_won=(0, 0),
            events=tuple(self.events),
            penalty=(0, 0),
            void=True,
            same_dealer=same_dealer,
            jack_holder=self.jack_holder,
            brag_kind=self._rotated_brag_kind(),
            **self._sides(),
        )

    def wait_for(self, phase: Phase, seat: int) -> None:
        """The deal waits for ``seat``'s decision in ``phase``."""
        self.phase = phase
        self.to_act = seat

    def count_trick(self, trick: Trick) -> None:
        """A trick taken before play (the brag's): its points and the trick go to the winner's pair."""
        assert trick.winner is not None
        pair = self.pair_of[trick.winner]
        self._cards.pts[pair] += trick.points
        self._cards.won[pair] += 1
        self.tricks.append(trick)

    def set_sides(self, pair_of: tuple[int, ...]) -> None:
        """The sides of this deal, per seat (``sochi``: once the talon is shown)."""
        self.pair_of = pair_of

    def bank(self, side: int, points: int) -> None:
        """Card points taken outside any trick count for ``side`` (``sochi``'s discards)."""
        self._cards.pts[side] += points

    def open_hand(self, seat: int) -> None:
        """``seat``'s hand is shown to all and plays last, never winning (classic's exchange)."""
        self.open_seat = seat
        self.shown[seat] = self._cards.hands[seat]

    def start_play(self, leader: int, *, restricted: bool = False) -> None:
        """The decisions before the first lead are over: ``leader`` leads (``restricted``: no trump while
        he holds a plain card, draw's first lead)."""
        c = self._cards
        assert isinstance(c, Holding)
        assert self.trump is not None
        rules = play_rules(self.rules, self.trump, self.eggs_before, self.open_seat, self.pair_of)
        first = self.first_lead.bit if self.first_lead is not None else 0
        stacks = self._stacks() if rules.blinds else ()
        st = PlayState(rules, c.hands, leader, (), c.pts, c.won, c.stock, restricted, first, stacks)
        self._cards = st
        self.phase = Phase.PLAY
        self.to_act = leader
        if rules.blinds:
            self._blinds_play(st)

    def _stacks(self) -> tuple[tuple[int, ...], ...]:
        """Each blind's face-down stack, top card first: its hand in the order received (a card received
        twice — excess sent back and dealt again — lies where it was received last); ``()`` for others.
        Version 1 stacked the cards of a brag that took no decision (``fishing``) in deck order."""
        blinds = self.rules.blind_seats
        if not blinds:
            return ()
        out: list[tuple[int, ...]] = [()] * N_SEATS
        brag = self.brag if self.version > 1 or self.moves else None
        for seat in blinds:
            hand = self._cards.hands[seat]
            order = brag.received[seat] if brag is not None else self.deck
            stack: list[int] = []
            for c in reversed(order):
                if hand & c.bit and c.bit not in stack:
                    stack.append(c.bit)
            stack.reverse()
            for c in cards_of(hand):  # never at a table: a test's rearranged hand, under the rest
                if c.bit not in stack:
                    stack.append(c.bit)
            out[seat] = tuple(stack)
        return tuple(out)

    def stack(self, seat: int) -> list[Card]:
        """What is left of blind ``seat``'s face-down stack, top card first (empty before play and for a
        seat that is not a blind). Seen by nobody: no view shows it; tests and the invariants ask."""
        st = self.play_state
        if st is None or not st.stacks[seat]:
            return []
        hand = st.hands[seat]
        return [ALL_CARDS[b.bit_length() - 1] for b in st.stacks[seat] if hand & b]

    # ------------------------------------------------------------------ play

    def legal_mask(self, seat: int) -> int:
        """Bit mask of the cards ``seat`` may play now (0 when it is not his turn to play)."""
        st = self._cards  # before play, a Holding: no seat to play, no card
        return st.mask if seat == st.seat else 0

    def legal_plays(self, seat: int) -> list[Card]:
        """The cards ``seat`` may play now, in display order."""
        m = self.legal_mask(seat)
        return self._tables.sorted(cards_of(m)) if m else []

    def _blinds_play(self, st: PlayState) -> None:
        """While a blind is to play, turn the top card of its stack and play it (not a move: no decision)."""
        blinds = st.s.blinds
        while blinds >> st.seat & 1 and not st.over:
            self._placed.append(PLACED[st.seat][st.mask.bit_length() - 1])
            if st.play(st.mask) == GOES_ON:
                self.to_act = st.seat
            else:
                self._trick_done(st)

    def _trick_done(self, st: PlayState) -> None:
        """The trick in :attr:`_placed` is complete (the kernel has begun a new one), or the deal ended."""
        plays = tuple(self._placed)
        self._placed.clear()
        winner = None if st.queen_pair is not None else st.leader
        self.tricks.append(_new_trick(Trick, (plays[0][0], plays, winner)))
        if st.swapped:
            # draw's last-card swap: each of the pair now knows the other's card.
            partner = PARTNER_OF[st.leader]
            self.known[st.leader][partner] |= st.hands[partner]
            self.known[partner][st.leader] |= st.hands[st.leader]
            self.events.append("last_card_swap")
            st.swapped = False
        if st.over:
            self._finish(st)
        else:
            self.to_act = st.seat

    def _finish(self, st: PlayState) -> None:
        score = st.s.score(st.pts[0], st.pts[1], st.won[0], st.won[1], st.queen_pair)
        self.events.extend(score.events)
        self.phase = Phase.OVER
        self.to_act = None
        self.result = DealResult(
            trump=self.trump,
            tricks=tuple(self.tricks),
            points=(st.pts[0], st.pts[1]),
            tricks_won=(st.won[0], st.won[1]),
            events=tuple(self.events),
            penalty=score.penalty,
            jack_holder=self.jack_holder,
            loser=score.loser,
            multiplier=score.multiplier,
            brag_kind=self._rotated_brag_kind(),
            **self._sides(),
        )

    def _sides(self) -> dict[str, Any]:
        """The result's sides, and ``sochi``'s lone player, talon and discards."""
        t = self.talon
        return {"pair_of": self.pair_of, "lone": t.lone, "talon": t.talon, "discards": t.discards}

    def _rotated_brag_kind(self) -> str | None:
        """The brag kind where it rotates by round (the result names it), else ``None``."""
        if self.deal_no == 1 or not self.rules.brag_rotates:
            return None
        # The kind follows from the deal's number (no brag_choice here), even when the deal was void
        # before the brag state was kept (fishing's lays take no decision).
        return self.rules.brag_kind(self.deal_no).value

    # ------------------------------------------------------------------ the end

    @property
    def over(self) -> bool:
        """Whether the deal has ended (played out, stopped by a caught queen, or void)."""
        return self.phase is Phase.OVER
