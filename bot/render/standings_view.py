"""/top and /stats as text, and /top as a picture (Pillow, the tally's font)."""

from __future__ import annotations

import io
from html import escape

from PIL import Image, ImageDraw

from bot.render.achievements_view import stats_lines
from bot.render.i18n import Tr
from bot.render.tally import drawable
from bot.render.tally import font as _font
from bot.stats.facts import FIGURES
from bot.stats.standings import Pair, Personal, Row, Standings

#: People shown at most (the picture and the text).
ROWS_SHOWN = 12
WIDTH = 900
_ROW_H = 30
_TOP = 70
_BG = (26, 92, 58)
_INK = (245, 245, 235)
_HEAD = (220, 170, 40)
_STRIPE = (32, 104, 66)
_BOTS = (170, 200, 180)
_NAME_W = 230


def player_name(tr: Tr, key: str, name: str) -> str:
    """A person's name, or a bot player's level (``🤖 лёгкий``); not escaped."""
    if key.startswith("u"):
        return name or "?"
    level = key[1:]
    return tr("top.bot", level=tr(f"level.{level}") if tr.has(f"level.{level}") else level)


def _row_text(tr: Tr, row: Row) -> str:
    f = row.figures
    return tr(
        "top.row",
        name=escape(player_name(tr, row.key, row.name)),
        **{k: f[k] for k in FIGURES},
    )


def _pair_text(tr: Tr, pair: Pair, names: dict[str, str]) -> str:
    return tr(
        "top.pair",
        a=escape(player_name(tr, pair.a, names.get(pair.a, ""))),
        b=escape(player_name(tr, pair.b, names.get(pair.b, ""))),
        n=pair.matches,
        won=pair.won,
        share=round(100 * pair.share),
    )


def standings_text(tr: Tr, st: Standings, names: dict[str, str], *, month: bool) -> str:
    """The standings as a message (the caption of the picture, or the text when it fails)."""
    lines = [tr("top.title_month" if month else "top.title_all")]
    if st.empty:
        lines.append(tr("top.none"))
        return "\n".join(lines)
    lines.append(tr("top.legend"))
    lines.extend(f"{i}. {_row_text(tr, r)}" for i, r in enumerate(st.people[:ROWS_SHOWN], 1))
    if st.bots:
        lines += ["", tr("top.bots")]
        lines.extend(_row_text(tr, r) for r in st.bots)
    if st.best:
        lines += ["", tr("top.best")]
        lines.extend(_pair_text(tr, p, names) for p in st.best)
    if st.worst:
        lines += ["", tr("top.worst")]
        lines.extend(_pair_text(tr, p, names) for p in st.worst)
    return "\n".join(lines)


def _pair_lines(tr: Tr, st: Standings, names: dict[str, str]) -> list[tuple[str, bool]]:
    """The pairs' lines of the picture (heading or not), plain text."""
    out: list[tuple[str, bool]] = []
    for key, pairs in (("top.best_plain", st.best), ("top.worst_plain", st.worst)):
        if pairs:
            out.append((tr(key), True))
            for p in pairs:
                a, b = player_name(tr, p.a, names.get(p.a, "")), player_name(tr, p.b, names.get(p.b, ""))
                out.append(
                    (tr("top.pair", a=a, b=b, n=p.matches, won=p.won, share=round(100 * p.share)), False)
                )
    return out


def standings_png(tr: Tr, st: Standings, names: dict[str, str], *, month: bool) -> bytes:
    """A PNG table of the standings: people ranked, then bot players apart, then the pairs."""
    rows = st.people[:ROWS_SHOWN]
    pairs = _pair_lines(tr, st, names)
    height = _TOP + _ROW_H * (len(rows) + len(st.bots) + (2 if st.bots else 1)) + 26 * len(pairs) + 30
    image = Image.new("RGB", (WIDTH, height), _BG)
    draw = ImageDraw.Draw(image)
    draw.text((20, 22), drawable(tr("top.picture_all" if not month else "top.picture_month")), font=_font(24),
              fill=_INK)  # fmt: skip
    heads = [tr(f"top.col.{k}") for k in FIGURES]
    col_w = (WIDTH - 20 - _NAME_W - 20) // len(FIGURES)
    y = _TOP
    for j, head in enumerate(heads):
        x = 20 + _NAME_W + j * col_w + col_w // 2
        draw.text((x, y + _ROW_H // 2), drawable(head), font=_font(13), fill=_HEAD, anchor="mm")
    y += _ROW_H

    def line(label: str, row: Row, colour: tuple[int, int, int], stripe: bool) -> None:
        nonlocal y
        if stripe:
            draw.rectangle((10, y, WIDTH - 10, y + _ROW_H), fill=_STRIPE)
        text = drawable(label)
        font = _font(17)
        while text and draw.textlength(text, font=font) > _NAME_W - 10:
            text = text[:-1]
        draw.text((20, y + _ROW_H // 2), text, font=font, fill=colour, anchor="lm")
        for j, k in enumerate(FIGURES):
            x = 20 + _NAME_W + j * col_w + col_w // 2
            draw.text((x, y + _ROW_H // 2), str(row.figures[k]), font=font, fill=colour, anchor="mm")
        y += _ROW_H

    for i, row in enumerate(rows, 1):
        line(f"{i}. {player_name(tr, row.key, row.name)}", row, _INK, i % 2 == 0)
    if st.bots:
        draw.text(
            (20, y + _ROW_H // 2), drawable(tr("top.bots_plain")), font=_font(15), fill=_HEAD, anchor="lm"
        )
        y += _ROW_H
        for row in st.bots:
            line(player_name(tr, row.key, row.name), row, _BOTS, False)
    y += 10
    for text, heading in pairs:
        colour, size = (_HEAD, 15) if heading else (_INK, 16)
        draw.text((20, y + 13), drawable(text), font=_font(size), fill=colour, anchor="lm")
        y += 26
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def personal_text(tr: Tr, name: str, p: Personal) -> str:
    """/stats: a person's figures across every chat, their streak and favourite partner."""
    lines = [tr("stats.title", name=escape(name))]
    if p.empty:
        lines.append(tr("stats.none"))
        if p.hints:
            lines.append(tr("stats.hints", n=p.hints))
        lines.extend(stats_lines(tr, p.earned))  # what there is to earn
        return "\n".join(lines)
    f = p.figures
    lines.append(tr("stats.figures", **{k: f[k] for k in FIGURES}))
    if p.streak > 0:
        lines.append(tr.n("stats.streak_won", p.streak))
    elif p.streak < 0:
        lines.append(tr.n("stats.streak_lost", -p.streak))
    if p.best_streak > 0:
        lines.append(tr.n("stats.best_streak", p.best_streak))
    if p.partner_key is not None:
        partner = escape(player_name(tr, p.partner_key, p.partner_name))
        lines.append(tr("stats.partner", name=partner, n=p.partner_matches, won=p.partner_won))
    if p.hints:
        lines.append(tr("stats.hints", n=p.hints))
    lines.extend(stats_lines(tr, p.earned))
    return "\n".join(lines)
