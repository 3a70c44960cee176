"""The search path through classic's brag and exchange: the same deal as `Deal` for the same choices."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from bot.engine import ALL_CARDS, Deal, KozelError, Phase, Rules, card, cards
from bot.engine.actions import Play, action_from_json
from bot.engine.fast import REDEAL, play_out, rollout
from bot.engine.rules import ClassicOptions

BRAG_RULES = [
    Rules.make("classic"),
    Rules.make("classic", brag="big_pants", pointless_trick_saves=True),
    Rules.make("classic", brag="mirror", jack_order="literal"),
    Rules.make("classic", brag="fishing", score_winners=True),
    Rules.make("classic", brag_choice=["pants", "big_pants", "mirror", "fishing"]),
    Rules.make("classic", deck=32, must_trump_when_void=True, matadors=True),
    Rules.make("classic", deck=24, trump_suit="C", redeal_four_queens=False),
    Rules.make("classic", brag="big_pants", deck=24, cherpak_max=29),
]


def classic_options(rules: Rules) -> ClassicOptions:
    """The classic options of ``rules``."""
    assert isinstance(rules.options, ClassicOptions)
    return rules.options


IDS = [f"{classic_options(r).brag.value}-{i}" for i, r in enumerate(BRAG_RULES)]


def reference_choice(deal: Deal, rng: random.Random) -> None:
    """One decision through the validating API, taken as :func:`play_out` documents.

    One ``rng.random()`` when there is more than one option; the j-th card in id order, or the j-th
    action in :meth:`Deal.legal_actions` order.
    """
    seat = deal.to_act
    assert seat is not None
    if deal.phase is Phase.PLAY:
        m = deal.legal_mask(seat)
        n = m.bit_count()
        if n > 1:
            for _ in range(int(rng.random() * n)):
                m &= m - 1
        deal.play(seat, ALL_CARDS[(m & -m).bit_length() - 1])
        return
    acts = deal.legal_actions(seat)
    deal.apply(seat, acts[int(rng.random() * len(acts)) if len(acts) > 1 else 0])


def reference_play_out(deal: Deal, rng: random.Random) -> Deal:
    """Every remaining decision through :meth:`Deal.apply`."""
    while not deal.over:
        reference_choice(deal, rng)
    return deal


def check_same_deal(deal: Deal, seed: int) -> Deal:
    """``play_out`` and ``rollout`` from ``deal`` give the reference deal's result and use the same draws."""
    before = deal.record()
    fast_rng, ref_rng = random.Random(seed), random.Random(seed)
    out = play_out(deal, fast_rng)
    assert deal.record() == before, "play_out must not change the deal"
    ref = reference_play_out(deal.copy(), ref_rng)
    r = ref.result
    assert r is not None
    assert out.void == r.void
    if "queen_caught" not in r.events:
        # (The play-out finishes the trick in which the queen is caught before it stops.)
        assert fast_rng.random() == ref_rng.random(), "a different number of random choices"
    score = rollout(deal, random.Random(seed))
    if r.void:
        assert score is REDEAL and "redeal" in r.events
        return ref
    assert (out.points, out.tricks_won) == (r.points, r.tricks_won)
    caught = "queen_caught" in r.events
    assert (out.queen_pair is not None) == caught
    if caught:
        assert out.queen_pair == r.loser
    assert (score.penalty, score.loser, score.multiplier) == (r.penalty, r.loser, r.multiplier)
    assert set(score.events) <= set(r.events)
    return ref


