"""RULES.md §5, 4-person ``sochi4`` (сочинский козёл for four): classic with 32 cards (♣7 on top) and the
brag kind changing every round of four deals (``brag_rotation``); the first deal has no brag."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.engine import Deal, Match, Phase, Rules, RulesError, card, result_of, tables_for
from bot.engine.cards import JACK_OF_CLUBS, Suit
from bot.engine.rules import BragKind
from tests.engine.helpers import play_out

SOCHI4 = Rules.make("sochi4")
RECORDS = Path(__file__).parent.parent / "records"


def _brag_deal(rules: Rules, deal_no: int, seed: int = 0) -> Deal:
    return Deal.shuffled(rules, random.Random(seed), dealer=seed % 4, deal_no=deal_no)


def _played_kind(deal: Deal) -> str | None:
    play_out(deal, random.Random(deal.deal_no))
    assert deal.result is not None
    return deal.result.brag_kind


def test_sochi4_is_classic_with_32_cards_and_the_club_seven_on_top() -> None:
    assert SOCHI4.deck_size == 32 and SOCHI4.hand_size == 8
    assert SOCHI4.top_trump == card("7C") and SOCHI4.fixed_trump_suit is Suit.DIAMONDS
    t = tables_for(SOCHI4, Suit.DIAMONDS)
    assert " ".join(c.code for c in t.trumps) == "7C QC QS QH QD JC JS JH JD AD TD KD 9D 8D 7D"
    assert SOCHI4.queen_penalty == 4


def test_sochi4_refuses_the_options_it_fixes_by_name() -> None:
    for name, value in (("deck", 36), ("deck", 32), ("brag", "mirror"), ("brag_choice", ["pants", "mirror"])):
        with pytest.raises(RulesError, match=rf"{name}: not an option of sochi4"):
            Rules.make("sochi4", **{name: value})
    with pytest.raises(RulesError, match="blind_rotates: unknown option"):
        Rules.make("sochi4", blind_rotates=True)
    with pytest.raises(RulesError, match="brag_rotation"):
        Rules.make("sochi4", brag_rotation=[])
    with pytest.raises(RulesError, match="brag_rotation"):
        Rules.make("sochi4", brag_rotation=["poker"])
    with pytest.raises(RulesError, match="brag_rotation: unknown option"):
        Rules.make("classic", brag_rotation=["pants"])


def test_sochi4_keeps_classic_options_that_still_make_sense() -> None:
    rules = Rules.make("sochi4", match_target=6, cherpak_max=29, trump_suit="C", matadors=True)
    assert rules.to_json() == {
        "preset": "sochi4",
        "options": {"match_target": 6, "cherpak_max": 29, "trump_suit": "C", "matadors": True},
    }
    assert Rules.parse(rules.to_json()) == rules
    assert Rules.make("sochi4").to_json() == {"preset": "sochi4", "options": {}}


def test_sochi4_first_deal_has_no_brag_and_the_club_jack_leads() -> None:
    for seed in range(5):
        deal = _brag_deal(SOCHI4, 1, seed)
        if deal.over:  # four queens: redeal
            continue
        assert deal.phase is Phase.PLAY and deal.brag is None
        assert deal.to_act == deal.holder(JACK_OF_CLUBS)
        assert _played_kind(deal) is None


def test_sochi4_brag_kind_changes_every_round_of_four_deals() -> None:
    expected = {
        2: "pants",
        3: "pants",
        4: "pants",
        5: "mirror",
        8: "mirror",
        9: "fishing",
        12: "fishing",
        13: "pants",
        17: "mirror",
    }
    for deal_no, kind in expected.items():
        assert SOCHI4.options.brag_kind(deal_no) is BragKind(kind)  # type: ignore[union-attr]
        deal = _brag_deal(SOCHI4, deal_no, deal_no)
        assert deal.brag is not None and deal.brag.kind is BragKind(kind)
        # The mirror waits for the bragger's cut; pants and fishing never ask for one.
        assert (deal.phase is Phase.CUT) == (kind == "mirror")
        assert _played_kind(deal) == kind


def test_sochi4_brag_rotation_option_sets_the_kinds_in_turn() -> None:
    rules = Rules.make("sochi4", brag_rotation=["fishing", "big_pants"])
    kinds = [rules.options.brag_kind(n).value for n in range(2, 14)]  # type: ignore[union-attr]
    assert kinds == ["fishing"] * 3 + ["big_pants"] * 4 + ["fishing"] * 4 + ["big_pants"]
    assert _brag_deal(rules, 6).brag.kind is BragKind.BIG_PANTS  # type: ignore[union-attr]


def test_sochi4_a_void_deal_keeps_its_round() -> None:
    """A redeal is dealt again under the same deal number, so it keeps its round's brag kind."""
    rng = random.Random(7)
    match = Match(SOCHI4, dealer=0)
    seen = []
    while not match.over:
        deal = match.new_deal(rng=rng)
        play_out(deal, rng)
        assert deal.result is not None
        if deal.deal_no > 1:
            seen.append((deal.deal_no, deal.result.brag_kind))
        match.add(deal.result)
    for deal_no, kind in seen:
        assert kind == SOCHI4.options.brag_kind(deal_no).value  # type: ignore[union-attr]


def test_sochi4_golden_match_shows_the_brag_rotation() -> None:
    record = json.loads((RECORDS / "sochi4_match_brag_rotation.json").read_text(encoding="utf-8"))
    result = result_of(record)
    kinds = [d.get("brag_kind") for d in result["deals"]]
    assert kinds == [None, "pants", "pants", "pants", "mirror", "mirror", "mirror", "mirror", "fishing"]
    assert result["penalty"] == [10, 14] and result["loser"] == 1 and result["title"] == "goat_with_drivers"


def test_sochi4_classic_results_do_not_name_the_brag_kind() -> None:
    deal = _brag_deal(Rules.make("classic", deck=32), 5)
    assert _played_kind(deal) is None
