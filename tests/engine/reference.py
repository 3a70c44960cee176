"""A straightforward, list-based Kozel deal, written from RULES.md alone: the yardstick of the engine's
bench (``python -m bot.measure.engine_bench``) and an independent oracle for the play kernel's tests.

Cards are :class:`~bot.engine.cards.Card` values, hands lists of them kept in card-id order, the legal
cards a list comprehension, a trick's winner a ``max`` over a key; each card's effective suit and
strength come from dicts made once per trump suit from the trump order as RULES.md prints it, not from
the engine's tables.
It plays the forms the bench times with their default options: classic's first deal, flip with trump
turned up (and the one-trump swap) and draw with its stock; and ``tricks`` (its own trumps, no queen
catch, scored by tricks). Random choices follow the engine's
convention (the j-th legal card in card-id order, ``j = int(rnd() * n)``, drawn only when there is a
choice), so from the same position and the same random numbers it plays the same cards as the
kernel's random play-out.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

from bot.engine.cards import Card

_PLAIN = "ATK9876"  # plain order, high to low: the ten above the king
_PLAIN_TRICKS = "ATKQ9876"  # tricks: the queens but the ♣Q are plain cards, under the king
_SUITS = "CSHD"
_RANKS = "6789TJQKA"  # card-id order within a suit (bot.engine.cards)


def _by_id(c: Card) -> int:
    return c.id


def deck_cards(size: int) -> list[Card]:
    """The cards of a 36- or 32-card deck, in card-id order."""
    return [Card.parse(c) for c in deck(size)]


_QC = Card.parse("QC")
_JC = Card.parse("JC")


def deck(size: int) -> list[str]:
    """The codes of a 36- or 32-card deck, in card-id order."""
    ranks = _RANKS if size == 36 else _RANKS[1:]
    return [r + s for s in _SUITS for r in ranks]


def trump_order(deck_size: int, trump: str, preset: str = "classic") -> list[str]:
    """The trumps high to low, as RULES.md §2-§5 print them."""
    if preset == "tricks":
        return ["6C", "JC", "JS", "JH", "JD", "AC", "TC", "KC", "QC", "9C", "8C", "7C"]
    top = "7C" if deck_size == 32 else "6C"
    order = [top] + ["Q" + s for s in _SUITS] + ["J" + s for s in _SUITS]
    order += [r + trump for r in _PLAIN if r + trump not in order]
    return [c for c in order if c in deck(deck_size)]


@cache
def card_order(
    deck_size: int, trump: str, preset: str = "classic"
) -> tuple[dict[Card, str], dict[Card, int], Card]:
    """Per card its effective suit (``T`` for every trump) and strength, and the top trump (the шмон)."""
    trumps = trump_order(deck_size, trump, preset)
    plain = _PLAIN_TRICKS if preset == "tricks" else _PLAIN
    suit = {Card.parse(c): ("T" if c in trumps else c[1]) for c in deck(deck_size)}
    power = {
        c: (100 - trumps.index(c.code) if c.code in trumps else 10 - plain.index(c.code[0])) for c in suit
    }
    return suit, power, Card.parse(trumps[0])


@dataclass
class RefDeal:
    """One deal's state in lists: hands, the trick in play, the stock, card points per pair."""

    preset: str
    deck_size: int
    trump: str
    hands: list[list[Card]]
    leader: int
    stock: list[Card] = field(default_factory=list)
    must_trump: bool = False
    restricted: bool = False
    trick: list[tuple[int, Card]] = field(default_factory=list)
    points: list[int] = field(default_factory=lambda: [0, 0])
    tricks_won: list[int] = field(default_factory=lambda: [0, 0])
    queen_pair: int | None = None
    over: bool = False
    winners: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        for h in self.hands:
            h.sort(key=_by_id)
        self.suit, self.power, self.top = card_order(self.deck_size, self.trump, self.preset)

    def copy(self) -> RefDeal:
        """An independent copy of the position."""
        return RefDeal(
            self.preset,
            self.deck_size,
            self.trump,
            [h.copy() for h in self.hands],
            self.leader,
            self.stock.copy(),
            self.must_trump,
            self.restricted,
            self.trick.copy(),
            self.points.copy(),
            self.tricks_won.copy(),
        )

    def play_random(self, rnd: Callable[[], float]) -> tuple[int, int]:
        """Play a copy of this position to its end with random legal cards; the penalty per pair."""
        return play_random(self.copy(), rnd)

    def to_act(self) -> int:
        return (self.leader + len(self.trick)) % 4

    def legal(self) -> list[Card]:
        """The cards the seat to act may play, in card-id order."""
        hand = self.hands[self.to_act()]
        suit = self.suit
        if not self.trick:
            if self.restricted:
                return [c for c in hand if suit[c] != "T"] or hand
            return hand
        led = suit[self.trick[0][1]]
        cards = [c for c in hand if suit[c] == led]
        if not cards and self.must_trump:
            cards = [c for c in hand if suit[c] == "T"]
        return cards or hand

    def play(self, c: Card) -> None:
        seat = self.to_act()
        self.hands[seat].remove(c)
        self.trick.append((seat, c))
        if (c == _QC or c == self.top) and self.preset != "tricks":  # tricks: no queen catch
            other = self.top if c == _QC else _QC
            for s, x in self.trick:
                if x == other and (s - seat) % 2:
                    self.queen_pair = (seat if c == _QC else s) % 2
                    self.over = True
                    return
        if len(self.trick) < 4:
            return
        suit, power = self.suit, self.power
        led = suit[self.trick[0][1]]
        winner, _ = max(self.trick, key=lambda p: power[p[1]] if suit[p[1]] in ("T", led) else -1)
        self.points[winner % 2] += sum(x.points for _, x in self.trick)
        self.tricks_won[winner % 2] += 1
        self.winners.append(winner)
        previous_leader = self.leader
        self.trick = []
        for k in range(4):
            if self.stock:
                hand = self.hands[(winner + k) % 4]
                hand.append(self.stock.pop(0))
                hand.sort(key=_by_id)
        self.leader = winner
        if not any(self.hands):
            self.over = True
        elif self.preset == "draw":
            self._draw_lead_rule(previous_leader)

    def _draw_lead_rule(self, previous_leader: int) -> None:
        # RULES.md §4: a leader whose pair led the last trick too may not lead a trump while he holds a
        # plain card; with one card each, his lone trump and his partner's lone plain card change hands.
        self.restricted = (self.leader - previous_leader) % 2 == 0
        mine, theirs = self.hands[self.leader], self.hands[(self.leader + 2) % 4]
        lone_trump = len(mine) == len(theirs) == 1 and self.suit[mine[0]] == "T" != self.suit[theirs[0]]
        if self.restricted and lone_trump:
            mine[0], theirs[0] = theirs[0], mine[0]

    def score(self) -> tuple[int, int]:
        """The penalty charged per pair (RULES.md §1-§4, default thresholds)."""
        if self.queen_pair is not None:
            amount = 8 if self.preset == "flip" else 4
            return (amount, 0) if self.queen_pair == 0 else (0, amount)
        if self.preset == "tricks":  # by tricks: fewer than 5 → 2, 2 or fewer → 4, none → 6
            loser = 0 if self.tricks_won[0] < self.tricks_won[1] else 1
            n = self.tricks_won[loser]
            amount = 6 if n == 0 else 4 if n <= 2 else 2
            return (amount, 0) if loser == 0 else (0, amount)
        a, b = self.points
        if a == b:
            return (0, 0)
        loser = 0 if a < b else 1
        lost = self.points[loser]
        if self.preset == "draw":
            amount = 2
        else:
            amount = 6 if lost == 0 else 4 if lost <= (29 if self.preset == "flip" else 30) else 2
        return (amount, 0) if loser == 0 else (0, amount)


