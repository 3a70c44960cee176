"""Classic's brag as the group and the DM show it: the cards laid so far, the bragger's face down
until the brag cards are turned, and in the mirror and fishing how many trumps each player took."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from bot.engine import BragKind, Deal, Phase
from bot.engine.cards import Card
from bot.render.i18n import Tr
from bot.render.labels import brag_player
from bot.render.words import card_text
from bot.storage import Table

#: A card laid face down in the brag (the bragger's, until the brag cards are turned).
FACE_DOWN = "🂠"
#: The phases in which the brag cards are not turned yet.
BRAG_PHASES = (Phase.BRAG_KIND, Phase.CUT, Phase.BRAG)


def brag_lines(
    tr: Tr,
    name: Callable[[int], str],
    kind: BragKind | None,
    laid: tuple[tuple[int, tuple[Card | None, ...]], ...],
    took: tuple[int, ...],
    *,
    turned: bool,
) -> list[str]:
    """Until the brag cards are turned, the cards laid so far (``None``: face down); in the mirror and
    fishing, how many trumps each player took from the deck (all the others saw of them). ``name``
    names who laid a seat's cards (:func:`bot.render.labels.brag_player`: a person who left since
    keeps the brag they made)."""
    if kind is None:
        return []
    lines = []
    if not turned:
        parts = [
            f"{name(s)} {' '.join(FACE_DOWN if c is None else card_text(tr, c) for c in cs)}"
            for s, cs in laid
        ]
        lines.append(tr("table.brag", kind=tr(f"val.{kind.value}"), cards=" · ".join(parts) or "—"))
    if any(took):
        counts = " · ".join(f"{name(s)} {n}" for s, n in enumerate(took) if n)
        lines.append(tr("table.brag_took", counts=counts))
    return lines


def public_brag_lines(tr: Tr, table: Table, deal: Deal) -> list[str]:
    """:func:`brag_lines` as the whole table sees them (the group message)."""
    st = deal.brag
    if st is None or st.kind is None:
        return []
    turned = st.turned or deal.over
    laid = tuple((s, tuple(None if s == st.bragger and not turned else c for c in cs)) for s, cs in st.laid)
    name = partial(brag_player, tr, table, deal)
    return brag_lines(tr, name, st.kind, laid, tuple(st.took), turned=turned)
