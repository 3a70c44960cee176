"""What one seat knows of the cards it cannot see: everything a sampled world must agree with.

A seat knows its own hand, every card played, the cards it saw in other hands (flip's turned-up cards,
the swapped card, the open hand) and how many cards each hand and draw's stock hold; in classic's
mirror and fishing, how many trumps each player took from the deck (not which). Failing to follow
shows a void (and, where a void player must trump, no trumps either); a draw leader whose pair led the
last trick and still led a trump shows he held no plain card. Draw's voids last only until the next
draw from the stock. A blind (``dummy``, ``two_dummies``) never follows suit, so its plays show no
void; its stack is face down, so a world stacks the cards it gives a blind in a random order (its
partner knows which cards it kept from the brag — they are in his ``seen`` — but not their order).
:func:`knowledge` gathers it as a :class:`Knowledge`, which :func:`bot.engine.ai.sample.sample_world`
deals worlds from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.engine.cards import Card, Rank, mask_of
from bot.engine.deal import PARTNER_OF, Phase
from bot.engine.errors import KozelError
from bot.engine.order import Tables
from bot.engine.play import play_rules
from bot.engine.rules import ClassicOptions
from bot.engine.sochi import N_DISCARDS
from bot.engine.view import SeatView

from .world import N_SEATS, PAIR_OF, Static, bits_of

STOCK = N_SEATS  # the draw pile takes part in sampling as a fifth "seat"


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat knows about where the unseen cards lie, ready for sampling."""

    static: Static
    me: int
    #: Per seat: the cards known to be there (own hand, seen cards); index 4 is unused.
    known: tuple[int, ...]
    #: Per seat and the stock: how many unseen cards go there.
    need: tuple[int, ...]
    #: Per seat and the stock: which unseen cards may go there (voids removed).
    allowed: tuple[int, ...]
    unseen: tuple[int, ...]
    leader: int
    trick: tuple[tuple[int, int], ...]
    pts: tuple[int, int]
    won: tuple[int, int]
    restricted: bool
    first: int
    #: Per unseen card (by bit): how many places (seats, the stock) may take it.
    places: dict[int, int]
    #: Per unseen card (by bit): the places that may take it and still need cards, in order.
    takers: dict[int, tuple[int, ...]]
    #: Flip's swap phase, which every world must be able to have produced (``None``: no swap phase).
    swaps: SwapCheck | None = None
    #: Seats known to hold exactly one unseen trump, with the trumps it may be: :func:`_place` gives
    #: each one of them first (the rest of his cards are plain: a trump void in ``allowed``).
    one_trump: tuple[tuple[int, int], ...] = ()
    #: Classic's mirror and fishing: (seat, n, trumps): the seat's unseen cards hold at least ``n`` of
    #: ``trumps`` (he took that many from the deck in everyone's sight); :func:`_place` gives them first.
    min_trumps: tuple[tuple[int, int, int], ...] = ()
    #: Whether the voids leave any world at all (else the sampler ignores them at once).
    strict: bool = True
    #: Whether the cards placed in the stock are a draw pile the play draws from (``draw``), or
    #: ``sochi``'s discards, which stay out of play.
    pile_plays: bool = True
    #: How many seats play.
    n: int = N_SEATS


