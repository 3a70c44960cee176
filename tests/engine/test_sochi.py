"""RULES.md §5, 3-person ``sochi`` (сочинский козёл): 32 cards, ten each and a talon of two shown to all,
the ♣Q in the talon redealing, the ♣Q holder taking it, discarding two (never the ♣Q) that count for
him and playing alone against a pair formed for the deal, the brag rotating by rounds of three deals,
each person's own score and the goat(s)."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, Match, Phase, RecordError, Rules, RulesError, card, cards, result_of, view_for
from bot.engine.actions import Discard, Play
from bot.engine.refusal import IllegalMoveError
from bot.engine.result import DealResult
from bot.engine.rules import BragKind
from tests.engine.sochi_helpers import SOCHI, random_play, sochi_deck


def _discard(deal: Deal, codes: str) -> None:
    assert deal.phase is Phase.DISCARD and deal.to_act is not None
    deal.apply(deal.to_act, Discard(tuple(cards(codes))))


def test_sochi_is_three_seats_with_32_cards_and_the_club_seven_on_top() -> None:
    assert SOCHI.seats == 3 and SOCHI.deck_size == 32 and SOCHI.hand_size == 10 and SOCHI.talon_size == 2
    assert SOCHI.top_trump == card("7C") and SOCHI.individual_scores


def test_sochi_refuses_classic_options_it_cannot_take_by_name() -> None:
    for name, value in (
        ("deck", 36),
        ("brag", "mirror"),
        ("brag_choice", ["pants", "mirror"]),
        ("matadors", True),
        ("first_lead_trump_ace", True),
        ("score_winners", True),
    ):
        with pytest.raises(RulesError, match=rf"{name}: unknown option"):
            Rules.make("sochi", **{name: value})
    rules = Rules.make("sochi", match_target=6, cherpak_max=29, trump_suit="C", brag_rotation=["mirror"])
    assert Rules.parse(rules.to_json()) == rules


def test_sochi_deals_ten_each_one_at_a_time_and_two_to_the_talon_shown_to_all() -> None:
    deck = sochi_deck({0: "QC"}, talon="AS TS", dealer=2)
    deal = Deal(SOCHI, deck, dealer=2)
    # Seat 0 is the dealer's left: he gets the first card, then seat 1, then seat 2.
    assert deck[0] == card("QC") and deal.talon.talon == tuple(cards("AS TS"))
    assert [h.bit_count() for h in deal.hands] == [12, 10, 10]  # the lone player took the talon
    for seat in (1, 2):
        view = view_for(deal, seat)
        assert view.talon == tuple(cards("AS TS")) and view.lone == 0
        assert set(cards("AS TS")) <= set(view.seen[0])  # in his hand, seen, until he discards


def test_sochi_club_queen_in_the_talon_redeals_by_the_same_dealer() -> None:
    deal = Deal(SOCHI, sochi_deck({}, talon="QC 7S"), dealer=1)
    assert deal.over and deal.result is not None
    assert deal.result.void and deal.result.same_dealer and deal.result.events == ("talon_queen",)
    match = Match(SOCHI, dealer=1)
    match.add(deal.result)
    assert match.dealer == 1 and match.deal_no == 1 and match.scores == [0, 0, 0]


def test_sochi_club_queen_holder_plays_alone_against_the_other_two() -> None:
    deal = Deal(SOCHI, sochi_deck({2: "QC"}), dealer=0)
    assert deal.talon.lone == 2 and deal.to_act == 2 and deal.pair_of == (1, 1, 0)
    assert (
        view_for(deal, 0).partner == 1
        and view_for(deal, 1).partner == 0
        and view_for(deal, 2).partner is None
    )


def test_sochi_discard_is_two_cards_of_the_lone_hand_never_the_club_queen() -> None:
    deal = Deal(SOCHI, sochi_deck({0: "QC AH KH"}, talon="7S 8S", dealer=2), dealer=2)
    assert all(card("QC") not in a.cards and len(a.cards) == 2 for a in deal.legal_actions(0))  # type: ignore[union-attr]
    assert len(deal.legal_actions(0)) == 55  # two of the eleven cards but the ♣Q
    for bad in ("QC 7S", "7S", "7S 8S AH", "7S 7S"):
        with pytest.raises(IllegalMoveError):
            _discard(deal, bad)
    not_his = next(c for c in deal.hand(1))
    with pytest.raises(IllegalMoveError):
        deal.apply(0, Discard((card("7S"), not_his)))
    with pytest.raises(IllegalMoveError):
        deal.apply(1, Discard(tuple(cards("7S 8S"))))
    with pytest.raises(IllegalMoveError):
        deal.apply(0, Play(card("AH")))
    _discard(deal, "AH KH")
    assert deal.phase is Phase.PLAY and deal.hands[0].bit_count() == 10
    assert deal.talon.discards == tuple(cards("AH KH"))


def test_sochi_four_queens_made_by_the_talon_kept_after_the_discard_void_the_deal() -> None:
    # Issue 34, item 10: the talon's ♦Q is his fourth queen; he keeps all four: redeal, same dealer.
    deck = sochi_deck({0: "QC QS QH 7H"}, talon="QD 7S", dealer=2)
    deal = Deal(SOCHI, deck, dealer=2)
    assert deal.phase is Phase.DISCARD and "redeal" not in deal.events  # dealt three: no redeal yet
    _discard(deal, "7S 7H")
    assert deal.over and deal.result is not None and deal.result.void and deal.result.same_dealer
    assert deal.result.events == ("redeal",) and deal.result.penalty == (0, 0)
    assert deal.result.lone == 0 and deal.result.discards == tuple(cards("7S 7H"))
    match = Match(SOCHI, dealer=2)
    match.add(deal.result)
    assert match.dealer == 2 and match.deal_no == 1 and match.scores == [0, 0, 0]
    # Discarding one of the four, the deal goes on; so it does without the four-queens redeal.
    deal = Deal(SOCHI, deck, dealer=2)
    _discard(deal, "QD 7S")
    assert deal.phase is Phase.PLAY
    deal = Deal(Rules.make("sochi", redeal_four_queens=False), deck, dealer=2)
    _discard(deal, "7S 7H")
    assert deal.phase is Phase.PLAY


def test_sochi_four_queens_kept_after_the_discard_in_a_version_1_record_play_on() -> None:
    # A record from before the fix (no "version") replays as it was played: the deal went on.
    deal = Deal(SOCHI, sochi_deck({0: "QC QS QH 7H"}, talon="QD 7S", dealer=2), dealer=2, version=1)
    _discard(deal, "7S 7H")
    assert deal.phase is Phase.PLAY
    random_play(deal, random.Random(2))
    record = deal.record()
    assert "version" not in record and deal.result is not None and not deal.result.void
    assert result_of(record) == deal.result.to_json()
    with pytest.raises(RecordError, match="move 1: the deal is already over"):
        result_of({**record, "version": 2})


def test_sochi_club_jack_in_the_first_deals_talon_is_the_lone_players_he_deals_the_second() -> None:
    # RULES.md §5 [settled]: the ♣J lying in deal 1's talon counts as the lone player's.
    deal = Deal(SOCHI, sochi_deck({2: "QC"}, talon="JC 7S", dealer=0), dealer=0)
    assert deal.talon.lone == 2 and deal.jack_holder == 2
    _discard(deal, "JC 7S")  # discarded, it was still his
    random_play(deal, random.Random(1))
    assert deal.result is not None and deal.result.jack_holder == 2
    match = Match(SOCHI, dealer=0)
    match.add(deal.result)
    assert match.deal_no == 2 and match.dealer == 2


def test_sochi_discards_points_count_for_the_lone_player() -> None:
    deal = Deal(SOCHI, sochi_deck({0: "QC AH TH"}, talon="7S 8S", dealer=2), dealer=2)
    _discard(deal, "AH TH")
    assert deal.points == [21, 0]
    random_play(deal, random.Random(3))
    assert deal.result is not None
    if "queen_caught" not in deal.result.events:
        assert sum(deal.result.points) == 120
        tricks_for_lone = sum(t.points for t in deal.result.tricks if t.winner == 0)
        assert deal.result.points[0] == tricks_for_lone + 21


def test_sochi_lone_player_leads_the_first_trick_of_deal_one() -> None:
    for dealer in range(3):
        deal = Deal(SOCHI, sochi_deck({1: "QC"}, dealer=dealer, seed=dealer), dealer=dealer)
        _discard(deal, " ".join(c.code for c in deal.hand(1) if c != card("QC"))[:5])
        assert deal.to_act == 1 and deal.order == (1, 2, 0)


def test_sochi_the_trick_order_is_clockwise_among_three_seats() -> None:
    deal = Deal(SOCHI, sochi_deck({2: "QC"}), dealer=0)
    random_play(deal, random.Random(1))
    assert deal.result is not None
    for trick in deal.result.tricks:
        seats = [s for s, _ in trick.plays]
        assert seats == [(trick.leader + k) % 3 for k in range(len(seats))]
    assert all(t.winner in (0, 1, 2) for t in deal.result.tricks if t.winner is not None)


def test_sochi_lone_player_needs_61_with_his_discards() -> None:
    from bot.engine.scoring import score_deal

    assert score_deal(SOCHI, (61, 59), (3, 7)).penalty == (0, 2)
    assert score_deal(SOCHI, (60, 60), (3, 7)).events == ("eggs",)
    assert score_deal(SOCHI, (59, 61), (3, 7)).penalty == (2, 0)
    assert score_deal(SOCHI, (30, 90), (1, 9)).penalty == (4, 0)


def test_sochi_caught_club_queen_charges_the_lone_side_4() -> None:
    # Seat 1 leads... the lone player (seat 0) leads the ♣Q into seat 1's ♣7: caught at once.
    deal = Deal(SOCHI, sochi_deck({0: "QC", 1: "7C"}, talon="7S 8S", dealer=2), dealer=2)
    _discard(deal, "7S 8S")
    deal.apply(0, Play(card("QC")))
    deal.apply(1, Play(card("7C")))
    assert deal.over and deal.result is not None
    assert deal.result.events == ("queen_caught",) and deal.result.penalty == (4, 0)
    assert [deal.result.charged(s) for s in range(3)] == [4, 0, 0]


def _result(penalty: tuple[int, int], lone: int) -> DealResult:
    pair_of = tuple(0 if s == lone else 1 for s in range(3))
    return DealResult(None, (), (0, 0), (0, 0), (), penalty, pair_of=pair_of, lone=lone)


def test_sochi_a_sides_penalty_is_written_to_each_of_its_people() -> None:
    match = Match(SOCHI, dealer=0)
    match.add(_result((0, 4), lone=1))  # the pair (seats 0 and 2) lost a черпак: 4 each
    assert match.scores == [4, 0, 4]
    match.add(_result((2, 0), lone=0))
    assert match.scores == [6, 0, 4] and not match.over


def test_sochi_first_person_to_reach_12_is_the_goat() -> None:
    match = Match(SOCHI, dealer=0)
    for lone in (1, 1, 2):
        match.add(_result((0, 4), lone=lone))
    assert match.scores == [12, 4, 8] and match.over and match.goats == (0,) and match.title == "goat"
    assert match.loser is None


def test_sochi_two_people_at_once_are_both_goats() -> None:
    match = Match(SOCHI, dealer=0)
    match.add(_result((0, 6), lone=1))
    match.add(_result((0, 6), lone=1))
    assert match.goats == (0, 2) and match.scores == [12, 0, 12]
    match2 = Match(SOCHI, dealer=0)
    match2.add(_result((0, 6), lone=1))
    match2.add(_result((0, 4), lone=1))
    match2.add(_result((0, 4), lone=1))
    assert match2.goats == (0, 2) and match2.title == "goat_with_drivers"


def test_sochi_first_deal_has_no_brag_and_the_brag_rotates_by_rounds_of_three() -> None:
    opts = SOCHI.options
    kinds = [SOCHI.brag_kind(n).value for n in range(2, 12)]
    assert kinds == [
        "pants",
        "pants",
        "mirror",
        "mirror",
        "mirror",
        "fishing",
        "fishing",
        "fishing",
        "pants",
        "pants",
    ]
    assert opts.brag_rotation == (BragKind.PANTS, BragKind.MIRROR, BragKind.FISHING)  # type: ignore[union-attr]
    assert Deal.shuffled(SOCHI, random.Random(0), 0, deal_no=1).brag is None
    for deal_no in (2, 4, 7):
        deal = Deal.shuffled(SOCHI, random.Random(deal_no), deal_no % 3, deal_no=deal_no)
        assert deal.brag is not None and deal.brag.kind is SOCHI.brag_kind(deal_no)
        assert deal.brag.bragger == (deal_no % 3 + 1) % 3  # the dealer's left


def test_sochi_brag_deal_talon_is_the_last_two_cards_and_the_brag_taker_leads() -> None:
    seen = 0
    for seed in range(40):
        rng = random.Random(seed)
        deal = Deal.shuffled(SOCHI, rng, dealer=seed % 3, deal_no=2)
        while deal.phase is not Phase.DISCARD and not deal.over:
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        if deal.over:
            continue
        assert deal.brag is not None and deal.brag.leader is not None
        lone = deal.talon.lone
        assert lone is not None and len(deal.talon.talon) == 2
        laid = 3 if not deal.brag.double else 6
        assert [h.bit_count() for h in deal.hands] == [
            (12 if s == lone else 10) - laid // 3 for s in range(3)
        ]
        deal.apply(lone, deal.legal_actions(lone)[0])
        if deal.over:  # he kept four queens: redeal (RULES.md §5)
            assert deal.events[-1] == "redeal"
            continue
        assert deal.to_act == deal.brag.leader
        # The brag trick counts for its taker's side of this deal.
        brag_trick = deal.tricks[0]
        assert brag_trick.winner is not None and deal.tricks_won[deal.pair_of[brag_trick.winner]] >= 1
        seen += 1
    assert seen > 10


def test_sochi_nobody_but_the_lone_player_sees_the_discards() -> None:
    """Permuting the discards with the cards a seat cannot see changes nothing in its view."""
    rng = random.Random(9)
    checked = 0
    for seed in range(30):
        deal = Deal.shuffled(SOCHI, random.Random(seed), dealer=seed % 3, deal_no=1 + seed % 5)
        while not deal.over and deal.phase is not Phase.PLAY:
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        if deal.over:
            continue
        for _ in range(rng.randrange(8)):
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        lone = deal.talon.lone
        assert lone is not None
        for seat in range(3):
            view = view_for(deal, seat)
            if seat == lone:
                assert view.discards == deal.talon.discards
                continue
            assert view.discards == () and not set(deal.talon.discards) & set(
                c for cs in view.seen for c in cs
            )
            # Swap a discard with a card of the other hands the seat cannot see: the view is the same.
            other = deal.copy()
            hidden = [c for h in range(3) if h != seat for c in deal.hand(h) if c in view.unseen()]
            d, h = deal.talon.discards[0], rng.choice(hidden)
            holder = deal.holder(h)
            other.hands[holder] = other.hands[holder] & ~h.bit | d.bit
            other.talon.discards = (h, deal.talon.discards[1])
            if other.play_state is not None:
                other.play_state.refresh()
            assert view_for(other, seat) == view
            checked += 1
    assert checked > 20


def _golden(name: str) -> dict:  # type: ignore[type-arg]
    import json
    from pathlib import Path

    from bot.engine import result_of

    path = Path(__file__).parent.parent / "records" / f"{name}.json"
    out: dict = result_of(json.loads(path.read_text(encoding="utf-8")))  # type: ignore[type-arg]
    return out


def test_sochi_golden_talon_redeal() -> None:
    result = _golden("sochi_talon_redeal")
    assert (
        result["events"] == ["talon_queen"]
        and result["talon"] == ["7S", "QC"]
        and result["penalty"] == [0, 0]
    )


def test_sochi_golden_lone_players_discard_counts() -> None:
    result = _golden("sochi_discard_counts")
    assert result["lone"] == 0 and result["discards"] == ["AH", "TH"]
    in_tricks = sum(
        {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}.get(c[0], 0)
        for t in result["tricks"]
        if t["winner"] == 0
        for _, c in t["plays"]
    )
    # 44 in his tricks would lose; with the discards' 21 he has 65 and the pair is charged.
    assert in_tricks == 44 and result["points"] == [65, 55] and result["penalty"] == [0, 2]


def test_sochi_golden_match_shows_the_brag_rotation_and_individual_scores() -> None:
    result = _golden("sochi_match_brag_rotation")
    deals = result["deals"]
    assert [(d["deal_no"], d.get("brag_kind")) for d in deals] == [
        (1, None),
        (2, "pants"),
        (3, "pants"),
        (4, "mirror"),
        (5, "mirror"),
        (6, "mirror"),
        (7, "fishing"),
        (7, "fishing"),
        (8, "fishing"),
    ]
    assert deals[6]["events"] == ["talon_queen"] and deals[7]["dealer"] == deals[6]["dealer"]
    assert deals[0]["events"] == ["queen_caught"] and deals[0]["totals"] == [0, 4, 0]  # the lone seat 1
    assert result["scores"] == [6, 12, 6] and result["goats"] == [1] and result["title"] == "goat"


def test_sochi_record_refuses_a_bad_discard_with_its_index() -> None:
    import json
    from pathlib import Path

    from bot.engine import RecordError, result_of

    path = Path(__file__).parent.parent / "records" / "sochi_discard_counts.json"
    rec = json.loads(path.read_text(encoding="utf-8"))
    assert rec["moves"][0] == {"seat": 0, "discard": ["AH", "TH"]}
    for bad, reason in [
        ({"seat": 0, "discard": ["QC", "AH"]}, "move 0: seat 0 cannot discard"),
        ({"seat": 0, "discard": ["AH"]}, "move 0: seat 0 cannot discard"),
        ({"seat": 1, "discard": ["AH", "TH"]}, "move 0: seat 1 cannot discard"),
        ({"seat": 3, "discard": ["AH", "TH"]}, "move 0: 'seat' must be a seat 0-2"),
        ({"seat": 0, "discard": "AH"}, "move 0: discard takes a list of card codes"),
        ({"seat": 0, "play": "AH"}, "move 0: seat 0 cannot play AH: no card is played now"),
    ]:
        with pytest.raises(RecordError, match=reason) as err:
            result_of({**rec, "moves": [bad, *rec["moves"][1:]]})
        assert err.value.index == 0
    with pytest.raises(RecordError, match="move 0: missing: the deal is not over, seat 0 is to discard"):
        result_of({**rec, "moves": []})


def test_sochi_brag_excess_goes_back_under_the_deck() -> None:
    """With no partners during the brag, a bragger holding more than 9 once he has laid (after six
    pairs) puts his latest cards back under the deck."""
    from bot.engine import deck_for
    from bot.engine.actions import Brag

    trumps = cards("7C QC QS QH QD JC JS JH JD AD TD")
    deck: list = [None] * 32  # type: ignore[type-arg]
    for i in range(5):  # five pairs of trumps: top and bottom
        deck[i], deck[31 - i] = trumps[2 * i], trumps[2 * i + 1]
    deck[5], deck[26] = card("AS"), trumps[10]  # the sixth pair holds the only non-trump
    rest = iter(c for c in deck_for(32) if c not in deck)
    deck = [c if c is not None else next(rest) for c in deck]
    deal = Deal(SOCHI, deck, dealer=2, deal_no=2)
    assert deal.phase is Phase.BRAG and deal.to_act == 0 and deal.hands[0].bit_count() == 12
    deal.apply(0, Brag((card("AS"),)))
    assert deal.hands[0].bit_count() == 9
    st = deal.brag
    assert st is not None
    # The latest received still held went under the deck: the sixth pair's trump, then the fifth
    # pair's bottom card, which is the bottom card the next player's first pair takes.
    assert not deal.hands[0] & (trumps[10].bit | trumps[9].bit)
    assert st.received[1][1] == trumps[9]
    assert st.stock[-1] == trumps[10] or st.received[1][3] == trumps[10]
    random_play(deal, random.Random(0))
