"""Bot players under 3-person ``sochi`` (RULES.md §5): every level plays whole matches legally, the
discard keeps trumps and makes voids, and the samplers deal three hands with the discards out of play."""

from __future__ import annotations

import dataclasses
import random

from bot.engine import Deal, Match, Phase, cards, view_for
from bot.engine.actions import Discard
from bot.engine.ai import discardsearch, make_player
from bot.engine.ai.discard import choose_discard
from bot.engine.ai.knowledge import STOCK, knowledge
from bot.engine.ai.sample import sample_world
from bot.engine.ai.search import MEDIUM, SearchPlayer
from bot.engine.cards import mask_of
from tests.ai.players import tiny_cheat, tiny_hard, tiny_medium
from tests.ai.test_view_only import permuted_alike
from tests.engine.sochi_helpers import SOCHI, random_to, sochi_deck


def _play(deal: Deal, players: list, rngs: list[random.Random]) -> None:  # type: ignore[type-arg]
    while not deal.over:
        seat = deal.to_act
        assert seat is not None
        action = players[seat].decide(view_for(deal, seat), rngs[seat])
        assert action in deal.legal_actions(seat), (players[seat].name, action)
        deal.apply(seat, action)


def test_sochi_every_level_plays_a_whole_match_legally() -> None:
    for level in ("random", "easy", "medium"):
        players = [make_player(level) for _ in range(3)]
        rngs = [random.Random(s) for s in range(3)]
        match = Match(SOCHI, dealer=0)
        deck_rng = random.Random(21)
        while not match.over:
            deal = match.new_deal(rng=deck_rng)
            _play(deal, players, rngs)
            assert deal.result is not None
            match.add(deal.result)
        assert match.goats


def test_sochi_hard_plays_deals_of_every_brag_kind_legally() -> None:
    players = [make_player("hard") for _ in range(3)]
    rngs = [random.Random(s) for s in range(3)]
    for deal_no in (1, 2, 4, 7):
        _play(Deal.shuffled(SOCHI, random.Random(deal_no), deal_no % 3, deal_no=deal_no), players, rngs)


def test_sochi_discard_keeps_the_trumps_and_makes_a_void() -> None:
    deck = sochi_deck({0: "QC 7C JD AD TD KD 9D 8D AS 9S"}, talon="KH 7H", dealer=2)
    deal = Deal(SOCHI, deck, dealer=2)
    assert deal.phase is Phase.DISCARD and deal.to_act == 0
    choice = choose_discard(view_for(deal, 0))
    assert choice == Discard(tuple(cards("KH 7H"))) or set(choice.cards) == set(cards("KH 7H"))  # type: ignore[union-attr]
    for level in ("easy", "medium", "hard"):
        action = make_player(level).decide(view_for(deal, 0), random.Random(0))
        assert isinstance(action, Discard) and set(action.cards) == set(cards("KH 7H"))


def test_sochi_discard_puts_away_an_unguarded_ten() -> None:
    deck = sochi_deck({0: "QC 7C JD AD TD KD 9D 8D 7D TS"}, talon="AH 8H", dealer=2)
    deal = Deal(SOCHI, deck, dealer=2)
    action = choose_discard(view_for(deal, 0))
    assert isinstance(action, Discard) and cards("TS")[0] in action.cards
    for level in ("medium", "hard"):  # searched: the ten is banked, whatever else goes with it
        action = make_player(level).decide(view_for(deal, 0), random.Random(0))
        assert isinstance(action, Discard) and cards("TS")[0] in action.cards, level


def test_sochi_searched_discard_weighs_the_rule_s_best_and_stays_legal() -> None:
    """``medium`` and ``hard`` search the discard (``Budget.preplay``'s ``"discard"``) among the rule's
    best pairs, never the ♣Q; the levels built without it take the rule's."""
    rng = random.Random(3)
    searched = differed = 0
    for seed in range(30):
        deal = Deal.shuffled(SOCHI, random.Random(seed), dealer=seed % 3, deal_no=1 + seed % 4)
        random_to(deal, rng, Phase.DISCARD)
        if deal.over:
            continue
        view = view_for(deal, deal.to_act)  # type: ignore[arg-type]
        assert discardsearch.searched(view, MEDIUM.preplay)
        cands = discardsearch.candidates(view)
        assert cands[0] == choose_discard(view) and len(cands) == discardsearch.MAX_DISCARDS
        action = tiny_medium().decide(view, random.Random(seed))
        assert action in cands and action in view.legal
        assert isinstance(action, Discard) and cards("QC")[0] not in action.cards
        rule_only = SearchPlayer("rule-discard", dataclasses.replace(MEDIUM, preplay=()))
        assert rule_only.decide(view, random.Random(seed)) == choose_discard(view)
        searched += 1
        differed += action != choose_discard(view)
    assert searched >= 15 and differed  # the search does not merely echo the rule