@dataclass(frozen=True, slots=True)
class SwapCheck:
    """What flip's swap phase showed everyone: each seat in turn, clockwise from the dealer's left, was
    asked whether to pass his trump iff he held exactly one trump at that moment (the table shows who
    is deciding), and each swap that took place. So a seat never asked did not hold exactly one trump,
    one who kept his held exactly one, and a swapper gave his only trump to his partner for a card.

    Only trump counts matter, so :meth:`fits` replays the phase on counts: per swap, the returned card
    was a trump or not (each seat's own knowledge of the cards is in the world already)."""

    #: The seats in the order they were checked.
    order: tuple[int, ...]
    #: The decisions, in order: (seat, whether he passed his trump).
    asked: tuple[tuple[int, bool], ...]
    #: Per seat: the cards he has played this deal (with his hand, what he held when play began).
    played: tuple[int, ...]
    tm: int

    def trumps_left(self, known: list[int], returned: bool = False) -> tuple[list[int], list[int]]:
        """The seats whose unseen cards hold no trump, and those whose unseen cards hold exactly one
        (``known`` per seat: the cards seen there, without the cards played). A swapper gave his only
        trump away and got a plain card back (a trump for a trump changes nothing for his partner) —
        or, if ``returned``, a trump, and holds exactly one like a seat who kept his; a seat who kept
        his only trump has none left unseen once a trump of his is known, else exactly one. A seat
        whose hand a later swap changed (his partner passing him a trump) is left out."""
        tm = self.tm
        gone: list[int] = []
        one: list[int] = []
        for i, (x, passed) in enumerate(self.asked):
            if any(p and (s + 2) % N_SEATS == x for s, p in self.asked[i + 1 :]):
                continue
            if passed and not returned:
                gone.append(x)
            else:
                (gone if (known[x] | self.played[x]) & tm else one).append(x)
        return gone, one

    def fits(self, hands: list[int]) -> bool:
        """Whether a world whose unplayed hands are ``hands`` agrees with the swap decisions seen."""
        tm, played = self.tm, self.played
        n = [((hands[h] | played[h]) & tm).bit_count() for h in range(N_SEATS)]
        swaps = [x for x, passed in self.asked if passed]
        for returned in range(1 << len(swaps)):  # bit j: the j-th swap's returned card was a trump
            before = n.copy()
            ok = True
            for j in range(len(swaps) - 1, -1, -1):  # undo the swaps, last first
                x, y = swaps[j], (swaps[j] + 2) % N_SEATS
                e = returned >> j & 1
                if before[y] < 1 or before[x] < e:
                    ok = False
                    break
                before[x] += 1 - e
                before[y] -= 1 - e
            if ok and self._replay(before, returned):
                return True
        return False

    def _replay(self, n: list[int], returned: int) -> bool:
        """Whether trump counts ``n`` at the deal give the decisions seen, the swaps' returned cards
        trumps as the bits of ``returned`` say."""
        asked = self.asked
        i = j = 0
        for x in self.order:
            if n[x] != 1:
                continue
            if i >= len(asked) or asked[i][0] != x:
                return False
            if asked[i][1]:
                e = returned >> j & 1
                j += 1
                y = (x + 2) % N_SEATS
                if n[y] < e:
                    return False
                n[x] += e - 1
                n[y] += 1 - e
            i += 1
        return i == len(asked)


def eggs_before_of(view: SeatView) -> int:
    """Consecutive eggs before this deal, read back from the view's multiplier (a power of two)."""
    return max(view.multiplier, 1).bit_length() - 1


def brag_tricks(view: SeatView) -> int:
    """How many of ``view.tricks`` are classic's brag tricks (laid face up, nobody follows)."""
    return len(view.brag_laid[0][1]) if view.brag_laid else 0


def played_since_brag(view: SeatView) -> list[int]:
    """Per seat, the cards it has played since the brag (the trick in progress included)."""
    out = [0] * N_SEATS
    for tr in view.tricks[brag_tricks(view) :]:
        for seat, c in tr.plays:
            out[seat] |= c.bit
    for seat, c in view.trick:
        out[seat] |= c.bit
    return out


