"""The packaged weights of the learned policy: the one module of the engine that reads a file.

``bot/engine/ai/weights/policy.json`` ships inside the package (how it was made is in
``weights/README.md``). It is read once, on first use, and kept; a file that does not fit the features
this code computes is refused (:class:`~bot.engine.ai.policy.ModelError`) rather than played with.
A caller may instead build a :class:`~bot.engine.ai.policy.Policy` itself and hand it to the player
(the tests and the trainer do).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from .policy import Policy, policy_from

WEIGHTS = "policy.json"


@lru_cache(maxsize=1)
def packaged_policy() -> Policy:
    """The policy in the packaged weights file (read once)."""
    text = resources.files("bot.engine.ai.weights").joinpath(WEIGHTS).read_text(encoding="utf-8")
    return policy_from(json.loads(text))
