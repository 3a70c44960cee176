"""One deal: dealing, the decisions before the first lead, the play, and the deal's result.

Every change goes through :meth:`Deal.apply` (with :meth:`Deal.can` / :meth:`Deal.why_not` to ask
first), and everything a seat may know is exposed through :func:`bot.engine.view.view_for`. The deal
is dealt here; the decisions before the first lead are classic's brag and exchange
(:mod:`bot.engine.brag`), flip's trump and swap (:mod:`bot.engine.flip`) and ``sochi``'s discard
(:mod:`bot.engine.sochi`), which drive the deal through its small public interface
(:class:`bot.engine.phase.DealCore`); the play phase is the play kernel's (:mod:`bot.engine.play`): a
:class:`~bot.engine.play.PlayState` plays each card. The state those change, and the operations they
change it by, are :class:`~bot.engine.deal_state.DealState`'s (:mod:`bot.engine.deal_state`, which
also records the tricks, plays the blinds' cards and scores the end); a refusal's reason and words
are :mod:`bot.engine.refusal`'s.

Seats, pairs and turn order are data, not assumptions: ``pair_of`` is per deal and each trick's order
comes from the kernel's :class:`~bot.engine.play.PlayRules`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import cache
from math import floor
from typing import Any

from bot.engine import brag, flip, refusal, sochi
from bot.engine.actions import Action, Play, action_from_json, action_to_json
from bot.engine.cards import ALL_CARDS, JACK_OF_CLUBS, Card, Rank, Suit, deck_for, deck_mask, mask_of
from bot.engine.deal_state import PLACED, DealState, Holding
from bot.engine.errors import KozelError
from bot.engine.exchange import ExchangePlan
from bot.engine.phase import Phase as Phase  # re-exported: Phase and Trick were born here
from bot.engine.phase import TalonState
from bot.engine.phase import Trick as Trick
from bot.engine.play import GOES_ON, PlayState
from bot.engine.refusal import IllegalMoveError
from bot.engine.result import DealResult as DealResult
from bot.engine.rules import VERSION, ClassicOptions, Rules
from bot.engine.seats import CLOCKWISE as CLOCKWISE
from bot.engine.seats import N_SEATS as N_SEATS
from bot.engine.seats import PAIR_OF as PAIR_OF
from bot.engine.seats import PARTNER_OF as PARTNER_OF

#: One shared ``Play`` per card: a move's action is made once, not per card played.
_PLAYS = tuple(Play(c) for c in ALL_CARDS)
#: Shared per seat and card: a play as a move (a tap allocates none).
_MOVES = tuple(tuple((seat, p) for p in _PLAYS) for seat in range(N_SEATS))


@cache
def _shuffle_steps(n: int) -> tuple[tuple[int, float], ...]:
    """Fisher-Yates's steps over ``n`` cards: each place ``i`` from the last down, and ``i + 1`` as a
    float (the product ``rnd() * (i + 1)`` is the same; multiplying by a float is cheaper)."""
    return tuple((i, float(i + 1)) for i in range(n - 1, 0, -1))


#: The types of a deal's parts that change as it goes; :meth:`Deal.copy` copies these and shares the rest.
_MUTABLE = (list, Holding, PlayState, brag.BragState, flip.SwapState, TalonState)


class Deal(DealState):
    """One deal. Build it with a full deck (``deck[0]`` is the top card) or :meth:`shuffled`."""

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
        n = rules.seats
        if dealer not in range(n):
            raise KozelError(f"dealer must be a seat 0-{n - 1}, not {dealer!r}")
        if version not in range(1, VERSION + 1):
            raise KozelError(f"version must be 1-{VERSION}, not {version!r}")
        if deal_no < 1:
            raise KozelError(f"deal_no starts at 1, not {deal_no!r}")
        # ``checked``: the deck comes from Deal.shuffled (canonical cards, a permutation of the deck).
        cards = tuple(deck) if checked else tuple([ALL_CARDS[c.id] for c in deck])
        if not checked:
            _check_deck(rules, cards)
        super().__init__(rules, cards, dealer, deal_no, eggs_before, version)
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

    @classmethod
    def from_record(cls, record: Mapping[str, Any], rules: Rules | None = None) -> Deal:
        """The deal a stored record (:meth:`record`) starts from, before its first move, by ``rules`` or
        the record's own. The record is trusted (:func:`bot.engine.record.replay_deal` checks one that is
        not): a malformed one raises :class:`KozelError`, ``KeyError`` or ``TypeError``."""
        return cls(
            rules or Rules.parse(record["rules"]),
            [Card.parse(code) for code in record["deck"]],
            record["dealer"],
            record.get("deal_no", 1),
            record.get("eggs_before", 0),
            version=record.get("version", 1),
        )

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

    # ------------------------------------------------------------------ the decisions

    def play(self, seat: int, c: Card) -> None:
        """Play ``c`` from ``seat``'s hand; raises :class:`IllegalMoveError` saying why it is not allowed."""
        st: PlayState = self._cards  # type: ignore[assignment]  # checked: a Holding has no seat to play
        b = c.bit
        # Before play a Holding, and once over the kernel, has mask 0: every play is refused here. The
        # seat to play is never a blind: its cards are played as soon as its turn comes (below).
        if seat != st.seat or not st.mask & b:
            raise refusal.why_not_play(self, seat, c)
        self.moves.append(_MOVES[seat][c.id])
        self._placed.append(PLACED[seat][c.id])
        if st.play(b) == GOES_ON:
            self.to_act = st.seat
        else:
            self._trick_done(st)
        if st.s.blinds:
            self._blinds_play(st)

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

    def apply_recorded(self, move: Mapping[str, Any]) -> None:
        """Apply a move as a stored record holds it (``{"seat": 1, "play": "QC"}``, see :meth:`record`)."""
        key = next(k for k in move if k != "seat")
        self.apply(move["seat"], action_from_json(key, move[key]))

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
