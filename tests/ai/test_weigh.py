"""``hard``'s world weighting: a world counts by how likely it makes the plays the seat has seen."""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable

from bot.engine import card
from bot.engine.ai.base import make_player
from bot.engine.ai.easy import choose_other
from bot.engine.ai.knowledge import knowledge, played_since_brag
from bot.engine.ai.sample import sample_world, true_world
from bot.engine.ai.weigh import brag_lays, brag_likelihood, history, likelihood
from bot.engine.cards import ALL_CARDS, POINTS_BY_ID, deck_for, mask_of
from bot.engine.deal import Deal, Phase
from bot.engine.match import Match
from bot.engine.order import Tables
from bot.engine.rules import Rules
from bot.engine.view import SeatView, view_for
from tests.ai.test_endgames import world
from tests.engine.helpers import cards

# Seat 0 led the ♠A; seat 2, his partner, threw the ♠9 onto that sure trick.
TRICK = ((0, card("AS").bit), (1, card("7S").bit), (2, card("9S").bit), (3, card("KS").bit))


def _weight(hands: dict[int, str]) -> float:
    s = world(hands, leader=0, pts=(0, 0), won=(0, 0)).s
    return likelihood(s, 3, [mask_of(cards(hands[h])) for h in range(4)], (TRICK,), 0.5, 1.0)


def test_a_partner_who_did_not_smear_the_ten_probably_had_none() -> None:
    # Seat 1 holding the ♠10 followed low, as the policy would; seat 2 holding it would have smeared it.
    assert _weight({0: "7H 8H", 1: "TS 9H", 2: "8D 7C", 3: "AH TH"}) == 1.0
    assert _weight({0: "7H 8H", 1: "8D 9H", 2: "TS 7C", 3: "AH TH"}) == 0.5


def test_a_seven_for_an_eight_is_the_same_choice() -> None:
    # Seat 1 held ♠7 and ♠8: the policy throws the ♠8 or the ♠7, both worthless and alike.
    assert _weight({0: "7H 8H", 1: "8S 9H", 2: "8D 7C", 3: "AH TH"}) == 1.0


def test_the_true_world_is_likelier_than_a_sampled_one() -> None:
    # Four rule players: the world they really hold makes their plays likelier than most sampled worlds.
    for preset in ("classic", "flip"):
        rules = Rules.make(preset)
        ratios = []
        for n in range(20):
            deal = Match(rules, dealer=0).new_deal(rng=random.Random(n))
            players = [make_player("easy") for _ in range(4)]
            rng = random.Random(n)
            stop, plays = rng.randrange(12, 28), 0
            while not deal.over:
                seat = deal.to_act
                assert seat is not None
                if deal.phase is Phase.PLAY:
                    plays += 1
                    if plays == stop:
                        break
                deal.apply(seat, players[seat].decide(view_for(deal, seat), rng))
            if deal.over:
                continue
            assert deal.to_act is not None
            view = view_for(deal, deal.to_act)
            k = knowledge(view)
            tricks = history(view, k.static)
            true = likelihood(k.static, k.me, true_world(deal).hands, tricks, 0.4, 0.8)
            sampled = [
                likelihood(k.static, k.me, sample_world(k, rng).hands, tricks, 0.4, 0.8) for _ in range(30)
            ]
            ratios.append(true / statistics.fmean(sampled))
        assert sum(r > 1 for r in ratios) >= 0.6 * len(ratios), (preset, ratios)


def _after_brag(rules: Rules, seed: int) -> tuple[SeatView, Deal]:
    """A classic brag deal of ``rules`` played by the rules to its first lead; seat 0's view there and
    the deal."""
    rng = random.Random(seed)
    while True:
        deal = Deal.shuffled(rules, rng, dealer=2, deal_no=2)
        while not deal.over and deal.phase is not Phase.PLAY:
            seat = deal.to_act
            assert seat is not None
            deal.apply(seat, choose_other(view_for(deal, seat)))
        if not deal.over and deal.phase is Phase.PLAY and deal.to_act is not None:
            return view_for(deal, 0), deal


