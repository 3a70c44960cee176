"""The rules a table plays by: a preset (``classic``, ``flip``, ``draw``, ``tricks``, ``dummy``,
``two_dummies``) and its options."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.engine.cards import SHMON_32, SHMON_36, Card, Suit
from bot.engine.errors import RulesError

Preset = Literal["classic", "flip", "draw", "tricks", "dummy", "two_dummies"]
PRESETS: tuple[Preset, ...] = ("classic", "flip", "draw", "tricks", "dummy", "two_dummies")
#: The blind seats of each preset that has any (RULES.md §5): ``dummy``'s blind sits in seat 3, opposite
#: seat 1; ``two_dummies``' blinds in seats 2 and 3, opposite the two people in seats 0 and 1. Who
#: sits where is the lobby's choice, so the engine's seats can stay fixed.
BLIND_SEATS: dict[str, tuple[int, ...]] = {"dummy": (3,), "two_dummies": (2, 3)}


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

    @model_validator(mode="after")
    def _brag_choice_holds_brag(self) -> Self:
        if len(set(self.brag_choice)) != len(self.brag_choice):
            raise ValueError("brag_choice lists a kind twice")
        if self.brag_choice and len(self.brag_choice) < 2:
            raise ValueError("brag_choice needs at least two kinds to choose from")
        return self


class DummyOptions(ClassicOptions):
    """Options of Kozel with a blind (``dummy``, ``two_dummies``; RULES.md §5): classic's, all of which
    still make sense with a blind at the table (its partner chooses for it where a choice is asked)."""

    blind_rotates: bool = Field(False, description="the blind passes to the next person each deal")

    @model_validator(mode="after")
    def _blind_stays(self) -> Self:
        if self.blind_rotates:
            # Individual scores are not built yet; until they are, the pairs stay fixed for the match.
            raise ValueError("blind_rotates is not supported yet: the pairs are fixed for the match")
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


_OPTION_MODELS: dict[str, type[BaseModel]] = {
    "classic": ClassicOptions,
    "flip": FlipOptions,
    "draw": DrawOptions,
    "tricks": TricksOptions,
    "dummy": DummyOptions,
    "two_dummies": DummyOptions,
}

Options = DummyOptions | ClassicOptions | FlipOptions | DrawOptions | TricksOptions


class Rules(BaseModel):
    """A preset and its options; ``Rules.make("classic", deck=32)`` or ``Rules.model_validate(json)``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    preset: Preset
    options: Options

    @model_validator(mode="before")
    @classmethod
    def _options_of_preset(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("preset") in _OPTION_MODELS:
            opts = data.get("options") or {}
            if isinstance(opts, dict):
                data = {**data, "options": _OPTION_MODELS[data["preset"]].model_validate(opts)}
        return data

    @model_validator(mode="after")
    def _options_match_preset(self) -> Self:
        if type(self.options) is not _OPTION_MODELS[self.preset]:
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

    # Derived facts every part of the engine asks for.

    @property
    def deck_size(self) -> int:
        """How many cards are dealt."""
        if self.preset == "tricks":
            return 36
        return self.options.deck if isinstance(self.options, ClassicOptions | FlipOptions) else 32

    @property
    def hand_size(self) -> int:
        """Cards in each of the four hands once dealing is complete."""
        return self.deck_size // 4

    @property
    def top_trump(self) -> Card:
        """The шмон: ♣6 with sixes in the deck, ♣7 without."""
        return SHMON_32 if self.deck_size == 32 else SHMON_36

    @property
    def fixed_trump_suit(self) -> Suit | None:
        """The trump suit when the preset fixes it; ``None`` when each deal chooses it (``flip``)."""
        if isinstance(self.options, ClassicOptions):
            return self.options.trump_suit
        return Suit.CLUBS if self.preset in ("draw", "tricks") else None

    @property
    def by_tricks(self) -> bool:
        """Whether a deal is scored by the tricks each pair took (``tricks``), not by card points."""
        return self.preset == "tricks"

    @property
    def blind_seats(self) -> tuple[int, ...]:
        """The seats of the blinds (RULES.md §5), whose turn in play is automatic; ``()`` for most presets."""
        return BLIND_SEATS.get(self.preset, ())

    @property
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

    @property
    def queen_penalty(self) -> int:
        """What the pair whose ♣Q is caught is charged."""
        return 8 if self.preset == "flip" else 4

    @property
    def jack_order(self) -> JackOrder:
        """The order of the jacks among the trumps."""
        return self.options.jack_order if isinstance(self.options, ClassicOptions) else JackOrder.STANDARD


def _explain(err: Any) -> str:
    where = ".".join(str(p) for p in err["loc"]) or "rules"
    if err["type"] == "extra_forbidden":
        return f"{where}: unknown option"
    return f"{where}: {err['msg']}"
