"""Every decision a seat can take, as frozen values, and their JSON form in deal records (RULES.md §7)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.engine.cards import Card, Suit
from bot.engine.errors import KozelError
from bot.engine.rules import BragKind


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card into the current trick."""

    card: Card


@dataclass(frozen=True, slots=True)
class Declare:
    """Name the trump suit; ``suit=None`` is "by the last" (the suit of the declarer's last card)."""

    suit: Suit | None


@dataclass(frozen=True, slots=True)
class Swap:
    """``flip``: the one-trump holder passes (or keeps) his trump."""

    accept: bool


@dataclass(frozen=True, slots=True)
class SwapReturn:
    """``flip``: the card the partner gives back for the trump."""

    card: Card


@dataclass(frozen=True, slots=True)
class Brag:
    """Cards laid in the brag: one, or two in a double brag (in brag-card order)."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Exchange:
    """A partner of the non-bragging pair agrees to (or refuses) the exchange."""

    accept: bool


@dataclass(frozen=True, slots=True)
class ExchangeGive:
    """The non-trumps the strong hand gives the open hand."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Cut:
    """The mirror's cut point: how many cards are lifted."""

    at: int


@dataclass(frozen=True, slots=True)
class ChooseBragKind:
    """The bragger picks this deal's kind of brag (``brag_choice``)."""

    kind: BragKind


@dataclass(frozen=True, slots=True)
class Discard:
    """``sochi``: the ♣Q holder, having taken the talon, lays two cards face down (never the ♣Q)."""

    cards: tuple[Card, ...]


Action = Play | Declare | Swap | SwapReturn | Brag | Exchange | ExchangeGive | Cut | ChooseBragKind | Discard
#: Record key of each action type.
KEYS: dict[type[Any], str] = {
    Play: "play",
    Declare: "declare",
    Swap: "swap",
    SwapReturn: "swap_return",
    Brag: "brag",
    Exchange: "exchange",
    ExchangeGive: "exchange_give",
    Cut: "cut",
    ChooseBragKind: "brag_kind",
    Discard: "discard",
}


def action_to_json(action: Action) -> tuple[str, Any]:
    """The record key and value of an action, e.g. ``("play", "JC")``."""
    match action:
        case Play(card) | SwapReturn(card):
            return KEYS[type(action)], card.code
        case Declare(suit):
            return "declare", "last" if suit is None else suit.value
        case Swap(accept) | Exchange(accept):
            return KEYS[type(action)], accept
        case Brag(cs) | ExchangeGive(cs) | Discard(cs):
            return KEYS[type(action)], [c.code for c in cs]
        case Cut(at):
            return "cut", at
        case ChooseBragKind(kind):
            return "brag_kind", kind.value
    raise KozelError(f"not an action: {action!r}")  # pragma: no cover - the match is exhaustive


def action_from_json(key: str, value: Any) -> Action:
    """The action a record's ``key: value`` pair stands for; a malformed one raises :class:`KozelError`."""
    if key in ("play", "swap_return"):
        if not isinstance(value, str):
            raise KozelError(f"{key} takes a card code, not {value!r}")
        c = Card.parse(value)
        return Play(c) if key == "play" else SwapReturn(c)
    if key == "declare":
        if value == "last":
            return Declare(None)
        if isinstance(value, str) and value.upper() in {s.value for s in Suit}:
            return Declare(Suit(value.upper()))
        raise KozelError(f"declare takes a suit letter C S H D or 'last', not {value!r}")
    if key in ("swap", "exchange"):
        if not isinstance(value, bool):
            raise KozelError(f"{key} takes true or false, not {value!r}")
        return Swap(value) if key == "swap" else Exchange(value)
    if key in ("brag", "exchange_give", "discard"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise KozelError(f"{key} takes a list of card codes, not {value!r}")
        cs = tuple(Card.parse(v) for v in value)
        return Brag(cs) if key == "brag" else ExchangeGive(cs) if key == "exchange_give" else Discard(cs)
    if key == "cut":
        if not isinstance(value, int) or isinstance(value, bool):
            raise KozelError(f"cut takes a whole number, not {value!r}")
        return Cut(value)
    if key == "brag_kind":
        try:
            return ChooseBragKind(BragKind(value))
        except ValueError:
            raise KozelError(f"brag_kind takes one of {[k.value for k in BragKind]}, not {value!r}") from None
    raise KozelError(f"unknown move {key!r} (moves are {', '.join(KEYS.values())})")