def test_brag_lays_weigh_worlds_where_the_rule_would_have_laid_another_card() -> None:
    """Under pants the others lay their cheapest non-trump and the bragger his highest (the rule):
    a world in which a seat held, besides his card, a non-trump the rule would have laid instead is
    less likely — by how likely that card was the one that came with his lay in his pair."""
    rules = Rules.make("classic")
    ids = [c.id for c in deck_for(rules.deck_size)]

    def plain(t: Tables, key: Callable[[int], tuple[int, int]], than: int, sign: int) -> list[int]:
        """The non-trumps whose ``key`` is above (``sign`` 1) or below (-1) card ``than``'s."""
        return [
            c
            for c in ids
            if not t.trump_mask >> c & 1 and (key(c) > key(than)) - (key(c) < key(than)) == sign
        ]

    for seed in range(60):
        view, deal = _after_brag(rules, seed)
        k = knowledge(view)
        t = k.static.tables
        lays, mates = brag_lays(view, k.static)
        cheap = lambda c, t=t: (POINTS_BY_ID[c], t.power[c])  # noqa: E731 - the others' rule: the cheapest
        high = lambda c, t=t: (t.power[c], POINTS_BY_ID[c])  # noqa: E731 - the bragger's: the highest
        other = [
            x for x in lays if not x[2] and all(plain(t, cheap, x[1].bit_length() - 1, g) for g in (1, -1))
        ]
        bragger = [x for x in lays if x[2] and plain(t, high, x[1].bit_length() - 1, 1)]
        if len(lays) == 3 and other and bragger:
            break
    assert mates == 1 and {s for s, _, _ in lays} == {1, 2, 3}
    assert [h for s, _, h in lays] == [s == view.bragger for s, _, _ in lays]
    # The true hands: every lay was the rule's.
    true = true_world(deal)
    assert 0 < brag_likelihood(k.static, true.hands, played_since_brag(view), lays, mates, 0.5) <= 1.0
    seat, b, _ = lay = other[0]
    trumps = [ALL_CARDS[c].bit for c in ids if t.trump_mask >> c & 1][:8]
    hands = [0, 0, 0, 0]
    hands[seat] = sum(trumps)  # eight trumps: nothing else could have been laid
    assert brag_likelihood(k.static, hands, [0] * 4, (lay,), 1, 0.5) == 1.0
    # A dearer card beside it changes nothing: the rule lays the cheapest.
    hands[seat] = sum(trumps[1:]) | ALL_CARDS[plain(t, cheap, b.bit_length() - 1, 1)[0]].bit
    assert brag_likelihood(k.static, hands, [0] * 4, (lay,), 1, 0.5) == 1.0
    # A cheaper one, one card of eight that may have come with the lay, would have been laid instead.
    cheaper = ALL_CARDS[plain(t, cheap, b.bit_length() - 1, -1)[0]].bit
    hands[seat] = sum(trumps[1:]) | cheaper
    assert brag_likelihood(k.static, hands, [0] * 4, (lay,), 1, 0.5) == 1.0 - 0.5 / 8
    # ... and the same when it has been played since: the hand at the first lead is what counts.
    hands[seat] = sum(trumps[1:])
    played = [0, 0, 0, 0]
    played[seat] = cheaper
    assert brag_likelihood(k.static, hands, played, (lay,), 1, 0.5) == 1.0 - 0.5 / 8
    # The bragger lays his highest: a world where he held a higher non-trump is the less likely one.
    bseat, bb, _ = blay = bragger[0]
    hands = [0, 0, 0, 0]
    hands[bseat] = sum(trumps[1:]) | ALL_CARDS[plain(t, high, bb.bit_length() - 1, 1)[0]].bit
    assert brag_likelihood(k.static, hands, [0] * 4, (blay,), 1, 0.5) == 1.0 - 0.5 / 8
    # The mirror's lay is the first non-trump drawn: no choice, no weight.
    mirror, _ = _after_brag(Rules.make("classic", brag="mirror"), 1)
    assert brag_lays(mirror, knowledge(mirror).static) == ((), 0)
