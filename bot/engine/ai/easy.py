"""``easy``: a rule player that knows the craft and decides in well under a millisecond.

Cards in play: catch the opponents' ♣Q with the шмон, never feed ours to a шмон that may still come,
give points to a partner whose trick is safe, take point-rich tricks with the cheapest sure card, cash
masters, lead into the partner's void, count trumps. Decisions before play follow simple hand counts.
"""

from __future__ import annotations

import random

from bot.engine.actions import (
    Action,
    Brag,
    ChooseBragKind,
    Cut,
    Declare,
    Exchange,
    ExchangeGive,
    Play,
    Swap,
    SwapReturn,
)
from bot.engine.cards import ALL_CARDS, POINTS_BY_ID, Card, mask_of
from bot.engine.deal import Phase
from bot.engine.errors import KozelError
from bot.engine.order import Tables
from bot.engine.view import SeatView

from .sample import Knowledge, knowledge, sample_world
from .world import N_SEATS, PAIR_OF, QC_BIT, bits_of


class EasyPlayer:
    """The ``easy`` level: fixed rules of good play, no search."""

    name = "easy"

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        """The rule player's choice among ``view.legal``."""
        if not view.legal:
            raise KozelError(f"seat {view.seat} has no decision to take")
        if view.phase is Phase.PLAY:
            mask = choose_card(view, knowledge(view), rng)
            return Play(ALL_CARDS[mask.bit_length() - 1])
        return choose_other(view)


# ---------------------------------------------------------------------------- play


#: Worlds the rule player samples to judge whether a trick is safe (a millisecond or two).
SAFETY_WORLDS = 16
#: A trick counts as safe when no later opponent beats it in this share of the sampled worlds.
SAFE_SHARE = 0.75


def choose_card(view: SeatView, k: Knowledge, rng: random.Random) -> int:
    """The bit of the card the rule player plays now."""
    legal = mask_of([a.card for a in view.legal if isinstance(a, Play)])
    if legal & (legal - 1) == 0:
        return legal
    ctx = _Ctx(view, k, legal, rng)
    return ctx.follow() if view.trick else ctx.lead()


