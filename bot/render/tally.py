"""The shestyorki tally as a picture (RULES.md §1): each side's sixes (two for a match to 12, one for 6),
pips uncovered pair by pair."""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.render.words import ROWS_PER_SIX, sixes

WIDTH, HEIGHT = 640, 360
_FELT = (26, 92, 58)
_CARD = (250, 248, 240)
_EDGE = (40, 40, 40)
_PIP = (20, 20, 20)
_BACK = (46, 74, 150)
_BACK_LINE = (90, 120, 200)
_PAIR_COLOURS = ((220, 170, 40), (200, 80, 80))
_CARD_W, _CARD_H = 110, 170
_NAME = (245, 245, 235)
#: DejaVu Sans Bold, shipped with the bot (bitstream-vera licence, fonts/LICENSE-DejaVu.txt): Latin and
#: Cyrillic names on any machine. It has no emoji, so names lose theirs on the picture.
_FONT_FILE = Path(__file__).resolve().parent / "fonts" / "DejaVuSans-Bold.ttf"


@cache
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(_FONT_FILE), size)


def font(size: int) -> ImageFont.FreeTypeFont:
    """The bot's picture font (DejaVu Sans Bold) at ``size`` pixels, loaded once per size."""
    return _font(size)


def drawable(name: str) -> str:
    """``name`` without what the font cannot draw: emoji and other characters beyond the BMP, and
    variation selectors and joiners (🤖 Бот №3 → Бот №3)."""
    kept = "".join(ch for ch in name if ord(ch) <= 0xFFFF and not 0xFE00 <= ord(ch) <= 0xFE0F)
    kept = kept.replace("\u200d", "")
    return " ".join(kept.split())


def _label(draw: ImageDraw.ImageDraw, text: str, centre: int, width: int) -> None:
    """``text`` centred over a pair's panel, made smaller (then cut short) until it fits ``width``."""
    for size in (22, 19, 16, 14):
        font = _font(size)
        if draw.textlength(text, font=font) <= width:
            break
    else:
        while text and draw.textlength(text + "…", font=font) > width:
            text = text[:-1]
        text += "…"
    draw.text((centre, 48), text, font=font, fill=_NAME, anchor="mm")


def _six(draw: ImageDraw.ImageDraw, x: int, y: int, width: int, opened: int) -> None:
    """One six at (x, y), ``width`` wide: its three rows of two pips, the first ``opened`` uncovered."""
    draw.rounded_rectangle((x, y, x + width, y + _CARD_H), radius=10, fill=_CARD, outline=_EDGE, width=2)
    row_h = (_CARD_H - 20) // 3
    r = min(11, width // 10)
    for row in range(3):
        cy = y + 10 + row * row_h + row_h // 2
        if row < opened:
            for cx in (x + width // 3, x + 2 * width // 3):
                draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=_PIP)
        else:
            # The covering card: a card back over the rows not yet uncovered.
            top = y + 6 + row * row_h
            draw.rectangle((x + 5, top, x + width - 5, top + row_h), fill=_BACK)
            for k in range(x + 5, x + width - 5, 12):
                draw.line((k, top, min(k + row_h, x + width - 5), top + row_h), fill=_BACK_LINE, width=2)


def _panel(
    draw: ImageDraw.ImageDraw,
    left: int,
    panel_w: int,
    colour: tuple[int, int, int],
    name: str | None,
    n: int,
    target: int,
) -> None:
    """One side's panel from ``left``: its colour bar, its name, its sixes (as many as the match to
    ``target`` is kept on: :func:`~bot.render.words.sixes`) and a dot per pair of pips."""
    draw.rectangle((left + 20, 24, left + panel_w - 20, 32), fill=colour)
    if name is not None:
        _label(draw, drawable(name), left + panel_w // 2, panel_w - 40)
    opened = sixes(n, target)
    gap = 24 if len(opened) <= 2 else 10
    card_w = min(_CARD_W, (panel_w - 40 - gap * (len(opened) - 1)) // len(opened))
    span = len(opened) * card_w + gap * (len(opened) - 1)
    x0 = left + (panel_w - span) // 2
    for i, rows in enumerate(opened):
        _six(draw, x0 + i * (card_w + gap), 70, card_w, rows)
    if n >= target:
        # A goat: a red frame around the sixes.
        draw.rectangle((x0 - 10, 60, x0 + span + 10, 70 + _CARD_H + 10), outline=(230, 40, 40), width=5)
    dots = len(opened) * ROWS_PER_SIX
    step = min(30, (panel_w - 40) // dots)
    first = left + panel_w // 2 - step * (dots - 1) // 2
    for k in range(dots):
        cx = first + k * step
        fill = colour if k < sum(opened) else (60, 110, 80)
        radius = min(9, step // 3)
        draw.ellipse((cx - radius, 290 - radius, cx + radius, 290 + radius), fill=fill)


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def tally_png(penalty: tuple[int, int], names: tuple[str, str] | None = None, target: int = 12) -> bytes:
    """A PNG of both pairs' tallies for the given penalty points in a match to ``target`` (WIDTH ×
    HEIGHT), each pair's panel headed by its players' ``names`` (emoji left out: :func:`drawable`)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), _FELT)
    draw = ImageDraw.Draw(image)
    panel_w = WIDTH // 2
    for pair in (0, 1):
        _panel(
            draw,
            pair * panel_w,
            panel_w,
            _PAIR_COLOURS[pair],
            names[pair] if names else None,
            penalty[pair],
            target,
        )
    return _png(image)


#: Individual scores: a colour per person.
_PERSON_COLOURS = ((220, 170, 40), (200, 80, 80), (90, 160, 220))


def people_tally_png(totals: list[int], names: list[str], target: int = 12) -> bytes:
    """A PNG of one tally per person (individual scores, ``blind_rotates``) in a match to ``target``:
    a panel each, as wide as a pair's, headed by the person's name; a goat's sixes framed in red."""
    panel_w = WIDTH // 2
    image = Image.new("RGB", (panel_w * len(totals), HEIGHT), _FELT)
    draw = ImageDraw.Draw(image)
    for i, (n, name) in enumerate(zip(totals, names, strict=True)):
        _panel(draw, i * panel_w, panel_w, _PERSON_COLOURS[i % len(_PERSON_COLOURS)], name, n, target)
    return _png(image)
