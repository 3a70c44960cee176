"""The open-hand solver: the exact penalty-point value of a world with every card known.

Values are small integers (what the deal is worth to pair A), so a plain alpha-beta over them behaves
like a null-window search at the few scoring thresholds (61, 31, 1 card points, the caught queen; 5, 3,
1 and 9 tricks where tricks score).
A transposition table at trick boundaries, equivalent-card merging, "win the trick first" move
ordering, bounds at each trick boundary (when every way the rest can go is worth the same, or cannot
reach the window, nothing is searched) and the last trick played at once keep the last five tricks
within a few milliseconds per world (``python -m bot.measure.engine_bench --solver 20``).

The search does not move a :class:`~bot.engine.play.PlayState` on: it plays on the bare masks — one
list of hands changed and restored in place, the trick on a stack, points and tricks won as arguments —
so a node costs no copy; which cards may be played, who wins, the queen catch and what a trick's end
does are the play kernel's functions and tables (:mod:`bot.engine.play`). Which cards of a hand are
equivalent is worked out once per trick (the cards still in play do not change within one), not once
per node.

A caller with a deadline passes ``expired``, asked every 1,024 nodes: once it answers true, the solve
stops with :class:`SolveTimeout` (the world passed in is untouched, and the transposition table keeps
only finished entries), so one deep solve cannot overrun a search's hard cap. The solver reads no
clock itself.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.engine.cards import POINTS_BY_ID
from bot.engine.play import FREE, caught, draw_lead_rule, follow_mask, lead_mask, refill, turned

from .world import QC_BIT, Static, World, bits_of

_INF = 1 << 20
#: A position at a trick boundary: the hands, the leader, the score so far, the stock (and, with
#: blinds, their stacks).
Key = tuple[object, ...]
#: Nodes between two calls of the solver's ``expired`` check (a power of two).
CHECK_NODES = 1024


class SolveTimeout(Exception):
    """A solve stopped because its ``expired`` check said time was up."""


class Solver:
    """Alpha-beta with a transposition table shared by every search on worlds of one deal."""

    def __init__(self, expired: Callable[[], bool] | None = None) -> None:
        self.expired = expired
        self.tt: dict[Key, tuple[int, int]] = {}
        self.nodes = 0
        self._s: Static | None = None
        self._runs: tuple[tuple[int, ...], ...] = ()
        self._special = QC_BIT
        self._worth = POINTS_BY_ID
        #: Card points in the deal: those taken plus those in play when :meth:`value` was called.
        self._total = 0
        #: The blinds' stacks of the world being solved (a blind plays the top of its stack).
        self._stacks: tuple[tuple[int, ...], ...] = ()

    def value(self, w: World) -> int:
        """The exact worth of ``w`` to pair A with best play by both pairs."""
        if w.over:
            return w.value0()
        s = self._bind(w.s)
        self._stacks = w.stacks
        hands = w.hands.copy()
        stock = w.stock[w.drawn :]
        trick = list(w.trick)
        in_play = hands[0] | hands[1] | hands[2] | hands[3]
        for b in stock:
            in_play |= b
        win_seat, win_p = -1, -2
        if trick:
            for _, b in trick:
                in_play |= b
            win_seat, win_p = w.win_seat, w.win_p
        red = self._redundant(hands, in_play)
        p0, p1 = w.pts
        w0, w1 = w.won
        self._total = p0 + p1 + sum(POINTS_BY_ID[b.bit_length() - 1] for b in bits_of(in_play))
        return self._search(
            s, hands, w.leader, trick, red, win_seat, win_p, p0, p1, w0, w1, w.restricted, w.first, stock,
            -_INF, _INF,
        )  # fmt: skip

    def move_values(self, w: World) -> dict[int, int]:
        """The exact worth to pair A of each legal card for the seat to act (by card bit)."""
        out = {}
        for b in bits_of(w.legal(w.to_act())):
            w2 = w.copy()
            w2.play(b)
            out[b] = self.value(w2)
        return out

    def _bind(self, s: Static) -> Static:
        """Work out the tables for ``s`` once: each effective suit's cards, weakest first."""
        if self._s is not s:
            self.tt.clear()  # another deal, another card order: its positions are not this one's
            power = s.tables.power
            self._runs = tuple(
                tuple(sorted(bits_of(m), key=lambda b: power[b.bit_length() - 1])) for m in s.suit_masks
            )
            self._special = s.special | QC_BIT
            self._worth = s.card_worth
            self._s = s
        return s

    def _redundant(self, hands: list[int], in_play: int) -> list[int]:
        """Per seat, the cards equivalent to the next weaker card in play, which is in the same hand:
        same effective suit, same points (any points where only tricks score), neither the ♣Q nor the
        шмон. Playing either gives the same value, so only the weakest of each run is searched
        (:func:`merge_equivalent`'s runs)."""
        special = self._special
        worth = self._worth
        red = [0, 0, 0, 0]
        for run in self._runs:
            prev = 0
            prev_pts = -1
            for b in run:
                if not b & in_play:
                    continue
                pts = worth[b.bit_length() - 1]
                if prev and pts == prev_pts and not (b | prev) & special:
                    for seat, h in enumerate(hands):
                        if h & b and h & prev:
                            red[seat] |= b
                            break
                prev, prev_pts = b, pts
        return red

    def _search(
        self,
        s: Static,
        hands: list[int],
        leader: int,
        trick: list[tuple[int, int]],
        red: list[int] | None,
        win_seat: int,
        win_p: int,
        p0: int,
        p1: int,
        w0: int,
        w1: int,
        restricted: bool,
        first: int,
        stock: tuple[int, ...],
        alpha: int,
        beta: int,
    ) -> int:
        """The worth to pair A of the position: ``hands`` with ``trick`` on the table (``win_seat``
        winning it so far with strength ``win_p``), ``red`` each hand's equivalent cards (worked out
        here when a trick begins), card points and tricks taken per pair, and what is left in the stock.
        ``hands`` and ``trick`` are played on in place and restored before returning."""
        self.nodes += 1
        if not self.nodes & (CHECK_NODES - 1) and self.expired is not None and self.expired():
            raise SolveTimeout
        k = len(trick)
        seat = s.orders[leader][k]
        hand = hands[seat]
        key: Key | None = None
        if k == 0:
            lo, hi = self._bounds(s, hands, p0, p1, w0, w1, stock)
            if lo == hi or hi <= alpha:
                return hi
            if lo >= beta:
                return lo
            if not stock and hand.bit_count() == 1:
                return self._last_trick(s, hands, leader, p0, p1, w0, w1)
            if s.by_tricks:  # the value depends on the tricks taken, not on the card points
                key = (hands[0], hands[1], hands[2], hands[3], leader, 0, w0, w1, restricted, stock)
            else:
                key = (hands[0], hands[1], hands[2], hands[3], leader, p0, w0 > 0, w1 > 0, restricted, stock)
            if s.blinds:  # worlds alike in hands differ in the blinds' order: the stacks are the position's
                key = (*key, self._stacks)
            hit = self.tt.get(key)
            if hit is not None:
                lo, hi = hit
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
            if red is None:
                in_play = hands[0] | hands[1] | hands[2] | hands[3]
                for b in stock:
                    in_play |= b
                red = self._redundant(hands, in_play)
            if s.blinds >> seat & 1:
                legal = turned(self._stacks[seat], hand)
            else:
                legal = lead_mask(s, hand, first, restricted)
            moves = bits_of(legal & ~red[seat] or legal)
            if len(moves) > 1:
                power = s.tables.power
                moves.sort(key=lambda b: -power[b.bit_length() - 1])
            led_eff = -1
        else:
            led = trick[0][1]
            led_eff = s.eff[led.bit_length() - 1]
            if s.blinds >> seat & 1:
                legal = turned(self._stacks[seat], hand)
            else:
                legal = follow_mask(s, seat, hand, led_eff, led)
            assert red is not None  # worked out when the trick began
            moves = bits_of(legal & ~red[seat] or legal)
            if len(moves) > 1:
                if s.pair_of[win_seat] == s.pair_of[seat]:
                    # Partner winning: give points.
                    moves.sort(key=lambda b: -POINTS_BY_ID[b.bit_length() - 1])
                else:
                    # Win as cheaply as possible, else throw the fewest points.
                    row = s.strength[led_eff][seat]
                    moves.sort(key=lambda b: _order_key(row, win_p, b))
        a0, b0 = alpha, beta
        pair_of = s.pair_of
        maximize = pair_of[seat] == 0
        best = -_INF if maximize else _INF
        special = s.special
        for b in moves:
            # Play b.
            if k == 0:
                led_eff = s.eff[b.bit_length() - 1]
            v: int | None = None
            if b & special and k:
                q = caught(s, trick, seat, b)
                if q >= 0:
                    v = s.value0(p0, p1, w0, w1, q)
            if v is None:
                p = s.strength[led_eff][seat][b.bit_length() - 1]
                ws, wp = (seat, p) if p > win_p else (win_seat, win_p)
                hands[seat] = hand ^ b
                trick.append((seat, b))
                if k < s.n - 1:
                    v = self._search(
                        s, hands, leader, trick, red, ws, wp, p0, p1, w0, w1, restricted, first, stock,
                        alpha, beta,
                    )  # fmt: skip
                else:
                    v = self._after_trick(s, hands, leader, trick, ws, p0, p1, w0, w1, stock, alpha, beta)
                trick.pop()
                hands[seat] = hand
            if maximize:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            elif v < best:
                best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        if key is not None:
            lo, hi = self.tt.get(key, (-_INF, _INF))
            if best <= a0:
                hi = min(hi, best)
            elif best >= b0:
                lo = max(lo, best)
            else:
                lo = hi = best
            self.tt[key] = (lo, hi)
        return best

    def _bounds(
        self, s: Static, hands: list[int], p0: int, p1: int, w0: int, w1: int, stock: tuple[int, ...]
    ) -> tuple[int, int]:
        """Bounds on the value at a trick boundary: pair A taking every trick left, pair B taking them,
        and the ♣Q caught if it still can be (the worth rises with pair A's card points and tricks)."""
        rem = self._total - p0 - p1
        # Where only tricks score, every trick left counts; elsewhere only whether a pair took one.
        more = 1
        if s.by_tricks:
            more = ((hands[0] | hands[1] | hands[2] | hands[3]).bit_count() + len(stock)) // s.n
        a = s.value0(p0 + rem, p1, w0 + more, w1, None)
        b = s.value0(p0, p1 + rem, w0, w1 + more, None)
        lo, hi = (a, b) if a < b else (b, a)
        top = s.top_bit
        if s.special:
            qc_seat = top_seat = -1
            pair_of = s.pair_of
            for seat in range(s.n):
                h = hands[seat]
                if h & QC_BIT:
                    qc_seat = seat
                if h & top:
                    top_seat = seat
            catches: tuple[int, ...] = ()
            if qc_seat >= 0 and top_seat >= 0:
                if pair_of[qc_seat] != pair_of[top_seat]:
                    catches = (pair_of[qc_seat],)
            elif stock and (qc_seat >= 0 or QC_BIT in stock) and (top_seat >= 0 or top in stock):
                catches = (0, 1)
            for q in catches:
                v = s.value0(p0, p1, w0, w1, q)
                if v < lo:
                    lo = v
                elif v > hi:
                    hi = v
        return lo, hi

    def _last_trick(
        self, s: Static, hands: list[int], leader: int, p0: int, p1: int, w0: int, w1: int
    ) -> int:
        """The value when every hand holds one card: the last trick plays itself."""
        led = hands[leader]
        rows = s.strength[s.eff[led.bit_length() - 1]]
        special = s.special
        best_seat, best_p, tp = -1, -2, 0
        shown: list[tuple[int, int]] = []  # the ♣Q or the шмон, once played
        for seat in s.orders[leader]:
            b = hands[seat]
            if b & special:
                q = caught(s, shown, seat, b)
                if q >= 0:
                    return s.value0(p0, p1, w0, w1, q)
                shown.append((seat, b))
            cid = b.bit_length() - 1
            tp += POINTS_BY_ID[cid]
            p = rows[seat][cid]
            if p > best_p:
                best_seat, best_p = seat, p
        if s.pair_of[best_seat] == 0:
            return s.value0(p0 + tp, p1, w0 + 1, w1, None)
        return s.value0(p0, p1 + tp, w0, w1 + 1, None)

    def _after_trick(
        self,
        s: Static,
        hands: list[int],
        leader: int,
        trick: list[tuple[int, int]],
        winner: int,
        p0: int,
        p1: int,
        w0: int,
        w1: int,
        stock: tuple[int, ...],
        alpha: int,
        beta: int,
    ) -> int:
        """The trick in ``trick`` is complete: score it, draw from the stock, and search on."""
        tp = 0
        for _, b in trick:
            tp += POINTS_BY_ID[b.bit_length() - 1]
        if s.pair_of[winner] == 0:
            p0 += tp
            w0 += 1
        else:
            p1 += tp
            w1 += 1
        nh = hands
        if stock:
            nh = hands.copy()
            stock = stock[refill(s, nh, stock, 0, winner) :]
        if not any(nh):
            return s.value0(p0, p1, w0, w1, None)
        restricted = False
        if s.is_draw:
            if nh is hands:
                nh = hands.copy()  # the rule may swap two hands; ``hands`` is restored by the caller
            restricted = draw_lead_rule(s, nh, winner, leader) != FREE
        return self._search(
            s, nh, winner, [], None, -1, -2, p0, p1, w0, w1, restricted, 0, stock, alpha, beta
        )


