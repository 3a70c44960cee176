"""Experiment: ``hard`` with no careless worlds (the opponents always follow the trick policy in its
play-outs, instead of playing at random in every second world)."""

import inspect
import textwrap
from typing import Any

import bot.engine.ai.search as S


def careless_search(when: str) -> Any:
    """``SearchPlayer.search`` compiled again with the opponents careless in the worlds where the
    expression ``when`` holds (``n`` counts the worlds) instead of in every second one."""
    src = textwrap.dedent(inspect.getsource(S.SearchPlayer.search))
    assert "if n % 2 == 0 else None" in src
    ns: dict[str, Any] = dict(vars(S))
    exec(compile(src.replace("if n % 2 == 0 else None", f"if {when} else None"), "careless", "exec"), ns)
    return ns["search"]


class NoCare(S.SearchPlayer):
    search = careless_search("False")


def make() -> NoCare:
    return NoCare("hard-nocare", S.HARD)
