"""One deal: dealing, the decisions before the first lead, tricks, the queen catch and the deal's result.

The state is mutable and compact (hands are bit masks over ``Card.id``) because bot players copy and
replay it thousands of times per decision; everything a seat may know is exposed through
:func:`bot.engine.view.view_for`, and every change goes through :meth:`Deal.apply`.

Seats, pairs and turn order are data, not assumptions: ``pair_of`` is per deal (a lone player against
a pair formed for one deal, as in ``sochi``, is a different ``pair_of``), each trick's ``order`` is
computed when it starts (the open hand plays last; a blind seat would be one whose only action is to
turn its next card), and scores are kept per pair by :class:`bot.engine.match.Match` (individual
scores are pairs of one).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.engine import brag, flip
from bot.engine.actions import (
    Action,
    Brag,
    ChooseBragKind,
    Cut,
    Declare,
    Exchange,
    ExchangeGive,
    Play,
    Swap,
    SwapReturn,
    action_to_json,
)
from bot.engine.brag import BragState, ExchangePlan
from bot.engine.cards import (
    ALL_CARDS,
    JACK_OF_CLUBS,
    QUEEN_OF_CLUBS,
    SUITS,
    Card,
    Rank,
    Suit,
    cards_of,
    deck_for,
    deck_mask,
    mask_of,
)
from bot.engine.draw_rule import draw_lead_rule
from bot.engine.errors import IllegalMoveError, KozelError, Reason
from bot.engine.order import TRUMP, Tables, tables_for
from bot.engine.phase import Phase as Phase  # re-exported: Phase and Trick were born here
from bot.engine.phase import Trick as Trick
from bot.engine.rules import ClassicOptions, Rules
from bot.engine.scoring import DealScore, score_deal

N_SEATS = 4
#: Pair of each seat: partners sit opposite (pair A = seats 0 and 2, pair B = 1 and 3).
PAIR_OF = (0, 1, 0, 1)
#: Partner of each seat: the seat opposite.
PARTNER_OF = (2, 3, 0, 1)
_QUEENS_MASK = mask_of([Card(Rank.QUEEN, s) for s in SUITS])
_QC_ID = QUEEN_OF_CLUBS.id
_JC_ID = JACK_OF_CLUBS.id
_JC_BIT = JACK_OF_CLUBS.bit
_BRAG_PHASES = frozenset((Phase.BRAG, Phase.EXCHANGE, Phase.EXCHANGE_GIVE, Phase.BRAG_KIND, Phase.CUT))
_NEXT = tuple((s + 1) % N_SEATS for s in range(N_SEATS))
#: The phase each kind of decision belongs to (to tell a refused choice from one asked at the wrong time).
_PHASE_OF: dict[type, Phase] = {
    Brag: Phase.BRAG,
    Exchange: Phase.EXCHANGE,
    ExchangeGive: Phase.EXCHANGE_GIVE,
    ChooseBragKind: Phase.BRAG_KIND,
    Cut: Phase.CUT,
    Declare: Phase.DECLARE,
    Swap: Phase.SWAP,
    SwapReturn: Phase.SWAP_RETURN,
}
CLOCKWISE = tuple(tuple((lead + k) % N_SEATS for k in range(N_SEATS)) for lead in range(N_SEATS))
#: ``OPEN_LAST[open][leader]``: the others clockwise from the leader, then the open hand.
OPEN_LAST = tuple(
    tuple((*tuple(s for s in CLOCKWISE[lead] if s != open_), open_) for lead in range(N_SEATS))
    for open_ in range(N_SEATS)
)


@dataclass(frozen=True, slots=True)
class DealResult:
    """What a deal came to: the tricks, card points, events and the penalty charged per pair."""

    trump: Suit | None
    tricks: tuple[Trick, ...]
    points: tuple[int, int]
    tricks_won: tuple[int, int]
    events: tuple[str, ...]
    penalty: tuple[int, int]
    #: The deal was void (no scoring); ``same_dealer`` says whether the same dealer deals again.
    void: bool = False
    same_dealer: bool = False
    #: The seat dealt ♣J (deals the next deal in classic and in flip's ``jack_declares``).
    jack_holder: int | None = None
    loser: int | None = None
    multiplier: int = 1

    def to_json(self) -> dict[str, Any]:
        """The result as RULES.md §7 prints it."""
        out: dict[str, Any] = {
            "trump": self.trump.value if self.trump else None,
            "tricks": [t.to_json() for t in self.tricks],
            "points": list(self.points),
            "events": list(self.events),
            "penalty": list(self.penalty),
        }
        if self.multiplier != 1:
            out["multiplier"] = self.multiplier
        return out


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
    ) -> None:
        if dealer not in range(N_SEATS):
            raise KozelError(f"dealer must be a seat 0-3, not {dealer!r}")
        if deal_no < 1:
            raise KozelError(f"deal_no starts at 1, not {deal_no!r}")
        self.rules = rules
        # ``checked``: the deck comes from Deal.shuffled (canonical cards, a permutation of the deck).
        self.deck = tuple(deck) if checked else tuple([ALL_CARDS[c.id] for c in deck])
        expected = deck_for(rules.deck_size)
        if not checked and (
            len(self.deck) != len(expected) or mask_of(self.deck) != deck_mask(rules.deck_size)
        ):
            seen = set(self.deck)
            missing = [c for c in expected if c not in seen]
            extra = [c for c in self.deck if c not in set(expected)]
            doubled = len(self.deck) - len(seen)
            raise KozelError(
                f"the deck must hold the {len(expected)} cards of the {rules.preset} deck exactly once"
                + (f"; missing {' '.join(map(str, missing))}" if missing else "")
                + (f"; not in this deck {' '.join(map(str, extra))}" if extra else "")
                + (f"; {doubled} card(s) listed twice" if doubled else "")
            )
        self.dealer = dealer
        self.deal_no = deal_no
        self.eggs_before = eggs_before
        self.left = (dealer + 1) % N_SEATS
        self.pair_of = PAIR_OF
        self.hands = [0] * N_SEATS
        #: Cards every seat has seen in each hand (flip's turned-up cards); only the part still held counts.
        self.shown = [0] * N_SEATS
        #: ``known[o][h]``: cards seat ``o`` privately knows seat ``h`` holds (the swap); same caveat.
        self.known = [[0] * N_SEATS for _ in range(N_SEATS)]
        self.trump: Suit | None = None
        self._t: Tables | None = None
        self.phase = Phase.PLAY
        self.to_act: int | None = None
        self.stock: list[Card] = []
        self.trick: list[tuple[int, Card]] = []
        #: Seats in playing order for the current trick.
        self.order: tuple[int, ...] = ()
        self.tricks: list[Trick] = []
        self.points = [0, 0]
        self.tricks_won = [0, 0]
        self.events: list[str] = []
        self.moves: list[tuple[int, Action]] = []
        self.result: DealResult | None = None
        self.jack_holder: int | None = None
        self.swaps = flip.SwapState()
        self._led_eff = -1
        self._best_seat = -1
        self._best_power = -1
        self._restricted_lead = False
        self._trick_points = 0
        self._must_trump = rules.options.must_trump_when_void
        # legal_mask's answer for the current position, cleared by every change.
        self._legal_seat = -1
        self._legal = 0
        self._is_draw = rules.preset == "draw"
        self._first_lead_card: Card | None = None
        self._declaring_after_three = False
        #: Classic's brag and exchange (deals after the first); the open hand plays last, never wins.
        self.brag: BragState | None = None
        self.exchange: ExchangePlan | None = None
        self.open_seat: int | None = None
        self._brag_leader = -1
        self._deal()

    @classmethod
    def shuffled(
        cls, rules: Rules, rng: random.Random, dealer: int, deal_no: int = 1, eggs_before: int = 0
    ) -> Deal:
        """A deal from a deck shuffled by ``rng`` (the caller owns the randomness, so deals replay)."""
        deck = list(deck_for(rules.deck_size))
        # Fisher-Yates on rng.random(): uniform to within 2**-53, and twice as fast as rng.shuffle,
        # which matters when bot players deal thousands of worlds.
        rnd = rng.random
        for i in range(len(deck) - 1, 0, -1):
            j = int(rnd() * (i + 1))
            deck[i], deck[j] = deck[j], deck[i]
        return cls(rules, deck, dealer, deal_no, eggs_before, checked=True)

    # ------------------------------------------------------------------ dealing

    def _deal(self) -> None:
        preset = self.rules.preset
        if preset == "classic":
            if self.deal_no > 1:
                self._set_trump(self.rules.fixed_trump_suit or Suit.DIAMONDS)
                brag.start(self)
                return
            self._one_at_a_time(self.deck, self.left)
            self._set_trump(self.rules.fixed_trump_suit or Suit.DIAMONDS)
            if self._four_queens_redeal():
                return
            opts = self.rules.options
            assert isinstance(opts, ClassicOptions)
            if opts.first_lead_trump_ace:
                ace = Card(Rank.ACE, self._tables.trump)
                self._first_lead_card = ace
                self._start_play(self._holder(ace))
            else:
                self._start_play(self._holder(JACK_OF_CLUBS))
        elif preset == "draw":
            n = 4 * N_SEATS
            self._one_at_a_time(self.deck[:n], self.left)
            self.stock = list(self.deck[n:])
            self._set_trump(Suit.CLUBS)
            if self._four_queens_redeal():
                return
            self._restricted_lead = True
            self._start_play(self.dealer)
        else:
            flip.deal_cards(self)

    def _one_at_a_time(self, cs: Sequence[Card], first: int) -> None:
        hands = self.hands
        seat = first
        for c in cs:
            hands[seat] |= 1 << c.id
            seat = _NEXT[seat]
        for seat, hand in enumerate(hands):
            if hand & _JC_BIT:
                self.jack_holder = seat

    def _give(self, seat: int, cs: Sequence[Card]) -> None:
        for c in cs:
            self.hands[seat] |= 1 << c.id
            if c.id == _JC_ID:
                self.jack_holder = seat

    def _holder(self, c: Card) -> int:
        for seat, hand in enumerate(self.hands):
            if hand & c.bit:
                return seat
        raise KozelError(f"{c} is in no hand")  # pragma: no cover - every card is dealt

    def _set_trump(self, trump: Suit) -> None:
        self.trump = trump
        self._t = tables_for(self.rules, trump)

    @property
    def _tables(self) -> Tables:
        assert self._t is not None, "trump is not known yet"
        return self._t

    @property
    def tables(self) -> Tables | None:
        """The card order of this deal, once trump is known."""
        return self._t

    def _four_queens_redeal(self) -> bool:
        if not self.rules.options.redeal_four_queens:
            return False
        for hand in self.hands:
            if hand & _QUEENS_MASK == _QUEENS_MASK:
                self._void("redeal", same_dealer=True)
                return True
        return False

    def _void(self, event: str, *, same_dealer: bool) -> None:
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
        )

    def _await(self, phase: Phase, seat: int) -> None:
        self.phase = phase
        self.to_act = seat

    # ------------------------------------------------------------------ play

    def _start_play(self, leader: int) -> None:
        self._start_trick(leader)

    def _start_trick(self, leader: int) -> None:
        self.phase = Phase.PLAY
        self.trick = []
        self.order = CLOCKWISE[leader] if self.open_seat is None else OPEN_LAST[self.open_seat][leader]
        self._trick_points = 0
        self.to_act = leader
        self._best_seat = -1
        self._best_power = -1
        if self._is_draw and self.tricks:
            partner = PARTNER_OF[leader]
            mine, theirs = self.hands[leader], self.hands[partner]
            self._restricted_lead = draw_lead_rule(
                self.hands, leader, self.tricks[-1].leader, self._tables.trump_mask
            )
            if self.hands[leader] != mine:  # the last-card swap: each now knows the other's card
                self.known[leader][partner] |= mine
                self.known[partner][leader] |= theirs
                self.events.append("last_card_swap")

    def legal_mask(self, seat: int) -> int:
        """Bit mask of the cards ``seat`` may play now (0 when it is not his turn to play)."""
        if self.phase is not Phase.PLAY or seat != self.to_act:
            return 0
        if self._legal_seat == seat:
            return self._legal
        self._legal = m = self._legal_mask(seat)
        self._legal_seat = seat
        return m

    def _legal_mask(self, seat: int) -> int:
        hand = self.hands[seat]
        t = self._t
        assert t is not None
        if seat == self.open_seat and not hand & t.trump_mask:
            return hand  # the open hand need not follow once it holds no trump
        if not self.trick:
            if self._first_lead_card is not None and not self.tricks:
                return self._first_lead_card.bit & hand or hand
            if self._restricted_lead:
                plain = hand & ~t.trump_mask
                if plain:
                    return plain
            return hand
        e = self._led_eff
        m = hand & t.suit_masks[e]
        if m:
            if e == TRUMP and self._matadors():
                led = self.trick[0][1]
                if led.bit & t.matador_mask and not m & ~t.higher_matadors[led.id]:
                    return hand
            return m
        if self._must_trump:
            m = hand & t.trump_mask
            if m:
                return m
        return hand

    def _matadors(self) -> bool:
        opts = self.rules.options
        return isinstance(opts, ClassicOptions) and opts.matadors

    def legal_plays(self, seat: int) -> list[Card]:
        """The cards ``seat`` may play now, in display order."""
        m = self.legal_mask(seat)
        return self._tables.sorted(cards_of(m)) if m else []

    def play(self, seat: int, c: Card) -> None:
        """Play ``c`` from ``seat``'s hand; raises :class:`IllegalMoveError` saying why it is not allowed."""
        if not self.legal_mask(seat) & (1 << c.id):
            raise self._why_not(seat, c)
        c = ALL_CARDS[c.id]
        self.moves.append((seat, Play(c)))
        self._play(seat, c)

    def _play(self, seat: int, c: Card) -> None:
        t = self._t
        assert t is not None
        self._legal_seat = -1
        cid = c.id
        bit = 1 << cid
        self.hands[seat] ^= bit
        trick = self.trick
        trick.append((seat, c))
        self._trick_points += c.points
        if len(trick) == 1:
            self._led_eff = t.eff[cid]
        p = t.strength_by_led[self._led_eff][cid] if seat != self.open_seat else -1
        if p > self._best_power:
            self._best_power = p
            self._best_seat = seat
        if (cid == _QC_ID or cid == t.top.id) and self._queen_caught(seat, c):
            return
        if len(trick) < len(self.order):
            self.to_act = self.order[len(trick)]
            return
        winner = self._best_seat
        pair = self.pair_of[winner]
        self.points[pair] += self._trick_points
        self.tricks_won[pair] += 1
        self.tricks.append(Trick(self.order[0], tuple(trick), winner))
        if self.stock:
            for k in range(N_SEATS):
                if not self.stock:
                    break
                self.hands[(winner + k) % N_SEATS] |= self.stock.pop(0).bit
        if any(self.hands):
            self._start_trick(winner)
        else:
            self._finish(None)

    def _queen_caught(self, seat: int, c: Card) -> bool:
        t = self._tables
        other = t.top if c.id == _QC_ID else QUEEN_OF_CLUBS
        for s, x in self.trick[:-1]:
            if x == other and self.pair_of[s] != self.pair_of[seat]:
                queen_seat = seat if c.id == _QC_ID else s
                self.tricks.append(Trick(self.order[0], tuple(self.trick), None))
                self._finish(self.pair_of[queen_seat])
                return True
        return False

    def _finish(self, queen_pair: int | None) -> None:
        score: DealScore = score_deal(
            self.rules,
            (self.points[0], self.points[1]),
            (self.tricks_won[0], self.tricks_won[1]),
            queen_pair,
            self.eggs_before,
        )
        self.events.extend(score.events)
        self.phase = Phase.OVER
        self.to_act = None
        self.result = DealResult(
            trump=self.trump,
            tricks=tuple(self.tricks),
            points=(self.points[0], self.points[1]),
            tricks_won=(self.tricks_won[0], self.tricks_won[1]),
            events=tuple(self.events),
            penalty=score.penalty,
            jack_holder=self.jack_holder,
            loser=score.loser,
            multiplier=score.multiplier,
        )

    def _why_not(self, seat: int, c: Card) -> IllegalMoveError:
        who = f"seat {seat} cannot play {c}"
        if self.phase is Phase.OVER:
            return IllegalMoveError(f"{who}: the deal is over", Reason.DEAL_OVER)
        if self.phase is not Phase.PLAY:
            waiting = f"seat {self.to_act} is to {self.phase.value.replace('_', ' ')}"
            reason = Reason.WRONG_PHASE if seat == self.to_act else Reason.NOT_YOUR_TURN
            return IllegalMoveError(f"{who}: no card is played now, {waiting}", reason)
        if seat != self.to_act:
            return IllegalMoveError(f"{who}: it is seat {self.to_act}'s turn", Reason.NOT_YOUR_TURN)
        if not self.hands[seat] & c.bit:
            return IllegalMoveError(f"{who}: it is not in his hand", Reason.NOT_IN_HAND)
        t = self._tables
        if not self.trick:
            if self._first_lead_card is not None and not self.tricks:
                return IllegalMoveError(
                    f"{who}: the first lead must be {self._first_lead_card}", Reason.FIRST_LEAD
                )
            return IllegalMoveError(
                f"{who}: a trump may not be led while he holds a plain card", Reason.TRUMP_LEAD
            )
        if self.hands[seat] & t.suit_masks[self._led_eff]:
            suit = "trumps" if self._led_eff == TRUMP else SUITS[self._led_eff - 1].name.lower()
            return IllegalMoveError(f"{who}: he must follow {suit}", Reason.MUST_FOLLOW)
        return IllegalMoveError(f"{who}: void in the led suit, he must play a trump", Reason.MUST_TRUMP)

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
            return [Play(c) for c in self.legal_plays(seat)]
        if phase in _BRAG_PHASES:
            return brag.legal(self, seat)
        if phase is Phase.DECLARE:
            acts: list[Action] = [Declare(s) for s in SUITS]
            if self._declare_by_last_allowed():
                acts.append(Declare(None))
            return acts
        if self.phase is Phase.SWAP:
            return [Swap(True), Swap(False)]
        if self.phase is Phase.SWAP_RETURN:
            return [SwapReturn(c) for c in self._tables.sorted(cards_of(self.hands[seat]))]
        return []

    def _declare_by_last_allowed(self) -> bool:
        return self._declaring_after_three

    def apply(self, seat: int, action: Action) -> None:
        """Take ``action`` for ``seat``; an illegal one raises :class:`IllegalMoveError` saying why."""
        if isinstance(action, Play):
            self.play(seat, action.card)
            return
        if self.phase is Phase.OVER:
            what = f"seat {seat} cannot {_describe(action)}"
            raise IllegalMoveError(f"{what}: the deal is over", Reason.DEAL_OVER)
        if seat != self.to_act or not self._allowed(seat, action):
            raise self._why_not_action(seat, action)
        self.moves.append((seat, action))
        self._legal_seat = -1
        # Most frequent first: four brag lays per brag deal.
        if isinstance(action, Brag):
            brag.lay(self, seat, action.cards)
        elif isinstance(action, Exchange):
            brag.exchange_decision(self, seat, action.accept)
        elif isinstance(action, Swap):
            flip.swap(self, seat, action.accept)
        elif isinstance(action, SwapReturn):
            flip.swap_return(self, seat, ALL_CARDS[action.card.id])
        elif isinstance(action, Declare):
            flip.declare(self, seat, action.suit)
        elif isinstance(action, ExchangeGive):
            brag.give(self, action.cards)
        elif isinstance(action, ChooseBragKind):
            self.events.append(f"brag_{action.kind.value}")
            brag.begin(self, action.kind)
        elif isinstance(action, Cut):
            brag.cut(self, action.at)
        else:  # pragma: no cover - legal_actions offers nothing else
            raise IllegalMoveError(f"seat {seat} cannot {_describe(action)} in this deal", Reason.WRONG_PHASE)

    def _allowed(self, seat: int, action: Action) -> bool:
        # Checked directly: cheaper than listing every choice, which can run to dozens.
        if isinstance(action, Brag) and self.phase is Phase.BRAG:
            return brag.can_lay(self, seat, action.cards)
        if isinstance(action, ExchangeGive) and self.phase is Phase.EXCHANGE_GIVE:
            return brag.can_give(self, seat, action.cards)
        return action in self.legal_actions(seat)

    def _why_not_action(self, seat: int, action: Action) -> IllegalMoveError:
        what = f"seat {seat} cannot {_describe(action)}"
        waiting = f"seat {self.to_act} is to {self.phase.value.replace('_', ' ')}"
        if seat != self.to_act:
            return IllegalMoveError(f"{what}: {waiting}", Reason.NOT_YOUR_TURN)
        if isinstance(action, SwapReturn) and self.phase is Phase.SWAP_RETURN:
            return IllegalMoveError(f"{what}: {action.card} is not in his hand", Reason.NOT_IN_HAND)
        if isinstance(action, Declare) and self.phase is Phase.DECLARE:
            return IllegalMoveError(
                f"{what}: 'by the last' is allowed only when trump is declared after three cards",
                Reason.BY_THE_LAST,
            )
        # The seat is to act: either a decision of another phase, or one of this phase the rules
        # refuse (a brag or give of cards he may not lay).
        reason = Reason.NOT_ALLOWED if _PHASE_OF.get(type(action)) is self.phase else Reason.WRONG_PHASE
        return IllegalMoveError(f"{what}: {waiting}", reason)

    def copy(self) -> Deal:
        """An independent copy (for search: cheap, shares the immutable parts)."""
        new = Deal.__new__(Deal)
        for name in _SCALAR_FIELDS:
            setattr(new, name, getattr(self, name))
        new.hands = self.hands.copy()
        new.shown = self.shown.copy()
        new.known = [k.copy() for k in self.known]
        new.stock = self.stock.copy()
        new.trick = self.trick.copy()
        new.tricks = self.tricks.copy()
        new.points = self.points.copy()
        new.tricks_won = self.tricks_won.copy()
        new.events = self.events.copy()
        new.moves = self.moves.copy()
        new.swaps = self.swaps.copy()
        new.brag = self.brag.copy() if self.brag is not None else None
        return new

    def hand(self, seat: int) -> list[Card]:
        """``seat``'s cards in display order (trump-suit-agnostic id order before trump is known)."""
        cs = cards_of(self.hands[seat])
        return self._t.sorted(cs) if self._t else cs

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
        return rec


_SCALAR_FIELDS = (
    "rules",
    "deck",
    "dealer",
    "deal_no",
    "eggs_before",
    "left",
    "pair_of",
    "trump",
    "_t",
    "phase",
    "to_act",
    "result",
    "jack_holder",
    "_led_eff",
    "_best_seat",
    "_best_power",
    "_restricted_lead",
    "order",
    "_trick_points",
    "_must_trump",
    "_is_draw",
    "_legal_seat",
    "_legal",
    "_first_lead_card",
    "_declaring_after_three",
    "exchange",
    "open_seat",
    "_brag_leader",
)


def _describe(action: Action) -> str:
    key, value = action_to_json(action)
    return f"{key} {value}"