def pick(options: Sequence[Card], rnd: Callable[[], float]) -> Card:
    """The engine's convention: the j-th option, ``j = int(rnd() * n)``, drawn only when there is a choice."""
    return options[int(rnd() * len(options))] if len(options) > 1 else options[0]


def play_random(deal: RefDeal, rnd: Callable[[], float]) -> tuple[int, int]:
    """Play ``deal`` to its end with random legal cards; the penalty per pair."""
    while not deal.over:
        deal.play(pick(deal.legal(), rnd))
    return deal.score()


def _one_at_a_time(cards: Sequence[Card], first: int, hands: list[list[Card]]) -> None:
    for i, c in enumerate(cards):
        hands[(first + i) % 4].append(c)


def deal_random(preset: str, rng: random.Random, dealer: int) -> RefDeal | None:
    """Shuffle, deal and take the decisions before the first lead at random; ``None`` for a void deal."""
    size = 36 if preset in ("classic", "tricks") else 32
    cards = deck_cards(size)
    rng.shuffle(cards)
    left = (dealer + 1) % 4
    hands: list[list[Card]] = [[], [], [], []]
    if preset == "tricks":  # a first deal: the ♣J holder leads
        _one_at_a_time(cards, left, hands)
        return RefDeal(preset, size, "C", hands, next(s for s in range(4) if _JC in hands[s]))
    if preset == "classic":
        _one_at_a_time(cards, left, hands)
        if any(sum(c.code[0] == "Q" for c in h) == 4 for h in hands):
            return None
        leader = next(s for s in range(4) if _JC in hands[s])
        return RefDeal(preset, size, "D", hands, leader)
    if preset == "draw":
        _one_at_a_time(cards[:16], left, hands)
        return RefDeal(preset, size, "C", hands, dealer, cards[16:], restricted=True)
    # flip: cards turned up to the dealer's left until one is neither the шмон, a queen nor a jack.
    n = 1 + next(i for i, c in enumerate(cards) if c.code != "7C" and c.code[0] not in "QJ")
    if n > 8:
        return None
    for k in range(4):
        hands[(left + k) % 4] += cards[k * n : (k + 1) * n]
    _one_at_a_time(cards[4 * n :], left, hands)
    deal = RefDeal(preset, size, cards[n - 1].suit.value, hands, left, must_trump=True)
    for k in range(4):  # the swap, clockwise from the dealer's left
        seat = (left + k) % 4
        mine = [c for c in hands[seat] if deal.suit[c] == "T"]
        if len(mine) == 1 and rng.random() < 0.5:
            partner = hands[(seat + 2) % 4]
            back = pick(partner, rng.random)
            hands[seat].remove(mine[0])
            partner.remove(back)
            hands[seat].append(back)
            partner.append(mine[0])
            hands[seat].sort(key=_by_id)
            partner.sort(key=_by_id)
    return deal