def knowledge(view: SeatView) -> Knowledge:
    """Everything ``view``'s seat knows about the hidden cards, in the play phase — and at ``sochi``'s
    discard, where the lone player's worlds are those of the first lead but for the two cards he is
    about to lay away (:mod:`bot.engine.ai.discardsearch`)."""
    if view.phase not in (Phase.PLAY, Phase.DISCARD) or view.tables is None:
        raise KozelError(f"worlds are sampled in the play phase, not in {view.phase.value!r}")
    t = view.tables
    open_seat = view.open_seat
    static = play_rules(view.rules, t.trump, eggs_before_of(view), open_seat, view.pair_of)
    me = view.seat
    # With fewer than four seats (``sochi``) the missing seats' entries stay empty.
    n = len(view.pair_of)
    known = [mask_of(list(cs)) for cs in view.seen] + [0] * (N_SEATS - n)
    known[me] = mask_of(list(view.hand))
    unseen = mask_of(list(view.unseen()))
    need = [0] * (N_SEATS + 1)
    for h in range(n):
        if h != me:
            need[h] = view.hand_sizes[h] - known[h].bit_count()
    # The place besides the hands: draw's stock, or ``sochi``'s discards (hidden from all but the lone
    # player; they take no part in play, :attr:`Knowledge.pile_plays`).
    hidden_discards = N_DISCARDS if view.lone is not None and view.seat != view.lone else 0
    need[STOCK] = view.stock_size + hidden_discards
    leader = view.trick[0][0] if view.trick else view.to_act
    assert leader is not None
    voids = _voids(view, static, leader)
    allowed = [unseen & ~voids[h] if h < n else 0 for h in range(N_SEATS)] + [unseen]
    swaps = _swap_check(view, t)
    one_trump: list[tuple[int, int]] = []
    strict = False
    if swaps is not None:
        # A swapper's partner returns a plain card as a rule; where no world fits that, he returned a
        # trump; where none fits either (a contradictory view), the plays alone constrain the worlds.
        for returned in (False, True):
            gone, one = swaps.trumps_left(known, returned)
            read = allowed.copy()
            ones = []
            for h in gone + one:
                if h != me:
                    if h in one:
                        ones.append((h, allowed[h] & t.trump_mask))
                    read[h] &= ~t.trump_mask
            if _fits(read, need, ones):
                allowed, one_trump, strict = read, ones, True
                break
    strict = strict or _fits(allowed, need, ())
    min_trumps = _brag_trumps(view, t, known, allowed, need)
    restricted = False
    if static.is_draw and not view.trick:
        restricted = not view.tricks or PAIR_OF[leader] == PAIR_OF[view.tricks[-1].leader]
    first = 0
    opts = view.rules.options
    if (
        isinstance(opts, ClassicOptions)
        and opts.first_lead_trump_ace
        and len(view.tricks) == brag_tricks(view)
    ):
        first = Card(Rank.ACE, t.trump).bit
    return Knowledge(
        static=static,
        me=me,
        known=tuple(known),
        need=tuple(need),
        allowed=tuple(allowed),
        unseen=tuple(bits_of(unseen)),
        leader=leader,
        trick=tuple((s, c.bit) for s, c in view.trick),
        pts=view.points,
        won=view.tricks_won,
        restricted=restricted,
        first=first,
        places={b: sum(1 for a in allowed if a & b) for b in bits_of(unseen)},
        takers={
            b: tuple(h for h in range(N_SEATS + 1) if need[h] and allowed[h] & b) for b in bits_of(unseen)
        },
        swaps=swaps,
        one_trump=tuple((h, m) for h, m in one_trump if m),
        min_trumps=min_trumps,
        strict=strict,
        pile_plays=not hidden_discards,
        n=n,
    )


def _brag_trumps(
    view: SeatView, t: Tables, known: list[int], allowed: list[int], need: list[int]
) -> tuple[tuple[int, int, int], ...]:
    """Classic's mirror and fishing: a player who took ``k`` trumps from the deck began play with at
    least ``min(k, hand size)`` trumps (his excess went to his partner, and it was his latest trumps;
    whatever came to him from his partner's excess was trumps too; the exchange only adds trumps to
    the strong hand). So his unseen cards hold at least that many, less the trumps he has played and
    those seen in his hand. The open hand, whose trumps went in the exchange, is seen whole."""
    took = view.brag_took
    if not any(took):
        return ()
    tm = t.trump_mask
    size = view.rules.hand_size - brag_tricks(view)
    played = played_since_brag(view)
    out = []
    free = 0
    for h in range(N_SEATS):
        if h in (view.seat, view.open_seat, view.lone) or not need[h]:  # the lone may discard trumps
            continue
        n = min(took[h], size) - ((played[h] | known[h]) & tm).bit_count()
        if n <= 0:
            continue
        n = min(n, need[h])
        may = allowed[h] & tm
        if may.bit_count() < n:
            return ()  # the view contradicts it (it cannot at a real table): sample without it
        out.append((h, n, may))
        free |= may
    if free.bit_count() < sum(n for _, n, _ in out):
        return ()
    return tuple(out)


