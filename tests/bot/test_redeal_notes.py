"""The table after a redeal says whose four queens voided the deal (issue 34, item 8), in ru and en —
those dealt, and those ``sochi``'s talon gave the lone player who kept them (item 10) — and a brag
whose deck ran out is not blamed on four queens."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from bot.engine import Deal, Discard, Rules, cards
from bot.render.i18n import Tr
from bot.render.table_view import live_content, summary_content
from bot.storage import MatchState, Seat, Table
from bot.table import game
from bot.table.codec import Codec
from tests.engine.sochi_helpers import sochi_deck

RECORDS = Path(__file__).resolve().parents[1] / "records"


def _next_table(rules: Rules, record: dict[str, Any]) -> tuple[str, str]:
    """The table (ru, en) of the deal dealt after the void ``record``, at a table of Аня, Борис, Вера
    (and Гена with four seats)."""
    names = ["Аня", "Борис", "Вера", "Гена"][: rules.seats]
    seats: list[Seat | None] = [Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate(names)]
    table = Table(table_id="rd1", chat_id=-100, creator_id=1, rules=rules.to_json(), seats=seats)
    table.match = MatchState(
        first_dealer=record["dealer"],
        dealer=record["dealer"],
        deals=[record],
        deal_seq=2,
        scores=[0] * rules.seats,
    )
    again = Deal.shuffled(rules, random.Random(1), dealer=record["dealer"], deal_no=record.get("deal_no", 1))
    return live_content(Tr("ru"), table, again).text, live_content(Tr("en"), table, again).text


def test_redeal_note_names_who_was_dealt_the_four_queens() -> None:
    record = json.loads((RECORDS / "classic_redeal.json").read_text())
    void = game.replay(record)
    assert void.result is not None and void.result.events == ("redeal",)
    holder = next(s for s in range(4) if sum(c.code[0] == "Q" for c in void.hand(s)) == 4)
    name = ["Аня", "Борис", "Вера", "Гена"][holder]
    dealer = ["Аня", "Борис", "Вера", "Гена"][record["dealer"]]
    ru, en = _next_table(Rules.make("classic"), record)
    assert f"♻️ Пересдача: все четыре дамы у одного игрока — {name}. Снова сдаёт {dealer}." in ru
    assert f"♻️ Redeal: {name} holds all four queens. {dealer} deals again." in en
    assert "у игрока четыре дамы" not in ru


def test_redeal_note_names_the_sochi_lone_player_who_kept_the_talons_fourth_queen() -> None:
    sochi = Rules.make("sochi")
    deal = Deal(sochi, sochi_deck({1: "QC QS QH 7H"}, talon="QD 7S", dealer=0), dealer=0)
    deal.apply(1, Discard(tuple(cards("7S 7H"))))
    assert deal.result is not None and deal.result.void and deal.result.events == ("redeal",)
    ru, en = _next_table(sochi, deal.record())
    assert "♻️ Пересдача: все четыре дамы у одного игрока — Борис. Снова сдаёт Аня." in ru
    assert "♻️ Redeal: Борис holds all four queens. Аня deals again." in en


def test_redeal_note_of_a_brag_whose_deck_ran_out_names_no_queens() -> None:
    record = json.loads((RECORDS / "classic_brag_mirror_runs_out.json").read_text())
    void = game.replay(record)
    assert void.result is not None and void.result.events == ("redeal",)
    ru, en = _next_table(Rules.parse(record["rules"]), record)
    assert "♻️ Пересдача: в хвалёже кончилась колода. Снова сдаёт Аня." in ru and "дамы" not in ru
    assert "♻️ Redeal: the deck ran out during the brag. Аня deals again." in en


def _summary(rules: Rules, record: dict[str, Any], lang: str) -> str:
    """The group's summary of the void deal ``record`` at a table of Аня, Борис, Вера, Гена."""
    names = ["Аня", "Борис", "Вера", "Гена"][: rules.seats]
    seats: list[Seat | None] = [Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate(names)]
    table = Table(table_id="rd2", chat_id=-100, creator_id=1, rules=rules.to_json(), seats=seats)
    table.match = MatchState(
        first_dealer=record["dealer"], dealer=record["dealer"], deals=[record], deal_seq=2
    )
    return summary_content(Tr(lang), Codec(b"k"), table, 0).text


def test_a_redeal_summary_says_whose_four_queens_or_that_the_deck_ran_out() -> None:
    dealt = json.loads((RECORDS / "classic_redeal.json").read_text())
    void = game.replay(dealt)
    holder = next(s for s in range(4) if sum(c.code[0] == "Q" for c in void.hand(s)) == 4)
    name = ["Аня", "Борис", "Вера", "Гена"][holder]
    assert f"все четыре дамы у одного игрока — {name}" in _summary(Rules.make("classic"), dealt, "ru")
    assert f"{name} holds all four queens" in _summary(Rules.make("classic"), dealt, "en")
    ran_out = json.loads((RECORDS / "classic_brag_mirror_runs_out.json").read_text())
    ru = _summary(Rules.parse(ran_out["rules"]), ran_out, "ru")
    assert "кончилась колода" in ru and "дамы" not in ru


def test_a_void_deals_summary_counts_no_points_for_sides_never_formed() -> None:
    """A void deal is played by nobody: its summary says why and gives no points line (a void sochi
    deal named sides — "Аня — 0, Борис и Вера — 0" — that never played it)."""
    sochi = Rules.make("sochi")
    deal = Deal(sochi, sochi_deck({1: "QC QS QH 7H"}, talon="QD 7S", dealer=0), dealer=0)
    deal.apply(1, Discard(tuple(cards("7S 7H"))))
    dealt = json.loads((RECORDS / "classic_redeal.json").read_text())
    for rules, record in ((sochi, deal.record()), (Rules.make("classic"), dealt)):
        for lang in ("ru", "en"):
            text = _summary(rules, record, lang)
            assert Tr(lang)("summary.points", a="", b="", pa=0, pb=0).split(":")[0] not in text, text
            assert ("Пересдача" if lang == "ru" else "Redeal") in text
