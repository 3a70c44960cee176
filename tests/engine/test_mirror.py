"""RULES.md §2, the brag kinds `mirror` and `fishing` (every player takes trumps from the deck until a
non-trump, which he lays), and four queens made by the exchange."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.engine import (
    Brag,
    BragKind,
    Card,
    ChooseBragKind,
    Cut,
    Deal,
    Exchange,
    IllegalMoveError,
    Phase,
    Rules,
    card,
    cards,
    deck_for,
    replay_deal,
    tables_for,
    view_for,
)
from bot.engine.brag import cut_points
from bot.engine.cards import Suit
from bot.engine.errors import Reason
from tests.engine.helpers import play_out

RECORDS = Path(__file__).resolve().parents[1] / "records"
MIRROR = Rules.make("classic", brag="mirror")
FISHING = Rules.make("classic", brag="fishing")
T = tables_for(MIRROR, Suit.DIAMONDS)
TRUMPS = [c for c in deck_for(36) if T.is_trump(c)]
PLAIN = [c for c in deck_for(36) if not T.is_trump(c)]


def deck_with(top: str) -> list[Card]:
    """The 36-card deck with ``top`` on top, the rest in a fixed shuffled order."""
    head = cards(top)
    rest = [c for c in deck_for(36) if c not in head]
    random.Random(0).shuffle(rest)
    return head + rest


def mirror_deal(deck: list[Card], dealer: int = 0) -> Deal:
    return Deal(MIRROR, deck, dealer, deal_no=2)


def cut_one_until_laid(deal: Deal) -> None:
    """The seat to act cuts one card at a time until he has laid."""
    seat = deal.to_act
    while deal.to_act == seat and deal.phase is Phase.CUT:
        deal.apply(seat, Cut(1))


def cut_seats(deal: Deal) -> list[int]:
    return [s for s, a in deal.moves if isinstance(a, Cut)]


def test_mirror_each_player_cuts_in_turn_bragger_first_dealer_last() -> None:
    rng = random.Random(11)
    for _ in range(200):
        dealer = rng.randrange(4)
        deal = Deal.shuffled(MIRROR, rng, dealer, deal_no=2)
        assert (deal.phase, deal.to_act) == (Phase.CUT, (dealer + 1) % 4)
        while deal.phase is Phase.CUT:
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        seats = cut_seats(deal)
        order = [(dealer + 1 + k) % 4 for k in range(4)]
        assert [order.index(s) for s in seats] == sorted(order.index(s) for s in seats)
        assert deal.brag is not None
        assert [s for s, _ in deal.brag.laid] == order[: len(deal.brag.laid)]
        if not deal.over:
            assert len(deal.brag.laid) == 4


def test_mirror_cut_takes_trumps_from_the_packet_bottom_up_and_lays_the_first_non_trump() -> None:
    deal = mirror_deal(deck_with("9H 7S QC JD 8S"))
    deal.apply(1, Cut(4))
    st = deal.brag
    assert st is not None
    # From the packet's bottom up: JD, QC (trumps, into the hand), then 7S, the card he lays.
    assert st.laid == [(1, (card("7S"),))]
    assert st.took[1] == 2
    # The rest of the packet (9H) went back on top, so the top-up begins with it.
    rest = deck_with("9H 7S QC JD 8S")[4:]
    assert set(deal.hand(1)) == {card("QC"), card("JD"), card("9H"), *rest[:5]}
    assert (deal.phase, deal.to_act) == (Phase.CUT, 2)


def test_mirror_the_rest_of_the_packet_goes_back_on_top_of_the_deck() -> None:
    deck = deck_with("AS KS 8S 7S 9S TS JD")
    deal = mirror_deal(deck)
    deal.apply(1, Cut(7))  # JD taken, TS laid, AS KS 8S 7S 9S back on top
    assert deal.brag is not None
    assert set(cards("AS KS 8S 7S 9S")) <= set(deal.hand(1))  # the top-up is from the top
    assert deal.brag.stock == deck[7 + 2 :]


def test_mirror_a_packet_with_no_non_trump_is_kept_and_he_cuts_again() -> None:
    deal = mirror_deal(deck_with("QC JD 7S"))
    deal.apply(1, Cut(2))
    assert (deal.phase, deal.to_act) == (Phase.CUT, 1)
    assert set(deal.hand(1)) == set(cards("QC JD"))
    assert deal.legal_actions(1) == [Cut(i) for i in range(1, 34)]
    deal.apply(1, Cut(1))
    assert deal.brag is not None and deal.brag.laid == [(1, (card("7S"),))]
    assert cut_seats(deal) == [1, 1]


def test_mirror_cut_point_is_one_to_all_but_one_card() -> None:
    deal = mirror_deal(deck_with(""))
    assert deal.legal_actions(1) == [Cut(i) for i in range(1, 36)]
    for bad in (0, 36, -1):
        err = deal.why_not(1, Cut(bad))
        assert err is not None and err.reason is Reason.NOT_ALLOWED
        with pytest.raises(IllegalMoveError, match=f"cannot cut {bad}"):
            deal.apply(1, Cut(bad))
    assert deal.can(1, Cut(35)) and not deal.can(2, Cut(3))


def dealer_finds(last: list[Card]) -> list[Card]:
    """A deck whose first three players, cutting 1 each, find a non-trump on top and are topped up to
    eight: the dealer then has the 9 cards ``last`` (top first) to find his non-trump in."""
    rest = [c for c in deck_for(36) if c not in last]
    heads = [c for c in rest if not T.is_trump(c)][:3]
    others = [c for c in rest if c not in heads]
    deck: list[Card] = []
    for i in range(3):
        deck += [heads[i], *others[8 * i : 8 * i + 8]]
    return deck + last


def test_mirror_one_card_left_is_taken_without_a_cut() -> None:
    deal = mirror_deal(dealer_finds([*TRUMPS[:8], PLAIN[0]]))
    for seat in (1, 2, 3):
        deal.apply(seat, Cut(1))
    assert deal.brag is not None and len(deal.brag.stock) == 9
    deal.apply(0, Cut(8))  # eight trumps: kept; the one card left is taken without a cut
    assert cut_seats(deal) == [1, 2, 3, 0]
    assert deal.brag.laid[-1] == (0, (PLAIN[0],))
    assert deal.phase in (Phase.PLAY, Phase.EXCHANGE)
    assert [len(deal.hand(s)) for s in range(4)] == [8] * 4


def test_mirror_running_out_voids_the_deal_same_dealer_again() -> None:
    deal = mirror_deal(dealer_finds(TRUMPS[:9]))
    for seat in (1, 2, 3):
        deal.apply(seat, Cut(1))
    assert deal.brag is not None
    while not deal.over:
        deal.apply(0, Cut(1))
    assert cut_seats(deal) == [1, 2, 3] + [0] * 8  # 9 cards: eight cuts, the last card uncut
    assert deal.result is not None and deal.result.void and deal.result.same_dealer
    assert deal.result.events == ("redeal",)
    assert set(deal.hand(0)) == set(TRUMPS[:9])


def test_mirror_laid_cards_face_up_but_the_braggers_face_down_until_turned() -> None:
    deal = mirror_deal(deck_with("7S QC 8H 9H"))
    deal.apply(1, Cut(2))  # QC taken, 7S laid
    assert view_for(deal, 1).brag_laid == ((1, (card("7S"),)),)
    for seat in (0, 2, 3):
        assert view_for(deal, seat).brag_laid == ((1, (None,)),)
    cut_one_until_laid(deal)
    laid = view_for(deal, 0).brag_laid
    assert laid[0] == (1, (None,)) and laid[1][0] == 2 and laid[1][1][0] is not None
    cut_one_until_laid(deal)
    assert view_for(deal, 2).brag_laid[0] == (1, (None,))
    cut_one_until_laid(deal)
    assert deal.tricks and view_for(deal, 0).brag_laid[0] == (1, (card("7S"),))


def test_mirror_trumps_taken_are_seen_by_him_alone_the_others_count_them() -> None:
    deal = mirror_deal(deck_with("7S QC JD"))
    deal.apply(1, Cut(3))
    assert {card("QC"), card("JD")} <= set(view_for(deal, 1).hand)
    for seat in (0, 2, 3):
        view = view_for(deal, seat)
        assert view.seen[1] == ()
        assert {card("QC"), card("JD")} <= set(view.unseen())
        assert view.brag_took == (0, 2, 0, 0)


def test_mirror_top_up_from_the_top_excess_to_the_partner() -> None:
    # The bragger's packet holds ten trumps under a non-trump: he keeps eight, the last two taken
    # (the top two trumps of the packet) go to his partner, who has not laid yet.
    ten = TRUMPS[:10]
    deal = mirror_deal(deck_with(" ".join(["7S", *(c.code for c in ten)])))
    deal.apply(1, Cut(11))
    assert len(deal.hand(1)) == 8 and set(deal.hand(1)) == set(ten[2:])
    assert set(deal.hand(3)) == set(ten[:2])
    assert view_for(deal, 0).brag_took == (0, 10, 0, 0)
    play_out(deal, random.Random(1))
    cuts = [a.at for _, a in deal.moves if isinstance(a, Cut)]
    ref = brag_reference(list(deal.deck), 1, BragKind.MIRROR, cuts)
    assert ref is not None and ref[0] == [c for _, c in deal.tricks[0].plays]


def test_mirror_cut_points_offered_are_a_handful_of_legal_ones() -> None:
    assert cut_points(36) == [("top", 1), ("third", 12), ("half", 18), ("two_thirds", 24), ("bottom", 35)]
    assert cut_points(2) == [("top", 1)]
    assert [a for _, a in cut_points(3)] == [1, 2]
    for n in range(2, 37):
        points = [a for _, a in cut_points(n)]
        assert points and len(set(points)) == len(points) and all(1 <= a <= n - 1 for a in points)


def test_mirror_every_cut_point_is_legal_and_replays() -> None:
    for at in range(1, 36):
        deal = Deal.shuffled(MIRROR, random.Random(at), 2, deal_no=2)
        deal.apply(3, Cut(at))
        play_out(deal, random.Random(at))
        again = replay_deal(deal.record())
        assert again.result == deal.result and again.moves == deal.moves


def brag_reference(
    deck: list[Card], bragger: int, kind: BragKind, cuts: list[int], target: int = 8
) -> tuple[list[Card], list[list[Card]]] | None:
    """The mirror or fishing as RULES.md words it, written out independently of the engine: the cards
    laid in turn order and the hands once everyone is topped up (``None``: the deck ran out)."""
    stock = deck.copy()
    hands: list[list[Card]] = [[] for _ in range(4)]
    laid: list[Card] = []
    moves = iter(cuts)
    order = [(bragger + k) % 4 for k in range(4)]
    for i, seat in enumerate(order):
        while True:
            if not stock:
                return None
            if kind is BragKind.FISHING or len(stock) == 1:
                packet = [stock.pop(len(stock) // 2)]
            else:
                at = next(moves)
                packet, stock = stock[:at], stock[at:]
            plain = [j for j, c in enumerate(packet) if not T.is_trump(c)]
            if not plain:
                hands[seat] += packet[::-1]
                continue
            j = plain[-1]  # the first non-trump seen from the packet's bottom up
            hands[seat] += packet[j + 1 :][::-1]
            laid.append(packet[j])
            stock = packet[:j] + stock
            break
        while len(hands[seat]) < target:
            hands[seat].append(stock.pop(0))
        while len(hands[seat]) > target:
            c = hands[seat].pop()
            if (seat + 2) % 4 in order[i + 1 :]:
                hands[(seat + 2) % 4].append(c)
            else:
                stock.append(c)
    return laid, hands


@pytest.mark.parametrize("kind", [BragKind.MIRROR, BragKind.FISHING])
def test_mirror_and_fishing_agree_with_an_independent_reference(kind: BragKind) -> None:
    rules = Rules.make("classic", brag=kind.value)
    rng = random.Random(23)
    for _ in range(400):
        dealer = rng.randrange(4)
        deal = Deal.shuffled(rules, rng, dealer, deal_no=2)
        while deal.phase is Phase.CUT:
            assert deal.to_act is not None
            acts = deal.legal_actions(deal.to_act)
            deal.apply(deal.to_act, acts[0] if rng.random() < 0.4 else rng.choice(acts))
        cuts = [a.at for _, a in deal.moves if isinstance(a, Cut)]
        ref = brag_reference(list(deal.deck), (dealer + 1) % 4, kind, cuts)
        assert deal.brag is not None
        if ref is None:
            assert deal.over and deal.result is not None and deal.result.void
            continue
        laid, hands = ref
        assert [cs[0] for _, cs in deal.brag.laid] == laid
        if "exchange" not in deal.events:
            assert [set(deal.hand(s)) for s in range(4)] == [set(h) for h in hands]


def test_mirror_and_fishing_golden_records_agree_with_the_reference() -> None:
    checked = 0
    for path in sorted(RECORDS.glob("classic_brag_*.json")):
        if path.name.endswith(".expected.json"):
            continue
        rec = json.loads(path.read_text(encoding="utf-8"))
        deal = replay_deal(rec)
        if deal.brag is None or deal.brag.kind not in (BragKind.MIRROR, BragKind.FISHING):
            continue
        cuts = [m["cut"] for m in rec["moves"] if "cut" in m]
        ref = brag_reference(list(deal.deck), (rec["dealer"] + 1) % 4, deal.brag.kind, cuts)
        expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text(encoding="utf-8"))
        if ref is None:
            assert expected["events"][-1] == "redeal" and not expected["tricks"]
        else:
            assert [Card.parse(c) for _, c in expected["tricks"][0]["plays"]] == ref[0]
        checked += 1
    assert checked >= 5


def fishing_reference(deck: list[Card]) -> tuple[list[Card], Card, list[Card]]:
    """The bragger's fishing by RULES.md: the middle card (index n // 2) until a non-trump; his trumps,
    his brag card and the deck left."""
    stock = deck.copy()
    taken = []
    while True:
        c = stock.pop(len(stock) // 2)
        if not T.is_trump(c):
            return taken, c, stock
        taken.append(c)


def test_fishing_draws_the_middle_card_until_a_non_trump() -> None:
    rng = random.Random(3)
    checked = 0
    for _ in range(300):
        deck = list(deck_for(36))
        rng.shuffle(deck)
        taken, laid, stock = fishing_reference(deck)
        deal = Deal(FISHING, deck, 0, deal_no=2)
        assert deal.brag is not None and not deal.moves  # no decision: nothing to cut
        assert deal.brag.laid[0] == (1, (laid,))
        if len(taken) <= 8:
            assert set(deal.hand(1)) == set(taken) | set(stock[: 8 - len(taken)]), "top-up from the top"
            checked += bool(taken)
        assert deal.brag.took[1] == len(taken)
    assert checked > 50


def test_fishing_trumps_drawn_are_seen_by_him_alone() -> None:
    rng = random.Random(5)
    for _ in range(50):
        deck = list(deck_for(36))
        rng.shuffle(deck)
        taken, _, _ = fishing_reference(deck)
        if taken:
            break
    deal = Deal(Rules.make("classic", brag_choice=["pants", "fishing"]), deck, 0, deal_no=2)
    deal.apply(1, ChooseBragKind(BragKind.FISHING))  # the brag is dealt out: no decision until it ends
    assert deal.brag is not None and len(deal.brag.laid) == 4 and deal.brag.took[1] == len(taken)
    for seat in (0, 2, 3):
        view = view_for(deal, seat)
        assert view.brag_took[1] == len(taken) and not set(taken) & set(view.seen[1])


def test_fishing_running_out_voids_the_deal_the_braggers_card_never_shown() -> None:
    rules = Rules.make("classic", brag="fishing", deck=24)
    rng = random.Random(0)
    for _ in range(3000):
        deal = Deal.shuffled(rules, rng, 1, deal_no=2)
        if deal.over:
            assert deal.result is not None and deal.result.void and deal.result.same_dealer
            assert deal.brag is not None and len(deal.brag.laid) < 4 and not deal.brag.stock
            assert view_for(deal, 3).brag_laid[0] == (2, (None,))
            return
    raise AssertionError("no fishing ran out in 3000 deals of 24 cards")


@pytest.mark.parametrize("kind", [BragKind.MIRROR, BragKind.FISHING])
def test_brag_choice_with_mirror_or_fishing(kind: BragKind) -> None:
    rules = Rules.make("classic", brag_choice=["pants", "mirror", "fishing"])
    rng = random.Random(2)
    deal = Deal.shuffled(rules, rng, 3, deal_no=2)
    deal.apply(0, ChooseBragKind(kind))
    assert f"brag_{kind.value}" in deal.events and view_for(deal, 1).brag_kind is kind
    if kind is BragKind.MIRROR:
        assert (deal.phase, deal.to_act) == (Phase.CUT, 0)
    play_out(deal, rng)
    assert deal.result is not None and replay_deal(deal.record()).result == deal.result


def four_queens_by_exchange(rules: Rules, tries: int = 20000) -> Deal:
    """A seeded brag deal at its exchange's last step, whose exchange makes a hand of four queens."""
    queens = set(cards("QC QS QH QD"))
    rng = random.Random(17)
    for _ in range(tries):
        deal = Deal.shuffled(rules, rng, rng.randrange(4), deal_no=2)
        while deal.phase in (Phase.BRAG, Phase.CUT):
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        plan = deal.exchange
        if plan is not None and queens <= set(deal.hand(plan.strong)) | set(plan.give):
            for _ in range(2):
                assert deal.to_act is not None
                deal.apply(deal.to_act, Exchange(True))
            return deal
    raise AssertionError(f"no exchange made four queens in {tries} deals")


