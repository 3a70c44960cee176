"""The rule player's shortcuts give what the plain model gives: the play-out after a weighed card, the
trick ends shared between cards the later seats cannot tell apart, the sampler's per-card takers, a lone
legal card played without knowledge, and a deal's Static shared between its decisions."""

from __future__ import annotations

import random

import pytest

from bot.engine import Deal, Phase, Rules, Suit, card, cards, tables_for
from bot.engine.actions import Play
from bot.engine.ai.easy import EasyPlayer, _trick_key, choose_card, play_out
from bot.engine.ai.knowledge import STOCK, Knowledge, eggs_before_of, knowledge
from bot.engine.ai.sample import _place, true_world
from bot.engine.ai.trick import finish
from bot.engine.ai.world import N_SEATS, Static, World, bits_of, rollout
from bot.engine.cards import ALL_CARDS, mask_of
from bot.engine.view import view_for
from tests.ai.deals import play_turns
from tests.engine.test_properties import IDS, RULESETS


def _reference_playout(w: World, cards: list[int], seed: int) -> float:
    """The play-out the rule player used to run: the world copied, the trick played on, reseeded."""
    w2 = w.copy()
    for b in cards:
        if not w2.over:
            w2.play(b)
    return rollout(w2, random.Random(seed))


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_play_out_is_the_plain_playout_after_the_trick(rules: Rules) -> None:
    rng = random.Random(5)
    compared = 0
    for i, deal, seat in play_turns(rules, rng, 8, 0.3):
        w = true_world(deal)
        s = w.s
        hands = w.hands.copy()
        ends: dict[tuple[int, int, int, int], tuple[int, int, int, list[int]]] = {}
        careless = (1 - seat % 2, rng.random()) if i % 2 else None
        for b in bits_of(w.legal(seat)):
            plays = [*w.trick, (seat, b)]
            rest = s.orders[w.leader][len(plays) :]
            mine_out: list[int] = []
            without_b = hands.copy()
            without_b[seat] ^= b
            ws, pts, qp = finish(s, without_b, plays, rest, careless, mine_out)
            out: list[int] = []
            # The seats after mine never look at my hand: the world may be passed as it is.
            assert finish(s, w.hands, plays, rest, careless, out) == (ws, pts, qp)
            assert out == mine_out
            # Cards the seats after mine cannot tell apart (the same suit led, winner, ♣Q or
            # шмон shown, and none of their cards between two winning cards) get the same
            # answers, up to their own points.
            e, winner, above, shown = _trick_key(s, plays)
            rest_cards = 0
            for h in rest:
                rest_cards |= hands[h]
            key = (e, winner, rest_cards & above, shown)
            shared = (ws, pts - s.card_worth[b.bit_length() - 1], qp, out)
            assert ends.setdefault(key, shared) == shared
            seed = rng.getrandbits(32)
            gen = random.Random(seed)
            draws = [gen.random() for _ in range(w.cards_left())]
            got = play_out(w, [b, *out], draws)
            assert got == _reference_playout(w, [b, *out], seed)
            assert w.hands == hands  # the world is not changed
            compared += 1
    assert compared


def _lead_end(
    rules: Rules, hands: list[int], lead: str
) -> tuple[tuple[int, int, int, int], tuple[int, int, int]]:
    """Seat 0 leads ``lead`` in ``hands``: the key the rule player shares the trick's end by (its
    cards above the winner narrowed to those of the seats after him) and the end :func:`finish` gives."""
    s = Static(rules, tables_for(rules, Suit.DIAMONDS))
    plays = [(0, card(lead).bit)]
    e, winner, above, shown = _trick_key(s, plays)
    rest_cards = hands[1] | hands[2] | hands[3]
    return (e, winner, rest_cards & above, shown), finish(s, hands, plays, (1, 2, 3))