def _order_key(row: tuple[int, ...], win_p: int, b: int) -> tuple[int, int]:
    """Move order for a seat of the pair not winning the trick: winners first, cheapest first, then the
    rest by the fewest points."""
    cid = b.bit_length() - 1
    if row[cid] > win_p:
        return (0, row[cid])
    return (1, POINTS_BY_ID[cid])


def merge_equivalent(w: World, legal: int) -> list[int]:
    """One card from each run of equivalent cards: same suit, same points (any points where only tricks
    score), nothing in play between them."""
    s = w.s
    eff, power = s.eff, s.tables.power
    in_play = w.hands[0] | w.hands[1] | w.hands[2] | w.hands[3]
    for b in w.stock[w.drawn :]:
        in_play |= b
    for _, b in w.trick:
        in_play |= b
    out: list[int] = []
    by_suit: dict[int, list[int]] = {}
    for b in bits_of(legal):
        by_suit.setdefault(eff[b.bit_length() - 1], []).append(b)
    special = s.special | QC_BIT
    worth = s.card_worth
    for e, bs in by_suit.items():
        if len(bs) == 1:
            out.extend(bs)
            continue
        suit_in_play = sorted(bits_of(in_play & s.suit_masks[e]), key=lambda b: power[b.bit_length() - 1])
        rank = {b: i for i, b in enumerate(suit_in_play)}
        bs.sort(key=lambda b: rank[b])
        prev = -10
        prev_pts = -1
        for b in bs:
            cid = b.bit_length() - 1
            r = rank[b]
            pts = worth[cid]
            if r == prev + 1 and pts == prev_pts and not b & special and not out[-1] & special:
                prev = r  # equivalent to the card just kept
                continue
            out.append(b)
            prev, prev_pts = r, pts
    return out
