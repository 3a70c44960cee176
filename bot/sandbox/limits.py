"""Telegram's flood limits on what the bot sends: by default about one message a second to a chat
(short bursts pass), 20 a minute to a group and 30 a second overall (see ``EmulatorConfig``). Over a
limit a call is refused with 429 and ``retry_after``; only calls that succeeded count. Enforced when
``EmulatorConfig.rate_limits`` is set.
"""

from __future__ import annotations

import math
from collections import deque

from bot.sandbox.records import ApiError, ChatRecord, EmulatorConfig

#: The Bot API methods (lower case) that count against the limits.
COUNTED_METHODS = frozenset(
    {
        "sendmessage",
        "sendphoto",
        "senddocument",
        "editmessagetext",
        "editmessagecaption",
        "editmessagereplymarkup",
    }
)


class RateLimiter:
    """A token bucket per chat, a one-minute window per group and a one-second window overall."""

    def __init__(self, config: EmulatorConfig) -> None:
        self.config = config
        self._chat_buckets: dict[int, tuple[float, float]] = {}
        self._group_windows: dict[int, deque[float]] = {}
        self._global_window: deque[float] = deque()

    def check(self, now: float, chat: ChatRecord | None) -> None:
        """Raise 429 if one more call to ``chat`` (None: no known chat) at ``now`` is over a limit."""
        waits: list[float] = []
        window = self._global_window
        while window and window[0] <= now - 1.0:
            window.popleft()
        if len(window) >= self.config.global_max_per_second:
            waits.append(window[0] + 1.0 - now)
        if chat is not None:
            tokens, last = self._chat_buckets.get(chat.id, (float(self.config.chat_burst), now))
            tokens = self._refill(tokens, now - last)
            if tokens < 1.0:
                waits.append((1.0 - tokens) / self.config.chat_rate_per_second)
            if chat.is_group:
                group = self._group_windows.setdefault(chat.id, deque())
                while group and group[0] <= now - 60.0:
                    group.popleft()
                if len(group) >= self.config.group_max_per_minute:
                    waits.append(group[0] + 60.0 - now)
        if waits:
            retry_after = max(1, math.ceil(max(waits)))
            raise ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)

    def consume(self, now: float, chat: ChatRecord | None) -> None:
        """Count a call to ``chat`` made at ``now``."""
        self._global_window.append(now)
        if chat is None:
            return
        tokens, last = self._chat_buckets.get(chat.id, (float(self.config.chat_burst), now))
        tokens = self._refill(tokens, now - last)
        self._chat_buckets[chat.id] = (tokens - 1.0, now)
        if chat.is_group:
            self._group_windows.setdefault(chat.id, deque()).append(now)

    def _refill(self, tokens: float, elapsed: float) -> float:
        return min(float(self.config.chat_burst), tokens + elapsed * self.config.chat_rate_per_second)
