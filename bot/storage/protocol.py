"""The storage the bot needs, as a small protocol; :mod:`bot.storage.redis_store` implements it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.storage.models import ChatSettings, Table, UserSettings
from bot.storage.quarantine import Quarantined


class StaleWrite(Exception):
    """A compare-and-set lost: someone saved the table since it was loaded."""


@dataclass(frozen=True)
class TimerPlan:
    """Timers to arm with a save, in the same step (see :meth:`Storage.add_timers` for the meaning)."""

    due: dict[str, float]
    unless: str | None = None
    drop: Collection[str] = field(default_factory=tuple)


class Storage(Protocol):
    """Tables (compare-and-set on a version and a revision), chat and user settings, match history."""

    #: Told of each stored table this process moved aside because it did not load (to tell its chat).
    on_quarantine: Callable[[Quarantined], None] | None

    async def load_table(self, chat_id: int, thread_id: int | None) -> Table | None:
        """The table of a chat (or forum topic), if one exists; one that does not load is moved
        aside (``on_quarantine`` is told) and reads as none."""
        ...

    async def table_stamp(self, chat_id: int, thread_id: int | None) -> tuple[int, str] | None:
        """The stored table's stamp (version and revision) without the table: None if there is none."""
        ...

    async def save_table(
        self, table: Table, *, ttl: float, data: str | None = None, timers: TimerPlan | None = None
    ) -> None:
        """Save ``table`` if its stored state is still ``table.stamp`` (version and revision), then
        bump the version and set a new revision.

        Raises :class:`StaleWrite` when someone else saved first; ``ttl`` (seconds) is when an
        untouched table expires; ``data`` is ``table.model_dump_json()`` when the caller has it.
        ``timers`` are armed as :meth:`add_timers` would, only if the save is made, in the same step.
        """
        ...

    async def delete_table(self, table: Table, *, archive: dict[str, Any] | None = None) -> None:
        """Delete ``table`` (same compare-and-set), keeping ``archive`` in the chat's history."""
        ...

    async def move_chat(self, old: int, new: int, table: Table | None, *, ttl: float) -> None:
        """Move a group's table (``table``, now naming ``new``), settings and history to chat ``new``.

        Atomic; raises :class:`StaleWrite` if the table changed since it was loaded.
        """
        ...

    def tables(self) -> AsyncIterator[Table]:
        """Every stored table (to resume games after a restart)."""
        ...

    async def push_history(self, chat_id: int, record: dict[str, Any]) -> None:
        """Keep a finished match's record in the chat's history."""
        ...

    async def history(self, chat_id: int, limit: int = 10) -> list[dict[str, Any]]:
        """The chat's finished matches, newest first."""
        ...

    async def archive_match(
        self,
        chat_id: int,
        match_id: str,
        *,
        at: float,
        month: str,
        entry: dict[str, Any] | None,
        counts: dict[str, int],
        names: dict[str, str],
    ) -> bool:
        """Keep a finished match's history ``entry`` (None: keep none) and add ``counts`` to the chat's
        standings (all time and ``month``, ``YYYY-MM``), atomically and once per ``match_id``: False if
        it was counted already (a finish handled again)."""
        ...

    async def count_person(
        self,
        user_id: int,
        match_key: str,
        *,
        at: float,
        won: bool,
        counts: dict[str, int],
        values: dict[str, str],
    ) -> bool:
        """Add a match to a person's figures across chats (and their streak), once per ``match_key``."""
        ...

    async def award(self, user_id: int, ids: list[str], *, at: float) -> list[str]:
        """Mark achievements ``ids`` earned by a person at ``at``, each once for ever (atomically):
        the ids that were not earned before."""
        ...

    async def count_hint(self, user_id: int) -> int:
        """One more 💡 hint given to a person, counted in their figures; how many now."""
        ...

    async def standings(self, chat_id: int, period: str) -> tuple[dict[str, int], dict[str, str]]:
        """A chat's standings counters for ``period`` (``all`` or ``YYYY-MM``) and its players' names."""
        ...

    async def personal(self, user_id: int) -> dict[str, str]:
        """A person's figures across chats."""
        ...

    async def chat_settings(self, chat_id: int) -> ChatSettings:
        """A chat's settings (defaults when none are stored)."""
        ...

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings) -> None:
        """Store a chat's settings."""
        ...

    async def user_settings(self, user_id: int) -> UserSettings:
        """A person's settings (defaults when none are stored)."""
        ...

    async def save_user_settings(self, user_id: int, settings: UserSettings) -> None:
        """Store a person's settings."""
        ...

    async def claim_update(self, update_id: int, *, now: float, lease: float, takeover: bool = False) -> bool:
        """Take ``update_id`` for ``lease`` seconds: False if it is done or another process holds it.

        An update delivered twice is handled once; one whose handler died with its process (the lease
        ended, the update never finished) is handled when delivered again. ``takeover``: a live lease
        is taken too (the caller is the only process receiving updates, so its holder is dead).
        """
        ...

    async def finish_update(self, update_id: int) -> None:
        """Mark ``update_id`` handled, so no later delivery of it is handled again."""
        ...

    async def update_done(self, update_id: int) -> bool:
        """Whether ``update_id`` was handled to the end (by any process)."""
        ...

    async def add_timers(
        self, due: dict[str, float], *, unless: str | None = None, drop: Collection[str] = ()
    ) -> bool:
        """Schedule timers: ``due`` maps a timer id to its Unix time; one already pending keeps its time.

        Nothing is added while the timer ``unless`` is pending (a turn's timers are armed once).
        The pending timers ``drop`` are removed first, in the same step (an earlier turn's, which
        would fire for nothing). Returns whether the timers were added.
        """
        ...

    async def claim_timers(
        self, now: float, limit: int = 100, *, lease: float = 60.0, token: str | None = None
    ) -> list[str]:
        """Take the timers due by ``now`` off the schedule, atomically: each is claimed by one process.

        A claimed timer is held for ``lease`` seconds; one not finished by then (its process died)
        is due again at the next claim. The same claim again (``token``, while the lease lasts)
        returns what it took: a claim whose answer was lost can be made again.
        """
        ...

    async def finish_timer(self, member: str) -> None:
        """A claimed timer has fired: release its lease."""
        ...

    async def timer_due(self, member: str) -> float | None:
        """When the pending timer ``member`` is due (Unix time); None if it is not pending."""
        ...

    async def release_timer(self, member: str, at: float) -> None:
        """A claimed timer could not fire: end its lease at Unix time ``at`` (then it is due again)."""
        ...

    async def close(self) -> None:
        """Release the connection."""
        ...
