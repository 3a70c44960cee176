"""``easy``: a rule player that knows the craft and decides within a few milliseconds.

Hard rules first: catch the opponents' ♣Q with the шмон, never feed ours to a шмон that may still come,
keep the шмон for their ♣Q unless a rich trick needs it. Among the cards left, each is weighed by a
one-trick lookahead (:mod:`bot.engine.ai.trick`) over a couple of dozen sampled worlds — who takes the
trick and with how many points, when everyone still to play gives points to a partner's sure trick and
beats the opponents with the cheapest card that does — plus, in half of those worlds, a random
play-out of the rest of the deal, minus what the card is worth keeping (high and master trumps,
masters of plain suits). Leads add the lead rules' score: draw trumps with the master
when the pair holds enough of them, cash masters before the opponents are known void, lead low into
the partner's void, keep points off suits the opponents can trump. Decisions before play follow
simple hand counts, and classic's exchange is accepted whenever it is offered (it pays, measured).
Where there is no queen catch (``tricks``) the queen rules are off and the шмон is kept like any top
trump; where only tricks score, every card counts the same (:attr:`~bot.engine.play.PlayRules.card_worth`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.engine.actions import (
    Action,
    Brag,
    ChooseBragKind,
    Cut,
    Declare,
    Discard,
    Exchange,
    ExchangeGive,
    Play,
    Swap,
    SwapReturn,
)
from bot.engine.brag import cut_points
from bot.engine.cards import ALL_CARDS, mask_of
from bot.engine.deal import Phase
from bot.engine.errors import KozelError
from bot.engine.order import Tables
from bot.engine.play import OVER
from bot.engine.play import play_out as kernel_play_out
from bot.engine.view import SeatView

from .discard import choose_discard
from .knowledge import Knowledge, knowledge
from .sample import sample_world
from .solver import merge_equivalent
from .trick import beaters, finish
from .world import N_SEATS, QC_BIT, Static, World, bits_of, worth


class EasyPlayer:
    """The ``easy`` level: rules of good play weighed by a one-trick lookahead (no tree search)."""

    name = "easy"

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        """The rule player's choice among ``view.legal``."""
        if not view.legal:
            raise KozelError(f"seat {view.seat} has no decision to take")
        if view.phase is Phase.PLAY:
            if len(view.legal) == 1 and isinstance(view.legal[0], Play):
                # choose_card plays a lone legal card without drawing a number: its knowledge is not
                # needed (tests/ai/test_easy_shortcuts.py checks the two agree).
                return view.legal[0]
            mask = choose_card(view, knowledge(view), rng)
            return Play(ALL_CARDS[mask.bit_length() - 1])
        return choose_other(view)


# ---------------------------------------------------------------------------- play