@pytest.mark.parametrize("rules", BRAG_RULES, ids=IDS)
def test_fast_brag_matches_the_reference_engine_from_the_deal_start(rules: Rules) -> None:
    rng = random.Random(2026)
    seen: Counter[str] = Counter()
    for i in range(400):
        deal = Deal.shuffled(rules, rng, dealer=i % 4, deal_no=2)
        # Fishing takes no decision: the deal has played its brag already (and may be over).
        assert (
            deal.phase in (Phase.BRAG, Phase.BRAG_KIND, Phase.CUT) or classic_options(rules).brag == "fishing"
        )
        if deal.over:
            continue
        ref = check_same_deal(deal, rng.randrange(2**32))
        assert ref.brag is not None and ref.result is not None
        seen.update(ref.events)
        seen["double"] += ref.brag.double
        seen["played"] += not ref.result.void
    assert seen["played"] > 300
    assert seen["exchange"] > 10 and seen["exchange_refused"] > 10
    assert seen["brag_won"] > 10 and seen["brag_lost"] > 10
    assert seen["queen_caught"] > 5
    opts = classic_options(rules)
    kinds = opts.brag_choice or (opts.brag,)
    if {"pants", "big_pants"} & set(kinds):
        assert seen["double"] > 0, "no double brag was tried"


@pytest.mark.parametrize("rules", BRAG_RULES, ids=IDS)
def test_fast_brag_matches_the_reference_engine_from_mid_brag(rules: Rules) -> None:
    """Started at any decision before the first lead: mid-brag, before either exchange answer, at the give."""
    rng = random.Random(7)
    phases: Counter[str] = Counter()
    for i in range(400):
        deal = Deal.shuffled(rules, rng, dealer=i % 4, deal_no=2)
        for _ in range(rng.randrange(8)):
            if deal.phase in (Phase.PLAY, Phase.OVER):
                break
            reference_choice(deal, rng)
        if deal.over:
            continue
        phases[deal.phase] += 1
        if deal.phase is Phase.EXCHANGE:
            assert deal.brag is not None
            phases[f"exchange_{deal.to_act == (deal.brag.bragger + 1) % 4}"] += 1
        check_same_deal(deal, rng.randrange(2**32))
    assert phases[Phase.PLAY] > 20
    if classic_options(rules).brag in ("pants", "big_pants"):  # the mirror and fishing lay without a decision
        assert phases[Phase.BRAG] > 20
    assert phases[Phase.EXCHANGE] > 5 and phases[Phase.EXCHANGE_GIVE] > 0
    assert phases["exchange_True"] > 0 and phases["exchange_False"] > 0


def test_fast_brag_double_brag_lays_two_cards_on_each_brag_card() -> None:
    """Deals whose bragger may brag double: the same result, and double brags are among them."""
    rules = Rules.make("classic")
    rng = random.Random(11)
    doubles = 0
    for i in range(3000):
        deal = Deal.shuffled(rules, rng, dealer=i % 4, deal_no=2)
        st = deal.brag
        assert st is not None
        assert deal.tables is not None
        firsts = [c for c in st.first_group if not deal.tables.is_trump(c)]
        if len(firsts) < 2:
            continue
        ref = check_same_deal(deal, i)
        assert ref.brag is not None and ref.result is not None
        if ref.brag.double and not ref.result.void:
            doubles += 1
            assert len(ref.tricks) >= 2 and all(len(t.plays) == 4 for t in ref.tricks[:2])
    assert doubles > 5


@pytest.mark.parametrize(
    "rules",
    [Rules.make("classic"), Rules.make("classic", deck=24, brag="big_pants"), Rules.make("classic", deck=32)],
    ids=["pants", "big_pants-24", "pants-32"],
)
def test_fast_brag_void_deals_running_out_and_four_queens(rules: Rules) -> None:
    """A deck that runs out in the brag, and four queens in a hand after it: void, as in the engine."""
    rng = random.Random(31)
    voids: Counter[str] = Counter()
    for i in range(3000):
        deal = Deal.shuffled(rules, rng, dealer=i % 4, deal_no=2)
        ref = check_same_deal(deal, rng.randrange(2**32))
        assert ref.result is not None
        if ref.result.void:
            # The four-queens check comes once the brag is decided; running out comes before.
            after_brag = "brag_won" in ref.result.events or "brag_lost" in ref.result.events
            voids["four_queens" if after_brag else "ran_out"] += 1
    assert voids["four_queens"] >= 3 and voids["ran_out"] >= 1, voids