class _Ctx:
    """The facts every play rule asks about, computed once per decision."""

    def __init__(self, view: SeatView, k: Knowledge, legal: int, rng: random.Random) -> None:
        t = view.tables
        assert t is not None
        self.t = t
        self.k = k
        self.me = view.seat
        self.partner = (view.seat + 2) % N_SEATS
        self.legal = legal
        self.hand = k.known[self.me]
        s = k.static
        self.open_seat = s.open_seat
        # Cards each other seat may hold (seen there, or unseen and not excluded by a void).
        self.possible = [k.known[h] | k.allowed[h] if h != self.me else 0 for h in range(N_SEATS)]
        self.out = 0  # unplayed cards outside my hand
        for h in range(N_SEATS):
            if h != self.me:
                self.out |= self.possible[h]
        self.out |= k.allowed[N_SEATS]
        order = s.orders[k.leader]
        self.later = order[len(view.trick) + 1 :]
        self.trick_pts = sum(c.points for _, c in view.trick)
        self.view = view
        self.top = t.top.bit
        self.rng = rng
        self._worlds: list[list[int]] | None = None

    # -- facts

    def opponents_later(self) -> list[int]:
        return [h for h in self.later if PAIR_OF[h] != PAIR_OF[self.me] and h != self.open_seat]

    def can_beat(self, h: int, e: int, power: int) -> bool:
        """Whether seat ``h`` may hold a card beating ``power`` in a trick led in ``e``."""
        strength = self.t.strength_by_led[e]
        return any(strength[b.bit_length() - 1] > power for b in bits_of(self.possible[h]))

    def sure(self, e: int, power: int) -> bool:
        """Whether no opponent still to play beats ``power`` in :data:`SAFE_SHARE` of sampled worlds."""
        opps = self.opponents_later()
        if not any(self.can_beat(h, e, power) for h in opps):
            return True
        if self._worlds is None:
            self._worlds = [sample_world(self.k, self.rng).hands for _ in range(SAFETY_WORLDS)]
        t = self.t
        strength = t.strength_by_led[e]
        must_trump = self.k.static.must_trump
        safe = 0
        for hands in self._worlds:
            beaten = False
            for h in opps:
                hand = hands[h]
                m = hand & t.suit_masks[e] or (must_trump and hand & t.trump_mask) or hand
                if any(strength[b.bit_length() - 1] > power for b in bits_of(m)):
                    beaten = True
                    break
            safe += not beaten
        return safe >= SAFE_SHARE * len(self._worlds)

    def shmon_threat(self) -> bool:
        """Whether an opponent still to play in this trick may hold the шмон."""
        return any(self.possible[h] & self.top for h in self.opponents_later())

    def keep(self, b: int) -> float:
        """How much a card is worth keeping for later (beyond its points)."""
        cid = b.bit_length() - 1
        t = self.t
        if b == self.top:
            return 100.0
        if b & t.trump_mask:
            higher_out = sum(
                1 for x in bits_of(self.out & t.trump_mask) if t.power[x.bit_length() - 1] > t.power[cid]
            )
            base = 30.0 - 3.0 * higher_out
            return max(base, 8.0) + (10.0 if b == QC_BIT else 0.0)
        e = t.eff[cid]
        higher_out = sum(
            1 for x in bits_of(self.out & t.suit_masks[e]) if t.power[x.bit_length() - 1] > t.power[cid]
        )
        return 6.0 if higher_out == 0 else t.power[cid] * 0.5

    # -- leading

    def lead(self) -> int:
        t = self.t
        legal = self.legal
        my_trumps = (self.hand & t.trump_mask).bit_count()
        trumps_out = (self.out & t.trump_mask).bit_count()
        opponents = [h for h in range(N_SEATS) if PAIR_OF[h] != PAIR_OF[self.me] and h != self.open_seat]
        qc_danger = bool(self.out & self.top) and not self.k.known[self.partner] & self.top

        def score(b: int) -> float:
            cid = b.bit_length() - 1
            pts = POINTS_BY_ID[cid]
            e = t.eff[cid]
            if e == 0:
                if b == QC_BIT and qc_danger:
                    return -100.0
                master = not any(
                    t.power[x.bit_length() - 1] > t.power[cid] for x in bits_of(self.out & t.trump_mask)
                )
                if master and trumps_out and my_trumps * 2 >= trumps_out:
                    return 20.0 + (5.0 if b == self.top and self.out & QC_BIT else 0.0)
                return -15.0 - self.keep(b) * 0.5 - pts
            suit = t.suit_masks[e]
            master = not any(t.power[x.bit_length() - 1] > t.power[cid] for x in bits_of(self.out & suit))
            opp_void = [h for h in opponents if not self.possible[h] & suit]
            opp_may_trump = any(self.possible[h] & t.trump_mask for h in opp_void)
            if master and not opp_may_trump:
                return 50.0 + pts
            s = -2.0 * pts - t.power[cid] * 0.3
            if not self.possible[self.partner] & suit and self.possible[self.partner] & t.trump_mask:
                s += 6.0 if not opp_may_trump else 1.0
            if opp_may_trump:
                s -= pts
            return s

        return max(bits_of(legal), key=score)

    # -- following

    def follow(self) -> int:
        t = self.t
        view = self.view
        legal = self.legal
        e = t.eff[view.trick[0][1].id]
        strength = t.strength_by_led[e]
        ws, wp = -1, -2
        for s1, c in view.trick:
            p = -1 if s1 == self.open_seat else strength[c.id]
            if p > wp:
                ws, wp = s1, p
        opp_cards = 0
        for s1, c in view.trick:
            if PAIR_OF[s1] != PAIR_OF[self.me]:
                opp_cards |= c.bit
        # The queen catch outweighs any trick: take it, and never walk into it.
        if legal & self.top and opp_cards & QC_BIT:
            return self.top
        avoid = 0
        if legal & QC_BIT and (opp_cards & self.top or self.shmon_threat()):
            avoid |= QC_BIT
        opp_qc = any(self.possible[h] & QC_BIT for h in range(N_SEATS) if PAIR_OF[h] != PAIR_OF[self.me])
        if legal & self.top and opp_qc and self.trick_pts < 10:
            avoid |= self.top  # keep the шмон to catch their ♣Q unless a rich trick needs it
        choices = legal & ~avoid or legal & ~(avoid & QC_BIT) or legal
        me_open = self.me == self.open_seat
        partner_winning = PAIR_OF[ws] == PAIR_OF[self.me]
        if partner_winning and self.sure(e, wp):
            return self.smear(choices)
        winners = 0 if me_open else sum_bits(b for b in bits_of(choices) if strength[b.bit_length() - 1] > wp)
        if partner_winning:
            # The partner may be beaten: secure a rich trick cheaply if we can, else stay low.
            sure = [b for b in bits_of(winners) if self.sure(e, strength[b.bit_length() - 1])]
            if sure and self.trick_pts >= 10:
                return min(sure, key=lambda b: self.keep(b) - POINTS_BY_ID[b.bit_length() - 1])
            return self.dump(choices)
        if winners:
            sure = [b for b in bits_of(winners) if self.sure(e, strength[b.bit_length() - 1])]
            if sure:
                cheapest = min(sure, key=lambda b: self.keep(b) - POINTS_BY_ID[b.bit_length() - 1])
                cost = self.keep(cheapest)
                gain = self.trick_pts + POINTS_BY_ID[cheapest.bit_length() - 1]
                if gain >= 10 or cost <= 12 or not self.later:
                    return cheapest
            elif self.trick_pts >= 10 and legal & self.top and not avoid & self.top:
                return self.top
        return self.dump(choices)

    def smear(self, choices: int) -> int:
        """The card that gives a safely winning partner the most points at the least cost."""
        t = self.t

        def value(b: int) -> float:
            pts = POINTS_BY_ID[b.bit_length() - 1]
            k = self.keep(b)
            return pts - (k * 0.6 if b & t.trump_mask else 0.0) - (k if k >= 6.0 and pts < 10 else 0.0)

        return max(bits_of(choices), key=value)

    def dump(self, choices: int) -> int:
        """The card whose loss costs least: no points, little strength."""
        return min(bits_of(choices), key=lambda b: 3.0 * POINTS_BY_ID[b.bit_length() - 1] + self.keep(b))


