"""A match: deals in a row, the dealer's rotation, penalty points to 12 and the goat.

Penalties are kept per pair, or — where RULES.md §5 says every person keeps his own score (3-person
``sochi``) — per person: each deal's side penalty is written to each person of the side
(:meth:`bot.engine.result.DealResult.charged`), and the first person(s) to reach the target are the
goat(s), :attr:`Match.goats`. The people are found from the seats by :meth:`Rules.seating`: in
``sochi`` seat ``s`` is person ``s``; in ``dummy`` with ``blind_rotates`` three people sit at four
seats, the blind's seat is no one's and the people move one seat each deal so that the blind passes
to the next person (:func:`bot.engine.seats.rotating_seating`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.engine.cards import Card, deck_mask
from bot.engine.deal import Deal, DealResult
from bot.engine.eggs import EggDraw, draw_egg_cards
from bot.engine.errors import KozelError
from bot.engine.rules import ClassicOptions, FlipOptions, Rules, TrumpMode
from bot.engine.scoring import ALL_TRICKS

GOAT = "goat"
GOAT_WITH_DRIVERS = "goat_with_drivers"


@dataclass
class Match:
    """The running state of a match; feed it each finished deal with :meth:`add`."""

    rules: Rules
    dealer: int
    deal_no: int = 1
    penalty: list[int] = field(default_factory=lambda: [0, 0])
    #: Deals that ended 60-60, and how many of the latest deals in a row did.
    eggs: int = 0
    eggs_in_row: int = 0
    results: list[DealResult] = field(default_factory=list)
    loser: int | None = None
    title: str | None = None
    #: The cards the losing pair drew for the eggs once the match was over: two per egg, the diameter
    #: first (:mod:`bot.engine.eggs`); empty until drawn.
    egg_cards: tuple[Card, ...] = ()
    #: Individual scores: each person's running penalty (empty in pair games), and the goat(s) once the
    #: match is over (every person who reached the target with the last deal).
    scores: list[int] = field(default_factory=list)
    goats: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        n = self.rules.seats
        if self.dealer not in range(n):
            raise KozelError(f"dealer must be a seat 0-{n - 1}, not {self.dealer!r}")
        if self.rules.individual_scores and not self.scores:
            self.scores = [0] * self.people

    @property
    def people(self) -> int:
        """How many people keep a score of their own (individual scores), else 0."""
        return self.rules.people if self.rules.individual_scores else 0

    @property
    def seating(self) -> tuple[int | None, ...]:
        """Per seat, the person sitting there in the deal to play now (``None``: a blind)."""
        return self.rules.seating(self.deal_no)

    @classmethod
    def start(cls, rules: Rules, rng: random.Random) -> Match:
        """A new match whose first dealer is drawn at random (RULES.md §1).

        flip's "the player who draws the lowest card deals" is the same uniform draw.
        """
        return cls(rules, dealer=int(rng.random() * rules.seats))

    @property
    def over(self) -> bool:
        """Whether a pair (a person, with individual scores) has reached the match target."""
        return self.loser is not None or bool(self.goats)

    @property
    def eggs_before(self) -> int:
        """Consecutive eggs that multiply the next deal (``flip``), else 0."""
        opts = self.rules.options
        return self.eggs_in_row if isinstance(opts, FlipOptions) and opts.eggs_double else 0

    def new_deal(self, deck: Sequence[Card] | None = None, rng: random.Random | None = None) -> Deal:
        """The next deal, from ``deck`` or shuffled by ``rng``."""
        if self.over:
            raise KozelError("the match is over")
        if deck is not None:
            return Deal(self.rules, deck, self.dealer, self.deal_no, self.eggs_before)
        if rng is None:
            raise KozelError("new_deal needs a deck or an rng")
        return Deal.shuffled(self.rules, rng, self.dealer, self.deal_no, self.eggs_before)

    def add(self, result: DealResult) -> None:
        """Count a finished deal: penalties, eggs, the next dealer and, at the target, the loser."""
        if self.over:
            raise KozelError("the match is over")
        self.results.append(result)
        if result.void:
            if not result.same_dealer:
                self.dealer = (self.dealer + 1) % self.rules.seats
            return
        for pair in (0, 1):
            self.penalty[pair] += result.penalty[pair]
        if self.people:
            for seat, person in enumerate(self.seating):
                if person is not None:
                    self.scores[person] += result.charged(seat)
        if "eggs" in result.events:
            self.eggs += 1
            self.eggs_in_row += 1
        else:
            self.eggs_in_row = 0
        self.dealer = self._next_dealer(result)
        self.deal_no += 1
        self._check_end()
        if ALL_TRICKS in result.events and self.loser is None:
            # ``tricks``: a pair that takes all nine tricks wins the match at once (RULES.md §5).
            assert result.loser is not None
            self.loser = result.loser
            self.title = self._title(self.penalty[result.loser])

    @property
    def eggs_to_draw(self) -> int:
        """How many eggs the losing pair draws: every egg of the match once it is over, else none."""
        return self.eggs if self.over else 0

    def draw_eggs(self, rng: random.Random) -> EggDraw | None:
        """The losing pair draws its eggs with ``rng`` (once: a later call keeps the cards drawn); the
        draw, or ``None`` when there is nothing to draw."""
        if self.eggs_to_draw and not self.egg_cards:
            self.egg_cards = draw_egg_cards(self.rules.deck_size, self.eggs_to_draw, rng)
        return self.egg_draw

    def set_egg_cards(self, cards: Sequence[Card]) -> None:
        """The eggs as drawn before (a record's, a stored match's); refused unless they fit the match."""
        need = 2 * self.eggs_to_draw
        if len(cards) != need:
            raise KozelError(
                f"{len(cards)} egg cards given, but the match has {need} to draw"
                " (two per egg, once it is over)"
            )
        foreign = [c.code for c in cards if not c.bit & deck_mask(self.rules.deck_size)]
        if foreign:
            raise KozelError(f"egg cards not in the {self.rules.deck_size}-card deck: {' '.join(foreign)}")
        self.egg_cards = tuple(cards)

    @property
    def egg_draw(self) -> EggDraw | None:
        """The eggs drawn, in pairs with their sums; ``None`` before they are drawn."""
        return EggDraw.of(self.egg_cards) if self.egg_cards else None

    def _next_dealer(self, result: DealResult) -> int:
        opts = self.rules.options
        jack_deals = (
            isinstance(opts, ClassicOptions)
            or self.rules.preset in ("tricks", "sochi")
            or (isinstance(opts, FlipOptions) and opts.trump_mode is TrumpMode.JACK_DECLARES)
        )
        if self.deal_no == 1 and jack_deals and result.jack_holder is not None:
            return result.jack_holder
        return (self.dealer + 1) % self.rules.seats

    def _check_end(self) -> None:
        target = self.rules.options.match_target
        if self.people:
            # RULES.md §5: the first person to reach the target is the goat; two at once, both.
            self.goats = tuple(p for p, total in enumerate(self.scores) if total >= target)
            if self.goats:
                self.title = self._title(max(self.scores[p] for p in self.goats))
            return
        for pair in (0, 1):
            if self.penalty[pair] >= target:
                winners_mode = (
                    isinstance(self.rules.options, ClassicOptions) and self.rules.options.score_winners
                )
                self.loser = 1 - pair if winners_mode else pair
                self.title = self._title(self.penalty[pair])
                return

    def _title(self, total: int) -> str:
        # "Goats with drivers": the match ended on two or more past the target (14+ of 12).
        return GOAT_WITH_DRIVERS if total >= self.rules.options.match_target + 2 else GOAT
