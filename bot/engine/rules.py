"""The rules a table plays by: a preset (``classic``, ``flip``, ``draw``, ``tricks``, ``sochi4``,
``sochi``, ``dummy``, ``two_dummies``) and its options."""

from __future__ import annotations

from enum import StrEnum
from functools import cached_property
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from bot.engine.cards import SHMON_32, SHMON_36, Card, Suit
from bot.engine.errors import RulesError
from bot.engine.seats import rotating_seating

Preset = Literal["classic", "flip", "draw", "tricks", "sochi4", "sochi", "dummy", "two_dummies"]
#: New presets are added at the end: the lobby's preset buttons carry their place in this list.
PRESETS: tuple[Preset, ...] = ("classic", "flip", "draw", "tricks", "sochi4", "sochi", "dummy", "two_dummies")
#: The blind seats of each preset that has any (RULES.md §5): ``dummy``'s blind sits in seat 3, opposite
#: seat 1; ``two_dummies``' blinds in seats 2 and 3, opposite the two people in seats 0 and 1. Who
#: sits where is the lobby's choice, so the engine's seats can stay fixed.
BLIND_SEATS: dict[str, tuple[int, ...]] = {"dummy": (3,), "two_dummies": (2, 3)}
#: The engine's reading of the rules a deal is played by, kept in each deal record as ``"version"``
#: (RULES.md §7) so that a record replays as it was played after a rule is corrected:
#: 1 (a record without it): as before issue 34 — a blind's stack after a brag that took no decision
#: (``fishing``) lay in deck order, and ``sochi``'s lone player kept four queens after his discard;
#: 2: the stack is the order received (RULES.md §5), and those four queens void the deal.
VERSION = 2


def decider_of(preset: str, seat: int) -> int:
    """The seat whose person takes ``seat``'s decisions under ``preset``: a blind's partner brags for it
    (RULES.md §5), anyone else decides for himself."""
    return (seat + 2) % 4 if seat in BLIND_SEATS.get(preset, ()) else seat


class BragKind(StrEnum):
    """How the bragger and the others receive cards in classic's brag (RULES.md §2)."""

    PANTS = "pants"
    BIG_PANTS = "big_pants"
    MIRROR = "mirror"
    FISHING = "fishing"


class TrumpMode(StrEnum):
    """How trump is chosen in ``flip`` (RULES.md §3)."""

    TURN_UP = "turn_up"
    JACK_DECLARES = "jack_declares"
    DECLARE = "declare"
    FIRST_CARD = "first_card"


class JackOrder(StrEnum):
    """``standard``: jacks rank ♣ ♠ ♥ ♦ like queens; ``literal``: ♣ ♥ ♠ ♦ as printed in seed 000."""

    STANDARD = "standard"
    LITERAL = "literal"


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    match_target: int = Field(12, ge=2, le=100, description="penalty points that end the match")
    must_trump_when_void: bool = Field(False, description="a player void in the led suit must trump if able")
    redeal_four_queens: bool = Field(False, description="a hand of four queens voids the deal")


class _Threshold(_Options):
    cherpak_max: Literal[29, 30] = Field(30, description="the most card points that still make a черпак")
    pointless_trick_saves: bool = Field(False, description="0 points but a trick taken: черпак, not шестак")