def test_sochi_searched_discard_does_not_depend_on_hidden_cards() -> None:
    """The lone player's view at the discard, and so the searched discard, is the same however the
    twenty cards he cannot see lie between the other two hands (trumps among trumps, so the trumps a
    mirror or fishing brag let them take stay theirs)."""
    rng = random.Random(5)
    players = [tiny_medium(), tiny_hard()]
    checked = 0
    for seed in range(40):
        deal = Deal.shuffled(SOCHI, random.Random(seed), dealer=seed % 3, deal_no=1 + seed % 6)
        random_to(deal, rng, Phase.DISCARD)
        if deal.over:
            continue
        seat = deal.to_act
        assert seat is not None
        view = view_for(deal, seat)
        other = permuted_alike(deal, seat, rng)
        view2 = view_for(other, seat)
        assert view2 == view
        for p in players:
            assert p.decide(view, random.Random(seed)) == p.decide(view2, random.Random(seed)), p.name
        checked += other.hands != deal.hands
    assert checked >= 10


def test_sochi_samplers_deal_three_hands_and_keep_the_discards_out_of_play() -> None:
    rng = random.Random(4)
    checked = 0
    for seed in range(20):
        deal = Deal.shuffled(SOCHI, random.Random(seed), dealer=seed % 3)
        while not deal.over and deal.phase is not Phase.PLAY:
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        if deal.over:
            continue
        for _ in range(rng.randrange(12)):
            if deal.over:  # a caught ♣Q
                break
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        if deal.over:
            continue
        lone = deal.talon.lone
        view = view_for(deal, deal.to_act)  # type: ignore[arg-type]
        k = knowledge(view)
        assert k.need[3] == 0 and k.need[STOCK] == (0 if view.seat == lone else 2)
        for _ in range(5):
            w = sample_world(k, rng)
            assert [w.hands[h].bit_count() for h in range(3)] == list(view.hand_sizes)
            assert w.hands[3] == 0 and not w.stock
            assert w.hands[view.seat] == mask_of(list(view.hand))
            if view.seat != lone:
                assert not (w.hands[0] | w.hands[1] | w.hands[2]) & ~(
                    mask_of(list(view.unseen())) | mask_of(list(view.hand))
                )
        checked += 1
    assert checked > 10


def test_sochi_bots_decide_alike_whatever_the_discards_are() -> None:
    """A pair player's view, and so every level's decision, is the same whichever hidden cards the
    lone player discarded (swapped here with a card of a hand the seat cannot see)."""
    rng = random.Random(12)
    # The search levels on fixed budgets (no clock), so a decision depends on the view and the rng only.
    players = [make_player(level) for level in ("random", "easy")] + [tiny_medium(), tiny_hard()]
    checked = 0
    for seed in range(40):
        deal = Deal.shuffled(SOCHI, random.Random(seed), dealer=seed % 3, deal_no=1 + seed % 4)
        while not deal.over and deal.phase is not Phase.PLAY:
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        if deal.over:
            continue
        seat, lone = deal.to_act, deal.talon.lone
        assert seat is not None and lone is not None
        if seat == lone:
            continue
        view = view_for(deal, seat)
        hidden = [c for h in range(3) if h != seat for c in deal.hand(h) if c in view.unseen()]
        other = deal.copy()
        d, h = deal.talon.discards[0], rng.choice(hidden)
        holder = deal.holder(h)
        other.hands[holder] = other.hands[holder] & ~h.bit | d.bit
        other.talon.discards = (h, deal.talon.discards[1])
        assert other.play_state is not None
        other.play_state.refresh()
        view2 = view_for(other, seat)
        assert view2 == view
        for p in players:
            assert p.decide(view, random.Random(seed)) == p.decide(view2, random.Random(seed)), p.name
        checked += 1
    assert checked >= 10


def test_sochi_the_cheating_ceiling_plays_three_seat_deals() -> None:
    """The arena's all-hands-open ceiling on three seats: its true world has the sampled worlds' four
    hands (the fourth empty), which the solver's card merging reads."""
    cheat = tiny_cheat()
    rng = random.Random(4)
    decided = 0
    for d in range(6):
        deal = Deal.shuffled(SOCHI, random.Random(100 + d), dealer=d % 3)
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            if deal.phase is Phase.PLAY:
                action = cheat.decide_open(deal, seat, rng)
                decided += 1
            else:
                action = make_player("easy").decide(view_for(deal, seat), rng)
            assert action in deal.legal_actions(seat), action
            deal.apply(seat, action)
    assert decided > 60
