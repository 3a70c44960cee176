"""Open-hand worlds: one concrete placement of every card, played on bare bit masks for search.

A :class:`World` holds only the play phase (every decision before the first lead is taken by then),
so sampled worlds, the cheating ceiling's true world and the solver all share one small, fast model.
It implements the same play rules as :class:`bot.engine.deal.Deal` — following, trumping when void,
matadors, the first-lead and draw-lead restrictions, the draw pile and its last-card swap, the queen
catch and classic's open hand — and ``tests/ai/test_world.py`` checks both agree card for card.
"""

from __future__ import annotations

import random

from bot.engine.cards import POINTS_BY_ID, QUEEN_OF_CLUBS
from bot.engine.draw_rule import draw_lead_rule
from bot.engine.order import Tables
from bot.engine.rules import ClassicOptions, Rules
from bot.engine.scoring import score_deal

N_SEATS = 4
PAIR_OF = (0, 1, 0, 1)
QC_BIT = QUEEN_OF_CLUBS.bit
_POINTS = POINTS_BY_ID


class Static:
    """What does not change while a deal is played: card order, rule flags, seat order, scoring."""

    __slots__ = (
        "_scores",
        "by_led",
        "eff",
        "eggs_before",
        "higher",
        "is_draw",
        "mat_mask",
        "matadors",
        "must_trump",
        "open_seat",
        "orders",
        "rules",
        "special",
        "suit_masks",
        "tables",
        "tm",
        "top_bit",
    )

    def __init__(self, rules: Rules, tables: Tables, eggs_before: int = 0, open_seat: int | None = None):
        self.rules = rules
        self.tables = tables
        self.eggs_before = eggs_before
        self.eff = tables.eff
        self.suit_masks = tables.suit_masks
        self.tm = tables.trump_mask
        self.by_led = tables.strength_by_led
        self.top_bit = tables.top.bit
        self.special = QC_BIT | self.top_bit
        opts = rules.options
        self.matadors = isinstance(opts, ClassicOptions) and opts.matadors
        self.mat_mask = tables.matador_mask
        self.higher = tables.higher_matadors
        self.must_trump = opts.must_trump_when_void
        self.is_draw = rules.preset == "draw"
        self.open_seat = open_seat
        # The open hand plays last in every trick; the others keep their clockwise order around it.
        orders = []
        for lead in range(N_SEATS):
            seats = [(lead + k) % N_SEATS for k in range(N_SEATS)]
            if open_seat is not None and open_seat != lead:
                seats.remove(open_seat)
                seats.append(open_seat)
            orders.append(tuple(seats))
        self.orders = tuple(orders)
        self._scores: dict[tuple[int, int, bool, bool, int], int] = {}

    def value0(self, pts0: int, pts1: int, won0: int, won1: int, queen_pair: int | None) -> int:
        """What the deal is worth to pair A in penalty points (the opponents' charge minus its own)."""
        key = (pts0, pts1, won0 > 0, won1 > 0, -1 if queen_pair is None else queen_pair)
        v = self._scores.get(key)
        if v is None:
            score = score_deal(self.rules, (pts0, pts1), (won0, won1), queen_pair, self.eggs_before)
            v = score.penalty[1] - score.penalty[0]
            opts = self.rules.options
            if isinstance(opts, ClassicOptions) and opts.score_winners:
                v = -v  # the scored pair is the winner: its points are good for it
            self._scores[key] = v
        return v


