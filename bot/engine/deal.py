"""One deal: dealing, the decisions before the first lead, the play, and the deal's result.

Every change goes through :meth:`Deal.apply` (with :meth:`Deal.can` / :meth:`Deal.why_not` to ask
first), and everything a seat may know is exposed through :func:`bot.engine.view.view_for`. The deal
is dealt here; the decisions before the first lead are classic's brag and exchange
(:mod:`bot.engine.brag`) and flip's trump and swap (:mod:`bot.engine.flip`), which drive the deal
through its small public interface (:class:`bot.engine.phase.DealCore`); the play phase is the play
kernel's (:mod:`bot.engine.play`): a :class:`~bot.engine.play.PlayState` plays each card, and the deal
records it (the move, the trick with its cards, the events) and scores the end.

Seats, pairs and turn order are data, not assumptions: ``pair_of`` is per deal and each trick's order
comes from the kernel's :class:`~bot.engine.play.PlayRules`.

The blind (``dummy``, ``two_dummies``; RULES.md §5) has no decision in play: as soon as its turn comes
— after the previous card, or at the first lead — the deal turns the top card of its stack and plays
it itself (the kernel gives a blind one legal card, :func:`~bot.engine.play.turned`). That card is not
a move: :attr:`Deal.moves`, and so the deal record, hold decisions only (RULES.md §7), and replaying
the decisions plays the blind's cards again from the deck, so a record stays replayable and cannot
hold a blind card other than the one its stack gives. :attr:`Deal.to_act` is never a blind in play.
The blind's stack is its hand in the order it received the cards (the deck's order in a deal dealt
one at a time, the brag's order of receipt otherwise). Its brag decisions are the blind seat's own
moves, taken by its partner (:meth:`bot.engine.rules.Rules.decider`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from math import floor
from typing import Any

from bot.engine import brag, flip, refusal, sochi
from bot.engine.actions import Action, Play, action_to_json
from bot.engine.brag import BragState
from bot.engine.cards import (
    ALL_CARDS,
    JACK_OF_CLUBS,
    SUITS,
    Card,
    Rank,
    Suit,
    cards_of,
    deck_for,
    deck_mask,
    mask_of,
)
from bot.engine.errors import IllegalMoveError, KozelError
from bot.engine.exchange import ExchangePlan
from bot.engine.order import Tables, tables_for
from bot.engine.phase import Phase as Phase  # re-exported: Phase and Trick were born here
from bot.engine.phase import Trick as Trick
from bot.engine.play import GOES_ON, PlayState, play_rules
from bot.engine.result import DealResult as DealResult
from bot.engine.rules import VERSION, ClassicOptions, Rules
from bot.engine.seats import CLOCKWISE as CLOCKWISE
from bot.engine.seats import N_SEATS as N_SEATS
from bot.engine.seats import PAIR_OF as PAIR_OF
from bot.engine.seats import PARTNER_OF as PARTNER_OF

_QUEENS_MASK = mask_of([Card(Rank.QUEEN, s) for s in SUITS])
_JC_BIT = JACK_OF_CLUBS.bit
#: One shared ``Play`` per card: a move's action is made once, not per card played.
_PLAYS = tuple(Play(c) for c in ALL_CARDS)
#: Shared per seat and card: a play as a move, and as a place in a trick (a tap allocates neither).
_MOVES = tuple(tuple((seat, p) for p in _PLAYS) for seat in range(N_SEATS))
_PLACED = tuple(tuple((seat, c) for c in ALL_CARDS) for seat in range(N_SEATS))
#: ``Trick(leader, plays, winner)`` as the named tuple's own ``__new__`` makes it, without the call to
#: that generated Python function (a trick is built per trick of every deal dealt).
_new_trick = tuple.__new__


@cache
def _shuffle_steps(n: int) -> tuple[tuple[int, float], ...]:
    """Fisher-Yates's steps over ``n`` cards: each place ``i`` from the last down, and ``i + 1`` as a
    float (the product ``rnd() * (i + 1)`` is the same; multiplying by a float is cheaper)."""
    return tuple((i, float(i + 1)) for i in range(n - 1, 0, -1))


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


#: The types of a deal's parts that change as it goes; :meth:`Deal.copy` copies these and shares the rest.
_MUTABLE = (list, Holding, PlayState, brag.BragState, flip.SwapState, sochi.TalonState)


class Deal:
    """The state of one deal. Build it with a full deck (``deck[0]`` is the top card) or :meth:`shuffled`."""

    def __init__(
        self,
        rules: Rules,
        deck: Sequence[Card],
        dealer: int,
        deal_no: int = 1,
        eggs_before: int = 0,
        *,
        checked: bool = False,
        version: int = VERSION,
    ) -> None:
        #: How many seats play (4; 3 in ``sochi``).
        self.n = n = rules.seats
        if dealer not in range(n):
            raise KozelError(f"dealer must be a seat 0-{n - 1}, not {dealer!r}")
        if version not in range(1, VERSION + 1):
            raise KozelError(f"version must be 1-{VERSION}, not {version!r}")
        #: The reading of the rules this deal is played by (:data:`bot.engine.rules.VERSION`).
        self.version = version
        if deal_no < 1:
            raise KozelError(f"deal_no starts at 1, not {deal_no!r}")
        self.rules = rules
        # ``checked``: the deck comes from Deal.shuffled (canonical cards, a permutation of the deck).
        self.deck = tuple(deck) if checked else tuple([ALL_CARDS[c.id] for c in deck])
        if not checked:
            _check_deck(rules, self.deck)
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
        self.talon = sochi.TalonState()
        #: The open hand after an exchange: it plays last and never wins.
        self.open_seat: int | None = None
        #: The card the first lead must be, if the leader holds it (classic's ``first_lead_trump_ace``).
        self.first_lead: Card | None = None
        self._deal()

    @classmethod
    def shuffled(
        cls, rules: Rules, rng: random.Random, dealer: int, deal_no: int = 1, eggs_before: int = 0
    ) -> Deal:
        """A deal from a deck shuffled by ``rng`` (the caller owns the randomness, so deals replay)."""
        deck = list(deck_for(rules.deck_size))
        # Fisher-Yates on rng.random(): uniform to within 2**-53, and twice as fast as rng.shuffle,
        # which matters when bot players deal thousands of worlds. ``floor`` is ``int`` here (the
        # product is never negative), a good deal cheaper to call.
        rnd = rng.random
        for i, k in _shuffle_steps(len(deck)):  # j = floor(rnd() * (i + 1)), k being i + 1 as a float
            j = floor(rnd() * k)
            deck[i], deck[j] = deck[j], deck[i]
        return cls(rules, deck, dealer, deal_no, eggs_before, checked=True)

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

    # ------------------------------------------------------------------ dealing

    def _deal(self) -> None:
        preset = self.rules.preset
        if isinstance(self.rules.options, ClassicOptions):  # classic and the presets built on it
            self.set_trump(self.rules.fixed_trump_suit or Suit.DIAMONDS)
            if self.deal_no > 1:
                self.brag = brag.state_for(self)
                brag.start(self, self.brag)
                return
            self.one_at_a_time(self.deck, self.left)
            if self.redeal_if_four_queens():
                return
            opts = self.rules.options
            assert isinstance(opts, ClassicOptions)
            if opts.first_lead_trump_ace:
                self.first_lead = Card(Rank.ACE, self._tables.trump)
                self.start_play(self.holder(self.first_lead))
            else:
                self.start_play(self.holder(JACK_OF_CLUBS))
        elif preset == "draw":
            n = 4 * N_SEATS
            self.one_at_a_time(self.deck[:n], self.left)
            self._cards.stock = tuple([c.bit for c in self.deck[n:]])
            self.set_trump(Suit.CLUBS)
            if self.redeal_if_four_queens():
                return
            self.start_play(self.dealer, restricted=True)
        elif preset == "sochi":
            self.set_trump(self.rules.fixed_trump_suit or Suit.DIAMONDS)
            if self.deal_no > 1:
                self.brag = brag.state_for(self)
                brag.start(self, self.brag)
                return
            sochi.deal_first(self, self.talon)
        elif preset == "tricks":
            # RULES.md §5: every deal one card at a time, no brag; the ♣J holder leads the first deal
            # (and deals the second), later the player on the dealer's left leads.
            self.set_trump(Suit.CLUBS)
            self.one_at_a_time(self.deck, self.left)
            self.start_play(self.holder(JACK_OF_CLUBS) if self.deal_no == 1 else self.left)
        else:
            flip.deal_cards(self, self.swaps)

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

    def play(self, seat: int, c: Card) -> None:
        """Play ``c`` from ``seat``'s hand; raises :class:`IllegalMoveError` saying why it is not allowed."""
        st: PlayState = self._cards  # type: ignore[assignment]  # checked: a Holding has no seat to play
        b = c.bit
        # Before play a Holding, and once over the kernel, has mask 0: every play is refused here. The
        # seat to play is never a blind: its cards are played as soon as its turn comes (below).
        if seat != st.seat or not st.mask & b:
            raise refusal.why_not_play(self, seat, c)
        self.moves.append(_MOVES[seat][c.id])
        self._placed.append(_PLACED[seat][c.id])
        if st.play(b) == GOES_ON:
            self.to_act = st.seat
        else:
            self._trick_done(st)
        if st.s.blinds:
            self._blinds_play(st)

    def _blinds_play(self, st: PlayState) -> None:
        """While a blind is to play, turn the top card of its stack and play it (not a move: no decision)."""
        blinds = st.s.blinds
        while blinds >> st.seat & 1 and not st.over:
            self._placed.append(_PLACED[st.seat][st.mask.bit_length() - 1])
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

    # ------------------------------------------------------------------ generic API

    @property
    def over(self) -> bool:
        """Whether the deal has ended (played out, stopped by a caught queen, or void)."""
        return self.phase is Phase.OVER

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty when it is not his decision)."""
        if seat != self.to_act:
            return []
        phase = self.phase
        if phase is Phase.PLAY:
            return [_PLAYS[c.id] for c in self.legal_plays(seat)]
        if phase is Phase.DISCARD:
            return sochi.legal(self, self.talon, seat)
        if self.brag is not None:
            return brag.legal(self, self.brag, seat)
        return flip.legal(self, self.swaps, seat)

    def can(self, seat: int, action: Action) -> bool:
        """Whether ``seat`` may take ``action`` now."""
        return self.why_not(seat, action) is None

    def why_not(self, seat: int, action: Action) -> IllegalMoveError | None:
        """Why ``seat`` may not take ``action`` now, as the error :meth:`apply` would raise (``None``: he
        may); its ``reason`` tells programs why, its message people (:mod:`bot.engine.refusal`)."""
        if not isinstance(action, Play):
            return refusal.why_not(self, seat, action)
        if self.legal_mask(seat) & action.card.bit:
            return None
        return refusal.why_not_play(self, seat, action.card)

    def apply(self, seat: int, action: Action) -> None:
        """Take ``action`` for ``seat``; an illegal one raises :class:`IllegalMoveError` saying why."""
        if isinstance(action, Play):
            self.play(seat, action.card)
            return
        error = self.why_not(seat, action)
        if error is not None:
            raise error
        self.moves.append((seat, action))
        if self.phase is Phase.DISCARD:
            sochi.apply(self, self.talon, seat, action)
        elif self.brag is not None:
            brag.apply(self, self.brag, seat, action)
        else:
            flip.apply(self, self.swaps, seat, action)

    def copy(self) -> Deal:
        """An independent copy: the parts that change (:data:`_MUTABLE`) are copied, the rest shared."""
        new = Deal.__new__(Deal)
        new.__dict__.update({k: _copied(v) for k, v in self.__dict__.items()})
        return new

    def record(self) -> dict[str, Any]:
        """This deal as a replayable record (RULES.md §7)."""
        rec: dict[str, Any] = {
            "rules": self.rules.to_json(),
            "deal_no": self.deal_no,
            "dealer": self.dealer,
            "deck": [c.code for c in self.deck],
            "moves": [{"seat": s, **dict([action_to_json(a)])} for s, a in self.moves],
        }
        if self.eggs_before:
            rec["eggs_before"] = self.eggs_before
        if self.version > 1:
            rec["version"] = self.version
        return rec

    @property
    def exchange(self) -> ExchangePlan | None:
        """The exchange on offer (or being made) in classic's brag deals."""
        return self.brag.exchange if self.brag is not None else None


def _copied(v: object) -> object:
    if not isinstance(v, _MUTABLE):
        return v
    if isinstance(v, list):
        return [x.copy() if isinstance(x, list) else x for x in v]
    return v.copy()


def _check_deck(rules: Rules, deck: tuple[Card, ...]) -> None:
    expected = deck_for(rules.deck_size)
    if len(deck) == len(expected) and mask_of(deck) == deck_mask(rules.deck_size):
        return
    seen = set(deck)
    missing = [c for c in expected if c not in seen]
    extra = [c for c in deck if c not in set(expected)]
    doubled = len(deck) - len(seen)
    raise KozelError(
        f"the deck must hold the {len(expected)} cards of the {rules.preset} deck exactly once"
        + (f"; missing {' '.join(map(str, missing))}" if missing else "")
        + (f"; not in this deck {' '.join(map(str, extra))}" if extra else "")
        + (f"; {doubled} card(s) listed twice" if doubled else "")
    )
