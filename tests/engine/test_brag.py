"""RULES.md §2, classic deals after the first: the brag (хвалёж) in every kind, and the exchange."""

from __future__ import annotations

import random

import pytest

from bot.engine import (
    Brag,
    BragKind,
    Card,
    ChooseBragKind,
    Deal,
    Exchange,
    ExchangeGive,
    IllegalMoveError,
    Match,
    Phase,
    Play,
    Rules,
    card,
    cards,
    deck_for,
    view_for,
)
from bot.engine.exchange import offer
from tests.engine.helpers import play_out

CLASSIC = Rules.make("classic")


def brag_deck(top: str, bottom: str, size: int = 36) -> list[Card]:
    """A deck that starts with ``top`` and ends with ``bottom`` (its first card the very bottom)."""
    head, tail = cards(top), cards(bottom)
    middle = [c for c in deck_for(size) if c not in head and c not in tail]
    return head + middle + tail[::-1]


def brag_deal(top: str, bottom: str, dealer: int = 0, **options: object) -> Deal:
    rules = Rules.make("classic", **options)
    return Deal(rules, brag_deck(top, bottom, rules.deck_size), dealer, deal_no=2)


def lay_first_legal(deal: Deal, avoid: frozenset[Card] = frozenset()) -> None:
    """The seat to act lays a single card, preferring one outside ``avoid``."""
    assert deal.to_act is not None
    acts = [a for a in deal.legal_actions(deal.to_act) if isinstance(a, Brag) and len(a.cards) == 1]
    acts.sort(key=lambda a: a.cards[0] in avoid)
    deal.apply(deal.to_act, acts[0])


def test_classic_dealer_rotation_club_jack_holder_then_clockwise() -> None:
    rng = random.Random(3)
    match = Match(CLASSIC, dealer=2)
    first = play_out(match.new_deal(rng=rng), rng)
    assert first.result is not None
    match.add(first.result)
    assert match.dealer == first.jack_holder and match.deal_no == 2
    second = play_out(match.new_deal(rng=rng), rng)
    assert second.brag is not None and second.brag.bragger == (match.dealer + 1) % 4
    assert second.result is not None
    dealer = match.dealer
    match.add(second.result)
    if not second.result.void:
        assert match.dealer == (dealer + 1) % 4 and match.deal_no == 3


def test_brag_pants_bragger_gets_pairs_until_a_non_trump() -> None:
    deal = brag_deal(top="JC JS 9H", bottom="JH JD 6C")
    assert (deal.phase, deal.to_act) == (Phase.BRAG, 1)
    assert set(deal.hand(1)) == set(cards("JC JH JS JD 9H 6C"))
    assert deal.legal_actions(1) == [Brag((card("9H"),))]


def test_brag_nobody_may_lay_a_trump() -> None:
    deal = brag_deal(top="JC JS 9H", bottom="JH JD 6C")
    with pytest.raises(IllegalMoveError, match="cannot brag"):
        deal.apply(1, Brag((card("JC"),)))
    rng = random.Random(0)
    for _ in range(200):
        deal = Deal.shuffled(CLASSIC, rng, rng.randrange(4), deal_no=2)
        while deal.phase is Phase.BRAG:
            assert deal.to_act is not None
            acts = deal.legal_actions(deal.to_act)
            t = deal.tables
            assert t is not None
            assert acts and all(not t.is_trump(c) for a in acts if isinstance(a, Brag) for c in a.cards)
            deal.apply(deal.to_act, rng.choice(acts))


def test_brag_card_face_down_the_others_face_up() -> None:
    deal = brag_deal(top="JC JS 9H", bottom="JH JD 6C")
    deal.apply(1, Brag((card("9H"),)))
    assert view_for(deal, 1).brag_laid == ((1, (card("9H"),)),)
    assert view_for(deal, 3).brag_laid == ((1, (None,)),)
    assert view_for(deal, 3).bragger == 1 and view_for(deal, 3).brag_kind is BragKind.PANTS
    lay_first_legal(deal)
    laid2 = view_for(deal, 1).brag_laid[1]
    assert laid2[0] == 2 and laid2[1][0] is not None
    assert view_for(deal, 0).brag_laid[1] == laid2


