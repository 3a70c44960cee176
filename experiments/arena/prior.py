"""Experiment: ``hard`` with a smaller head start for the rule player's card (``PRIOR_BONUS`` 0.1
penalty points instead of 0.3). With five times ``medium``'s worlds its means are tighter; the head start
that keeps ``medium``'s noise from overruling sound craft may also hide what ``hard``'s precision finds."""

import inspect
import textwrap
from typing import Any

import bot.engine.ai.search as S

_src = textwrap.dedent(inspect.getsource(S.SearchPlayer.search))
assert _src.count("PRIOR_BONUS") == 2
_ns: dict[str, Any] = dict(vars(S))
_ns["PRIOR_BONUS"] = 0.1
exec(compile(_src, "prior", "exec"), _ns)


class SmallPrior(S.SearchPlayer):
    search = _ns["search"]


def make() -> SmallPrior:
    return SmallPrior("hard-prior0.1", S.HARD)
