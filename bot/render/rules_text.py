"""What ``/rules`` and the lobby's rules picker say: the rules of the table's variant, with its own
target, trumps, scoring and pairing, and a glossary of only the terms that variant uses."""

from __future__ import annotations

from functools import cache

from bot.engine import Rules
from bot.render import rules_menu
from bot.render.i18n import Tr
from bot.table.game import SUIT_SYMBOLS


def _top(tr: Tr, rules: Rules) -> str:
    """The шмон as the rules texts write it: ``♣7``."""
    top = rules.top_trump
    return SUIT_SYMBOLS[top.suit] + tr(f"rank.{top.rank.value}")


def _score_winners(rules: Rules) -> bool:
    return bool(getattr(rules.options, "score_winners", False))


def goal(tr: Tr, rules: Rules) -> str:
    """Who is the goat in this match: the first to its target (a pair, a person), or with
    ``score_winners`` the other pair of the first to it."""
    target = rules.options.match_target
    if rules.individual_scores:
        return tr("rules.goal_people", target=target)
    if _score_winners(rules):
        return tr("rules.goal_winners", target=target)
    return tr("rules.goal", target=target)


def _values(tr: Tr, rules: Rules) -> dict[str, object]:
    """What the variant texts fill in: the deck, the hand, the trump suit, the шмон."""
    suit = rules.fixed_trump_suit
    return {
        "deck": rules.deck_size,
        "hand": rules.hand_size,
        "suit": tr(f"val.{suit.value}") if suit is not None else "",
        "top": _top(tr, rules),
    }


def about(tr: Tr, rules: Rules) -> str:
    """The lobby's line on the chosen variant: who plays, the deck and trumps, and its goal."""
    return tr(f"lobby.about.{rules.preset}", **_values(tr, rules)) + " " + goal(tr, rules)


@cache
def people(preset: str) -> int:
    """How many people play ``preset`` (the seats less the blinds)."""
    return Rules.make(preset).people


def rules_text(tr: Tr, rules: Rules) -> str:
    """``/rules``: the common ground (for variants scored by card points), the variant, its goal, the
    options changed and the glossary."""
    variant = tr(f"rules.{rules.preset}", **_values(tr, rules))
    parts = [variant, goal(tr, rules)]
    if not rules.by_tricks:  # trick counting says all it shares with the others itself
        common = tr("rules.common", top=_top(tr, rules))
        if rules.preset != "draw":  # the draw pile's losers get 2 whatever their points: it says so
            common += " " + tr("rules.scoring", most=getattr(rules.options, "cherpak_max", 30))
        parts.insert(0, common)
    parts.append(tr("rules.options", summary=rules_menu.summary(tr, rules)))
    parts.append(glossary(tr, rules))
    return "\n\n".join(parts)


def glossary(tr: Tr, rules: Rules) -> str:
    """The terms of this variant, one line each, said as this table plays them."""
    target = rules.options.match_target
    options = {name for name, _ in rules_menu.options_of(rules.preset)}
    lines = [tr("gloss.title"), tr("gloss.shmon", top=_top(tr, rules))]
    if "matadors" in options:
        lines.append(tr("gloss.matadors"))
    if rules.by_tricks:
        lines += [tr("gloss.para_tricks"), tr("gloss.cherpak_tricks"), tr("gloss.shestak_tricks")]
    elif rules.preset == "draw":  # the losing pair gets 2, whatever its points
        lines += [tr("gloss.para_draw"), tr("gloss.eggs")]
    else:
        cherpak = getattr(rules.options, "cherpak_max", 30)
        lines += [
            tr("gloss.para"),
            tr("gloss.cherpak", max=cherpak),
            tr("gloss.shestak"),
            tr("gloss.eggs"),
        ]
    if rules.individual_scores:
        lines.append(tr("gloss.goat_people", target=target, more=target + 2))
    elif _score_winners(rules):
        lines.append(tr("gloss.goat_winners", target=target))
    else:
        lines.append(tr("gloss.goat", target=target, more=target + 2))
    if rules.blind_seats:
        lines.append(tr("gloss.blind"))
    if rules.talon_size:
        lines.append(tr("gloss.talon"))
    if hasattr(rules.options, "brag") or hasattr(rules.options, "brag_rotation"):
        lines += [tr("gloss.brag"), tr("gloss.brag_kinds")]
    if rules.exchange_allowed and hasattr(rules.options, "brag"):
        lines.append(tr("gloss.exchange"))
    return "\n".join(lines)
