"""``python -m experiments.learned.exact_reading PRESET DECKS [WORLDS] [K] [SEED]``: how well the plays
read the hidden cards when the reader knows exactly how the others play — an upper bound for any
learned model of play used to weigh worlds.

:mod:`experiments.learned.inference` found that the learned policy, used to weigh the sampled worlds,
reads the hidden cards before the solver only about 1% of the way from "every world alike" to "no doubt
left". Two things could be at fault: the plays tell little, or the policy (a softmax over 29 features,
top-1 66–72%) is too weak a model of them. This tells the two apart. Deals are played by four ``easy``
seats (a player cheap enough to ask again and again). At each card decision with a choice, ``WORLDS``
worlds are sampled from the deciding seat's view; the weighing ``easy itself`` counts a world by the
product, over the other seats' plays seen, of the probability that ``easy`` — asked ``K`` times, with
``K`` different random streams, from that seat's view with that world's hand at that moment — makes the
play seen (smoothed: ``(n + 0.5) / (K + 0.5 * legal cards)``). That is the reading of a reader who
models the players without error, up to ``K``'s sampling (``easy itself, ^0.5``: each world's weight
raised to 0.5, as ``learned`` tempers its policy). The other weighings are those of
``inference`` (every world alike, ``hard``'s factors, the learned policy), on the same worlds.

A seat's view in a world is its true view at that moment with the world's hand (and the legal cards
of that hand); the rest of a view is what the table saw. Plays are used where ``hard``'s weighing uses
them (not classic's brag, not draw's tricks while the stock lasts, not the open hand's or a blind's).
"""

from __future__ import annotations

import dataclasses
import random
import sys

from bot.engine.actions import Play
from bot.engine.ai.easy import EasyPlayer
from bot.engine.ai.search import HARD
from bot.engine.ai.weigh import history
from bot.engine.ai.world import World
from bot.engine.cards import cards_of
from bot.engine.deal import Phase
from bot.engine.errors import KozelError
from bot.engine.play import PlayState
from bot.engine.rules import PRESETS, Rules
from bot.engine.view import SeatView, view_for
from experiments.learned.inference import Tally, base_weighers, deck, sample
from experiments.learned.selfplay import _seed

ALPHA = 0.5


@dataclasses.dataclass
class Seen:
    """A play as it happened: the player's true view and the true play state just before it."""

    seat: int
    view: SeatView
    state: PlayState


class ExactReader:
    """Weighs a world by ``easy``'s own probability of each play seen (module notes)."""

    def __init__(self, seen: dict[int, Seen], k: int, open_seat: int | None, blinds: int) -> None:
        self.seen = seen
        self.k = k
        self.skip = {open_seat} if open_seat is not None else set()
        self.blinds = blinds
        self.cache: dict[tuple[int, int], float] = {}
        self.player = EasyPlayer()
        self.errors = 0

    def p(self, b: int, hand: int) -> float:
        """How likely ``easy`` plays ``b`` at the play seen with ``hand`` in hand."""
        key = (b, hand)
        got = self.cache.get(key)
        if got is not None:
            return got
        at = self.seen[b]
        st = at.state.copy()
        st.hands = st.hands.copy()
        st.hands[at.seat] = hand
        st.refresh()
        legal = st.mask
        n_legal = legal.bit_count()
        if not legal & b:
            p = 0.0
        elif n_legal == 1:
            p = 1.0
        else:
            t = at.view.tables
            cs = cards_of(hand)
            view = dataclasses.replace(
                at.view,
                hand=tuple(t.sorted(cs) if t else cs),
                legal=tuple(Play(c) for c in cards_of(legal)),
            )
            try:
                n = 0
                for j in range(self.k):
                    a = self.player.decide(view, random.Random(j))
                    n += isinstance(a, Play) and a.card.bit == b
                p = (n + ALPHA) / (self.k + ALPHA * n_legal)
            except KozelError:
                # "no world fits the view": the world's hand contradicts what that seat alone had seen
                # (a card it saw elsewhere). The deciding seat cannot know that, so the play counts as
                # telling nothing rather than ruling the world out.
                self.errors += 1
                p = 1.0 / n_legal
        self.cache[key] = p
        return p

    def weight(self, me: int, w: World, tricks: tuple[tuple[tuple[int, int], ...], ...]) -> float:
        hs = list(w.hands)
        weight = 1.0
        for plays in reversed(tricks):
            for seat, b in plays:
                hs[seat] |= b
            for seat, b in plays:
                if seat == me or seat in self.skip or self.blinds >> seat & 1:
                    continue
                # the hand before this play: the hand now plus every card played since, this one
                # included (a seat plays once a trick, so nothing of this trick came after it)
                weight *= self.p(b, hs[seat])
                if weight == 0.0:
                    return 0.0
        return weight


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    preset = args[0]
    decks = int(args[1])
    n_worlds = int(args[2]) if len(args) > 2 else 40
    k = int(args[3]) if len(args) > 3 else 4
    seed = int(args[4]) if len(args) > 4 else 77
    rules = Rules.make(preset)
    preset_no = PRESETS.index(preset)
    solve_at = HARD.solve_from(preset)
    weighers = base_weighers()
    names = [*weighers, "easy itself", "easy itself, ^0.5"]
    tally = Tally()
    errors = 0
    for d in range(decks):
        players = [EasyPlayer() for _ in range(rules.seats)]
        deal, rngs = deck(rules, seed, preset_no, d)
        seen: dict[int, Seen] = {}
        reader: ExactReader | None = None
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            view = view_for(deal, seat)
            if view.phase is Phase.PLAY and len(view.legal) > 1:
                r = random.Random(_seed(seed, preset_no, d, 3, len(deal.moves)))
                sampled = sample(deal, view, solve_at, n_worlds, r)
                tally.decisions[sampled.part] += 1
                for name, player in weighers.items():
                    _, _, weigh = player.worlds(view, random.Random(0))
                    tally.add(sampled, name, [1.0 if weigh is None else weigh(w) for w in sampled.worlds])
                s = sampled.worlds[0].s
                if reader is None:  # one per deal: a play's probability depends on the play and hand
                    reader = ExactReader(seen, k, s.open_seat if s.open_seat >= 0 else None, s.blinds)
                tricks = history(view, s)
                exact = [reader.weight(seat, w, tricks) for w in sampled.worlds]
                tally.add(sampled, "easy itself", exact)
                tally.add(sampled, "easy itself, ^0.5", [x**0.5 for x in exact])
            action = players[seat].decide(view, rngs[seat])
            if view.phase is Phase.PLAY and isinstance(action, Play):
                st = deal.play_state
                assert st is not None
                seen[action.card.bit] = Seen(seat, view, st.copy())
            deal.apply(seat, action)
        errors += reader.errors if reader is not None else 0
        print(f"deck {d + 1}/{decks}", file=sys.stderr, flush=True)
    print(
        f"{preset}: {decks} decks by four easy seats, {n_worlds} worlds a decision, easy asked {k} times"
        f" a play, seed {seed}; solver from {solve_at} cards; plays counted as telling nothing"
        f" (the world contradicts what that seat alone saw): {errors}"
    )
    tally.print(names)
    return 0


if __name__ == "__main__":
    sys.exit(main())
