"""Experiment: the levels without flip's swap-phase inference (:class:`bot.engine.ai.knowledge.SwapCheck`):
their worlds ignore who was asked to swap and what he chose, as before that inference was added."""

import inspect
import textwrap
from typing import Any

import bot.engine.ai.easy as E
import bot.engine.ai.knowledge as P
import bot.engine.ai.search as S

_ns_p: dict[str, Any] = dict(vars(P))
_ns_p["_swap_check"] = lambda view, t: None
exec(compile(textwrap.dedent(inspect.getsource(P.knowledge)), "noswap", "exec"), _ns_p)

_ns_e: dict[str, Any] = dict(vars(E))
_ns_e["knowledge"] = _ns_p["knowledge"]
exec(compile(textwrap.dedent(inspect.getsource(E.EasyPlayer.decide)), "noswap", "exec"), _ns_e)

_ns_s: dict[str, Any] = dict(vars(S))
_ns_s["knowledge"] = _ns_p["knowledge"]
exec(compile(textwrap.dedent(inspect.getsource(S.SearchPlayer.decide)), "noswap", "exec"), _ns_s)


class NoSwapEasy(E.EasyPlayer):
    name = "easy-noswap"
    decide = _ns_e["decide"]


class NoSwapSearch(S.SearchPlayer):
    decide = _ns_s["decide"]


def easy() -> NoSwapEasy:
    return NoSwapEasy()


def medium() -> NoSwapSearch:
    return NoSwapSearch("medium-noswap", S.MEDIUM)


def hard() -> NoSwapSearch:
    return NoSwapSearch("hard-noswap", S.HARD)
