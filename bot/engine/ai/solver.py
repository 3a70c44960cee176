"""The open-hand solver: the exact penalty-point value of a world with every card known.

Values are small integers (what the deal is worth to pair A), so a plain alpha-beta over them behaves
like a null-window search at the few scoring thresholds (61, 31, 1 card points, the caught queen).
A transposition table at trick boundaries, equivalent-card merging and "win the trick first" move
ordering keep the last four tricks within milliseconds per world.
"""

from __future__ import annotations

from bot.engine.cards import POINTS_BY_ID

from .world import PAIR_OF, QC_BIT, World, bits_of

_INF = 1 << 20
Key = tuple[int, int, int, int, int, int, bool, bool, bool]


class Solver:
    """Alpha-beta with a transposition table shared by every search on worlds of one deal."""

    def __init__(self) -> None:
        self.tt: dict[Key, tuple[int, int]] = {}
        self.nodes = 0

    def value(self, w: World) -> int:
        """The exact worth of ``w`` to pair A with best play by both pairs."""
        return self._search(w, -_INF, _INF)

    def move_values(self, w: World) -> dict[int, int]:
        """The exact worth to pair A of each legal card for the seat to act (by card bit)."""
        out = {}
        for b in bits_of(w.legal(w.to_act())):
            w2 = w.copy()
            w2.play(b)
            out[b] = self.value(w2)
        return out

    def _search(self, w: World, alpha: int, beta: int) -> int:
        self.nodes += 1
        if w.over:
            return w.value0()
        key: Key | None = None
        if not w.trick:
            h = w.hands
            key = (h[0], h[1], h[2], h[3], w.leader, w.pts[0], w.won[0] > 0, w.won[1] > 0, w.restricted)
            hit = self.tt.get(key)
            if hit is not None:
                lo, hi = hit
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
                alpha, beta = max(alpha, lo), min(beta, hi)
        a0, b0 = alpha, beta
        seat = w.to_act()
        maximize = PAIR_OF[seat] == 0
        best = -_INF if maximize else _INF
        for b in _ordered(w, seat):
            w2 = w.copy()
            w2.play(b)
            v = self._search(w2, alpha, beta)
            if maximize:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            else:
                if v < best:
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


def _ordered(w: World, seat: int) -> list[int]:
    """Legal cards with equivalent ones merged, the likeliest best first."""
    s = w.s
    legal = w.legal(seat)
    cards = merge_equivalent(w, legal)
    if len(cards) == 1:
        return cards
    if not w.trick:
        # Leading: strong cards first (they usually decide the trick), then the rest.
        power = s.tables.power
        return sorted(cards, key=lambda b: -power[b.bit_length() - 1])
    win_seat, win_p = w.trick_winner()
    strength = s.by_led[w.led_eff]
    mine = PAIR_OF[win_seat] == PAIR_OF[seat]

    def key(b: int) -> tuple[int, int]:
        cid = b.bit_length() - 1
        wins = strength[cid] > win_p and seat != s.open_seat
        pts = POINTS_BY_ID[cid]
        if mine:
            return (0, -pts)  # partner winning: give points first
        return (0 if wins else 1, strength[cid] if wins else pts)

    return sorted(cards, key=key)


def merge_equivalent(w: World, legal: int) -> list[int]:
    """One card from each run of equivalent cards: same suit, same points, nothing in play between them."""
    s = w.s
    eff, power = s.eff, s.tables.power
    in_play = w.hands[0] | w.hands[1] | w.hands[2] | w.hands[3]
    for b in w.stock:
        in_play |= b
    for _, b in w.trick:
        in_play |= b
    out: list[int] = []
    by_suit: dict[int, list[int]] = {}
    for b in bits_of(legal):
        by_suit.setdefault(eff[b.bit_length() - 1], []).append(b)
    special = s.special | QC_BIT
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
            pts = POINTS_BY_ID[cid]
            if r == prev + 1 and pts == prev_pts and not b & special and not out[-1] & special:
                prev = r  # equivalent to the card just kept
                continue
            out.append(b)
            prev, prev_pts = r, pts
    return out