def sum_bits(bs: object) -> int:
    """The mask of an iterable of single-card bits."""
    m = 0
    for b in bs:  # type: ignore[attr-defined]
        m |= b
    return m


# ------------------------------------------------------------------ other decisions


def choose_other(view: SeatView) -> Action:
    """Decisions before the first lead, by hand counts."""
    legal = view.legal
    first = legal[0]
    t = view.tables
    hand = list(view.hand)
    if isinstance(first, Declare):
        return _declare(view)
    if isinstance(first, ChooseBragKind):
        return first
    if isinstance(first, Cut):
        return legal[len(legal) // 2]
    assert t is not None
    if isinstance(first, Swap):
        mine = [c for c in hand if t.is_trump(c)]
        # Hand a lone small trump to the partner (it helps his trumps more than it helps us alone).
        give = bool(mine) and mine[0] != t.top
        return Swap(give) if Swap(give) in legal else first
    if isinstance(first, SwapReturn):
        plain = [a for a in legal if isinstance(a, SwapReturn) and not t.is_trump(a.card)]
        pool = plain or [a for a in legal if isinstance(a, SwapReturn)]
        return max(pool, key=lambda a: (t.power[a.card.id], a.card.points))
    if isinstance(first, Brag):
        return _brag(view, t)
    if isinstance(first, Exchange):
        trumps = sum(1 for c in hand if t.is_trump(c))
        accept = trumps <= 1 or trumps >= 5
        return Exchange(accept) if Exchange(accept) in legal else first
    if isinstance(first, ExchangeGive):
        gives = [a for a in legal if isinstance(a, ExchangeGive)]
        return min(gives, key=lambda a: sum(c.points * 3 + t.power[c.id] for c in a.cards))
    return first


def _declare(view: SeatView) -> Action:
    hand = view.hand
    best: Action = view.legal[0]
    best_score = -1.0
    for a in view.legal:
        if not isinstance(a, Declare) or a.suit is None:
            continue
        s = sum(1.0 + c.points / 11 for c in hand if c.suit is a.suit and c.rank.value not in "QJ")
        if s > best_score:
            best, best_score = a, s
    return best


def _brag(view: SeatView, t: Tables) -> Action:
    singles = [a for a in view.legal if isinstance(a, Brag) and len(a.cards) == 1]
    pool = singles or [a for a in view.legal if isinstance(a, Brag)]
    bragger = (view.dealer + 1) % N_SEATS
    laid: list[Card] = [c for _, c in view.trick]
    if view.seat == bragger:
        return max(pool, key=lambda a: (t.power[a.cards[0].id], a.cards[0].points))
    if PAIR_OF[view.seat] == PAIR_OF[bragger] or laid:
        return min(pool, key=lambda a: (sum(c.points for c in a.cards), sum(t.power[c.id] for c in a.cards)))
    return min(pool, key=lambda a: (sum(c.points for c in a.cards), sum(t.power[c.id] for c in a.cards)))
