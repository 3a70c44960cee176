"""Experiment: single-observer ISMCTS (Cowling, Powley, Whitehouse 2012) for ``hard``'s play before the
endgame, ``hard``'s PIMC and exact solver once it solves (the last 12 cards on flip).

Each iteration samples a world consistent with the seat's view (weighted, as ``hard`` weighs worlds,
by how likely it makes the plays seen), descends one tree keyed by the cards played — choosing among
the cards legal in that world by UCB1 with availability counts, from each seat's pair's side —, adds
one node, and plays out with the trick policy (the opponents careless in every second iteration, as
in ``hard``'s play-outs). The card played most often at the root is chosen. Knobs: ``ISM_C`` (the UCB
constant in penalty points, 2.0), ``ISM_S`` (seconds, 0.35), ``ISM_CARELESS`` (1), ``ISM_DEBUG``.
"""

from __future__ import annotations

import math
import os
import random
import sys
import time
from collections.abc import Callable

from bot.engine.actions import Action
from bot.engine.ai.easy import choose_card, choose_other
from bot.engine.ai.knowledge import knowledge
from bot.engine.ai.sample import sample_world
from bot.engine.ai.search import HARD, SearchPlayer, _play
from bot.engine.ai.trick import policy_rollout
from bot.engine.ai.weigh import history, likelihood
from bot.engine.ai.world import PAIR_OF, World, bits_of
from bot.engine.deal import Phase
from bot.engine.errors import KozelError
from bot.engine.view import SeatView

C = float(os.environ.get("ISM_C", "2.0"))
SECONDS = float(os.environ.get("ISM_S", "0.35"))
CARELESS = os.environ.get("ISM_CARELESS", "1") == "1"
DEBUG = bool(os.environ.get("ISM_DEBUG"))


class Node:
    __slots__ = ("avail", "children", "n", "wm", "wv")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.n = 0
        self.avail = 0
        self.wv = 0.0
        self.wm = 0.0


class Ismcts:
    def __init__(self) -> None:
        self.pimc = SearchPlayer("hard", HARD)
        self.name = "ismcts"

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        if not view.legal:
            raise KozelError("no decision")
        if view.phase is not Phase.PLAY:
            return choose_other(view)
        if len(view.legal) == 1:
            return view.legal[0]
        k = knowledge(view)
        w0 = sample_world(k, rng)
        left = sum(h.bit_count() for h in w0.hands) + len(w0.stock)
        if left <= HARD.solve_from(w0.s.rules.preset):
            return self.pimc.decide(view, rng)
        start = time.perf_counter()
        prior = choose_card(view, k, rng)
        weight: Callable[[World], float] | None = None
        tricks = history(view, k.static)
        if tricks:
            fm, lm = HARD.weigh or (1.0, 1.0)
            weight = lambda w: likelihood(k.static, k.me, w.hands, tricks, fm, lm)  # noqa: E731
        me = view.seat
        foes = 1 - PAIR_OF[me]
        root = Node()
        deadline = start + SECONDS
        it = 0
        w = w0
        while True:
            wt = 1.0 if weight is None else weight(w)
            w = w.copy()
            node = root
            path = [root]
            while not w.over:
                seat = w.to_act()
                sign = 1.0 if PAIR_OF[seat] == 0 else -1.0
                legal = bits_of(w.legal(seat))
                ch = node.children
                untried = [m for m in legal if m not in ch]
                for m in legal:
                    c = ch.get(m)
                    if c is not None:
                        c.avail += 1
                if untried:
                    if node is root and prior in untried:
                        m = prior
                    else:
                        m = untried[int(rng.random() * len(untried))]
                    c = Node()
                    c.avail = 1
                    ch[m] = c
                    w.play(m)
                    path.append(c)
                    break
                best, best_s = 0, -1e18
                for m in legal:
                    c = ch[m]
                    q = sign * c.wv / c.wm if c.wm > 0 else 0.0
                    sc = q + C * math.sqrt(math.log(c.avail) / c.n)
                    if sc > best_s:
                        best, best_s = m, sc
                w.play(best)
                node = ch[best]
                path.append(node)
            careless = foes if (CARELESS and it % 2 == 0) else None
            v = policy_rollout(w, rng, careless)
            for nd in path:
                nd.n += 1
                nd.wv += wt * v
                nd.wm += wt
            it += 1
            if time.perf_counter() > deadline:
                break
            w = sample_world(k, rng)
        if DEBUG:
            stats = {
                m.bit_length(): (c.n, round(c.wv / c.wm if c.wm else 0.0, 2))
                for m, c in root.children.items()
            }
            print(
                "iterations",
                it,
                "cards left",
                left,
                "root (card id+1: visits, value to pair A)",
                stats,
                file=sys.stderr,
            )
        moves = [m for m in bits_of(w0.legal(me)) if m in root.children]
        best = max(moves, key=lambda m: (root.children[m].n, m == prior))
        return _play(best)


def make() -> Ismcts:
    return Ismcts()
