"""RULES.md §5, ``dummy`` (three people and a blind) and ``two_dummies`` (two people, each with a blind):
the blind's face-down stack played automatically, never following suit, winning and leading, its ♣Q
never caught while its шмон catches, its partner bragging for it, no exchange, the four-queens redeal."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, Phase, Play, Rules, RulesError, card, cards, result_of, view_for
from bot.engine.actions import Brag
from bot.engine.errors import Reason
from bot.engine.play import QC_BIT, caught, play_rules
from bot.engine.refusal import IllegalMoveError
from tests.engine.helpers import fill, play_out

DUMMY = Rules.make("dummy")
TWO = Rules.make("two_dummies")


def _deal1(rules: Rules, given: dict[int, str], dealer: int = 0) -> Deal:
    return Deal(rules, fill(rules, given, dealer=dealer), dealer=dealer)


def _play(deal: Deal, *plays: tuple[int, str]) -> None:
    for seat, c in plays:
        deal.play(seat, card(c))


def test_dummy_presets_seat_the_blinds_opposite_their_people() -> None:
    assert DUMMY.blind_seats == (3,) and [DUMMY.decider(s) for s in range(4)] == [0, 1, 2, 1]
    assert TWO.blind_seats == (2, 3) and [TWO.decider(s) for s in range(4)] == [0, 1, 0, 1]
    assert DUMMY.deck_size == TWO.deck_size == 36 and not DUMMY.exchange_allowed
    assert Rules.make("classic").blind_seats == () and Rules.make("classic").exchange_allowed


def test_dummy_takes_classic_options_and_refuses_others_by_name() -> None:
    r = Rules.make("dummy", deck=32, brag="mirror", cherpak_max=29, match_target=6)
    assert r.deck_size == 32 and r.hand_size == 8
    assert Rules.parse(r.to_json()) == r
    with pytest.raises(RulesError, match="trump_mode: unknown option"):
        Rules.make("two_dummies", trump_mode="declare")
    with pytest.raises(RulesError, match="blind_rotates: unknown option"):
        Rules.make("classic", blind_rotates=True)


def test_dummy_blind_stack_is_its_cards_in_the_order_dealt() -> None:
    deal = _deal1(DUMMY, {0: "JC", 3: "KH AS 7D QD 8C 9H TD 6S JS"})
    assert [c.code for c in deal.stack(3)] == ["KH", "AS", "7D", "QD", "8C", "9H", "TD", "6S", "JS"]
    assert deal.stack(0) == []


def test_dummy_blind_turn_is_automatic() -> None:
    deal = _deal1(DUMMY, {0: "JC 7S", 1: "8S", 2: "9S", 3: "KH AS"})
    assert deal.to_act == 0
    _play(deal, (0, "7S"), (1, "8S"), (2, "9S"))
    # The blind played its top card at once; it is seat 2's trick (♠9), seat 2 leads.
    assert deal.tricks[0].plays[-1] == (3, card("KH")) and deal.to_act == 2
    assert deal.legal_actions(3) == [] and deal.legal_mask(3) == 0
    err = deal.why_not(3, Play(card("AS")))
    assert err is not None and err.reason is Reason.NOT_YOUR_TURN
    # The record holds the decisions only: the blind's card is not a move.
    assert all(seat != 3 for seat, _ in deal.moves)


def test_dummy_blind_never_follows_suit() -> None:
    deal = _deal1(DUMMY, {0: "JC 7S", 1: "8S", 2: "9S", 3: "KH AS"})
    _play(deal, (0, "7S"), (1, "8S"), (2, "9S"))
    assert card("AS") in deal.hand(3), "it held a spade and still played its top card, the ♥K"
    assert deal.tricks[0].winner == 2


def test_dummy_blind_wins_a_trick_and_leads_its_next_card() -> None:
    deal = _deal1(DUMMY, {0: "JC 7S", 1: "8S", 2: "9S", 3: "AS KH"})
    _play(deal, (0, "7S"), (1, "8S"), (2, "9S"))
    assert deal.tricks[0].winner == 3
    # The blind led its next card at once; seat 0 is to follow.
    assert deal.trick == [(3, card("KH"))] and deal.to_act == 0


def test_dummy_blind_queen_cannot_be_caught() -> None:
    deal = _deal1(DUMMY, {0: "JC 6C", 1: "QS", 2: "QH", 3: "QC"})
    _play(deal, (0, "6C"), (1, "QS"), (2, "QH"))
    assert not deal.over and "queen_caught" not in deal.events
    assert deal.tricks[0].winner == 0 and deal.points[0] == 9
    # The other order (the blind's ♣Q first, the шмон after): nothing either.
    s = play_rules(DUMMY, DUMMY.fixed_trump_suit)  # type: ignore[arg-type]
    assert caught(s, [(3, QC_BIT)], 0, s.top_bit) == -1
    assert caught(s, [(0, s.top_bit)], 3, QC_BIT) == -1
    assert caught(s, [(0, QC_BIT)], 1, s.top_bit) == 0  # a person's ♣Q is caught as ever


def test_dummy_blind_shmon_catches_an_opponents_queen() -> None:
    deal = _deal1(DUMMY, {0: "JC QC", 1: "QS", 2: "QH", 3: "6C"})
    _play(deal, (0, "QC"), (1, "QS"), (2, "QH"))
    assert deal.over and "queen_caught" in deal.events
    assert deal.result is not None and deal.result.penalty == (4, 0)


def test_dummy_partners_shmon_and_queen_trigger_nothing() -> None:
    deal = _deal1(DUMMY, {0: "JC", 1: "QC", 2: "QH", 3: "6C"})
    _play(deal, (0, "JC"), (1, "QC"), (2, "QH"))
    assert not deal.over and deal.tricks[0].winner == 3


def _brag_deal(rules: Rules, bragger: int, seed: int = 0) -> Deal:
    rng = random.Random(seed)
    while True:
        deal = Deal.shuffled(rules, rng, dealer=(bragger + 3) % 4, deal_no=2)
        if not deal.over:
            return deal


def test_dummy_partner_brags_for_the_blind() -> None:
    deal = _brag_deal(DUMMY, bragger=3)
    assert deal.phase is Phase.BRAG and deal.to_act == 3 and DUMMY.decider(3) == 1
    # The partner sees the pairs the blind received: the blind seat's view, which is his to take.
    pairs = view_for(deal, 3).hand
    lay = deal.legal_actions(3)[0]
    assert isinstance(lay, Brag)
    deal.apply(3, lay)
    kept = set(pairs) - set(lay.cards)
    assert set(view_for(deal, 1).seen[3]) == kept & set(deal.hand(3))
    assert view_for(deal, 0).seen[3] == () and view_for(deal, 2).seen[3] == ()


def test_dummy_blind_stack_after_the_brag_is_the_order_received() -> None:
    checked = 0
    for seed in range(40):
        deal = _brag_deal(DUMMY, bragger=seed % 4, seed=seed)
        assert deal.brag is not None
        while deal.phase not in (Phase.PLAY, Phase.OVER):
            seat = deal.to_act
            assert seat is not None
            deal.apply(seat, deal.legal_actions(seat)[0])
        if deal.phase is not Phase.PLAY:
            continue
        # What the blind kept, in the order received (a card received twice counts where it came last),
        # is what it plays from the first lead: its card in the trick (if it led) and then its stack.
        now = {c.code for c in deal.hand(3)} | {c.code for s, c in deal.trick if s == 3}
        order: list[str] = []
        for c in reversed(deal.brag.received[3]):
            if c.code in now and c.code not in order:
                order.append(c.code)
        played = [c.code for s, c in deal.trick if s == 3]
        assert played + [c.code for c in deal.stack(3)] == order[::-1]
        checked += 1
    assert checked > 20


def test_dummy_no_exchange() -> None:
    for seed in range(200):
        rng = random.Random(seed)
        deal = play_out(Deal.shuffled(DUMMY, rng, dealer=seed % 4, deal_no=2), rng)
        assert deal.exchange is None and "exchange" not in deal.events
        assert "exchange_refused" not in deal.events


def test_dummy_four_queens_redeal_applies_to_the_blind() -> None:
    deal = _deal1(DUMMY, {0: "JC", 3: "QC QS QH QD"})
    assert deal.over and deal.result is not None and deal.result.void and "redeal" in deal.events


def test_dummy_record_replays_with_the_blind_cards_played_again() -> None:
    for seed in range(20):
        rng = random.Random(seed)
        deal = play_out(Deal.shuffled(DUMMY, rng, dealer=seed % 4, deal_no=1 + seed % 2), rng)
        assert deal.result is not None
        rec = deal.record()
        assert all(m["seat"] != 3 or "play" not in m for m in rec["moves"])
        assert result_of(rec) == deal.result.to_json()


def test_dummy_a_blind_card_in_a_record_is_refused() -> None:
    deal = _deal1(DUMMY, {0: "JC 7S", 1: "8S", 2: "9S", 3: "AS KH"})
    rec = deal.record()
    rec["moves"] = [{"seat": 0, "play": "7S"}, {"seat": 1, "play": "8S"}, {"seat": 2, "play": "9S"}]
    rec["moves"].append({"seat": 3, "play": "KH"})
    with pytest.raises(Exception, match="move 3: seat 3 cannot play KH: it is seat 0's turn"):
        result_of(rec)


def test_two_dummies_both_blinds_play_by_themselves() -> None:
    deal = _deal1(TWO, {0: "JC 7S", 1: "8S", 2: "KH", 3: "AS"}, dealer=3)
    assert deal.to_act == 0
    _play(deal, (0, "7S"), (1, "8S"))
    # Seat 2's ♥K and seat 3's ♠A turned: the blind opposite seat 1 took the trick and leads.
    assert deal.tricks[0].plays[2:] == ((2, card("KH")), (3, card("AS")))
    assert deal.tricks[0].winner == 3
    assert deal.to_act in (0, 1) and deal.trick and deal.trick[0][0] == 3


def test_two_dummies_pairs_are_person_and_blind() -> None:
    deal = Deal.shuffled(TWO, random.Random(1), dealer=0)
    assert deal.pair_of == (0, 1, 0, 1)
    rng = random.Random(2)
    while not deal.over:
        assert deal.to_act in (0, 1)
        seat = deal.to_act
        assert seat is not None
        deal.apply(seat, rng.choice(deal.legal_actions(seat)))
    assert deal.result is not None and sum(len(t.plays) for t in deal.tricks) in (36, *range(4, 36))


def test_two_dummies_blind_cannot_be_played_for() -> None:
    deal = _deal1(TWO, {0: "JC 7S", 1: "8S", 2: "KH", 3: "AS"}, dealer=3)
    _play(deal, (0, "7S"))
    with pytest.raises(IllegalMoveError):
        deal.play(2, card("KH"))
    assert cards("KH")[0] in deal.hand(2)
