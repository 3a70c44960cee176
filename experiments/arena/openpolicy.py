"""Experiment: the trick policy as an all-hands-open player, to measure play-out policies head to head,
and ``medium``/``hard`` whose play-outs use the lookahead policies below.

``make`` plays the current policy (:func:`bot.engine.ai.trick.lead` and :func:`~bot.engine.ai.trick.finish`)
on the true deal; ``make_look`` leads by a one-trick lookahead instead (:func:`look_lead`)."""

from __future__ import annotations

import inspect
import random
import textwrap
from collections.abc import Callable
from typing import Any

import bot.engine.ai.search as S
import bot.engine.ai.trick as T
from bot.engine.actions import Action, Play
from bot.engine.ai.easy import choose_other
from bot.engine.ai.sample import true_world
from bot.engine.ai.trick import finish, lead
from bot.engine.ai.world import PAIR_OF, POINT_WEIGHT, Static, World
from bot.engine.cards import ALL_CARDS
from bot.engine.deal import Deal, Phase
from bot.engine.view import view_for

LeadFn = Callable[[Static, list[int], int, int], int]

QUEEN = 80


KEEP = 0.5
TRUMP_KEEP = 8.0


def look_lead(
    s: Static, hands: list[int], seat: int, m: int, keep_w: float = KEEP, trump_keep: float = TRUMP_KEEP
) -> int:
    """The lead whose trick (the others answering by the policy) is worth most to ``seat``'s pair, in
    card points, minus what the card would be worth keeping; the policy's sure-trick cash first."""
    sure = lead(s, hands, seat, m)
    order = s.orders[seat]
    rest = order[1:]
    pair = PAIR_OF[seat]
    power = s.tables.power
    best, best_v = sure, -1e9
    x = m
    while x:
        b = x & -x
        x ^= b
        cid = b.bit_length() - 1
        h2 = hands.copy()
        h2[seat] ^= b
        ws, pts, qp = finish(s, h2, [(seat, b)], rest)
        v: float = (QUEEN if qp != pair else -QUEEN) if qp >= 0 else pts if PAIR_OF[ws] == pair else -pts
        keep = (trump_keep + power[cid]) if b & s.tm else 0.3 * power[cid]
        if b & s.special:
            keep += 20
        v -= keep_w * keep
        if v > best_v:
            best, best_v = b, v
    return best


class OpenPolicy:
    def __init__(self, name: str, lead_fn: LeadFn) -> None:
        self.name = name
        self.lead_fn = lead_fn

    def decide(self, view: object, rng: random.Random) -> Action:
        raise NotImplementedError

    def decide_open(self, deal: Deal, seat: int, rng: random.Random) -> Action:
        view = view_for(deal, seat)
        if view.phase is not Phase.PLAY:
            return choose_other(view)
        if len(view.legal) == 1:
            return view.legal[0]
        w = true_world(deal)
        m = w.legal(seat)
        if not w.trick:
            b = self.lead_fn(w.s, w.hands, seat, m)
        else:
            out: list[int] = []
            h2 = w.hands.copy()
            finish(w.s, h2, w.trick, (seat,), None, out)
            b = out[0]
        return Play(ALL_CARDS[b.bit_length() - 1])


def make() -> OpenPolicy:
    return OpenPolicy("open-policy", lead)


def make_look() -> OpenPolicy:
    return OpenPolicy("open-look", look_lead)


def make_k(keep: float, trump_keep: float) -> Callable[[], OpenPolicy]:
    def lf(s: Static, hands: list[int], seat: int, m: int) -> int:
        return look_lead(s, hands, seat, m, keep, trump_keep)

    return lambda: OpenPolicy(f"open-look-{keep}-{trump_keep}", lf)


make_k0 = make_k(0.0, 8.0)
make_k1 = make_k(1.0, 8.0)
make_k25 = make_k(0.25, 8.0)
make_t0 = make_k(0.5, 0.0)
make_t16 = make_k(0.5, 16.0)


