"""Searched brag decisions — the kind under ``brag_choice``, the card or cards laid (single or
double, and which), the mirror's cut — for ``medium`` and ``hard``.

A brag world is a whole deck: which card lies where decides what everyone still receives, so unlike
the decisions of :mod:`bot.engine.ai.preplay` (worlds of four hands) a world here is a
:class:`~bot.engine.deal.Deal` dealt from a sampled deck and driven through the engine's own rules
— nothing of the brag is restated here. A world is made in three steps:

1. a random deck, dealt and driven to the seat's decision through the public history the view
   holds: the kind, who laid how many cards, who took how many trumps from the deck (the others'
   cuts by the rule, their lays any legal cards of the right number);
2. the public facts checked (the same seats laid the same number of cards, the same hand sizes,
   trumps taken and deck size, the seat's hand as many trumps as his): a world that differs is
   drawn again (:data:`TRIES` at most);
3. the cards renamed, trump for trump and non-trump for non-trump, so the seat's hand becomes his
   real hand and each card laid face up becomes the real one; the brag deals by trumps alone, so the
   renamed deck dealt again under the renamed moves is a world where everything the seat saw is as
   he saw it (checked: his hand, what he may do; a world where a renamed double brag would not be
   allowed is drawn again).

Each candidate is then taken in the world, the rest of the brag and the exchange follow the rule
player's rules (:func:`bot.engine.ai.easy.choose_other`), and the deal is played out by the trick
policy from the first lead, every candidate on the same random numbers, with the budget and the
rule's head start of the card search (:func:`bot.engine.ai.preplay.search`). A void deal (four
queens, the deck running out) is worth nothing to either pair.

Four seats only (``sochi`` keeps the rule). The levels search the bragger's lay (``"brag"``) and
the cut (``"cut"``); the others' face-up lays (``"lay"``) and the kind (``"brag_kind"``) only when
``Budget.preplay`` names them: each lost to the rule in the arena, a CI below zero on one seed (the
play-outs see every hand, so they cannot weigh what a face-up card tells or what the kinds hide).
Pure apart from the clock the budget reads.
"""

from __future__ import annotations

import random

from bot.engine.actions import Action, Brag, ChooseBragKind, Cut
from bot.engine.brag import cut_points
from bot.engine.cards import ALL_CARDS, Card, mask_of
from bot.engine.deal import Deal, Phase
from bot.engine.errors import KozelError
from bot.engine.view import SeatView, view_for

from .budget import Budget
from .easy import choose_other
from .knowledge import eggs_before_of
from .preplay import search, shuffled
from .trick import policy_rollout
from .world import N_SEATS, bits_of

#: The decision kinds searched, by the name ``Budget.preplay`` lists them under.
KINDS: dict[Phase, str] = {Phase.BRAG: "brag", Phase.CUT: "cut", Phase.BRAG_KIND: "brag_kind"}
#: The name of the others' lays (face up), searched apart from the bragger's (``"brag"``).
LAY = "lay"
#: Random decks tried at most for one world consistent with the view.
TRIES = 40

Moves = list[tuple[int, Action]]


def searched(view: SeatView, kinds: tuple[str, ...]) -> bool:
    """Whether ``view``'s decision is one of the searched ``kinds``."""
    kind = KINDS.get(view.phase)
    if kind == "brag" and view.seat != view.bragger:
        kind = LAY
    return kind is not None and kind in kinds and len(view.legal) > 1 and view.rules.seats == N_SEATS


def candidates(view: SeatView) -> list[Action]:
    """What is weighed: every legal brag and kind, and the cut points the keyboards offer."""
    if view.phase is Phase.CUT:
        offered = [Cut(at) for _, at in cut_points(view.stock_size)]
        return [a for a in offered if a in view.legal] or list(view.legal)
    return list(view.legal)


