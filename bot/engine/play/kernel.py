"""The play phase on bit masks: which cards may be played, who wins a trick, what happens when it ends.

Hands are bit masks over ``Card.id``; a trick is a list of ``(seat, card bit)``. The functions here are
the rules, once: :func:`lead_mask` and :func:`follow_mask` (following, trumping when void, matadors,
the open hand, the first-lead card, draw's lead rule), :func:`turned` (a blind's card: the top of its
stack, never following suit), :func:`caught` (the шмон catches the ♣Q, not a blind's),
:func:`refill` (draw's stock) and :func:`draw_lead_rule` (draw's lead rule and its last-card swap).
:class:`PlayState` puts them together card by card, for a real deal (:class:`bot.engine.deal.Deal`
delegates its play phase to one) and for every world a bot player imagines; the exact solver calls the
functions directly on the positions it searches.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine.cards import POINTS_BY_ID

from .setup import QC_BIT, PlayRules

#: What :meth:`PlayState.play` returns: the trick goes on, a trick was completed, the deal is over.
GOES_ON, TRICK_DONE, OVER = 0, 1, 2
_POINTS = POINTS_BY_ID


def lead_mask(s: PlayRules, hand: int, first: int, restricted: bool) -> int:
    """The cards a leader holding ``hand`` may lead: the first-lead card if he holds it (``first``),
    no trump while he holds a plain card if the lead is ``restricted`` (draw), else any."""
    if first:
        return first & hand or hand
    if restricted:
        return hand & ~s.tm or hand
    return hand


def follow_mask(s: PlayRules, seat: int, hand: int, led_eff: int, led: int) -> int:
    """The cards ``seat`` holding ``hand`` may play to a trick led with card bit ``led`` (effective suit
    ``led_eff``): the led suit if he holds it — but for a lower matador led, when his only trumps are
    higher matadors (``matadors``); else a trump when void, if ``must_trump_when_void``; else any.
    The open hand holding no trump plays any card."""
    if seat == s.open_seat and not hand & s.tm:
        return hand
    m = hand & s.suit_masks[led_eff]
    if m and not led_eff and s.matadors and led & s.mat_mask and not m & ~s.higher[led.bit_length() - 1]:
        return hand
    return m or hand & s.fallback or hand


def turned(stack: Sequence[int], hand: int) -> int:
    """The card a blind holding ``hand`` plays, lead or follow: the top of its face-down ``stack`` (card
    bits in the order it received them) still in hand — whatever it is, it never follows suit."""
    for b in stack:
        if hand & b:
            return b
    return hand & -hand  # a position built without stacks (a pre-play sketch): its lowest card


def caught(s: PlayRules, before: Sequence[tuple[int, int]], seat: int, b: int) -> int:
    """The pair whose ♣Q is caught when ``seat`` plays ``b`` (the ♣Q or the шмон) into a trick holding
    ``before``: the other card of the two from the other pair; -1 when none is caught. A blind's ♣Q
    cannot be caught (its own шмон catches like anyone's)."""
    pair_of = s.pair_of
    for s1, b1 in before:
        if b1 & s.special and pair_of[s1] != pair_of[seat]:
            if s.blinds >> (seat if b == QC_BIT else s1) & 1:
                return -1
            return pair_of[seat] if b == QC_BIT else pair_of[s1]
    return -1


def refill(s: PlayRules, hands: list[int], stock: Sequence[int], drawn: int, winner: int) -> int:
    """After a trick, each seat draws one card from the stock (``stock[drawn:]`` is left), the trick's
    winner first, then clockwise, while it lasts; returns how many of ``stock`` are drawn now."""
    end = len(stock)
    for seat in s.clockwise[winner]:
        if drawn == end:
            break
        hands[seat] |= stock[drawn]
        drawn += 1
    return drawn


#: What :func:`draw_lead_rule` returns: free lead, restricted lead, restricted after the last-card swap.
FREE, RESTRICTED, SWAPPED = 0, 1, 2


def draw_lead_rule(s: PlayRules, hands: list[int], winner: int, leader: int) -> int:
    """``draw``: whether ``winner``, who leads next, may not lead a trump while he holds a plain card —
    his pair also led the trick just played, which ``leader`` led. If so and each of the pair holds one
    card, his lone trump and his partner's lone plain card are swapped first, in ``hands``."""
    if s.pair_of[winner] != s.pair_of[leader]:
        return FREE
    partner = (winner + 2) % s.n
    mine, theirs = hands[winner], hands[partner]
    tm = s.tm
    if mine.bit_count() == 1 and theirs.bit_count() == 1 and mine & tm and not theirs & tm:
        hands[winner], hands[partner] = theirs, mine
        return SWAPPED
    return RESTRICTED


class PlayState:
    """A position of the play phase and :meth:`play` to move it on, a card at a time.

    ``seat`` is the seat to play and ``mask`` the cards he may play, worked out as the card before was
    played (every loop asks for them next), so hands change only through :meth:`play`; a blind's
    ``mask`` is its one turned card (:func:`turned`), so every loop plays it without a choice.
    ``stacks[seat]`` is a blind's face-down stack (shared between copies: a blind's next card is the
    first of it still in hand), empty for anyone else. ``stock`` is
    shared between copies (a tuple): ``stock[drawn:]`` is what is left of it. ``trick`` is a new list
    once a trick is complete, so a caller holding the old one still sees the whole trick.
    """

    __slots__ = (
        "after",
        "drawn",
        "exc",
        "first",
        "hands",
        "leader",
        "led_eff",
        "mask",
        "over",
        "pts",
        "queen_pair",
        "restricted",
        "rows",
        "s",
        "seat",
        "sm",
        "stacks",
        "stock",
        "swapped",
        "tp",
        "trick",
        "win_p",
        "win_seat",
        "won",
    )

    def __init__(
        self,
        s: PlayRules,
        hands: list[int],
        leader: int,
        trick: Sequence[tuple[int, int]] = (),
        pts: Sequence[int] = (0, 0),
        won: Sequence[int] = (0, 0),
        stock: Sequence[int] = (),
        restricted: bool = False,
        first: int = 0,
        stacks: Sequence[Sequence[int]] = (),
    ) -> None:
        self.s = s
        self.stacks = tuple(map(tuple, stacks)) or ((),) * s.n
        self.hands = hands
        self.leader = leader
        #: Per seat, who plays after him in this trick, -1 for its last (``s.after[leader]``).
        self.after = s.after[leader]
        self.pts = list(pts)
        self.won = list(won)
        self.stock = tuple(stock)
        self.drawn = 0
        self.restricted = restricted
        #: The card the first lead must be, if the leader holds it (classic's ``first_lead_trump_ace``).
        self.first = first
        self.over = False
        self.queen_pair: int | None = None
        #: Whether the last trick's end swapped draw's last cards (:func:`draw_lead_rule`).
        self.swapped = False
        self.trick: list[tuple[int, int]] = []
        self.led_eff = -1
        self.win_seat = -1
        self.win_p = -2
        self.tp = 0
        #: The led suit's cards, and whether following takes more than "the suit, else the fallback"
        #: (the open hand at the table, a matador led under ``matadors``: :func:`follow_mask` decides).
        self.sm = 0
        self.exc = False
        #: Per seat, the strength of each card in this trick (:attr:`PlayRules.strength` of the led suit).
        self.rows = s.strength[0]
        self.seat = leader
        for seat, b in trick:  # a trick in progress, played again: its cards are back in hand first
            hands[seat] |= b
            self.play(b)
        self.refresh()

    def refresh(self) -> None:
        """Work out :attr:`mask` again after ``hands`` were changed from outside (a test rearranging the
        hidden cards); :meth:`play` keeps it up to date by itself."""
        hand = self.hands[self.seat]
        if self.over:
            self.mask = 0
        elif self.s.blinds >> self.seat & 1:
            self.mask = turned(self.stacks[self.seat], hand)
        elif self.trick:
            self.mask = follow_mask(self.s, self.seat, hand, self.led_eff, self.trick[0][1])
        else:
            self.mask = lead_mask(self.s, hand, self.first, self.restricted)

    def copy(self) -> PlayState:
        """An independent copy (the rules and the stock are shared: neither changes)."""
        w = PlayState.__new__(PlayState)
        w.s = self.s
        w.hands = self.hands.copy()
        w.leader = self.leader
        w.after = self.after
        w.trick = self.trick.copy()
        w.pts = self.pts.copy()
        w.won = self.won.copy()
        w.stock = self.stock
        w.stacks = self.stacks
        w.drawn = self.drawn
        w.restricted = self.restricted
        w.first = self.first
        w.over = self.over
        w.queen_pair = self.queen_pair
        w.swapped = self.swapped
        w.led_eff = self.led_eff
        w.win_seat = self.win_seat
        w.win_p = self.win_p
        w.tp = self.tp
        w.sm = self.sm
        w.rows = self.rows
        w.exc = self.exc
        w.seat = self.seat
        w.mask = self.mask
        return w

    def to_act(self) -> int:
        """The seat to play next."""
        return self.seat

    def stock_left(self) -> int:
        """Cards still in the stock."""
        return len(self.stock) - self.drawn

    def cards_left(self) -> int:
        """Cards still to be played: in hands and in the stock."""
        return sum(h.bit_count() for h in self.hands) + len(self.stock) - self.drawn

    def legal(self, seat: int) -> int:
        """Bit mask of the cards ``seat`` may play now (0 unless he is :attr:`seat`, the seat to play)."""
        return self.mask if seat == self.seat and not self.over else 0

    def play(self, b: int) -> int:
        """:attr:`seat` plays the card with bit ``b`` (assumed legal): :data:`GOES_ON`, or
        :data:`TRICK_DONE` once the trick is complete (scored, the stock drawn, the next lead his
        winner's), or :data:`OVER` when the deal ends (played out, or the ♣Q caught)."""
        s = self.s
        trick = self.trick
        seat = self.seat
        hands = self.hands
        hands[seat] ^= b
        cid = b.bit_length() - 1
        if trick:
            p = self.rows[seat][cid]
            if p > self.win_p:
                self.win_seat = seat
                self.win_p = p
            self.tp += _POINTS[cid]
            if b & s.special:
                q = caught(s, trick, seat, b)
                if q >= 0:
                    trick.append(s.placed[seat][cid])
                    self.queen_pair = q
                    self.over = True
                    self.mask = 0
                    return OVER
            trick.append(s.placed[seat][cid])
        else:
            e = self.led_eff = s.eff[cid]
            rows = self.rows = s.strength[e]
            self.sm = s.suit_masks[e]
            self.exc = s.exc[cid]
            self.win_seat = seat
            self.win_p = rows[seat][cid]
            self.tp = _POINTS[cid]
            trick.append(s.placed[seat][cid])
        nxt = self.after[seat]
        if nxt >= 0:
            self.seat = nxt
            hand = hands[nxt]
            if self.exc:  # a blind at the table, the open hand, a matador led: the kernel's functions decide
                if s.blinds >> nxt & 1:
                    self.mask = turned(self.stacks[nxt], hand)
                else:
                    self.mask = follow_mask(s, nxt, hand, self.led_eff, trick[0][1])
            else:  # follow_mask's last rule, the one that applies here: the led suit, else the fallback
                self.mask = hand & self.sm or hand & s.fallback or hand
            return GOES_ON
        # The trick is complete: score it, draw from the stock, and let its winner lead (here, not in a
        # method of its own: a call less per trick of every play-out).
        winner = self.win_seat
        pair = s.pair_of[winner]
        self.pts[pair] += self.tp
        self.won[pair] += 1
        self.trick = []
        self.first = 0
        leader = self.leader
        self.leader = self.seat = winner
        self.after = s.after[winner]
        if self.drawn < len(self.stock):
            self.drawn = refill(s, hands, self.stock, self.drawn, winner)
        if not any(hands):
            self.over = True
            self.mask = 0
            return OVER
        if s.is_draw:
            rule = draw_lead_rule(s, hands, winner, leader)
            self.swapped = rule == SWAPPED
            if rule == FREE:
                self.restricted = False
                self.mask = hands[winner]
            else:
                self.restricted = True
                self.mask = lead_mask(s, hands[winner], 0, True)
        elif s.blinds >> winner & 1:  # a blind that wins a trick leads its next card
            self.mask = turned(self.stacks[winner], hands[winner])
        else:
            self.mask = hands[winner]
        return TRICK_DONE

    def value0(self) -> int:
        """The finished deal's worth to pair A in penalty points."""
        return self.s.value0(self.pts[0], self.pts[1], self.won[0], self.won[1], self.queen_pair)