def test_a_lower_matador_led_is_told_apart_from_a_plain_trump_led_under_matadors() -> None:
    # Seat 0 weighs leading the ♦J or the ♦A; nobody after him holds a trump between them (the ♦J is his
    # own). Seat 2's only trump is the ♥Q: under ``matadors`` the ♦J, a lower matador, spares it, and it
    # smears its ♠A on its partner's trick; the ♦A makes it follow with the ♥Q, which wins.
    hands = [mask_of(cards(h)) for h in ("JD AD", "8S 9S", "QH AS", "7S KS")]
    rules = Rules.make("classic", matadors=True)
    key_j, end_j = _lead_end(rules, hands, "JD")
    key_a, end_a = _lead_end(rules, hands, "AD")
    assert end_j == (0, 2 + 0 + 11 + 0, -1) and end_a == (2, 11 + 0 + 3 + 0, -1)
    assert key_j != key_a
    # Without ``matadors`` both leads make seat 2 follow with the ♥Q: they share one end.
    plain = Rules.make("classic")
    (key_j, end_j), (key_a, end_a) = _lead_end(plain, hands, "JD"), _lead_end(plain, hands, "AD")
    assert key_j == key_a and end_j[0] == end_a[0] == 2


def _reference_place(k: Knowledge, rng: random.Random, strict: bool) -> tuple[list[int], list[int]] | None:
    """The sampler's placement as first written: every place tried for every card (after the trumps
    the mirror's and fishing's counts ask for, each drawn from those left)."""
    rnd = rng.random
    left = list(k.need)
    allowed = k.allowed if strict else tuple(0 if n == 0 else -1 for n in k.need)
    cards = list(k.unseen)
    hands = list(k.known[:N_SEATS])
    for h, n, m in k.min_trumps if strict else ():
        free = [b for b in bits_of(m) if b in cards]  # a partial Fisher-Yates over those left
        if len(free) < n:
            return None
        for i in range(n):
            j = i + int(rnd() * (len(free) - i))
            free[i], free[j] = free[j], free[i]
            hands[h] |= free[i]
            cards.remove(free[i])
            left[h] -= 1
    for i in range(len(cards) - 1, 0, -1):
        j = int(rnd() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]
    if strict:
        cards.sort(key=k.places.__getitem__)
    stock: list[int] = []
    for b in cards:
        total = sum(left[h] for h in range(N_SEATS + 1) if left[h] and allowed[h] & b)
        if not total:
            return None
        r = int(rnd() * total)
        for h in range(N_SEATS + 1):
            if left[h] and allowed[h] & b:
                r -= left[h]
                if r < 0:
                    break
        left[h] -= 1
        if h == STOCK:
            stock.append(b)
        else:
            hands[h] |= b
    for i in range(len(stock) - 1, 0, -1):
        j = int(rnd() * (i + 1))
        stock[i], stock[j] = stock[j], stock[i]
    return hands, stock


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_the_sampler_places_cards_as_first_written(rules: Rules) -> None:
    rng = random.Random(9)
    compared = 0
    for _, deal, seat in play_turns(rules, rng, 6, 0.3):
        k = knowledge(view_for(deal, seat))
        for strict in (True, False):
            seed = rng.getrandbits(32)
            a, b = random.Random(seed), random.Random(seed)
            assert _place(k, a, strict) == _reference_place(k, b, strict)
            assert a.random() == b.random()  # the same numbers drawn
            compared += 1
    assert compared


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_a_lone_legal_card_is_what_choose_card_plays_with_no_number_drawn(rules: Rules) -> None:
    rng = random.Random(17)
    player = EasyPlayer()
    compared = 0
    for _, deal, seat in play_turns(rules, rng, 6):
        view = view_for(deal, seat)
        if len(view.legal) == 1:
            seed = rng.getrandbits(32)
            a, b = random.Random(seed), random.Random(seed)
            bit = choose_card(view, knowledge(view), b)
            assert player.decide(view, a) == Play(ALL_CARDS[bit.bit_length() - 1])
            assert a.random() == b.random()
            compared += 1
    assert compared


def test_a_deals_decisions_share_one_static_equal_to_a_fresh_one() -> None:
    rules = Rules.make("classic")
    deal = Deal.shuffled(rules, random.Random(3), dealer=0, deal_no=1)
    rng = random.Random(4)
    statics = []
    while not deal.over:
        seat = deal.to_act
        assert seat is not None
        if deal.phase is Phase.PLAY:
            view = view_for(deal, seat)
            statics.append(knowledge(view).static)
        acts = deal.legal_actions(seat)
        deal.apply(seat, acts[int(rng.random() * len(acts))])
    assert statics and all(s is statics[0] for s in statics)
    assert view.tables is not None
    fresh = Static(view.rules, view.tables, eggs_before_of(view), view.open_seat)
    for name in ("rules", "tables", "eggs_before", "open_seat", "orders", "must_trump", "matadors"):
        assert getattr(fresh, name) == getattr(statics[0], name)