#: Worlds the rule player samples to see how the current trick may end.
LOOK_WORLDS = 24
#: Card points a card's keep value (:meth:`_Ctx.keep`) costs when the card is spent now.
KEEP_WEIGHT = 0.5
#: Card points the lead rules' score is worth on top of the lookahead (long-term craft: trump
#: control, cashing masters before the opponents get void, leading into the partner's void).
LEAD_WEIGHT = 0.6
#: A caught ♣Q, in card points: it ends the deal and usually costs more than any trick.
QUEEN_VALUE = 80.0
#: The шмон is kept for the opponents' ♣Q: spending it on anything else costs this much keep.
TOP_KEEP = 100.0
#: In every second world the opponents play carelessly (random legal cards): nobody plays perfectly,
#: and a card that only pays against perfect defence should not look better than it is.
CARELESS_EVERY = 2
#: In this many of the worlds the deal is also played out at random after the trick, so a card's
#: effect on later tricks and on the scoring thresholds (61, черпак, the caught queen) is felt.
ROLL_WORLDS = 12
#: Card points per penalty point of the play-outs' mean worth.
ROLL_WEIGHT = 15.0


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
        #: The sides of this deal (``sochi``'s are formed per deal) and how many seats play.
        self.pair_of = view.pair_of
        self.n = len(view.pair_of)
        #: The partner; the lone player of ``sochi`` has none and stands in for himself (his own hand).
        partner = view.partner
        self.partner = view.seat if partner is None else partner
        self.legal = legal
        self.hand = k.known[self.me]
        s = k.static
        self.open_seat = s.open_seat
        # Cards each other seat may hold (seen there, or unseen and not excluded by a void).
        self.possible = [k.known[h] | k.allowed[h] if h != self.me else 0 for h in range(self.n)]
        self.out = 0  # unplayed cards outside my hand
        for h in range(self.n):
            if h != self.me:
                self.out |= self.possible[h]
        self.out |= k.allowed[N_SEATS]
        order = s.orders[k.leader]
        self.later = order[len(view.trick) + 1 :]
        self.trick_pts = sum(c.points for _, c in view.trick)
        self.view = view
        self.top = t.top.bit
        #: Whether the шмон catches the ♣Q here (not in ``tricks``): the queen rules apply.
        self.catch = bool(s.special)
        #: What each card counts for in a trick: card points, or the same for every card in ``tricks``.
        self.worth = s.card_worth
        self.rng = rng
        self._worlds: list[World] | None = None
        self._draws: list[float] = []
        self._streams: list[list[float]] = []
        # Per world: the cards of the seats still to play in this trick, and the trick ends found so far
        # by what those seats can tell apart (:func:`_trick_key`).
        self._rest_cards: list[int] = []
        self._ends: list[dict[tuple[int, int, int, int], tuple[int, int, int, list[int]]]] = []

    # -- facts

    def opponents_later(self) -> list[int]:
        return [h for h in self.later if self.pair_of[h] != self.pair_of[self.me] and h != self.open_seat]

    def shmon_threat(self) -> bool:
        """Whether an opponent still to play in this trick may hold the шмон."""
        return any(self.possible[h] & self.top for h in self.opponents_later())

    def keep(self, b: int) -> float:
        """How much a card is worth keeping for later (beyond its points)."""
        cid = b.bit_length() - 1
        t = self.t
        if b == self.top and self.catch:
            return TOP_KEEP
        if b & t.trump_mask:
            higher_out = sum(
                1 for x in bits_of(self.out & t.trump_mask) if t.power[x.bit_length() - 1] > t.power[cid]
            )
            base = 30.0 - 3.0 * higher_out
            return max(base, 8.0) + (10.0 if b == QC_BIT and self.catch and self.out & self.top else 0.0)
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
        opponents = [
            h for h in range(self.n) if self.pair_of[h] != self.pair_of[self.me] and h != self.open_seat
        ]
        qc_danger = self.catch and bool(self.out & self.top) and not self.k.known[self.partner] & self.top
        catch_qc = QC_BIT if self.catch else 0
        worth = self.worth

        def score(b: int) -> float:
            cid = b.bit_length() - 1
            pts = worth[cid]
            e = t.eff[cid]
            if e == 0:
                if b == QC_BIT and qc_danger:
                    return -100.0
                master = not any(
                    t.power[x.bit_length() - 1] > t.power[cid] for x in bits_of(self.out & t.trump_mask)
                )
                if master and trumps_out and my_trumps * 2 >= trumps_out:
                    return 20.0 + (5.0 if b == self.top and self.out & catch_qc else 0.0)
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

        return self.look(legal, lambda b: LEAD_WEIGHT * score(b))

    # -- following

    def follow(self) -> int:
        view = self.view
        legal = self.legal
        if not self.catch:
            return self.look(legal)
        opp_cards = 0
        for s1, c in view.trick:
            if self.pair_of[s1] != self.pair_of[self.me]:
                opp_cards |= c.bit
        # The queen catch outweighs any trick: take it, and never walk into it.
        if legal & self.top and opp_cards & QC_BIT:
            return self.top
        avoid = 0
        if legal & QC_BIT and (opp_cards & self.top or self.shmon_threat()):
            avoid |= QC_BIT
        opp_qc = any(
            self.possible[h] & QC_BIT for h in range(self.n) if self.pair_of[h] != self.pair_of[self.me]
        )
        if legal & self.top and opp_qc and self.trick_pts < 10:
            avoid |= self.top  # keep the шмон to catch their ♣Q unless a rich trick needs it
        choices = legal & ~avoid or legal & ~(avoid & QC_BIT) or legal
        return self.look(choices)

    def worlds(self) -> list[World]:
        """The sampled worlds, drawn once per decision, with their random numbers."""
        if self._worlds is None:
            self._worlds = [sample_world(self.k, self.rng) for _ in range(LOOK_WORLDS)]
            self._draws = [self.rng.random() for _ in range(LOOK_WORLDS)]
            self._rest_cards = []
            for w in self._worlds:
                cards = 0
                for h in self.later:
                    cards |= w.hands[h]
                self._rest_cards.append(cards)
            self._ends = [{} for _ in self._worlds]
            # Common random numbers: every card's play-out in a world uses the same stream. A play-out
            # draws at most one number per card left, so each stream is drawn once, here, not seeded
            # again for every card.
            w0 = self._worlds[0]
            left = w0.cards_left()
            self._streams = []
            for _ in range(ROLL_WORLDS):
                rnd = random.Random(self.rng.getrandbits(32)).random
                self._streams.append([rnd() for _ in range(left)])
        return self._worlds

    def look(self, choices: int, bonus: Callable[[int], float] | None = None) -> int:
        """The card whose trick, averaged over sampled worlds, is worth most (in card points to my pair)
        after what the card is worth keeping, plus ``bonus``."""
        plays0 = [(seat, c.bit) for seat, c in self.view.trick]
        mine = self.pair_of[self.me]
        worlds = self.worlds()
        best, best_v = 0, -1e9
        for b in merge_equivalent(worlds[0], choices):  # equal cards need weighing once
            plays = [*plays0, (self.me, b)]
            pts_b = self.worth[b.bit_length() - 1]
            total = 0.0
            roll = 0.0
            for i, (ws, pts, qp, out) in enumerate(self.trick_ends(plays)):
                if qp >= 0:
                    total += QUEEN_VALUE if qp != mine else -QUEEN_VALUE
                else:
                    total += pts + pts_b if self.pair_of[ws] == mine else -(pts + pts_b)
                if i < ROLL_WORLDS:
                    roll += play_out(worlds[i], [b, *out], self._streams[i])
            v = total / len(worlds) - KEEP_WEIGHT * self.keep(b)
            if ROLL_WORLDS:
                sign = 1 if mine == 0 else -1
                v += ROLL_WEIGHT * sign * roll / ROLL_WORLDS
            if bonus is not None:
                v += bonus(b)
            if v > best_v:
                best, best_v = b, v
        return best

    def trick_ends(self, plays: list[tuple[int, int]]) -> list[tuple[int, int, int, list[int]]]:
        """Per sampled world, how the trick ``plays`` (ending in my card) ends (:func:`finish`): the
        winning seat, the card points without my card's, the pair whose ♣Q is caught and the cards
        played after mine. The seats after me never look at my hand, so the worlds are passed as they
        are; and they answer alike two cards they cannot tell apart (:func:`_trick_key`, with the cards
        that would beat mine narrowed to theirs), so each world plays such a trick once: a lead of the
        ace or the ten of a suit nobody after me can beat, say."""
        s = self.k.static
        rest = tuple(self.later)
        pts_b = self.worth[plays[-1][1].bit_length() - 1]
        careless_pair = 1 - self.pair_of[self.me]
        e, ws, above, shown = _trick_key(s, plays)
        ends = []
        for i, world in enumerate(self.worlds()):
            key = (e, ws, self._rest_cards[i] & above, shown)
            end = self._ends[i].get(key)
            if end is None:
                out: list[int] = []
                careless = (careless_pair, self._draws[i]) if i % CARELESS_EVERY == 0 else None
                ws1, pts, qp = finish(s, world.hands, plays, rest, careless, out, world.stacks)
                end = self._ends[i][key] = (ws1, pts - pts_b, qp, out)
            ends.append(end)
        return ends


