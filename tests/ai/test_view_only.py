"""Bots see only the per-seat view: permuting the cards a seat cannot see changes none of its decisions."""

from __future__ import annotations

import pickle
import random
from collections.abc import Iterator

import pytest

from bot.engine import ALL_CARDS, Brag, Deal, Phase, Rules, view_for
from bot.engine.ai import preplay
from bot.engine.ai.base import Player, make_player
from bot.engine.ai.pool import decide
from bot.engine.ai.world import bits_of
from bot.engine.cards import mask_of
from bot.thinking.local import PoolThinker
from tests.ai.deals import play_turns
from tests.engine.test_properties import IDS, RULESETS

LEVELS = [
    "random",
    "greedy",
    "easy",
    "tests.ai.players:tiny_medium",
    "tests.ai.players:tiny_hard",
    "tests.ai.players:tiny_learned",
]


def permuted(deal: Deal, seat: int, rng: random.Random) -> Deal:
    """A copy of ``deal`` with the cards hidden from ``seat`` shuffled among the places they can be: the
    other hands, the stock, and in classic's brag its deck and the bragger's face-down card. During
    the exchange talk the partner's hand stays (the seat knows its trump and non-trump counts)."""
    other = deal.copy()
    view = view_for(deal, seat)
    hidden = {c.id for c in view.unseen()}
    keep = view.partner if view.partner_counts is not None else None
    slots: list[int] = []  # the hand of each hidden card
    ids: list[int] = []
    for h in range(4):
        if h == keep:
            continue
        for c in deal.hand(h):
            if c.id in hidden:
                slots.append(h)
                ids.append(c.id)
                other.hands[h] &= ~c.bit
    stock_pos = [i for i, c in enumerate(deal.stock) if c.id in hidden]
    ids += [deal.stock[i].id for i in stock_pos]
    brag = other.brag
    brag_pos = [i for i, c in enumerate(brag.stock) if c.id in hidden] if brag is not None else []
    laid_pos = []
    if brag is not None:
        ids += [brag.stock[i].id for i in brag_pos]
        laid_pos = [i for i, (_, cs) in enumerate(brag.laid) if any(c.id in hidden for c in cs)]
        ids += [c.id for i in laid_pos for c in brag.laid[i][1]]
    rng.shuffle(ids)
    it = iter(ids)
    for h in slots:
        other.hands[h] |= 1 << next(it)
    st = other.play_state
    if st is not None:
        # A blind's stack is face down: its new cards lie in an order of their own.
        stacks = [list(stack) for stack in st.stacks]
        for h in other.rules.blind_seats:
            stacks[h] = bits_of(other.hands[h])
            rng.shuffle(stacks[h])
        st.stacks = tuple(tuple(stack) for stack in stacks)
        stock = list(st.stock)
        for i in stock_pos:
            stock[st.drawn + i] = ALL_CARDS[next(it)].bit
        st.stock = tuple(stock)
        st.refresh()
    if brag is not None:
        for i in brag_pos:
            brag.stock[i] = ALL_CARDS[next(it)]
        for i in laid_pos:
            s, cs = brag.laid[i]
            brag.laid[i] = (s, tuple(ALL_CARDS[next(it)] for _ in cs))
    assert next(it, None) is None
    return other


def assert_blind_to_hidden_cards(
    deal: Deal, seat: int, rng: random.Random, players: list[Player], i: int
) -> bool:
    """The seat's view and every player's decision are the same in a permuted deal; whether the
    permutation moved any card."""
    other = permuted(deal, seat, rng)
    view, view2 = view_for(deal, seat), view_for(other, seat)
    assert view == view2
    for p in players:
        assert p.decide(view, random.Random(i)) == p.decide(view2, random.Random(i)), p.name
    moved_stack = (
        other.play_state is not None
        and deal.play_state is not None
        and other.play_state.stacks != deal.play_state.stacks
    )
    return (
        moved_stack
        or other.hands != deal.hands
        or (deal.brag is not None and other.brag is not None and other.brag.stock != deal.brag.stock)
    )


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_decisions_do_not_depend_on_hidden_cards(rules: Rules) -> None:
    rng = random.Random(5)
    players = [make_player(n) for n in LEVELS]
    differed = 0
    for i, deal, seat in play_turns(rules, rng, 6, deal_nos=2):
        differed += assert_blind_to_hidden_cards(deal, seat, rng, players, i)
    assert differed


BRAGS = {
    "pants": Rules.make("classic"),
    "big_pants": Rules.make("classic", brag="big_pants"),
    "mirror": Rules.make("classic", brag="mirror"),
    "fishing": Rules.make("classic", brag="fishing"),
    "choice": Rules.make("classic", brag_choice=["pants", "mirror", "fishing"]),
    "double": Rules.make("classic"),
    "dummy": Rules.make("dummy"),
    "two_dummies": Rules.make("two_dummies"),
}


def brag_turns(name: str, rng: random.Random, deals: int) -> Iterator[tuple[int, Deal, int]]:
    """Brag deals of ``BRAGS[name]`` played at random, yielding before every decision before the first
    lead and a fifth of the plays; ``double``: only deals whose bragger may brag double, and does."""
    i = 0
    while i < deals:
        deal = Deal.shuffled(BRAGS[name], rng, i % 4, deal_no=2)
        if name == "double" and not any(
            isinstance(a, Brag) and len(a.cards) == 2 for a in deal.legal_actions(deal.left)
        ):
            continue
        i += 1
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            if deal.phase is not Phase.PLAY or rng.random() < 0.2:
                yield i, deal, seat
            acts = deal.legal_actions(seat)
            doubles = [a for a in acts if isinstance(a, Brag) and len(a.cards) == 2]
            deal.apply(seat, rng.choice(doubles if name == "double" and doubles else acts))