def decide(view: SeatView, rng: random.Random, budget: Budget, start: float) -> Action:
    """The searched brag decision for ``view`` (a phase of :data:`KINDS`); the rule's when no world
    consistent with the view turns up."""
    rule = choose_other(view)
    cands = candidates(view)
    if rule not in cands:
        cands.append(rule)
    first = world(view, rng, cands)
    if first is None:
        return rule
    pending = [first]

    def draw() -> Deal | None:
        return pending.pop() if pending else world(view, rng, cands)

    def value(w: Deal, a: Action, seed: int, careless: int | None) -> float:
        return finish(w.copy(), view.seat, a, random.Random(seed), careless)

    return search(view, cands, rule, draw, value, rng, budget, start)


def finish(deal: Deal, seat: int, a: Action, rng: random.Random, careless: int | None) -> float:
    """Take ``a`` for ``seat`` in ``deal``, the other decisions before the first lead by the rules,
    then play out by the trick policy: the deal's worth to pair A (a void deal's 0)."""
    deal.apply(seat, a)
    while deal.phase is not Phase.PLAY:
        if deal.over:
            return 0.0
        p = deal.to_act
        assert p is not None
        deal.apply(p, choose_other(view_for(deal, p)))
    st = deal.play_state
    assert st is not None
    return policy_rollout(st, rng, careless)


# ---------------------------------------------------------------------------- worlds


def world(view: SeatView, rng: random.Random, cands: list[Action]) -> Deal | None:
    """A deal at ``view``'s decision consistent with everything the seat saw (see the module
    docstring), or ``None`` if :data:`TRIES` random decks gave none."""
    for _ in range(TRIES):
        drawn = _drive(view, rng)
        if drawn is None:
            continue
        deal, moves = drawn
        renamed = _rename(view, deal, moves, rng)
        if renamed is not None and all(renamed.can(view.seat, a) for a in cands):
            return renamed
    return None


def _fresh(view: SeatView, deck: list[Card]) -> Deal:
    return Deal(view.rules, deck, view.dealer, view.deal_no, eggs_before_of(view), checked=True)


def _drive(view: SeatView, rng: random.Random) -> tuple[Deal, Moves] | None:
    """A random deck dealt and driven to ``view``'s decision by the view's public history, with the
    moves taken; ``None`` if it cannot match the history."""
    deal = Deal.shuffled(view.rules, rng, view.dealer, view.deal_no, eggs_before_of(view))
    moves: Moves = []
    laid = view.brag_laid
    me = view.seat
    while True:
        if deal.over or deal.brag is None:
            return None
        p = deal.to_act
        assert p is not None
        done = len(deal.brag.laid)
        took = deal.brag.took[me] == view.brag_took[me] if view.brag_took else True
        if p == me and deal.phase is view.phase and done == len(laid) and took:
            return (deal, moves) if _matches(view, deal) else None
        if deal.phase is Phase.BRAG_KIND:
            if view.brag_kind is None:
                return None
            a: Action = ChooseBragKind(view.brag_kind)
        elif deal.phase is Phase.CUT:
            cut = _cut_to(view, deal, p, rng)
            if cut is None:
                return None
            a = cut
        elif deal.phase is Phase.BRAG:
            if done >= len(laid) or laid[done][0] != p:
                return None
            real = laid[done][1]
            fits = [x for x in deal.legal_actions(p) if isinstance(x, Brag) and len(x.cards) == len(real)]
            if not fits:
                return None
            face_up = Brag(tuple(c for c in real if c is not None))
            a = face_up if face_up in fits else fits[0]  # the real cards when the world allows them
        else:
            return None
        deal.apply(p, a)
        moves.append((p, a))


def _cut_to(view: SeatView, deal: Deal, p: int, rng: random.Random) -> Action | None:
    """A cut for ``p`` in the driven ``deal`` on the way to the trumps the view says he took from the
    deck: tried on copies, at random points, until one takes no more than that and — unless ``p`` is
    the seat, who cuts again — lays only once it is reached (``None`` if no point does)."""
    assert deal.brag is not None
    want = view.brag_took[p] if view.brag_took else 0
    before = len(deal.brag.laid)
    cuts = [a for a in deal.legal_actions(p) if isinstance(a, Cut)]
    order = list(range(len(cuts)))
    order = shuffled(order, rng.random)
    for i in order:
        trial = deal.copy()
        trial.apply(p, cuts[i])
        if trial.over or trial.brag is None:
            continue
        took = trial.brag.took[p]
        laid = len(trial.brag.laid) > before
        if (took < want and not laid) or (took == want and laid == (p != view.seat)):
            return cuts[i]
    return None


