"""Injected faults: Bot API calls made to fail (or to answer late) on purpose, as Telegram sometimes does.

See :meth:`bot.sandbox.world.World.inject_faults`; the first matching fault wins.
"""

from __future__ import annotations

import random

from bot.sandbox.records import SERVER_ERRORS, Fault, SandboxError


class FaultInjector:
    """The faults still to hit, and a seeded generator for the ones that hit only with a probability."""

    def __init__(self) -> None:
        #: Injected failures, first match wins.
        self.faults: list[Fault] = []
        self._rng = random.Random(0)

    def inject(
        self,
        *,
        method: str | None,
        status: int,
        count: int,
        retry_after: int | None,
        chat_id: int | None,
        probability: float,
        delay: float,
    ) -> Fault:
        """Add a fault (the parameters are those of :meth:`World.inject_faults`)."""
        if status not in (400, 429) and status not in SERVER_ERRORS:
            raise SandboxError(f"no injected fault answers with HTTP {status}")
        if not 0.0 < probability <= 1.0:
            raise SandboxError("probability must be in (0, 1]")
        fault = Fault(
            status=status,
            count=count,
            method=method,
            chat_id=chat_id,
            retry_after=retry_after,
            probability=probability,
            delay=delay,
        )
        self.faults.append(fault)
        return fault

    def clear(self) -> None:
        """Remove every injected fault."""
        self.faults.clear()

    def take(self, method: str, chat_id: int | None) -> Fault | None:
        """The fault that hits a call of ``method`` to ``chat_id``, counted as hit; None if none does."""
        for fault in self.faults:
            if not fault.matches(method, chat_id):
                continue
            if fault.probability < 1.0 and self._rng.random() >= fault.probability:
                return None
            fault.count -= 1
            fault.hits += 1
            return fault
        return None