def test_brag_top_up_to_eight_from_the_top() -> None:
    deal = brag_deal(top="JC JS 9H 7S 8S 9S", bottom="JH JD 6C")
    deal.apply(1, Brag((card("9H"),)))
    assert len(deal.hand(1)) == 8
    assert set(cards("7S 8S 9S")) <= set(deal.hand(1))


def test_brag_trick_bragger_wins_when_nobody_beats_his_card() -> None:
    # The others' first pairs hold ♣8, ♠7 and ♠8 from the bottom: each can lay a card below the ♥9.
    deal = brag_deal(top="JC JS 9H", bottom="JH JD 6C 8C 7S 8S")
    deal.apply(1, Brag((card("9H"),)))
    higher_hearts = frozenset(cards("TH KH AH"))
    for _ in range(3):
        lay_first_legal(deal, avoid=higher_hearts)
    trick = deal.tricks[0]
    assert all(c not in higher_hearts for _, c in trick.plays)
    assert trick.leader == 1 and trick.winner == 1
    assert "brag_won" in deal.events


def test_brag_trick_highest_card_of_the_brag_suit_wins() -> None:
    deal = brag_deal(top="JC JS 9H 7S 8S 9S AH", bottom="JH JD 6C 8C")
    deal.apply(1, Brag((card("9H"),)))
    assert Brag((card("AH"),)) in deal.legal_actions(2)
    deal.apply(2, Brag((card("AH"),)))
    lay_first_legal(deal)
    lay_first_legal(deal)
    assert deal.tricks[0].winner == 2 and "brag_lost" in deal.events
    # The brag trick's winner leads (unless the other pair first exchanges).
    while deal.phase is Phase.EXCHANGE:
        assert deal.to_act is not None
        deal.apply(deal.to_act, Exchange(False))
    assert (deal.phase, deal.to_act) == (Phase.PLAY, 2)


def test_brag_excess_goes_to_the_partner_most_recent_first() -> None:
    deal = brag_deal(top="6C QS JC JS 9H", bottom="AD QD JH JD 6D")
    assert len(deal.hand(1)) == 10  # five pairs
    deal.apply(1, Brag((card("9H"),)))
    assert len(deal.hand(1)) == 8 and card("6D") not in deal.hand(1)
    assert card("6D") in deal.hand(3)  # seat 3 has not laid yet: it goes into his hand


def test_brag_excess_under_the_deck_when_the_partner_has_laid() -> None:
    rng = random.Random(1)
    seen = 0
    for _ in range(3000):
        deal = Deal.shuffled(CLASSIC, rng, rng.randrange(4), deal_no=2)
        st = deal.brag
        assert st is not None
        while deal.phase is Phase.BRAG:
            seat = deal.to_act
            assert seat is not None
            partner_laid = any(s == (seat + 2) % 4 for s, _ in st.laid)
            held = len(deal.hand(seat))
            action = rng.choice(deal.legal_actions(seat))
            assert isinstance(action, Brag)
            deal.apply(seat, action)
            if held - len(action.cards) > 8 and partner_laid:
                seen += 1
                assert len(deal.hand(seat)) == 8
                assert len(deal.hand((seat + 2) % 4)) == 8
        if deal.phase is Phase.PLAY:
            target = 7 if st.double else 8
            assert [len(deal.hand(s)) for s in range(4)] == [target] * 4
    assert seen > 0


def test_brag_running_out_voids_the_deal_same_dealer_again() -> None:
    rules = Rules.make("classic", deck=24)
    rng = random.Random(18)
    deal = Deal.shuffled(rules, rng, 0, deal_no=2)
    while not deal.over and deal.phase is not Phase.PLAY:
        assert deal.to_act is not None
        deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
    assert deal.brag is not None and len(deal.brag.laid) < 4
    assert deal.result is not None and deal.result.void and deal.result.same_dealer
    assert deal.result.events == ("redeal",)


