"""Table state, chat and user settings in Redis as versioned JSON, behind a small protocol."""

from bot.storage.embedded import EmbeddedRedis, redis_server_binary
from bot.storage.models import SCHEMA, ChatSettings, MatchState, Seat, Table, UserSettings
from bot.storage.protocol import StaleWrite, Storage, TimerPlan
from bot.storage.redis_store import RedisStorage

__all__ = [
    "SCHEMA",
    "ChatSettings",
    "EmbeddedRedis",
    "MatchState",
    "RedisStorage",
    "Seat",
    "StaleWrite",
    "Storage",
    "Table",
    "TimerPlan",
    "UserSettings",
    "redis_server_binary",
]