class World:
    """One placement of every unplayed card and the play so far; :meth:`play` advances it."""

    __slots__ = (
        "first",
        "hands",
        "leader",
        "led_eff",
        "over",
        "pts",
        "queen_pair",
        "restricted",
        "s",
        "stock",
        "trick",
        "won",
    )

    def __init__(
        self,
        s: Static,
        hands: list[int],
        leader: int,
        trick: list[tuple[int, int]],
        pts: list[int],
        won: list[int],
        stock: list[int],
        restricted: bool = False,
        first: int = 0,
    ) -> None:
        self.s = s
        self.hands = hands
        self.leader = leader
        self.trick = trick
        self.pts = pts
        self.won = won
        self.stock = stock
        self.restricted = restricted
        self.first = first
        self.over = False
        self.queen_pair: int | None = None
        self.led_eff = s.eff[trick[0][1].bit_length() - 1] if trick else -1

    def copy(self) -> World:
        """An independent copy."""
        w = World.__new__(World)
        w.s = self.s
        w.hands = self.hands.copy()
        w.leader = self.leader
        w.trick = self.trick.copy()
        w.pts = self.pts.copy()
        w.won = self.won.copy()
        w.stock = self.stock.copy()
        w.restricted = self.restricted
        w.first = self.first
        w.over = self.over
        w.queen_pair = self.queen_pair
        w.led_eff = self.led_eff
        return w

    def to_act(self) -> int:
        """The seat to play next."""
        return self.s.orders[self.leader][len(self.trick)]

    def legal(self, seat: int) -> int:
        """Bit mask of the cards ``seat`` may play now (he must be :meth:`to_act`)."""
        s = self.s
        hand = self.hands[seat]
        if not self.trick:
            if self.first:
                return self.first & hand or hand
            if self.restricted:
                return hand & ~s.tm or hand
            return hand
        if seat == s.open_seat and not hand & s.tm:
            return hand  # the open hand need not follow once its one trump is gone
        e = self.led_eff
        m = hand & s.suit_masks[e]
        if m:
            if e == 0 and s.matadors:
                led = self.trick[0][1]
                cid = led.bit_length() - 1
                if led & s.mat_mask and not m & ~s.higher[cid]:
                    return hand
            return m
        if s.must_trump:
            return hand & s.tm or hand
        return hand

    def play(self, b: int) -> None:
        """The seat to act plays the card with bit ``b`` (assumed legal)."""
        s = self.s
        seat = s.orders[self.leader][len(self.trick)]
        self.hands[seat] ^= b
        trick = self.trick
        trick.append((seat, b))
        if len(trick) == 1:
            self.led_eff = s.eff[b.bit_length() - 1]
        if b & s.special and len(trick) > 1:
            for s1, b1 in trick[:-1]:
                if b1 & s.special and PAIR_OF[s1] != PAIR_OF[seat]:
                    self.queen_pair = PAIR_OF[seat] if b == QC_BIT else PAIR_OF[s1]
                    self.over = True
                    return
        if len(trick) < N_SEATS:
            return
        strength = s.by_led[self.led_eff]
        best_seat, best_p, tp = -1, -2, 0
        for s1, b1 in trick:
            cid = b1.bit_length() - 1
            tp += _POINTS[cid]
            p = -1 if s1 == s.open_seat else strength[cid]
            if p > best_p:
                best_seat, best_p = s1, p
        pair = PAIR_OF[best_seat]
        self.pts[pair] += tp
        self.won[pair] += 1
        self.trick = []
        self.first = 0
        stock = self.stock
        if stock:
            for k in range(N_SEATS):
                if not stock:
                    break
                self.hands[(best_seat + k) % N_SEATS] |= stock.pop(0)
        if not any(self.hands):
            self.over = True
            return
        if s.is_draw:
            self.restricted = draw_lead_rule(self.hands, best_seat, self.leader, s.tm)
        self.leader = best_seat

    def value0(self) -> int:
        """The finished deal's worth to pair A in penalty points."""
        return self.s.value0(self.pts[0], self.pts[1], self.won[0], self.won[1], self.queen_pair)

    def trick_winner(self) -> tuple[int, int]:
        """The seat winning the current (non-empty) trick so far and the strength of his card."""
        s = self.s
        strength = s.by_led[self.led_eff]
        best_seat, best_p = -1, -2
        for s1, b1 in self.trick:
            p = -1 if s1 == s.open_seat else strength[b1.bit_length() - 1]
            if p > best_p:
                best_seat, best_p = s1, p
        return best_seat, best_p


#: Card points count this much (in penalty points per card point) in a play-out's score: they steer the
#: search where every card reaches the same penalty, and cut the play-outs' noise (a control variate).
POINT_WEIGHT = 0.02