def test_double_brag_two_of_one_suit_or_two_aces() -> None:
    deal = brag_deal(top="9H", bottom="8H")
    assert set(deal.legal_actions(1)) == {
        Brag((card("9H"),)),
        Brag((card("8H"),)),
        Brag(tuple(cards("9H 8H"))),
        Brag(tuple(cards("8H 9H"))),
    }
    assert Brag(tuple(cards("AS AC"))) in brag_deal(top="AS", bottom="AC").legal_actions(1)
    assert all(len(a.cards) == 1 for a in brag_deal(top="9H", bottom="8S").legal_actions(1))  # type: ignore[union-attr]


def test_double_brag_everyone_lays_two_and_holds_seven() -> None:
    deal = brag_deal(top="9H", bottom="8H")
    deal.apply(1, Brag(tuple(cards("9H 8H"))))
    assert len(deal.hand(1)) == 7
    while deal.phase is Phase.BRAG:
        assert deal.to_act is not None
        acts = deal.legal_actions(deal.to_act)
        assert acts and all(isinstance(a, Brag) and len(a.cards) == 2 for a in acts)
        deal.apply(deal.to_act, acts[0])
    assert len(deal.tricks) == 2 and all(t.leader == 1 for t in deal.tricks)
    assert [len(deal.hand(s)) for s in range(4)] == [7, 7, 7, 7]


def test_brag_big_pants_four_cards_at_a_time() -> None:
    deal = brag_deal(top="9H 7S", bottom="6C QC", brag="big_pants")
    assert set(deal.hand(1)) == set(cards("9H 7S 6C QC"))
    assert Brag((card("7S"),)) in deal.legal_actions(1)


def test_brag_choice_the_bragger_picks_the_kind() -> None:
    rules = Rules.make("classic", brag_choice=["pants", "mirror"])
    deal = Deal(rules, brag_deck("9H", "8S"), 3, deal_no=2)
    assert (deal.phase, deal.to_act) == (Phase.BRAG_KIND, 0)
    assert deal.legal_actions(0) == [ChooseBragKind(BragKind.PANTS), ChooseBragKind(BragKind.MIRROR)]
    with pytest.raises(IllegalMoveError):
        deal.apply(0, ChooseBragKind(BragKind.FISHING))
    deal.apply(0, ChooseBragKind(BragKind.MIRROR))
    assert deal.phase is Phase.CUT and "brag_mirror" in deal.events


def test_brag_four_queens_after_the_brag_redeal() -> None:
    rng = random.Random(0)
    for _ in range(5000):
        deal = play_out(Deal.shuffled(CLASSIC, rng, 0, deal_no=2), rng)
        if deal.result is not None and deal.result.void and deal.brag and len(deal.brag.laid) == 4:
            assert deal.result.same_dealer and "redeal" in deal.result.events
            assert any(all(q in deal.hand(s) for q in cards("QC QS QH QD")) for s in range(4))
            return
    raise AssertionError("no four-queens hand after the brag in 5000 deals")


def _exchange_deal(rng: random.Random) -> Deal:
    while True:
        deal = Deal.shuffled(CLASSIC, rng, rng.randrange(4), deal_no=2)
        while deal.phase is Phase.BRAG:
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        if deal.phase is Phase.EXCHANGE:
            return deal


def test_exchange_offered_only_to_the_non_bragging_pair_that_lost_the_brag() -> None:
    rng = random.Random(4)
    for _ in range(400):
        deal = Deal.shuffled(CLASSIC, rng, rng.randrange(4), deal_no=2)
        while deal.phase is Phase.BRAG:
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        if deal.over:
            continue
        assert deal.brag is not None
        bragger = deal.brag.bragger
        if "brag_lost" in deal.events:
            assert deal.phase is Phase.PLAY
        elif deal.phase is Phase.EXCHANGE:
            assert deal.to_act == (bragger + 1) % 4
            assert deal.exchange is not None
            assert {deal.exchange.strong, deal.exchange.open} == {(bragger + 1) % 4, (bragger + 3) % 4}
        else:
            assert deal.tables is not None
            assert offer(deal.tables, deal.hands, bragger) is None


def test_exchange_needs_both_partners_and_a_refusal_ends_it() -> None:
    rng = random.Random(5)
    deal = _exchange_deal(rng)
    first = deal.to_act
    assert first is not None
    deal.apply(first, Exchange(True))
    second = deal.to_act
    assert second == (first + 2) % 4 and deal.phase is Phase.EXCHANGE
    hands = [deal.hand(s) for s in range(4)]
    deal.apply(second, Exchange(False))
    assert deal.phase is Phase.PLAY and "exchange_refused" in deal.events
    assert [deal.hand(s) for s in range(4)] == hands and deal.open_seat is None


