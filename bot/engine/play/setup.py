"""What stays fixed while a deal is played: card order, who sits where and plays when, which rules apply.

A :class:`PlayRules` is built once per deal (and shared by every sampled world of it), so everything
the kernel asks per card is a table lookup: a card's effective suit, its strength in a trick led in a
suit — already -1 for a seat whose cards never win (classic's open hand) — and each trick's playing
order from its leader.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import pairwise

from bot.engine.cards import POINTS_BY_ID, QUEEN_OF_CLUBS, Suit
from bot.engine.order import Tables, tables_for
from bot.engine.rules import ClassicOptions, Rules
from bot.engine.scoring import DealScore, score_deal
from bot.engine.seats import PAIR_OF

QC_BIT = QUEEN_OF_CLUBS.bit
_ScoreKey = tuple[int, int, int, int, int]
#: What every card counts for in the bot players' trick heuristics under ``tricks``, where only the
#: number of tricks scores: the same for every card, so every trick is worth 12, about a trick's share
#: of the deck's 120 card points.
TRICK_CARD_WORTH = 3
#: The deal scores worked out so far, per rules and eggs before the deal: the scores
#: (:meth:`PlayRules.score`) and their worth to pair A (:meth:`PlayRules.value0`).
_SCORES: dict[tuple[Rules, int], tuple[dict[_ScoreKey, DealScore], dict[_ScoreKey, int]]] = {}


def trick_orders(seats: int, open_seat: int) -> tuple[tuple[int, ...], ...]:
    """Per leader, the seats in the order they play: clockwise from him, the open hand (if any) last."""
    orders = []
    for lead in range(seats):
        order = [(lead + k) % seats for k in range(seats)]
        if 0 <= open_seat != lead:
            order.remove(open_seat)
            order.append(open_seat)
        orders.append(tuple(order))
    return tuple(orders)


def _after(order: tuple[int, ...], n: int) -> tuple[int, ...]:
    """Per seat, the seat after him in ``order`` (-1 for its last)."""
    after = [-1] * n
    for seat, nxt in pairwise(order):
        after[seat] = nxt
    return tuple(after)


class PlayRules:
    """The fixed facts of one deal's play phase (see the module docstring); read-only once built."""

    __slots__ = (
        "_deal_scores",
        "_scores",
        "after",
        "blinds",
        "by_led",
        "by_tricks",
        "card_worth",
        "clockwise",
        "eff",
        "eggs_before",
        "exc",
        "fallback",
        "higher",
        "is_draw",
        "mat_mask",
        "matadors",
        "must_trump",
        "n",
        "open_seat",
        "orders",
        "pair_of",
        "placed",
        "rules",
        "special",
        "strength",
        "suit_masks",
        "tables",
        "tm",
        "top_bit",
    )

    def __init__(
        self,
        rules: Rules,
        tables: Tables,
        eggs_before: int = 0,
        open_seat: int | None = None,
        pair_of: tuple[int, ...] = PAIR_OF,
    ) -> None:
        self.rules = rules
        self.tables = tables
        self.eggs_before = eggs_before
        #: How many seats play: one card each makes a trick.
        self.n = len(pair_of)
        self.pair_of = pair_of
        #: Classic's open hand after the exchange (-1: none): it plays last and its cards never win.
        self.open_seat = -1 if open_seat is None else open_seat
        self.orders = trick_orders(self.n, self.open_seat)
        #: ``after[leader][seat]``: who plays after ``seat`` in a trick ``leader`` leads (-1: he is last).
        self.after = tuple(_after(order, self.n) for order in self.orders)
        #: ``placed[seat][card id]``: the place ``(seat, card bit)`` in a trick, made once and shared (a
        #: card played allocates no pair).
        ids = range(len(tables.eff))
        self.placed = tuple(tuple((seat, 1 << cid) for cid in ids) for seat in range(self.n))
        #: Per seat, every seat clockwise from him (draw's stock is drawn so, open hand or not).
        self.clockwise = trick_orders(self.n, -1)
        self.eff = tables.eff
        self.suit_masks = tables.suit_masks
        self.tm = tables.trump_mask
        self.by_led = tables.strength_by_led
        never = tuple(-1 for _ in tables.eff)
        #: ``strength[led][seat][card id]``: how strong the card is when ``seat`` plays it into a trick
        #: led in effective suit ``led``; -1 when it cannot win.
        self.strength = tuple(
            tuple(never if s == self.open_seat else row for s in range(self.n)) for row in self.by_led
        )
        self.top_bit = tables.top.bit
        #: The blinds' seats as a bit mask (``dummy``, ``two_dummies``): each plays the top card of its
        #: stack, whatever it is, and its ♣Q cannot be caught (:func:`~bot.engine.play.caught`).
        self.blinds = rules.blind_mask
        #: Whether a deal is scored by the tricks each pair took (``tricks``), not by card points.
        self.by_tricks = rules.by_tricks
        #: The two cards of the queen catch: the ♣Q and the шмон (none in ``tricks``: no queen catch).
        self.special = 0 if self.by_tricks else QC_BIT | self.top_bit
        #: Per card id, what it counts for in the bot players' heuristics (:mod:`bot.engine.ai.trick`):
        #: its card points, or :data:`TRICK_CARD_WORTH` for every card where tricks score.
        self.card_worth = (TRICK_CARD_WORTH,) * len(POINTS_BY_ID) if self.by_tricks else POINTS_BY_ID
        opts = rules.options
        self.matadors = isinstance(opts, ClassicOptions) and opts.matadors
        self.mat_mask = tables.matador_mask
        self.higher = tables.higher_matadors
        self.must_trump = opts.must_trump_when_void
        #: What a seat void in the led suit must play if he holds any: trumps, or anything (0).
        self.fallback = self.tm if self.must_trump else 0
        self.is_draw = rules.preset == "draw"
        #: Per card id: whether following a trick it leads may need more than "the led suit, else the
        #: fallback" (:func:`~bot.engine.play.follow_mask` decides, or :func:`~bot.engine.play.turned`
        #: for a blind): with a blind or an open hand at the table, or a matador led under ``matadors``.
        self.exc = tuple(
            bool(self.blinds) or self.open_seat >= 0 or bool(self.matadors and self.mat_mask >> cid & 1)
            for cid in range(len(self.eff))
        )
        # Shared by every deal under the same rules and eggs: a score depends on nothing else.
        scores = _SCORES.get((rules, eggs_before))
        if scores is None:
            if len(_SCORES) >= 64:
                _SCORES.clear()
            scores = _SCORES[(rules, eggs_before)] = ({}, {})
        self._deal_scores, self._scores = scores

    def _key(self, pts0: int, pts1: int, won0: int, won1: int, queen_pair: int | None) -> _ScoreKey:
        """What a deal's score depends on: the tricks taken where only tricks score, else the card points,
        whether each pair took a trick and whose ♣Q was caught."""
        if self.by_tricks:  # only the tricks count (and no queen is ever caught)
            return (0, 0, won0, won1, -1)
        return (pts0, pts1, won0 > 0, won1 > 0, -1 if queen_pair is None else queen_pair)

    def score(self, pts0: int, pts1: int, won0: int, won1: int, queen_pair: int | None) -> DealScore:
        """The finished deal's :func:`~bot.engine.scoring.score_deal` (worked out once per outcome)."""
        key = self._key(pts0, pts1, won0, won1, queen_pair)
        score = self._deal_scores.get(key)
        if score is None:
            if self.by_tricks:
                queen_pair = None
            score = score_deal(self.rules, (pts0, pts1), (won0, won1), queen_pair, self.eggs_before)
            self._deal_scores[key] = score
        return score

    def value0(self, pts0: int, pts1: int, won0: int, won1: int, queen_pair: int | None) -> int:
        """What the deal is worth to pair A in penalty points (the opponents' charge minus its own)."""
        key = self._key(pts0, pts1, won0, won1, queen_pair)
        v = self._scores.get(key)
        if v is None:
            score = self.score(pts0, pts1, won0, won1, queen_pair)
            v = score.penalty[1] - score.penalty[0]
            opts = self.rules.options
            if isinstance(opts, ClassicOptions) and opts.score_winners:
                v = -v  # the scored pair is the winner: its points are good for it
            self._scores[key] = v
        return v


@lru_cache(maxsize=256)
def play_rules(
    rules: Rules,
    trump: Suit,
    eggs_before: int = 0,
    open_seat: int | None = None,
    pair_of: tuple[int, ...] = PAIR_OF,
) -> PlayRules:
    """The :class:`PlayRules` of a deal under ``rules`` with ``trump`` (made once and shared: a deal is
    dealt for every tap's replay and thousands of worlds are searched per decision)."""
    return PlayRules(rules, tables_for(rules, trump), eggs_before, open_seat, pair_of)