#: The hand-made brag records (tests/records): the excess to the partner, a split double brag, the
#: exchange with a small trump kept, the four-queens redeal, every kind of brag.
BRAG_RECORDS = sorted(
    p
    for p in (Path(__file__).resolve().parents[1] / "records").glob("classic_*.json")
    if not p.name.endswith(".expected.json") and json.loads(p.read_text()).get("deal_no", 1) > 1
)


@pytest.mark.parametrize("path", BRAG_RECORDS, ids=[p.stem for p in BRAG_RECORDS])
def test_fast_brag_matches_the_reference_engine_on_the_golden_brag_decks(path: Path) -> None:
    """From each decision of a golden record's brag, and from its start with other choices."""
    rec = json.loads(path.read_text())
    rules = Rules.parse(rec["rules"])
    deal = Deal(rules, [card(c) for c in rec["deck"]], rec["dealer"], deal_no=rec["deal_no"])
    for move in rec["moves"]:
        if deal.phase in (Phase.PLAY, Phase.OVER):
            break
        for seed in range(25):
            check_same_deal(deal, seed)
        key, value = next((k, v) for k, v in move.items() if k != "seat")
        action = action_from_json(key, value)
        assert not isinstance(action, Play)
        deal.apply(move["seat"], action)


def test_fast_brag_passes_the_excess_to_the_partner() -> None:
    """The golden excess deck: a seat holds more than 8 after laying, and the play-outs still agree."""
    rec = json.loads(
        (Path(__file__).resolve().parents[1] / "records/classic_brag_excess_to_partner.json").read_text()
    )
    rules = Rules.parse(rec["rules"])
    passed = 0
    for seed in range(40):
        deal = Deal(rules, [card(c) for c in rec["deck"]], rec["dealer"], deal_no=2)
        ref = check_same_deal(deal, seed)
        st = ref.brag
        assert st is not None
        laid = {s: len(cs) for s, cs in st.laid}
        # A seat that passed cards on kept fewer than it received and laid.
        played = {s: 0 for s in range(4)}
        for t in ref.tricks[len(st.laid[0][1]) :]:  # after the brag trick(s)
            for s, _ in t.plays:
                played[s] += 1
        passed += any(
            len(st.received[s]) > laid.get(s, 0) + played[s] + ref.hands[s].bit_count() for s in range(4)
        )
    assert passed == 40


def test_fast_brag_fishing_runs_out_of_non_trumps() -> None:
    """A deck whose fishing leaves the dealer only trumps to turn: void, as in the engine."""
    deck = cards(
        "6D 7S 8H 6H TS 7C TH AC 8C AH TD TC QC 9H KC JS KH AS 9C 8S 7D 6S JC 7H 9S 9D KS AD QS 8D JH QH KD"
        " 6C QD JD"
    )
    rules = Rules.make("classic", brag_choice=["fishing", "pants"])
    outcomes: Counter[bool] = Counter()
    for seed in range(30):
        deal = Deal(rules, deck, dealer=0, deal_no=2)
        assert deal.phase is Phase.BRAG_KIND
        ref = check_same_deal(deal, seed)
        assert ref.result is not None
        if "brag_fishing" in ref.result.events:
            assert ref.result.void and not ref.tricks
        outcomes[ref.result.void] += 1
    assert outcomes[True] > 5 and outcomes[False] > 5


def test_play_out_refuses_other_phases() -> None:
    flip = Deal.shuffled(Rules.make("flip", trump_mode="declare"), random.Random(1), dealer=0)
    assert flip.phase is Phase.DECLARE
    with pytest.raises(KozelError, match="not in 'declare'"):
        play_out(flip, random.Random(1))
    over = reference_play_out(
        Deal.shuffled(Rules.make("classic"), random.Random(2), dealer=0, deal_no=2), random.Random(3)
    )
    with pytest.raises(KozelError, match="not in 'over'"):
        rollout(over, random.Random(1))