def test_exchange_shares_only_counts_and_the_strong_hand_chooses_what_to_give() -> None:
    rng = random.Random(6)
    deal = _exchange_deal(rng)
    plan = deal.exchange
    assert plan is not None
    t = deal.tables
    assert t is not None
    view = view_for(deal, plan.open)
    strong_trumps = sum(1 for c in deal.hand(plan.strong) if t.is_trump(c))
    assert view.partner_counts == (strong_trumps, len(deal.hand(plan.strong)) - strong_trumps)
    assert view.seen[plan.strong] == ()
    for seat in (deal.to_act, (deal.to_act or 0) + 2):
        deal.apply(seat % 4, Exchange(True))
    assert (deal.phase, deal.to_act) == (Phase.EXCHANGE_GIVE, plan.strong)
    gifts = deal.legal_actions(plan.strong)
    assert gifts and all(isinstance(g, ExchangeGive) and len(g.cards) == len(plan.give) for g in gifts)
    choice = gifts[-1]
    assert isinstance(choice, ExchangeGive)
    deal.apply(plan.strong, choice)
    assert set(plan.give) <= set(deal.hand(plan.strong))
    assert set(choice.cards) <= set(deal.hand(plan.open))
    left = [c for c in deal.hand(plan.open) if t.is_trump(c)]
    assert len(left) <= 1 and all(c.suit is t.trump and c.rank.value not in "QJ" for c in left)
    # The open hand is shown to everyone.
    for seat in range(4):
        if seat != plan.open:
            assert set(view_for(deal, seat).seen[plan.open]) == set(deal.hand(plan.open))
    assert deal.open_seat == plan.open


def test_open_hand_plays_last_need_not_follow_and_never_wins() -> None:
    rng = random.Random(7)
    checked = 0
    while checked < 20:
        deal = _exchange_deal(rng)
        while deal.phase is not Phase.PLAY and not deal.over:
            assert deal.to_act is not None
            acts = deal.legal_actions(deal.to_act)
            deal.apply(deal.to_act, acts[0] if deal.phase is Phase.EXCHANGE else rng.choice(acts))
        if deal.open_seat is None or deal.over:  # no exchange, or it made four queens
            continue
        open_seat = deal.open_seat
        t = deal.tables
        assert t is not None
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            if seat == open_seat:
                assert len(deal.trick) == 3, "the open hand plays last"
                has_trump = any(t.is_trump(c) for c in deal.hand(seat))
                if not has_trump:
                    assert set(deal.legal_plays(seat)) == set(deal.hand(seat))
            deal.apply(seat, Play(rng.choice(deal.legal_plays(seat))))
        assert deal.result is not None
        assert all(tr.winner != open_seat for tr in deal.result.tricks)
        assert all(tr.leader != open_seat for tr in deal.result.tricks)
        checked += 1


def test_open_hand_with_its_one_small_trump_follows_suit() -> None:
    rng = random.Random(8)
    for _ in range(3000):
        deal = _exchange_deal(rng)
        plan = deal.exchange
        assert plan is not None
        t = deal.tables
        assert t is not None
        if len(plan.give) == sum(1 for c in deal.hand(plan.open) if t.is_trump(c)):
            continue  # this one would give all its trumps
        for _ in range(2):
            assert deal.to_act is not None
            deal.apply(deal.to_act, Exchange(True))
        assert deal.to_act is not None
        deal.apply(deal.to_act, deal.legal_actions(deal.to_act)[0])
        (small,) = [c for c in deal.hand(plan.open) if t.is_trump(c)]
        while not deal.over and small in deal.hand(plan.open):
            seat = deal.to_act
            assert seat is not None
            if seat == plan.open and deal.trick:
                led = deal.trick[0][1]
                if t.is_trump(led):
                    assert deal.legal_plays(seat) == [small]
                    return
            deal.apply(seat, Play(rng.choice(deal.legal_plays(seat))))
    raise AssertionError("no open hand with a small trump met a trump lead")
