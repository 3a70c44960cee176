"""The learned card policy: how likely a seat is to play each legal card, from what that seat sees.

A log-linear (softmax) model over the per-card features of :mod:`bot.engine.ai.features`, one weight
vector per preset family (:data:`~bot.engine.ai.features.FAMILIES`), trained on self-play records
(``python -m experiments.learned.train``). Plain Python: a decision scores a few cards, so a weighted
sum per card is all it costs.

The weights come in as a plain mapping (:func:`policy_from`), checked against the features this code
computes: a file trained for another feature list, or with a vector of the wrong length, is refused
with :class:`ModelError` naming what does not fit. Reading the packaged file is
:mod:`bot.engine.ai.model`'s job, the one place here that touches a file.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.engine.errors import KozelError

from .features import FAMILIES, FAMILY_NAMES, N_FEATURES, NAMES

#: The format version a weights file must carry.
FORMAT = 1


class ModelError(KozelError):
    """A weights file that does not fit the model this code computes."""


@dataclass(frozen=True, slots=True)
class Policy:
    """Per preset family, one weight per feature."""

    weights: Mapping[str, tuple[float, ...]]

    def family(self, preset: str) -> tuple[float, ...]:
        """The weight vector for ``preset``."""
        return self.weights[FAMILIES.get(preset, "classic")]

    def probs(self, w: Sequence[float], rows: Sequence[tuple[int, list[float]]]) -> list[float]:
        """The softmax probability of each row's card under weights ``w``."""
        scores = [sum(a * x for a, x in zip(w, f, strict=True)) for _, f in rows]
        top = max(scores)
        ex = [math.exp(v - top) for v in scores]
        z = sum(ex)
        return [x / z for x in ex]

    def prob_of(self, w: Sequence[float], rows: Sequence[tuple[int, list[float]]], card: int) -> float:
        """The probability of playing ``card`` (a bit) among ``rows``; 0 if it is not one of them."""
        ps = self.probs(w, rows)
        for (b, _), p in zip(rows, ps, strict=True):
            if b == card:
                return p
        return 0.0

    def to_json(self) -> dict[str, Any]:
        """The weights as a JSON-ready mapping (what :func:`policy_from` reads back)."""
        return {
            "format": FORMAT,
            "features": list(NAMES),
            "families": {k: list(v) for k, v in self.weights.items()},
        }


def policy_from(data: Mapping[str, Any]) -> Policy:
    """The policy in ``data`` (see :meth:`Policy.to_json`), or :class:`ModelError` if it does not fit
    this code's features: another format, another feature list, a family missing, a vector of the wrong
    length or a weight that is not a finite number."""
    if data.get("format") != FORMAT:
        raise ModelError(f"policy weights: format {data.get('format')!r}, expected {FORMAT}")
    names = data.get("features")
    if names != list(NAMES):
        raise ModelError(
            f"policy weights: trained for features {names!r}, this code computes {list(NAMES)!r}"
        )
    fams = data.get("families")
    if not isinstance(fams, Mapping):
        raise ModelError("policy weights: no 'families' mapping")
    out: dict[str, tuple[float, ...]] = {}
    for fam in FAMILY_NAMES:
        w = fams.get(fam)
        if not isinstance(w, list) or len(w) != N_FEATURES:
            got = len(w) if isinstance(w, list) else type(w).__name__
            raise ModelError(f"policy weights: family {fam!r} has shape {got}, expected ({N_FEATURES},)")
        if not all(isinstance(x, int | float) and math.isfinite(x) for x in w):
            raise ModelError(f"policy weights: family {fam!r} holds a weight that is not a finite number")
        out[fam] = tuple(float(x) for x in w)
    return Policy(out)