def look_follow(s: Static, hands: list[int], trick: list[tuple[int, int]], seat: int, m: int) -> int:
    """The card whose trick (the seats after answering by the policy) is worth most to ``seat``'s pair,
    minus what it would be worth keeping; the policy's own choice on ties."""
    out: list[int] = []
    order = s.orders[trick[0][0]]
    pos = len(trick)
    finish(s, hands, trick, (seat,), None, out)
    pol = out[0]
    rest = order[pos + 1 :]
    pair = PAIR_OF[seat]
    power = s.tables.power
    best, best_v = pol, -1e9
    x = m
    while x:
        b = x & -x
        x ^= b
        cid = b.bit_length() - 1
        h2 = hands.copy()
        h2[seat] ^= b
        ws, pts, qp = finish(s, h2, [*trick, (seat, b)], rest)
        v: float = (QUEEN if qp != pair else -QUEEN) if qp >= 0 else pts if PAIR_OF[ws] == pair else -pts
        keep = (TRUMP_KEEP + power[cid]) if b & s.tm else 0.3 * power[cid]
        if b & s.special:
            keep += 20
        v -= KEEP * keep
        if b == pol:
            v += 0.5
        if v > best_v:
            best, best_v = b, v
    return best


class OpenLook2(OpenPolicy):
    def decide_open(self, deal: Deal, seat: int, rng: random.Random) -> Action:
        view = view_for(deal, seat)
        if view.phase is not Phase.PLAY:
            return choose_other(view)
        if len(view.legal) == 1:
            return view.legal[0]
        w = true_world(deal)
        m = w.legal(seat)
        b = look_lead(w.s, w.hands, seat, m) if not w.trick else look_follow(w.s, w.hands, w.trick, seat, m)
        return Play(ALL_CARDS[b.bit_length() - 1])


def make_look2() -> OpenPolicy:
    return OpenLook2("open-look2", look_lead)


def rollout2(w: World, rng: random.Random, careless: int | None = None) -> float:
    """:func:`bot.engine.ai.trick.policy_rollout` with every lead by :func:`look_lead` and every follow
    by :func:`look_follow` (the careless pair still plays at random)."""
    s = w.s
    w = w.copy()
    rnd = rng.random
    while not w.over:
        seat = w.to_act()
        m = w.legal(seat)
        if m & (m - 1) == 0:
            b = m
        elif PAIR_OF[seat] == careless:
            n = m.bit_count()
            j = int(rnd() * n)
            while j:
                m &= m - 1
                j -= 1
            b = m & -m
        elif not w.trick:
            b = look_lead(s, w.hands, seat, m)
        else:
            b = look_follow(s, w.hands, w.trick, seat, m)
        w.play(b)
    return w.value0() + POINT_WEIGHT * (w.pts[0] - w.pts[1])


# Search levels whose play-outs lead (look) or lead and follow (look2) by the lookahead.

_ns_t: dict[str, Any] = dict(vars(T))
_ns_t["lead"] = look_lead
exec(compile(textwrap.dedent(inspect.getsource(T.policy_rollout)), "looklead", "exec"), _ns_t)


def _search_using(rollout: Any) -> Any:
    """``SearchPlayer.search`` compiled again with ``rollout`` as its policy play-out."""
    ns: dict[str, Any] = dict(vars(S))
    ns["policy_rollout"] = rollout
    exec(compile(textwrap.dedent(inspect.getsource(S.SearchPlayer.search)), "openpolicy", "exec"), ns)
    return ns["search"]


class Look(S.SearchPlayer):
    search = _search_using(_ns_t["policy_rollout"])


def medium_look() -> Look:
    return Look("medium-look", S.MEDIUM)


def hard_look() -> Look:
    return Look("hard-look", S.HARD)


def cheat_look() -> Any:
    class C(S.CheatPlayer):
        search = Look.search

    return C("cheat-look", S.CHEAT)


class Look2(S.SearchPlayer):
    search = _search_using(rollout2)


def medium_look2() -> Look2:
    return Look2("medium-look2", S.MEDIUM)


def hard_look2() -> Look2:
    return Look2("hard-look2", S.HARD)