def _trick_key(s: Static, plays: list[tuple[int, int]]) -> tuple[int, int, int, int]:
    """What the seats still to play in a trick see of it (:func:`finish`): the suit led, the seat
    winning it, the cards that would beat his (:func:`beaters`) and the cards played they answer to
    beyond those: the last card if it is the ♣Q or the шмон (the cards before it are the same for every
    card weighed) and, under ``matadors``, the card led if it is a matador — it spares a seat whose
    only trumps are higher matadors from following (:func:`~bot.engine.play.follow_mask`), which a
    plain trump led does not, so leading the ♦J and the ♦A may be answered differently though nobody
    after holds a card between them. The policy compares the winning card only with their cards, so
    two winning cards none of theirs falls between get the same answers."""
    led = plays[0][1]
    e = s.eff[led.bit_length() - 1]
    rows = s.strength[e]
    ws, wp = -1, -2
    for seat, b in plays:
        p = rows[seat][b.bit_length() - 1]
        if p > wp:
            ws, wp = seat, p
    shown = plays[-1][1] & s.special
    if s.matadors:
        shown |= led & s.mat_mask
    return e, ws, beaters(s)[e][wp + 2], shown


def play_out(w: World, rest: list[int], draws: list[float]) -> float:
    """The worth to pair A of world ``w`` once ``rest`` ends its current trick (the cards still to come,
    in seat order; they may stop at a caught ♣Q) and the deal is played on at random (the kernel's
    play-out), drawing its random numbers from ``draws`` (at most one per card left). The rule player
    runs a dozen of these per card it weighs, so its random numbers are drawn once per world, not per
    card (common random numbers)."""
    w = w.copy()
    for b in rest:
        if w.play(b) == OVER:
            break
    return worth(kernel_play_out(w, None, iter(draws).__next__))


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
        # Against a shuffled deck every cut is as good as any other: half, of the handful offered.
        return Cut(dict(cut_points(view.stock_size)).get("half", 1))
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
        # The exchange is offered only when it leaves the open hand with at most one small trump, and
        # then it pays: measured in the arena (classic, 600 pairs), accepting it every time won 86.6% of
        # deals against random where the old hand-count rule (accept with 0-1 or 5+ trumps) won 79.9%,
        # and beat that rule by +0.39 penalty points per deal head to head.
        return Exchange(True) if Exchange(True) in legal else first
    if isinstance(first, Discard):
        return choose_discard(view)
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
    bragger = (view.dealer + 1) % len(view.pair_of)
    if view.seat == bragger:  # his highest, to win the brag
        return max(pool, key=lambda a: (t.power[a.cards[0].id], a.cards[0].points))
    # Everyone else lays his cheapest (:func:`bot.engine.ai.weigh.brag_likelihood` infers from it).
    return min(pool, key=lambda a: (sum(c.points for c in a.cards), sum(t.power[c.id] for c in a.cards)))
