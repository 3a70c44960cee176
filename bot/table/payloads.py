"""What a button (or the live table's page) asks of a table: typed payloads, and their short codes.

Every payload is a small frozen class (:data:`Payload`): ``Act`` (a decision in a hand), ``Tick`` (a
card ticked in a choice of several), ``Sit``, ``Rematch``, … Each travels as a short code (``A`` and
a decision, ``S2``, ``Tt1``…), written by :func:`encode` and read by :func:`decode` here only; the
codes stay as they were, so keyboards already sent keep working across a deploy. The codec
(:mod:`bot.table.codec`) signs a code with the table and deal it belongs to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.engine import Action, KozelError
from bot.engine.actions import action_from_json, action_to_json
from bot.engine.cards import Card
from bot.table.numbers import ascii_number

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_B36 = re.compile(r"-?[0-9a-z]{1,13}")


class BadData(ValueError):
    """Callback data or a payload that this bot did not produce (or not in this version)."""


def b36(n: int) -> str:
    """``n`` in base 36, with a leading ``-`` when negative."""
    if n < 0:
        return "-" + b36(-n)
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = _DIGITS[r] + out
        if n == 0:
            return out


def from_b36(s: str) -> int:
    """The inverse of :func:`b36`; raises :class:`BadData` (``int`` alone would take "١", " 1", "1_0")."""
    if not _B36.fullmatch(s):
        raise BadData(f"not a base-36 number: {s!r}")
    return int(s, 36)


# ----- what a button does ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Act:
    """A decision in a player's hand: a card to play, a trump to name, a brag…"""

    action: Action


@dataclass(frozen=True, slots=True)
class Held:
    """A card of the hand that may not be played now (the tap says why)."""

    card: Card


@dataclass(frozen=True, slots=True)
class Tick:
    """A card ticked or unticked in a choice of several (the exchange's give); ``None``: the confirm
    button before the count is right."""

    card: Card | None


@dataclass(frozen=True, slots=True)
class Sit:
    """Sit in a lobby seat (moving from another one); a tap on one's own seat changes nothing."""

    seat: int


@dataclass(frozen=True, slots=True)
class AddBot:
    """Put a bot player in an empty lobby seat (a bot already there stays)."""

    seat: int


@dataclass(frozen=True, slots=True)
class RemoveBot:
    """Take the bot player out of a lobby seat (an empty seat stays empty)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Level:
    """The next bot-player level."""


@dataclass(frozen=True, slots=True)
class RulesMenu:
    """The lobby's rules picker."""


@dataclass(frozen=True, slots=True)
class SeatsMenu:
    """Back to the lobby's seats."""


@dataclass(frozen=True, slots=True)
class Preset:
    """The preset at ``index`` of the picker."""

    index: int


@dataclass(frozen=True, slots=True)
class Option:
    """The next value of the picker's option whose code is ``code``
    (:func:`bot.render.rules_menu.option_code`: the same for the same option in every preset and
    every release, so a keyboard of another preset or release never changes a different option)."""

    code: int


@dataclass(frozen=True, slots=True)
class Start:
    """Start the match (asks first when seats are empty)."""


@dataclass(frozen=True, slots=True)
class Fill:
    """Fill the empty seats with bot players and start."""


@dataclass(frozen=True, slots=True)
class Rematch:
    """Another match at the same table: a lobby with the same rules and seats."""


@dataclass(frozen=True, slots=True)
class Confirm:
    """In a rematch's lobby: "I'm playing" (the person keeps their seat)."""


@dataclass(frozen=True, slots=True)
class Decline:
    """In a rematch's lobby: "not this time" (the person's seat is freed)."""


@dataclass(frozen=True, slots=True)
class StopGame:
    """``/stop`` confirmed: end the game (the button's table id; a later game's is left alone)."""


@dataclass(frozen=True, slots=True)
class Language:
    """A language chosen (``/language``)."""

    lang: str


@dataclass(frozen=True, slots=True)
class TurnTime:
    """The turn time at ``index`` of ``/settings``' choices."""

    index: int


@dataclass(frozen=True, slots=True)
class OnTimeout:
    """The timeout action at ``index`` of ``/settings``' choices."""

    index: int


@dataclass(frozen=True, slots=True)
class Back:
    """ "I'm back": the person decides for their seat again."""


@dataclass(frozen=True, slots=True)
class Top:
    """``/top`` for a period: 0 all time, 1 this month."""

    index: int


@dataclass(frozen=True, slots=True)
class View:
    """The replay viewer of a past match (the button's table id): deal ``deal`` at ``step``."""

    deal: int
    step: int


@dataclass(frozen=True, slots=True)
class Export:
    """A past match's record (the button's table id) as a JSON document."""


@dataclass(frozen=True, slots=True)
class Review:
    """The analysis of a finished deal for ``seat`` (the button's deal number is the deal's index in
    the match's finished deals)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Hint:
    """The ``hard`` player's suggestion for the decision open after ``moves`` moves of the deal."""

    moves: int


@dataclass(frozen=True, slots=True)
class Hints:
    """``/settings``: hints allowed or not (toggles)."""


