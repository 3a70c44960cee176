"""The achievements' texts: the group's announcement and the lines of /stats."""

from __future__ import annotations

import time
from html import escape

from bot.render.i18n import Tr
from bot.stats.achievements import ACHIEVEMENTS, COMEBACK_DEFICIT
from bot.stats.counting import Earned


def title(tr: Tr, achievement: str) -> str:
    """An achievement's emoji and name."""
    return tr(f"ach.{achievement}")


def about(tr: Tr, achievement: str) -> str:
    """What earns it, in a few words."""
    return tr(f"ach.{achievement}.about", n=COMEBACK_DEFICIT)


def announcement_text(tr: Tr, earned: list[Earned]) -> str:
    """One message for a match: each achievement earned, who earned it and what it is for."""
    names: dict[str, list[str]] = {}
    for e in earned:
        who = names.setdefault(e.achievement, [])
        if e.player.name not in who:
            who.append(e.player.name)
    lines = [tr("ach.announce")]
    for achievement in ACHIEVEMENTS:
        if achievement in names:
            people = ", ".join(escape(n) for n in names[achievement])
            line = tr("ach.line", title=title(tr, achievement), names=people, about=about(tr, achievement))
            lines.append(line)
    return "\n".join(lines)


def stats_lines(tr: Tr, earned: dict[str, float]) -> list[str]:
    """/stats: how many of how many, each earned one with its date, then the titles still to earn."""
    lines = [tr("stats.ach_title", n=len(earned), of=len(ACHIEVEMENTS))]
    for achievement in ACHIEVEMENTS:
        if achievement in earned:
            when = time.strftime("%d.%m.%Y", time.gmtime(earned[achievement]))
            lines.append(tr("stats.ach_row", title=title(tr, achievement), when=when))
    rest = [title(tr, a) for a in ACHIEVEMENTS if a not in earned]
    if rest:
        lines.append(tr("stats.ach_rest", titles=", ".join(rest)))
    return lines
