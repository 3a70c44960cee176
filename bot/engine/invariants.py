"""Card conservation: every card of the deck is in exactly one place, at every moment of a deal.

A card is in a hand, in a finished trick (the brag tricks included), in the trick being played, laid
in a brag that is not turned yet, in the brag's stock, in ``draw``'s stock, among ``sochi``'s discards
(the talon is a place only until the lone player takes it, which is at once), or still undealt
(``flip`` while trump is declared after three cards). The check is a handful of bit operations over those
places, cheap enough to run on every stored state, plus the bookkeeping that must agree with them:
card points and tricks per pair, equal hands in play, whose turn it is. A blind's stack (``dummy``,
``two_dummies``) is its hand in order: in play it must hold exactly the blind's cards, each once, and
the deal never waits for a blind to play.

Deals that ended void (a redeal, the deal passes) may stop with part of the deck undealt, so for
them the check is only that no card is in two places and none is foreign to the deck.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from bot.engine import flip
from bot.engine.cards import Card, cards_of, deck_mask, mask_of
from bot.engine.deal import Deal
from bot.engine.errors import KozelError
from bot.engine.phase import Phase
from bot.engine.rules import Rules
from bot.engine.sochi import LONE


class InvariantError(KozelError):
    """A deal state that breaks card conservation or its bookkeeping; the message lists what."""


def _places(deal: Deal) -> Iterator[tuple[str, int, int]]:
    """Every place a card can be in, as (name, bit mask, number of entries).

    A card in two places shows up in two masks; a card listed twice in one place (a stock is a list)
    makes the number of entries exceed the mask's bit count.
    """
    for seat, hand in enumerate(deal.hands):
        yield f"hand {seat}", hand, hand.bit_count()
    for i, trick in enumerate(deal.tricks):
        yield _place(f"trick {i + 1}", [c for _, c in trick.plays])
    if deal.phase is not Phase.OVER and deal.trick:
        # Once the deal is over the last trick is also in ``tricks``; until then it is only here.
        yield _place("the current trick", [c for _, c in deal.trick])
    if deal.stock:
        yield _place("the stock", deal.stock)
    st = deal.brag
    if st is not None:
        if st.stock:
            yield _place("the brag's stock", st.stock)
        if st.turns and st.laid:
            # Laid but not turned: once every seat has laid, the cards are the brag tricks.
            yield _place("the brag cards laid", [c for _, cs in st.laid for c in cs])
    if deal.talon.discards:
        yield _place("the discards", deal.talon.discards)
    if flip.declaring_after_three(deal):
        yield _place("the undealt deck", deal.deck[3:])


def _place(name: str, cs: Sequence[Card]) -> tuple[str, int, int]:
    m = 0
    for c in cs:
        m |= 1 << c.id
    return name, m, len(cs)


def conservation_problems(deal: Deal) -> list[str]:
    """What is wrong with ``deal``'s cards and bookkeeping (empty when nothing is)."""
    problems: list[str] = []
    full = deck_mask(deal.rules.deck_size)
    if len(deal.deck) != full.bit_count() or mask_of(deal.deck) != full:
        problems.append(f"the deck is not the {full.bit_count()}-card deck, each card once")
    seen = 0
    where: dict[int, str] = {}
    for name, m, n in _places(deal):
        if n != m.bit_count():
            problems.append(f"{n - m.bit_count()} card(s) listed twice in {name}")
        twice = seen & m
        if twice:
            for c in cards_of(twice):
                problems.append(f"{c} is in {where.get(c.id, '?')} and in {name}")
        seen |= m
        for c in cards_of(m & ~twice):
            where[c.id] = name
    if seen & ~full:
        problems.append("cards foreign to the deck: " + " ".join(map(str, cards_of(seen & ~full))))
    void = deal.result is not None and deal.result.void
    if not void and seen & full != full:
        problems.append("cards lost: " + " ".join(map(str, cards_of(full & ~seen))))
    if not void:
        problems.extend(_bookkeeping(deal))
    return problems


def _bookkeeping(deal: Deal) -> list[str]:
    problems: list[str] = []
    points, won = [0, 0], [0, 0]
    for trick in deal.tricks:
        if trick.winner is not None:
            pair = deal.pair_of[trick.winner]
            points[pair] += trick.points
            won[pair] += 1
    points[LONE] += sum(c.points for c in deal.talon.discards)  # sochi: they count for the lone player
    if points != list(deal.points):
        problems.append(f"card points {list(deal.points)} but the tricks hold {points}")
    if won != list(deal.tricks_won):
        problems.append(f"tricks won {list(deal.tricks_won)} but {won} were taken")
    if deal.phase is Phase.PLAY:
        if (
            deal.to_act is None
            or len(deal.trick) >= len(deal.order)
            or (deal.order[len(deal.trick)] != deal.to_act)
        ):
            problems.append(f"seat {deal.to_act} is to play, but the trick's order says otherwise")
        for seat in deal.rules.blind_seats:
            stack = deal.stack(seat)
            if mask_of(stack) != deal.hands[seat] or len(stack) != deal.hands[seat].bit_count():
                problems.append(f"blind {seat}'s stack {' '.join(map(str, stack))} is not its hand")
        if deal.to_act is not None and deal.rules.blind_mask >> deal.to_act & 1:
            problems.append(f"the deal waits for blind {deal.to_act} to play")
        played = {seat for seat, _ in deal.trick}
        sizes = {deal.hands[s].bit_count() + (s in played) for s in deal.order}
        if len(sizes) != 1:
            problems.append("hands of unequal size in play: " + str([h.bit_count() for h in deal.hands]))
    elif deal.phase is not Phase.OVER and deal.to_act is None:
        problems.append(f"the deal waits in {deal.phase.value} for nobody")
    return problems


def check(deal: Deal) -> None:
    """Raise :class:`InvariantError` if ``deal`` breaks card conservation."""
    problems = conservation_problems(deal)
    if problems:
        raise InvariantError("; ".join(problems))


def replay_checked(
    record: Mapping[str, Any], rules: Rules | None = None, *, every_move: bool = False
) -> tuple[Deal | None, list[str]]:
    """Replay a deal record, checking the end state (or, with ``every_move``, every state on the way).

    Returns the deal (``None`` if it cannot even be dealt) and the problems found, each naming the
    move after which it appeared. A move the engine refuses is a problem too (the record could not
    have been stored by a healthy bot).
    """
    try:
        deal = Deal.from_record(record, rules)
    except (KozelError, KeyError, TypeError) as e:
        return None, [f"the deal cannot be dealt: {e}"]
    problems: list[str] = []

    def look(after: str) -> None:
        problems.extend(f"{after}: {p}" for p in conservation_problems(deal))

    if every_move:
        look("after the deal")
    moves = record.get("moves", [])
    for i, move in enumerate(moves):
        try:
            deal.apply_recorded(move)
        except KozelError as e:
            problems.append(f"move {i} refused: {e}")
            return deal, problems
        if every_move or i == len(moves) - 1:
            look(f"after move {i}")
    if not moves and not every_move:
        look("after the deal")
    return deal, problems
