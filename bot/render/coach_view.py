"""The texts of a finished deal's analysis and of a hint (:mod:`bot.tg.coach`, :mod:`bot.table.hints`)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from bot.engine import Action, Play, SeatView
from bot.engine.ai.analysis import THRESHOLD, WORLDS, Mistake
from bot.engine.ai.hint import why
from bot.render.hand_view import decision_label
from bot.render.i18n import Tr
from bot.render.words import card_text


def points(tr: Tr, value: float, form: str = ".1f") -> str:
    """Penalty points (to one decimal), in the reader's way of writing a decimal fraction."""
    return format(value, form).replace(".", tr("review.decimal"))


def review_text(tr: Tr, chat_title: str, deal_no: int, mistakes: list[Mistake]) -> str:
    """The analysis of a deal for one seat: its clear mistakes in the order played (or that none was
    found), and how it was judged (worlds and threshold)."""
    lines = [tr("review.title", chat=escape(chat_title), n=deal_no), ""]
    if not mistakes:
        lines.append(tr("review.none"))
    for m in sorted(mistakes, key=lambda m: m.move):  # in the order they were played
        lines.append(
            tr(
                "review.mistake",
                trick=m.trick,
                played=card_text(tr, m.played),
                better=card_text(tr, m.better),
                loss=points(tr, m.loss),
            )
        )
        if m.reason is not None:
            lines.append(tr(f"review.why.{m.reason}"))
    lines += ["", tr("review.footer", worlds=WORLDS, threshold=points(tr, THRESHOLD, "g"))]
    return "\n".join(lines)


def hint_text(tr: Tr, action: Action, why: str | None) -> str:
    """A hint: the decision, and one line of why where a rule names it."""
    what = card_text(tr, action.card) if isinstance(action, Play) else decision_label(tr, action)
    text = tr("hint.text", what=what)
    return text if why is None else text + "\n" + tr(f"hint.why.{why}")


def hint_words(tr: Tr) -> Callable[[SeatView, Action], str]:
    """How a hint is said in ``tr``'s language (for :func:`bot.table.hints.hint_for`)."""
    return lambda view, action: hint_text(tr, action, why(view, action))
