"""The rules picker: which options each preset has and the values a tap cycles through.

Built from the engine's option models, so a new option appears here by itself (it needs only its
texts in ``locales/``). Options whose values cannot be cycled by a tap (lists) are left out.
"""

from __future__ import annotations

import enum
import types
import typing
import zlib
from typing import Any

from bot.engine import Rules, RulesError
from bot.engine.rules import OPTION_MODELS, PRESETS
from bot.render.i18n import Tr

#: Options the menu does not offer (none now: every option that a tap can cycle is offered).
_NOT_OFFERED: frozenset[str] = frozenset()
#: Match targets offered (12 is the rule; shorter and longer games for those who want them).
TARGETS = (12, 6, 18, 24)


def choices(annotation: Any) -> tuple[Any, ...] | None:
    """The values an option of this type can take, or None if a tap cannot cycle it."""
    if annotation is bool:
        return (False, True)
    if typing.get_origin(annotation) is typing.Literal:
        return tuple(typing.get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return tuple(annotation)
    if annotation is int:
        return TARGETS
    if isinstance(annotation, types.UnionType):
        return None
    return None


def options_of(preset: str) -> list[tuple[str, tuple[Any, ...]]]:
    """``(name, values)`` of each option of ``preset`` that the picker offers, in model order."""
    model = OPTION_MODELS[preset]
    # The options of classic that a preset built on it fixes are not offered.
    fixed: frozenset[str] = getattr(model, "fixed", frozenset())
    out = []
    for name, info in model.model_fields.items():
        if name in fixed:
            continue
        values = choices(info.annotation)
        if values and name not in _NOT_OFFERED:
            out.append((name, values))
    return out


#: The presets a table in Telegram can play: every preset of the engine (3-person ``sochi``'s lobby
#: has three seats, bot/tg/lobby.py ``fit_seats``).
TABLE_PRESETS = PRESETS


def presets() -> tuple[str, ...]:
    """The preset names the lobby offers."""
    return TABLE_PRESETS


def preset_code(preset: str) -> int:
    """The number a preset's button carries: its place among all presets (new ones are added at the
    end), so a keyboard stays right when the lobby comes to offer one more."""
    return PRESETS.index(preset)


def preset_of(code: int) -> str | None:
    """The preset a button's number names, if the lobby offers it."""
    if 0 <= code < len(PRESETS) and PRESETS[code] in TABLE_PRESETS:
        return PRESETS[code]
    return None


def current(rules: Rules, name: str) -> Any:
    """The option's value in ``rules``."""
    return getattr(rules.options, name)


def option_code(name: str) -> int:
    """The number an option's button carries: from its name alone, so it is the same in every preset
    and release (``tests/bot/test_lobby.py`` checks no two options share one)."""
    return zlib.crc32(name.encode()) % 36**3


def cycle(rules: Rules, code: int) -> Rules:
    """``rules`` with the option whose :func:`option_code` is ``code`` set to its next value (skipping
    values the rules refuse); ``ValueError`` if ``rules``'s preset has no such option."""
    found = [(name, values) for name, values in options_of(rules.preset) if option_code(name) == code]
    if not found:
        raise ValueError(f"no option with code {code} in {rules.preset}")
    name, values = found[0]
    now = current(rules, name)
    start = values.index(now) if now in values else -1
    data = rules.to_json()
    for step in range(1, len(values) + 1):
        value = values[(start + step) % len(values)]
        candidate = {**data["options"], name: value.value if isinstance(value, enum.Enum) else value}
        try:
            return Rules.make(rules.preset, **candidate)
        except RulesError:
            continue
    return rules


def carried(old: Rules, preset: str) -> tuple[Rules, dict[str, Any], dict[str, Any]]:
    """``preset``'s rules keeping every option changed in ``old`` that ``preset`` has too (and allows
    together with those kept before it); also, of the options the picker offers, those kept and those
    left behind (``{name: value}``), for the tap's answer to say."""
    model = OPTION_MODELS[preset]
    fixed: frozenset[str] = getattr(model, "fixed", frozenset())
    offered = {name for name, _ in options_of(old.preset)} | {name for name, _ in options_of(preset)}
    kept: dict[str, Any] = {}
    dropped: dict[str, Any] = {}
    for name, value in old.to_json()["options"].items():
        try:
            if name not in model.model_fields or name in fixed:
                raise RulesError(f"{name}: not an option of {preset}")
            Rules.make(preset, **kept, **{name: value})
        except RulesError:  # not this preset's, or not with what is kept already (the first stays)
            dropped[name] = value
            continue
        kept[name] = value
    rules = Rules.make(preset, **kept)

    def same(name: str, value: Any) -> bool:  # the new preset has it so anyway (a fixed 32-card deck)
        now = getattr(rules.options, name, None)
        return bool((now.value if isinstance(now, enum.Enum) else now) == value)

    return (
        rules,
        {k: v for k, v in kept.items() if k in offered},
        {k: v for k, v in dropped.items() if k in offered and not same(k, v)},
    )


def options_text(tr: Tr, rules: Rules, values: dict[str, Any]) -> str:
    """Options as the picker names them: ``Игра до: 6, Нет масти — бей козырем: да``."""
    return ", ".join(f"{tr(f'opt.{name}')}: {value_text(tr, current(rules, name))}" for name in values)


def value_text(tr: Tr, value: Any) -> str:
    """A value as the picker shows it."""
    if isinstance(value, bool):
        return tr("val.on") if value else tr("val.off")
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, int):
        return str(value)
    return tr(f"val.{value}")


def summary(tr: Tr, rules: Rules) -> str:
    """The preset and every option that differs from its default, on one line."""
    parts = [tr(f"preset.{rules.preset}")]
    defaults = OPTION_MODELS[rules.preset]()
    for name, _ in options_of(rules.preset):
        value = current(rules, name)
        if value != getattr(defaults, name):
            parts.append(f"{tr(f'opt.{name}')}: {value_text(tr, value)}")
    return ", ".join(parts)