def _fits(allowed: list[int], need: list[int], one_trump: Sequence[tuple[int, int]]) -> bool:
    """Whether the unseen cards can be dealt so that every place gets the cards it needs from those it
    may take (Gale's condition: every set of places may take at least as many cards as it needs). A
    seat of ``one_trump`` may also take one of his trumps."""
    may = allowed.copy()
    for h, m in one_trump:
        may[h] |= m
    places = [h for h in range(N_SEATS + 1) if need[h]]
    for subset in range(1, 1 << len(places)):
        m = n = 0
        for i, h in enumerate(places):
            if subset >> i & 1:
                m |= may[h]
                n += need[h]
        if m.bit_count() < n:
            return False
    return True


def _swap_check(view: SeatView, t: Tables) -> SwapCheck | None:
    """Flip's swap phase as :class:`SwapCheck` (``None`` in the other presets)."""
    if view.rules.preset != "flip":
        return None
    played = [0] * N_SEATS
    for tr in view.tricks:
        for seat, c in tr.plays:
            played[seat] |= c.bit
    for seat, c in view.trick:
        played[seat] |= c.bit
    left = (view.dealer + 1) % N_SEATS
    return SwapCheck(
        order=tuple((left + k) % N_SEATS for k in range(N_SEATS)),
        asked=view.swaps,
        played=tuple(played),
        tm=t.trump_mask,
    )


def _voids(view: SeatView, static: Static, leader: int) -> list[int]:
    """Per seat, the cards it cannot hold (whole effective suits it showed itself void in); ``leader``
    leads the current trick."""
    t = view.tables
    assert t is not None
    voids = [0] * N_SEATS
    skip = brag_tricks(view)
    tricks = [tr.plays for tr in view.tricks[skip:]]
    if view.trick:
        tricks.append(view.trick)
    # In draw a void lasts only until the next draw: only tricks after which nobody drew count.
    n_draws = 0
    if static.is_draw:
        n_draws = (view.rules.deck_size - 4 * N_SEATS) // N_SEATS
    plain_mask = t.deck_mask & ~t.trump_mask
    for i, plays in enumerate(tricks):
        if static.is_draw and i < n_draws:
            continue
        lead_seat, led = plays[0]
        e = t.eff[led.id]
        if static.is_draw and e == 0 and i > 0:
            prev_leader = tricks[i - 1][0][0]
            if PAIR_OF[prev_leader] == PAIR_OF[lead_seat]:
                voids[lead_seat] |= plain_mask  # a restricted leader leads a trump only with no plain card
        for seat, c in plays[1:]:
            if seat == static.open_seat or static.blinds >> seat & 1 or t.eff[c.id] == e:
                continue
            if e == 0 and static.matadors and led.bit & static.mat_mask:
                continue  # he may have kept higher matadors back
            voids[seat] |= t.suit_masks[e]
            if static.must_trump and t.eff[c.id] != 0:
                voids[seat] |= t.trump_mask
    if static.is_draw and "last_card_swap" in view.events:
        # Draw's last trick began with the leader's lone trump and his partner's lone plain card
        # swapped, in everyone's sight: each now holds the card the other's voids were shown about.
        partner = PARTNER_OF[leader]
        voids[leader], voids[partner] = voids[partner] | t.trump_mask, voids[leader] | plain_mask
    return voids
