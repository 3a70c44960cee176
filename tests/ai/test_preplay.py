"""``medium`` and ``hard`` search classic's exchange, flip's swap and declared trump
(:mod:`bot.engine.ai.preplay`).

Hand-built positions where the right decision is known — checked against the true hands, played out
many times — are decided right; the worlds the search samples agree with what the table told; and
with ``Budget.preplay`` empty the levels decide by the rule player's rules, as the ablation's
control does.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import pytest

from bot.engine import Deal, Phase, Rules, view_for
from bot.engine.actions import Action, Declare, Exchange, ExchangeGive
from bot.engine.ai import preplay
from bot.engine.ai.easy import choose_other
from bot.engine.ai.search import MEDIUM, SearchPlayer
from bot.engine.ai.trick import policy_rollout
from bot.engine.ai.world import PAIR_OF, bits_of
from bot.engine.cards import ALL_CARDS, Suit, cards, deck_for
from bot.engine.exchange import offer
from bot.engine.order import Tables
from bot.engine.view import SeatView
from tests.ai.players import fixed

CLASSIC = Rules.make("classic")
FLIP = Rules.make("flip")


def reach(rules: Rules, phase: Phase, seed: int) -> Deal:
    """A deal after the first, played with random decisions until ``phase`` waits for a decision."""
    rng = random.Random(seed)
    for i in range(2000):
        deal = Deal.shuffled(rules, rng, dealer=i % 4, deal_no=2)
        while not deal.over and deal.phase is not phase:
            seat = deal.to_act
            assert seat is not None
            acts = deal.legal_actions(seat)
            deal.apply(seat, acts[int(rng.random() * len(acts))])
        if deal.phase is phase:
            return deal
    raise AssertionError(f"no deal reached {phase}")  # pragma: no cover


def power(t: Tables, b: int) -> int:
    return t.power[b.bit_length() - 1]


def points(b: int) -> int:
    return ALL_CARDS[b.bit_length() - 1].points


def cards_in_hands(deal: Deal) -> tuple[list[int], list[int]]:
    """The trumps and the plain cards in the hands, each sorted low to high (plain: by points first)."""
    t = deal.tables
    assert t is not None
    pool = deal.hands[0] | deal.hands[1] | deal.hands[2] | deal.hands[3]
    trumps = sorted(bits_of(pool & t.trump_mask), key=lambda b: power(t, b))
    plain = sorted(bits_of(pool & ~t.trump_mask), key=lambda b: (points(b), power(t, b)))
    return trumps, plain


def rearrange(deal: Deal, open_hand: Callable[[list[int], list[int]], tuple[list[int], list[int]]]) -> None:
    """Deal the cards in hands again: ``open_hand(trumps, plain)`` (each sorted low to high) picks the
    open hand's cards and the strong hand's; the bragging pair gets the rest."""
    plan = deal.exchange
    t = deal.tables
    assert plan is not None and t is not None
    pool = deal.hands[0] | deal.hands[1] | deal.hands[2] | deal.hands[3]
    sizes = [h.bit_count() for h in deal.hands]
    o, s = open_hand(*cards_in_hands(deal))
    rest = [b for b in bits_of(pool) if b not in o and b not in s]
    hands = [0] * 4
    hands[plan.open] = sum(o)
    hands[plan.strong] = sum(s)
    for h in range(4):
        if h not in (plan.open, plan.strong):
            for b in rest[: sizes[h]]:
                hands[h] |= b
            rest = rest[sizes[h] :]
    assert [h.bit_count() for h in hands] == sizes
    deal.hands[:] = hands
    assert deal.brag is not None and deal.tables is not None
    offered = offer(deal.tables, deal.hands, deal.brag.bragger)
    assert offered is not None and (offered.strong, offered.open) == (plan.strong, plan.open)
    deal.brag.exchange = offered  # the gift's size follows the open hand's trumps


def true_best(view: SeatView, hands: list[int], n: int = 600) -> tuple[Action, float]:
    """The candidate best for ``view``'s pair with every hand open, played out ``n`` times (half of them
    the opponents careless), and its lead over the next best in penalty points per deal."""
    rule = choose_other(view)
    cands, _, apply = preplay._exchange(view, rule)
    sign = 1 if PAIR_OF[view.seat] == 0 else -1
    means = []
    for a in cands:
        total = 0.0
        for i in range(n):
            careless = 1 - PAIR_OF[view.seat] if i % 2 == 0 else None
            total += sign * policy_rollout(apply(hands.copy(), a), random.Random(i), careless)
        means.append(total / n)
    order = sorted(range(len(cands)), key=lambda i: -means[i])
    return cands[order[0]], means[order[0]] - means[order[1]]


SEARCH = SearchPlayer("fixed-medium", fixed(MEDIUM, 300))


def junk_in_the_open_hand(trumps: list[int], plain: list[int]) -> tuple[list[int], list[int]]:
    # The open hand: two small trumps and the poorest plain cards; the strong hand the five highest
    # trumps and rich plain cards.
    return [trumps[0], trumps[1], *plain[:6]], [*trumps[-5:], *plain[-3:]]


def test_exchange_accepted_when_the_open_hand_holds_small_trumps_and_junk() -> None:
    deal = reach(CLASSIC, Phase.EXCHANGE, seed=4)
    rearrange(deal, junk_in_the_open_hand)
    view = view_for(deal, deal.to_act or 0)
    best, lead = true_best(view, list(deal.hands))
    assert best == Exchange(True) and lead > 0.1
    assert SEARCH.decide(view, random.Random(1)) == Exchange(True)


def a_short_suit_to_give(trumps: list[int], plain: list[int], t: Tables) -> tuple[list[int], list[int]]:
    # The strong hand: three middle trumps, the two lowest spades and the three lowest hearts; the open
    # hand: the two lowest trumps and six plain cards of the other suits.
    def suit(s: Suit) -> list[int]:
        return sorted(
            (b for b in plain if ALL_CARDS[b.bit_length() - 1].suit is s), key=lambda b: power(t, b)
        )

    spades, hearts = suit(Suit.SPADES), suit(Suit.HEARTS)
    others = [b for b in plain if b not in spades and b not in hearts]
    return [trumps[0], trumps[1], *others[:6]], [*trumps[5:8], *spades[:2], *hearts[:3]]


def test_exchange_give_voids_a_short_suit() -> None:
    # Two spades and three hearts to give two of: giving both spades leaves the trump-long strong hand
    # void there, free to trump spades; the rule gives the cheapest two, of either suit.
    for seed in range(5, 40):  # a deal whose cards in hands hold two spades and three hearts to give
        deal = reach(CLASSIC, Phase.EXCHANGE_GIVE, seed=seed)
        t = deal.tables
        assert t is not None
        o, s = a_short_suit_to_give(*cards_in_hands(deal), t)
        if len(o) == len(s) == 8:
            break
    rearrange(deal, lambda tr, pl: (o, s))
    view = view_for(deal, deal.to_act or 0)
    spades = ExchangeGive(tuple(c for c in view.hand if c.suit is Suit.SPADES and not t.is_trump(c)))
    assert spades in view.legal
    best, lead = true_best(view, list(deal.hands))
    assert best == spades and lead > 0.1
    assert choose_other(view) != spades
    assert SEARCH.decide(view, random.Random(1)) == spades


@pytest.mark.parametrize(
    ("rules", "phase"),
    [
        (CLASSIC, Phase.EXCHANGE),
        (CLASSIC, Phase.EXCHANGE_GIVE),
        (FLIP, Phase.SWAP),
        (FLIP, Phase.SWAP_RETURN),
    ],
)
def test_sampled_worlds_agree_with_what_the_table_told(rules: Rules, phase: Phase) -> None:
    for seed in range(6):
        deal = reach(rules, phase, seed)
        seat = deal.to_act
        assert seat is not None
        view = view_for(deal, seat)
        rule = choose_other(view)
        _, ok, _ = preplay._exchange(view, rule) if rules.preset == "classic" else preplay._swap(view)
        assert ok(list(deal.hands))  # the true hands pass the constraints
        draw = preplay.sampler(view, ok, preplay.hidden_trumps(view))
        t = deal.tables
        assert t is not None
        rng = random.Random(seed)
        for _ in range(20):
            hands = draw(rng)
            assert [h.bit_count() for h in hands] == [h.bit_count() for h in deal.hands]
            assert hands[0] | hands[1] | hands[2] | hands[3] == sum(deal.hands)
            assert hands[seat] == deal.hands[seat]
            assert ok(hands)
            if view.partner_counts is not None:
                assert (hands[view.partner] & t.trump_mask).bit_count() == view.partner_counts[0]


@pytest.mark.parametrize("phase", [Phase.EXCHANGE, Phase.EXCHANGE_GIVE, Phase.SWAP, Phase.SWAP_RETURN])
def test_without_preplay_search_the_levels_decide_by_the_rules(phase: Phase) -> None:
    rules = CLASSIC if phase in (Phase.EXCHANGE, Phase.EXCHANGE_GIVE) else FLIP
    player = SearchPlayer("rule", dataclasses.replace(fixed(MEDIUM, 3), preplay=()))
    for seed in range(4):
        deal = reach(rules, phase, seed)
        view = view_for(deal, deal.to_act or 0)
        assert player.decide(view, random.Random(seed)) == choose_other(view)
        a = SEARCH.decide(view, random.Random(seed))
        assert a in view.legal


def test_declare_names_the_long_strong_suit() -> None:
    # jack_declares: the ♣J holder, with six hearts headed by the ace and ten, names hearts; the true
    # hands, played out under each suit (and the swaps by the rule), agree.
    rules = Rules.make("flip", trump_mode="jack_declares")
    mine = cards("JC AH TH KH 9H 8H 7H 8D")
    rest = [c for c in deck_for(rules.deck_size) if c not in mine]
    random.Random(4).shuffle(rest)
    deck = [mine[k // 4] if k % 4 == 0 else rest[k - 1 - k // 4] for k in range(32)]
    deal = Deal(rules, deck, dealer=3)
    assert deal.phase is Phase.DECLARE and deal.to_act == 0
    view = view_for(deal, 0)
    _, apply = preplay._declare(view, random.Random(1))
    means = {}
    for a in view.legal:
        means[a] = sum(
            policy_rollout(apply(list(deal.hands), a), random.Random(i), 1 if i % 2 == 0 else None)
            for i in range(300)
        )
    hearts = Declare(Suit.HEARTS)
    assert max(means, key=means.__getitem__) == hearts
    assert SEARCH.decide(view, random.Random(1)) == hearts
