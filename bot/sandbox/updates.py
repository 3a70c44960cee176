"""The bot's update queue: update ids, getUpdates offsets and ``allowed_updates``, long-poll generations.

Updates stay queued until the bot confirms them (a getUpdates ``offset`` past them) or they are taken
for webhook delivery. The waiting of a long poll is done by the HTTP layer (``emulator.py``).
"""

from __future__ import annotations

from collections import deque

from bot.sandbox.records import JSONDict, Params

# Updates Telegram leaves out when a bot does not ask for them explicitly.
_OPT_IN_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


class UpdateQueue:
    """Updates queued for the bot, oldest first, and what it has fetched and confirmed of them."""

    def __init__(self, first_update_id: int) -> None:
        self._updates: deque[JSONDict] = deque()
        self._next_update_id = first_update_id
        self._last_confirmed = 0
        self._last_delivered = 0
        self._allowed_updates: list[str] | None = None
        self._poll_generation = 0

    def __len__(self) -> int:
        """Updates queued but not yet confirmed by the bot."""
        return len(self._updates)

    def push(self, kind: str, payload: JSONDict) -> None:
        """Queue an update of ``kind`` (e.g. "message") under the next update id."""
        update = {"update_id": self._next_update_id, kind: payload}
        self._next_update_id += 1
        self._updates.append(update)

    def clear(self) -> None:
        """Drop every pending update (``drop_pending_updates``)."""
        self._updates.clear()

    @property
    def undelivered(self) -> int:
        """Updates the bot has not fetched yet."""
        return sum(1 for update in self._updates if update["update_id"] > self._last_delivered)

    def ids(self) -> list[int]:
        """Ids of the updates queued and not yet confirmed by the bot (fetched or not)."""
        return [update["update_id"] for update in self._updates]

    def take(self) -> list[JSONDict]:
        """Remove and return every queued update, for delivering them by webhook."""
        taken = list(self._updates)
        self._updates.clear()
        if taken:
            self._last_delivered = max(self._last_delivered, taken[-1]["update_id"])
        return taken

    def fetch(self, params: Params) -> list[JSONDict]:
        """getUpdates: confirm what ``offset`` confirms, then return up to ``limit`` allowed updates."""
        offset = params.integer("offset", 0) or 0
        limit = max(1, min(100, params.integer("limit", 100) or 100))
        allowed = params.json_value("allowed_updates", "allowed_updates")
        if allowed is not None:
            self._allowed_updates = list(allowed) or None
        if offset > 0:
            while self._updates and self._updates[0]["update_id"] < offset:
                self._updates.popleft()
            self._last_confirmed = max(self._last_confirmed, offset - 1)
        elif offset < 0:
            keep = -offset
            while len(self._updates) > keep:
                self._updates.popleft()
        batch = [update for update in self._updates if self._is_allowed(update)][:limit]
        if batch:
            self._last_delivered = max(self._last_delivered, batch[-1]["update_id"])
        return batch

    def has_updates_for(self, params: Params) -> bool:
        """Whether getUpdates with these parameters would return something now."""
        offset = params.integer("offset", 0) or 0
        return any(u["update_id"] >= offset and self._is_allowed(u) for u in self._updates)

    def _is_allowed(self, update: JSONDict) -> bool:
        kind = next(key for key in update if key != "update_id")
        if self._allowed_updates is None:
            return kind not in _OPT_IN_UPDATES
        return kind in self._allowed_updates

    def new_poll_generation(self) -> int:
        """Start a getUpdates request; an older one still waiting is then answered with 409."""
        self._poll_generation += 1
        return self._poll_generation

    def poll_superseded(self, generation: int) -> bool:
        """Whether a newer getUpdates request arrived since ``generation`` started."""
        return generation != self._poll_generation