#: Payloads that are a lobby button.
LobbyButton = (
    Sit
    | AddBot
    | RemoveBot
    | Level
    | RulesMenu
    | SeatsMenu
    | Preset
    | Option
    | Start
    | Fill
    | Confirm
    | Decline
)
Payload = (
    Act
    | Held
    | Tick
    | LobbyButton
    | Rematch
    | StopGame
    | Language
    | TurnTime
    | OnTimeout
    | Back
    | Top
    | View
    | Export
    | Review
    | Hint
    | Hints
)
_BARE: dict[str, Payload] = {
    "L": Level(), "R": RulesMenu(), "K": SeatsMenu(), "G": Start(), "F": Fill(), "M": Rematch(),
    "Y": Back(), "J": Confirm(), "Q": Decline(), "E": Export(), "I": Hints(), "Z": StopGame(),
}  # fmt: skip
_BARE_CODE = {type(p): code for code, p in _BARE.items()}
_NUMBERED: dict[
    str, type[Sit | AddBot | RemoveBot | Preset | Option | TurnTime | OnTimeout | Top | Review | Hint]
] = {
    "S": Sit, "B": AddBot, "D": RemoveBot, "P": Preset, "O": Option, "Tt": TurnTime, "Ta": OnTimeout,
    "W": Top, "U": Review, "H": Hint,
}  # fmt: skip
_NUMBERED_CODE = {kind: code for code, kind in _NUMBERED.items()}


def encode(payload: Payload) -> str:
    """The short code ``payload`` travels as in callback data."""
    match payload:
        case Act(action):
            return "A" + encode_action(action)
        case Held(card):
            return "X" + card.code
        case Tick(card):
            return "C" + (card.code if card is not None else "")
        case Language(lang):
            return "N" + lang
        case View(deal, step):
            return f"V{deal}:{step}"
        case Sit(n) | AddBot(n) | RemoveBot(n) | Preset(n) | Option(n) | TurnTime(n) | OnTimeout(n) | Top(n):
            return _NUMBERED_CODE[type(payload)] + str(n)
        case Review(n) | Hint(n):
            return _NUMBERED_CODE[type(payload)] + str(n)
    return _BARE_CODE[type(payload)]


def decode(code: str) -> Payload:
    """The payload behind a short code; raises :class:`BadData` for anything this bot never sends."""
    bare = _BARE.get(code)
    if bare is not None:
        return bare
    head, rest = code[:1], code[1:]
    try:
        if head == "A":
            return Act(decode_action(rest))
        if head == "X":
            return Held(Card.parse(rest))
        if head == "C":
            return Tick(Card.parse(rest) if rest else None)
    except KozelError:
        raise BadData(f"bad payload {code!r}") from None
    if head == "N" and re.fullmatch(r"[a-z]{2,3}", rest):
        return Language(rest)
    if head == "V" and (found := re.fullmatch(r"([0-9]{1,3}):([0-9]{1,3})", rest)):
        return View(int(found[1]), int(found[2]))
    for prefix in (code[:2], head):
        kind = _NUMBERED.get(prefix)
        # An option's code is up to five digits (bot/render/rules_menu.option_code); the rest three.
        n = ascii_number(code[len(prefix) :], 5 if kind is Option else 3)
        if kind is not None and n is not None:
            if kind in (Sit, AddBot, RemoveBot, Review) and n not in range(4):
                break
            return kind(n)
    raise BadData(f"bad payload {code!r}")


_KINDS: dict[str, type[Act | Held | Tick | Language | View]] = {
    "A": Act, "X": Held, "C": Tick, "N": Language, "V": View,
}  # fmt: skip


def kind_of(code: str) -> type[Payload] | None:
    """Which kind of payload a short code is (by its head alone, without reading the rest)."""
    bare = _BARE.get(code)
    if bare is not None:
        return type(bare)
    kind = _KINDS.get(code[:1]) or _NUMBERED.get(code[:2]) or _NUMBERED.get(code[:1])
    return kind


def encode_action(action: Action) -> str:
    """A short form of an action for callback data: ``pQC``, ``dS``, ``d-``, ``s1``, ``bASKS``, ``c12``…"""
    key, value = action_to_json(action)
    letter = _LETTERS[key]
    if isinstance(value, bool):
        return letter + ("1" if value else "0")
    if isinstance(value, list):
        return letter + "".join(value)
    if key == "declare" and value == "last":
        return letter + "-"
    return letter + str(value)


def decode_action(code: str) -> Action:
    """The inverse of :func:`encode_action`; raises :class:`KozelError` for anything malformed."""
    if not code:
        raise KozelError("empty action")
    key = _KEYS.get(code[0])
    rest = code[1:]
    if key is None:
        raise KozelError(f"unknown action {code!r}")
    value: Any
    if key in ("swap", "exchange"):
        if rest not in ("0", "1"):
            raise KozelError(f"bad flag {code!r}")
        value = rest == "1"
    elif key in ("brag", "exchange_give", "discard"):
        if len(rest) % 2:
            raise KozelError(f"bad cards {code!r}")
        value = [rest[i : i + 2] for i in range(0, len(rest), 2)]
    elif key == "declare":
        value = "last" if rest == "-" else rest
    elif key == "cut":
        value = ascii_number(rest)
        if value is None:
            raise KozelError(f"bad cut {code!r}")
    else:
        value = rest
    return action_from_json(key, value)


_LETTERS = {
    "play": "p",
    "declare": "d",
    "swap": "s",
    "swap_return": "r",
    "brag": "b",
    "exchange": "e",
    "exchange_give": "g",
    "cut": "c",
    "brag_kind": "k",
    "discard": "t",
}
_KEYS = {v: k for k, v in _LETTERS.items()}