@pytest.mark.parametrize("name", list(BRAGS))
def test_brag_decisions_do_not_depend_on_hidden_cards(name: str) -> None:
    """Every brag kind: the decisions before the first lead (the kind, the cuts, the cards laid, the
    exchange) and the play after it see neither the deck, nor the bragger's face-down card, nor the
    trumps another player took in the mirror or fishing."""
    rng = random.Random(9)
    players = [make_player(n) for n in LEVELS]
    differed = 0
    phases = set()
    for i, deal, seat in brag_turns(name, rng, 5):
        differed += assert_blind_to_hidden_cards(deal, seat, rng, players, i)
        phases.add(deal.phase)
    assert differed and Phase.PLAY in phases
    if name in ("pants", "big_pants", "double", "dummy", "two_dummies"):
        assert Phase.BRAG in phases
    if name == "mirror":
        assert Phase.CUT in phases
    if name == "choice":
        assert Phase.BRAG_KIND in phases


async def test_views_and_actions_pickle_and_decide_in_a_pool() -> None:
    rules = Rules.make("flip")
    deal = Deal.shuffled(rules, random.Random(3), dealer=0)
    seat = deal.to_act
    assert seat is not None
    view = view_for(deal, seat)
    assert pickle.loads(pickle.dumps(view)) == view
    action = decide("easy", view, seed=1)
    assert pickle.loads(pickle.dumps(action)) == action
    # A thread pool stands in for the app's process pool: the same Executor interface.
    thinker = PoolThinker.threads(1)
    await thinker.start()
    try:
        assert await thinker.decide("easy", view, seed=1) == action
    finally:
        await thinker.close()


def permuted_alike(deal: Deal, seat: int, rng: random.Random) -> Deal:
    """A copy of ``deal`` before the first lead with the cards hidden from ``seat`` shuffled among the
    other hands, trumps among trumps and plain cards among plain cards: each hand keeps its trump
    count, all the exchange talk tells. Before trump is declared on three cards, the cards not dealt
    yet are shuffled instead."""
    other = deal.copy()
    t = deal.tables
    if t is None and sum(h.bit_count() for h in deal.hands) < len(deal.deck):
        rest = list(deal.deck[3:])
        rng.shuffle(rest)
        other.deck = (*deal.deck[:3], *rest)
        return other
    hidden = mask_of(list(view_for(deal, seat).unseen()))
    seats = range(deal.rules.seats)
    for kind in (t.trump_mask, ~t.trump_mask) if t is not None else (-1,):
        slots = [h for h in seats for b in bits_of(deal.hands[h] & hidden & kind)]
        bs = [b for h in seats for b in bits_of(deal.hands[h] & hidden & kind)]
        rng.shuffle(bs)
        for h in seats:
            other.hands[h] &= ~(hidden & kind)
        for h, b in zip(slots, bs, strict=True):
            other.hands[h] |= b
    return other


#: The rule sets with searched decisions before the first lead (draw and tricks have none; at a table
#: with a blind there is no exchange, and the brag is not searched).
NO_DRAW = [
    (r, i)
    for r, i in zip(RULESETS, IDS, strict=True)
    if r.preset not in ("draw", "tricks", "dummy", "two_dummies")
]


@pytest.mark.parametrize("rules", [r for r, _ in NO_DRAW], ids=[i for _, i in NO_DRAW])
def test_searched_decisions_before_the_first_lead_do_not_depend_on_hidden_cards(rules: Rules) -> None:
    # The exchange, the gift, the swap, the card back and the declared trump: searched by medium and
    # hard over sampled worlds.
    rng = random.Random(8)
    players = [make_player(n) for n in LEVELS[3:]]
    checked = differed = 0
    for i in range(40):
        deal = Deal.shuffled(rules, rng, dealer=i % 4, deal_no=2)
        while not deal.over and deal.phase is not Phase.PLAY:
            seat = deal.to_act
            assert seat is not None
            if deal.phase in preplay.KINDS:
                other = permuted_alike(deal, seat, rng)
                differed += other.hands != deal.hands or other.deck != deal.deck
                view, view2 = view_for(deal, seat), view_for(other, seat)
                assert view == view2
                for p in players:
                    assert p.decide(view, random.Random(i)) == p.decide(view2, random.Random(i)), p.name
                checked += 1
            acts = deal.legal_actions(seat)
            deal.apply(seat, acts[int(rng.random() * len(acts))])
    assert checked and differed


@pytest.mark.parametrize("preset", ["dummy", "two_dummies"])
def test_dummy_nobody_sees_the_blind_stack(preset: str) -> None:
    """Reordering a blind's face-down stack (and dealing its unseen cards elsewhere, as
    :func:`permuted` does) changes no view and no decision of anyone at the table, its partner too."""
    rules = Rules.make(preset)
    rng = random.Random(11)
    players = [make_player(n) for n in LEVELS]
    reordered = 0
    for i, deal, seat in play_turns(rules, rng, 6, deal_nos=2):
        st = deal.play_state
        if st is None:
            continue
        other = deal.copy()
        ost = other.play_state
        assert ost is not None
        stacks = [list(stack) for stack in ost.stacks]
        for h in rules.blind_seats:
            rng.shuffle(stacks[h])
        ost.stacks = tuple(tuple(stack) for stack in stacks)
        reordered += ost.stacks != st.stacks
        view, view2 = view_for(deal, seat), view_for(other, seat)
        assert view == view2
        for p in players:
            assert p.decide(view, random.Random(i)) == p.decide(view2, random.Random(i)), p.name
    assert reordered