def _matches(view: SeatView, deal: Deal) -> bool:
    """Whether the driven ``deal`` shows what ``view`` shows: hand sizes, trumps taken, the deck's
    size, as many trumps in the seat's hand, and the seats' lays of the same sizes."""
    brag = deal.brag
    t = deal.tables
    assert brag is not None and t is not None
    if tuple(h.bit_count() for h in deal.hands) != view.hand_sizes:
        return False
    if view.brag_took and tuple(brag.took) != view.brag_took:
        return False
    if len(brag.stock) != view.stock_size:
        return False
    tm = t.trump_mask
    if (deal.hands[view.seat] & tm).bit_count() != (mask_of(list(view.hand)) & tm).bit_count():
        return False
    return [(s, len(cs)) for s, cs in brag.laid] == [(s, len(cs)) for s, cs in view.brag_laid]


def _rename(view: SeatView, deal: Deal, moves: Moves, rng: random.Random) -> Deal | None:
    """The driven ``deal`` with its cards renamed trump for trump, non-trump for non-trump, so the
    seat's hand, the cards it has seen in other hands (a blind's, to the partner who brags for it) and
    the cards laid face up are the real ones: dealt again from the renamed deck under the renamed
    moves (``None`` if a renamed move is not allowed, or the seat's hand or a seen card differs)."""
    t = deal.tables
    brag = deal.brag
    assert t is not None and brag is not None
    tm = t.trump_mask
    me = view.seat
    fixed: dict[int, int] = {}  # world card id -> real card id
    real_hand = mask_of(list(view.hand))
    for mine, wanted in ((deal.hands[me] & tm, real_hand & tm), (deal.hands[me] & ~tm, real_hand & ~tm)):
        order = bits_of(wanted)
        order = shuffled(order, rng.random)
        for w, r in zip(bits_of(mine), order, strict=True):
            fixed[w.bit_length() - 1] = r.bit_length() - 1
    seen = [mask_of(list(cs)) for cs in view.seen]
    for h, real in enumerate(seen):  # a blind's cards, seen by the partner who brags for it
        if h == me or not real:
            continue
        mine_seen = (deal.shown[h] | deal.known[me][h]) & deal.hands[h]  # what the seat saw there
        for kind in (tm, ~tm):
            want = shuffled(bits_of(real & kind), rng.random)
            have = bits_of(mine_seen & kind)
            if len(have) != len(want):
                return None
            for w, r in zip(have, want, strict=True):
                fixed[w.bit_length() - 1] = r.bit_length() - 1
    for (_, world_cs), (_, real_cs) in zip(brag.laid, view.brag_laid, strict=True):
        for w_c, r_c in zip(world_cs, real_cs, strict=True):
            if r_c is not None:
                if w_c.id in fixed or t.is_trump(r_c) != t.is_trump(w_c):
                    return None
                fixed[w_c.id] = r_c.id
    taken = set(fixed.values())
    ids = [c.id for c in deal.deck]
    for trump in (True, False):
        free = [i for i in ids if i not in fixed and (tm >> i & 1) == trump]
        left = [i for i in ids if i not in taken and (tm >> i & 1) == trump]
        if len(free) != len(left):
            return None
        left = shuffled(left, rng.random)
        fixed.update(zip(free, left, strict=True))
    name = {ALL_CARDS[w]: ALL_CARDS[r] for w, r in fixed.items()}
    renamed = _fresh(view, [name[c] for c in deal.deck])
    try:
        for seat, a in moves:
            renamed.apply(seat, Brag(tuple(name[c] for c in a.cards)) if isinstance(a, Brag) else a)
    except KozelError:
        return None
    if renamed.hands[me] != real_hand or renamed.to_act != me or renamed.phase is not view.phase:
        return None
    if any(real & ~renamed.hands[h] for h, real in enumerate(seen)):
        return None
    return renamed


__all__ = ["KINDS", "candidates", "decide", "finish", "searched", "world"]
