"""The /history viewer steps through a deal trick by trick as the engine took them (issue 34, item 2)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from bot.engine import Deal, Phase
from bot.engine.actions import Discard
from bot.engine.cards import Card, cards
from bot.engine.record import replay_deal
from bot.engine.rules import Rules
from bot.render.i18n import Tr
from bot.render.replay_view import steps_of, view_content
from bot.render.words import cards_text
from bot.stats.entry import Meta, Player, make_entry
from bot.table.codec import Codec
from tests.engine.sochi_helpers import SOCHI, random_play, sochi_deck

RECORDS = Path(__file__).resolve().parents[1] / "records"

#: Blind matches (two_dummies; dummy with and without a brag, rotating), sochi's three seats, deals
#: with a brag trick (laid by brag moves, not played), and classic/tricks deals for comparison.
CASES = (
    "two_dummies_match_goat",
    "dummy_match_blind_rotates",
    "dummy_brag_for_blind",
    "dummy_blind_wins_and_leads",
    "dummy_blind_queen_not_caught",
    "sochi_match_brag_rotation",
    "sochi_discard_counts",
    "classic_brag_fishing",
    "classic_brag_beaten",
    "classic_double_brag_split_tie",
    "classic_queen_caught",
    "classic_match_goat",
    "tricks_match_all_nine",
)


def _deals(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The rules and the deal records of a golden file (a match's, or one deal's)."""
    data = json.loads((RECORDS / f"{name}.json").read_text())
    if "deals" in data:
        return data["rules"], data["deals"]
    return data["rules"], [{k: v for k, v in data.items() if k != "rules"}]


def _expected_hands(record: dict[str, Any], rules: Rules, k: int) -> list[list[Card]]:
    """Each seat's cards once ``k`` tricks are taken, from the record alone: what it plays in the
    tricks still to come and what it still holds when the deal ends (a trick none of whose cards is
    a play move is the brag's, laid before play: its cards were never in play's hands)."""
    deal = replay_deal(record, rules)
    assert deal.result is not None
    tricks = deal.result.tricks
    played = {Card.parse(m["play"]) for m in record.get("moves", []) if "play" in m}
    brag = 0
    while brag < len(tricks) and not any(c in played for _, c in tricks[brag].plays):
        brag += 1
    hands = [list(deal.hand(s)) for s in range(rules.seats)]
    for trick in tricks[max(k, brag) :]:
        for seat, c in trick.plays:
            hands[seat].append(c)
    return hands


def _hand_lines(text: str, seats: int) -> list[str]:
    """The cards of each seat's line under the viewer's hands heading."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(("Карты на руках", "Hands")))
    return [line.rsplit(": ", 1)[1] for line in lines[start + 1 : start + 1 + seats]]


@pytest.mark.parametrize("name", CASES)
def test_the_replay_shows_each_hand_at_every_step_as_the_record_has_it(name: str) -> None:
    rules_json, records = _deals(name)
    rules = Rules.parse(rules_json)
    names = ("Аня", "Борис", "Вера", "Глеб")
    seats = [
        Player(kind="human", name=names[s], user_id=100 + s) if p is not None else Player(kind="bot")
        for s, p in enumerate(rules.seating(1))
    ]
    entry = make_entry(
        {"rules": rules_json, "deals": records}, Meta(id="m1", chat_id=-1, at=1_796_000_000.0, seats=seats)
    )
    tr = Tr("ru")
    codec = Codec(b"secret")
    shown = 0
    for index, record in enumerate(records):
        steps = steps_of(record, rules)
        deal = steps.deal
        assert deal.result is not None
        assert steps.last == len(deal.result.tricks)
        for k in range(steps.last + 1):
            at = 0 if k == steps.last else k  # the last step shows every hand as play began
            expected = _expected_hands(record, rules, at)
            held = steps.hands[at]
            ids = [sorted(c.id for c in h) for h in held]
            assert ids == [sorted(c.id for c in h) for h in expected], (index, k)
            text = view_content(tr, codec, entry, index, k, -1).text
            assert _hand_lines(text, rules.seats) == [cards_text(tr, list(h)) or "—" for h in held]
            if 0 < k < steps.last:
                assert f"\n{k}. " in text and f"\n{k + 1}. " not in text  # the tricks taken so far
            shown += 1
    assert shown > len(records)


def test_a_blind_hand_at_a_step_keeps_the_card_it_turns_for_the_next_trick() -> None:
    """The reported case: a blind's hand at step 3 held one card fewer, the one it played in trick 4."""
    rules_json, records = _deals("two_dummies_match_goat")
    rules = Rules.parse(rules_json)
    record = next(r for r in records if replay_deal(r, rules).result.tricks)  # type: ignore[union-attr]
    steps = steps_of(record, rules)
    size = rules.hand_size
    for k in range(steps.last):
        assert [len(h) for h in steps.hands[k]] == [size - k] * rules.seats


def test_a_record_from_before_a_rule_changed_steps_as_it_was_played() -> None:
    """A record with no "version" (sochi's lone player keeping four queens after the discard played on
    then) steps by its own version: stepped by today's rules, the deal was void at the discard and the
    first card played was refused."""
    deal = Deal(SOCHI, sochi_deck({0: "QC QS QH 7H"}, talon="QD 7S", dealer=2), dealer=2, version=1)
    assert deal.phase is Phase.DISCARD and deal.to_act is not None
    deal.apply(deal.to_act, Discard(tuple(cards("7S 7H"))))
    random_play(deal, random.Random(1))
    record = deal.record()
    assert "version" not in record and deal.result is not None and not deal.result.void
    steps = steps_of(record, SOCHI)
    assert steps.last == len(deal.result.tricks) == 10
    assert [len(h) for h in steps.hands[1]] == [9, 9, 9]


def test_a_sochi_deal_in_the_viewer_names_its_talon_and_why_a_deal_was_void() -> None:
    """Every step of a sochi deal says who took the talon and what it held (his hand holds its cards;
    the table showed it to all); a deal voided by the ♣Q in the talon shows the talon and says so, and
    a caught queen's deal ends with the catch, as the table's summary did."""
    rules_json, records = _deals("sochi_match_brag_rotation")
    rules = Rules.parse(rules_json)
    names = ("Аня", "Борис", "Вера")
    seats = [Player(kind="human", name=n, user_id=100 + s) for s, n in enumerate(names)]
    entry = make_entry(
        {"rules": rules_json, "deals": records}, Meta(id="m1", chat_id=-1, at=1_796_000_000.0, seats=seats)
    )
    codec = Codec(b"secret")
    seen = set()
    for lang in ("ru", "en"):
        tr = Tr(lang)
        for index, record in enumerate(records):
            steps = steps_of(record, rules)
            result = steps.deal.result
            talon = steps.deal.talon
            assert result is not None and talon.talon
            cards = cards_text(tr, talon.talon)
            for k in range(steps.last + 1):
                text = view_content(tr, codec, entry, index, k, -1).text
                if talon.lone is None:
                    assert tr("sochi.talon", cards=cards) in text, (index, k)
                else:
                    assert tr("sochi.lone_was", name=names[talon.lone], cards=cards) in text, (index, k)
            last = view_content(tr, codec, entry, index, steps.last, -1).text
            if "talon_queen" in result.events:
                assert tr("void.talon_queen", dealer=names[steps.deal.dealer]) in last
                seen.add("talon_queen")
            if "queen_caught" in result.events:
                assert tr("event.queen_caught") in last
                seen.add("queen_caught")
    assert seen == {"talon_queen", "queen_caught"}