def rollout(w: World, rng: random.Random) -> float:
    """Play ``w`` out with uniformly random legal cards (on a copy); its worth to pair A, card points as
    a small tie-break (:data:`POINT_WEIGHT`)."""
    w = w.copy()
    rnd = rng.random
    play, legal, to_act = w.play, w.legal, w.to_act
    while not w.over:
        m = legal(to_act())
        n = m.bit_count()
        if n > 1:
            j = int(rnd() * n)
            while j:
                m &= m - 1
                j -= 1
        play(m & -m)
    return w.value0() + POINT_WEIGHT * (w.pts[0] - w.pts[1])


def bits_of(mask: int) -> list[int]:
    """The single-card bits of ``mask``, lowest id first."""
    out = []
    while mask:
        b = mask & -mask
        out.append(b)
        mask ^= b
    return out


def fast_rollout(w: World, rng: random.Random) -> float:
    """:func:`rollout` with the play loop inlined (about twice as fast): the same random choices give
    the same result, which ``tests/ai/test_world.py`` checks; ``w`` is not changed."""
    if w.over:
        return w.value0() + POINT_WEIGHT * (w.pts[0] - w.pts[1])
    s = w.s
    eff, suit_masks, tm, by_led, orders = s.eff, s.suit_masks, s.tm, s.by_led, s.orders
    special, open_seat, must_trump, is_draw = s.special, s.open_seat, s.must_trump, s.is_draw
    matadors, mat_mask, higher = s.matadors, s.mat_mask, s.higher
    rnd = rng.random
    hands = w.hands.copy()
    stock = w.stock.copy()
    pts = w.pts.copy()
    won = w.won.copy()
    leader = w.leader
    done = w.trick.copy()
    restricted = w.restricted
    first = w.first
    queen_pair: int | None = None
    while True:
        order = orders[leader]
        if done:
            b = done[0][1]
        else:
            hand = hands[leader]
            m = hand
            if first:
                m = first & hand or hand
            elif restricted:
                m = hand & ~tm or hand
            n = m.bit_count()
            if n > 1:
                j = int(rnd() * n)
                while j:
                    m &= m - 1
                    j -= 1
            b = m & -m
            hands[leader] = hand ^ b
            done = [(leader, b)]
        first = 0
        led_cid = b.bit_length() - 1
        led_eff = eff[led_cid]
        strength = by_led[led_eff]
        led_mask = suit_masks[led_eff]
        mat_check = matadors and led_eff == 0 and bool(b & mat_mask)
        for k in range(len(done), N_SEATS):
            seat = order[k]
            hand = hands[seat]
            if seat == open_seat and not hand & tm:
                m = hand
            else:
                m = hand & led_mask
                if m:
                    if mat_check and not m & ~higher[led_cid]:
                        m = hand
                elif must_trump:
                    m = hand & tm or hand
                else:
                    m = hand
            n = m.bit_count()
            if n > 1:
                j = int(rnd() * n)
                while j:
                    m &= m - 1
                    j -= 1
            b = m & -m
            hands[seat] = hand ^ b
            if b & special:
                for s1, b1 in done:
                    if b1 & special and PAIR_OF[s1] != PAIR_OF[seat]:
                        queen_pair = PAIR_OF[seat] if b == QC_BIT else PAIR_OF[s1]
                        break
                if queen_pair is not None:
                    break
            done.append((seat, b))
        if queen_pair is not None:
            break
        best_seat, best_p, tp = -1, -2, 0
        for s1, b1 in done:
            cid = b1.bit_length() - 1
            tp += _POINTS[cid]
            p = -1 if s1 == open_seat else strength[cid]
            if p > best_p:
                best_seat, best_p = s1, p
        pair = PAIR_OF[best_seat]
        pts[pair] += tp
        won[pair] += 1
        done = []
        if stock:
            for k in range(N_SEATS):
                if not stock:
                    break
                hands[(best_seat + k) % N_SEATS] |= stock.pop(0)
        if not (hands[0] | hands[1] | hands[2] | hands[3]):
            break
        if is_draw:
            restricted = draw_lead_rule(hands, best_seat, leader, tm)
        leader = best_seat
    return s.value0(pts[0], pts[1], won[0], won[1], queen_pair) + POINT_WEIGHT * (pts[0] - pts[1])