def test_four_queens_after_exchange_void_the_deal_same_dealer_again() -> None:
    deal = four_queens_by_exchange(Rules.make("classic"))
    assert deal.phase is Phase.EXCHANGE_GIVE and deal.to_act is not None
    deal.apply(deal.to_act, deal.legal_actions(deal.to_act)[0])
    assert deal.result is not None and deal.result.void and deal.result.same_dealer
    assert deal.result.events[-2:] == ("exchange", "redeal") and not deal.result.tricks


def test_four_queens_after_exchange_no_redeal_when_the_option_is_off() -> None:
    deal = four_queens_by_exchange(Rules.make("classic", redeal_four_queens=False))
    assert deal.to_act is not None
    deal.apply(deal.to_act, deal.legal_actions(deal.to_act)[0])
    assert deal.phase is Phase.PLAY


@pytest.mark.parametrize("kind", ["pants", "big_pants", "mirror", "double"])
def test_braggers_card_face_down_to_the_others_until_turned_in_every_kind(kind: str) -> None:
    """Fishing has no decision to look in between: its case is the void above."""
    rules = Rules.make("classic", brag="pants" if kind == "double" else kind)
    rng = random.Random(6)
    looked = 0
    for _ in range(200):
        deal = Deal.shuffled(rules, rng, rng.randrange(4), deal_no=2)
        bragger = (deal.dealer + 1) % 4
        while not deal.over and deal.brag is not None and not deal.brag.turned:
            assert deal.to_act is not None
            acts = deal.legal_actions(deal.to_act)
            doubles = [a for a in acts if isinstance(a, Brag) and len(a.cards) == 2]
            deal.apply(deal.to_act, rng.choice(doubles if kind == "double" and doubles else acts))
            if deal.brag.laid and not deal.brag.turned:
                own = dict(deal.brag.laid)[bragger]
                assert dict(view_for(deal, bragger).brag_laid)[bragger] == own
                for seat in range(4):
                    if seat != bragger:
                        assert dict(view_for(deal, seat).brag_laid)[bragger] == (None,) * len(own)
                looked += len(own) == (2 if kind == "double" else 1)
        if deal.brag is not None and deal.brag.turned:
            own = dict(deal.brag.laid)[bragger]
            assert all(dict(view_for(deal, s).brag_laid)[bragger] == own for s in range(4))
    assert looked > 20