class ClassicOptions(_Threshold):
    """Options of the late-20th-century form (RULES.md §2)."""

    deck: Literal[36, 32, 24] = 36
    trump_suit: Literal[Suit.DIAMONDS, Suit.CLUBS] = Suit.DIAMONDS
    jack_order: JackOrder = JackOrder.STANDARD
    matadors: bool = False
    first_lead_trump_ace: bool = False
    score_winners: bool = False
    brag: BragKind = BragKind.PANTS
    brag_choice: tuple[BragKind, ...] = ()
    redeal_four_queens: bool = True

    #: Classic's options a preset built on classic fixes (refused by name; the picker leaves them out).
    fixed: ClassVar[frozenset[str]] = frozenset()
    preset_name: ClassVar[str] = "classic"

    @model_validator(mode="before")
    @classmethod
    def _refuse_fixed(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name in data:
                if name in cls.fixed:
                    raise PydanticCustomError(
                        "fixed_option",
                        "{name}: not an option of {preset} (the preset fixes it)",
                        {"name": name, "preset": cls.preset_name},
                    )
        return data

    @model_validator(mode="after")
    def _brag_choice_holds_brag(self) -> Self:
        if len(set(self.brag_choice)) != len(self.brag_choice):
            raise ValueError("brag_choice lists a kind twice")
        if self.brag_choice and len(self.brag_choice) < 2:
            raise ValueError("brag_choice needs at least two kinds to choose from")
        return self

    def brag_kind(self, deal_no: int) -> BragKind:
        """The kind of brag of deal ``deal_no`` (a later deal) unless the bragger chooses it."""
        return self.brag


#: The kinds Sochi Kozel's brag goes through, a round of deals each (RULES.md §5).
DEFAULT_ROTATION = (BragKind.PANTS, BragKind.MIRROR, BragKind.FISHING)


class Sochi4Options(ClassicOptions):
    """4-person Sochi Kozel (RULES.md §5): classic with 32 cards (♣7 on top) whose brag kind changes
    every round of four deals, through ``brag_rotation``. The deck, ``brag`` and ``brag_choice`` are
    fixed by the preset and refused by name; every other classic option stays.

    Rounds count the deals played (a void deal is dealt again under the same number): deals 1-4 are
    round 1 (deal 1 has no brag, as in classic), deals 5-8 round 2, and so on; round ``r`` brags with
    ``brag_rotation[(r - 1) % len(brag_rotation)]`` **[interpretation, docs/rules-notes.md]**.
    """

    fixed: ClassVar[frozenset[str]] = frozenset({"deck", "brag", "brag_choice"})
    preset_name: ClassVar[str] = "sochi4"
    #: Deals in a round: one per person.
    round_length: ClassVar[int] = 4

    deck: Literal[32] = 32
    brag_rotation: tuple[BragKind, ...] = Field(
        DEFAULT_ROTATION, min_length=1, description="the brag kind of each round of deals, in turn"
    )

    def brag_kind(self, deal_no: int) -> BragKind:
        """The kind of the round that deal ``deal_no`` belongs to."""
        rnd = (deal_no - 1) // self.round_length
        return self.brag_rotation[rnd % len(self.brag_rotation)]


class TwoDummiesOptions(ClassicOptions):
    """Options of Kozel with a blind (``two_dummies``, and ``dummy`` through :class:`DummyOptions`;
    RULES.md §5): classic's, all of which still make sense with a blind at the table (its partner
    chooses for it where a choice is asked)."""


class DummyOptions(TwoDummiesOptions):
    """Options of ``dummy`` (three people and a blind): ``two_dummies``' and ``blind_rotates``.

    With ``blind_rotates`` the blind passes to the next person each deal and every person keeps his
    own score (RULES.md §5); the people move over the seats, the blind stays seat 3
    (:func:`bot.engine.seats.rotating_seating`, docs/rules-notes.md).
    """

    blind_rotates: bool = Field(False, description="the blind passes to the next person each deal")

    @model_validator(mode="after")
    def _rotating_scores_losers(self) -> Self:
        if self.blind_rotates and self.score_winners:
            # Every person keeps his own penalty and the first to the target is the goat (RULES.md §5),
            # so the deal's penalty goes to the losers, as in ``sochi``.
            raise ValueError(
                "blind_rotates and score_winners cannot be combined: each person keeps his own penalty"
            )
        return self


class FlipOptions(_Threshold):
    """Options of the trump-turned-up form (RULES.md §3)."""

    deck: Literal[32, 36] = Field(32, description="36: the sixes join, ♣6 is the шмон, 9 cards each")
    trump_mode: TrumpMode = TrumpMode.TURN_UP
    pass_on_bad_turn: bool = Field(
        False, description="the шмон (♣7; ♣6 with 36 cards), ♣Q or three other queens/jacks turned up: pass"
    )
    eggs_double: bool = Field(True, description="after 60-60 the next deal's penalty counts double")
    must_trump_when_void: bool = True
    cherpak_max: Literal[29, 30] = 29


class DrawOptions(_Options):
    """Options of the draw-pile form (RULES.md §4)."""


class TricksOptions(BaseModel):
    """Options of trick-counting Kozel (RULES.md §5): only classic's options that still make sense
    where the deck, the trumps and the dealing are fixed and a deal is scored by tricks (the others
    are refused by name as unknown; docs/rules-notes.md says why each)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    match_target: int = Field(12, ge=2, le=100, description="penalty points that end the match")
    must_trump_when_void: bool = Field(False, description="a player void in the led suit must trump if able")
    #: Queens but the ♣Q are plain cards here: a hand of four is nothing special (not an option).
    redeal_four_queens: ClassVar[bool] = False


class SochiOptions(_Threshold):
    """Options of 3-person Sochi Kozel (RULES.md §5): 32 cards, 10 each and a talon of two, the ♣Q
    holder alone against the other two, each person keeping his own score, the brag kind changing
    every round of three deals. Classic's options that still make sense are taken (the thresholds, the
    trump suit, the jack order, the four-queens redeal, trumping when void, the target); the others
    are refused by name as unknown (docs/rules-notes.md says why each)."""

    trump_suit: Literal[Suit.DIAMONDS, Suit.CLUBS] = Suit.DIAMONDS
    jack_order: JackOrder = JackOrder.STANDARD
    redeal_four_queens: bool = True
    brag_rotation: tuple[BragKind, ...] = Field(
        DEFAULT_ROTATION, min_length=1, description="the brag kind of each round of deals, in turn"
    )
    #: Deals in a round: one per person.
    round_length: ClassVar[int] = 3

    def brag_kind(self, deal_no: int) -> BragKind:
        """The kind of the round that deal ``deal_no`` belongs to (as :class:`Sochi4Options`)."""
        rnd = (deal_no - 1) // self.round_length
        return self.brag_rotation[rnd % len(self.brag_rotation)]


#: Each preset's options model.
OPTION_MODELS: dict[str, type[BaseModel]] = {
    "classic": ClassicOptions,
    "flip": FlipOptions,
    "draw": DrawOptions,
    "tricks": TricksOptions,
    "sochi4": Sochi4Options,
    "sochi": SochiOptions,
    "dummy": DummyOptions,
    "two_dummies": TwoDummiesOptions,
}

Options = (
    DummyOptions
    | TwoDummiesOptions
    | Sochi4Options
    | ClassicOptions
    | FlipOptions
    | DrawOptions
    | TricksOptions
    | SochiOptions
)


class Rules(BaseModel):
    """A preset and its options; ``Rules.make("classic", deck=32)`` or ``Rules.model_validate(json)``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    preset: Preset
    options: Options

    @model_validator(mode="before")
    @classmethod
    def _options_of_preset(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("preset") in OPTION_MODELS:
            opts = data.get("options") or {}
            if isinstance(opts, dict):
                data = {**data, "options": OPTION_MODELS[data["preset"]].model_validate(opts)}
        return data

    @model_validator(mode="after")
    def _options_match_preset(self) -> Self:
        if type(self.options) is not OPTION_MODELS[self.preset]:
            raise ValueError(f"options of another preset given for {self.preset!r}")
        return self

    @classmethod
    def make(cls, preset: str = "classic", **options: Any) -> Rules:
        """Validated rules from a preset name and options; raises :class:`RulesError` naming the problem."""
        return cls.parse({"preset": preset, "options": options})

    @classmethod
    def parse(cls, data: Any) -> Rules:
        """Validated rules from their JSON form ``{"preset": ..., "options": {...}}``."""
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            problems = "; ".join(_explain(err) for err in e.errors())
            raise RulesError(f"bad rules: {problems}") from None

    def to_json(self) -> dict[str, Any]:
        """The JSON form, listing only options that differ from the preset's defaults."""
        return {"preset": self.preset, "options": self.options.model_dump(mode="json", exclude_defaults=True)}

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        # Rules key the engine's caches, asked for every deal dealt: hashed once (they are frozen).
        return hash((self.preset, self.options))

    # Derived facts every part of the engine asks for (cached: the rules are frozen, and a deal asks for
    # them as it is dealt — every tap's replay, thousands of sampled deals per decision).

    @cached_property
    def deck_size(self) -> int:
        """How many cards are dealt."""
        if self.preset == "tricks":
            return 36
        return self.options.deck if isinstance(self.options, ClassicOptions | FlipOptions) else 32

    @cached_property
    def seats(self) -> int:
        """How many seats play (one card each makes a trick): 3 in ``sochi``, else 4."""
        return 3 if self.preset == "sochi" else 4

    @cached_property
    def blind_rotates(self) -> bool:
        """Whether ``dummy``'s blind passes to the next person each deal (RULES.md §5)."""
        return isinstance(self.options, DummyOptions) and self.options.blind_rotates

    @property
    def individual_scores(self) -> bool:
        """Whether every person keeps his own score (``sochi``, ``dummy`` with ``blind_rotates``: the
        sides change every deal)."""
        return self.preset == "sochi" or self.blind_rotates

    @property
    def people(self) -> int:
        """How many people play: the seats less the blinds."""
        return self.seats - len(self.blind_seats)

    def seating(self, deal_no: int) -> tuple[int | None, ...]:
        """Per seat, the person sitting there in deal ``deal_no`` (``None``: a blind).

        People are numbered by their seats in deal 1; only ``blind_rotates`` moves them
        (:func:`bot.engine.seats.rotating_seating`).
        """
        if self.blind_rotates:
            return rotating_seating(deal_no)
        blinds = self.blind_seats
        return tuple(None if s in blinds else s for s in range(self.seats))

    @cached_property
    def talon_size(self) -> int:
        """Cards dealt to the talon (``sochi``'s прикуп), else 0."""
        return 2 if self.preset == "sochi" else 0

    @cached_property
    def hand_size(self) -> int:
        """Cards in each hand once dealing is complete (before ``sochi``'s talon is taken)."""
        return (self.deck_size - self.talon_size) // self.seats

    def brag_kind(self, deal_no: int) -> BragKind:
        """The kind of brag of deal ``deal_no`` (a later deal) unless the bragger chooses it."""
        opts = self.options
        assert isinstance(opts, ClassicOptions | SochiOptions), "no brag in this preset"
        return opts.brag_kind(deal_no)

    @cached_property
    def top_trump(self) -> Card:
        """The шмон: ♣6 with sixes in the deck, ♣7 without."""
        return SHMON_32 if self.deck_size == 32 else SHMON_36

    @cached_property
    def fixed_trump_suit(self) -> Suit | None:
        """The trump suit when the preset fixes it; ``None`` when each deal chooses it (``flip``)."""
        if isinstance(self.options, ClassicOptions | SochiOptions):
            return self.options.trump_suit
        return Suit.CLUBS if self.preset in ("draw", "tricks") else None

    @cached_property
    def by_tricks(self) -> bool:
        """Whether a deal is scored by the tricks each pair took (``tricks``), not by card points."""
        return self.preset == "tricks"

    @cached_property
    def brag_rotates(self) -> bool:
        """Whether the brag kind changes every round of deals (``sochi4``'s ``brag_rotation``)."""
        return isinstance(self.options, Sochi4Options | SochiOptions)

    @cached_property
    def blind_seats(self) -> tuple[int, ...]:
        """The seats of the blinds (RULES.md §5), whose turn in play is automatic; ``()`` for most presets."""
        return BLIND_SEATS.get(self.preset, ())

    @cached_property
    def blind_mask(self) -> int:
        """:attr:`blind_seats` as a bit mask over seats (bit ``s`` for seat ``s``)."""
        m = 0
        for s in self.blind_seats:
            m |= 1 << s
        return m

    def decider(self, seat: int) -> int:
        """The seat whose person takes ``seat``'s decisions (:func:`decider_of`)."""
        return decider_of(self.preset, seat)

    @property
    def exchange_allowed(self) -> bool:
        """Whether classic's exchange is offered after the brag (not at a table with a blind)."""
        return not self.blind_seats

    @cached_property
    def queen_penalty(self) -> int:
        """What the pair whose ♣Q is caught is charged."""
        return 8 if self.preset == "flip" else 4

    @cached_property
    def jack_order(self) -> JackOrder:
        """The order of the jacks among the trumps."""
        if isinstance(self.options, ClassicOptions | SochiOptions):
            return self.options.jack_order
        return JackOrder.STANDARD


def _explain(err: Any) -> str:
    where = ".".join(str(p) for p in err["loc"]) or "rules"
    if err["type"] == "extra_forbidden":
        return f"{where}: unknown option"
    if err["type"] == "fixed_option":
        return str(err["msg"])
    return f"{where}: {err['msg']}"
