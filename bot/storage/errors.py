"""What "storage unavailable" means: the one classification of Redis errors every retry path uses.

A Redis that is down, restarting, loading its data, out of memory, a replica that has not yet been
promoted, a cluster whose slots are not all served, a promoted replica without the scripts: each
raises a different redis-py class, and each means the same to the bot — nothing was changed, the
same call works again in a moment. The error handler answers "try again" for these
(:mod:`bot.tg.faults`), bot players wait and retry (:mod:`bot.table.bots`), timers give
their claim back (:mod:`bot.table.timers`), the presenter renders again later. Any other error is
a bug or a refusal and keeps its traceback.

Redis 6 wraps an error met inside a script ("ERR Error running script …: -OOM …"), where Redis 7
keeps its code; the clients made here (:class:`Redis`, and the cluster client of
:mod:`bot.storage.cluster`) raise such an error as its own class (:func:`unwrapped`), so an
``except STORAGE_DOWN`` sees it too.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import redis.asyncio as aioredis
from redis.exceptions import (
    AskError,
    AuthenticationError,
    AuthorizationError,
    BusyLoadingError,
    ClusterDownError,
    ClusterError,
    MasterDownError,
    NoScriptError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    RedisClusterUnreachableError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

_LOG = logging.getLogger(__name__)


class StorageBusy(ResponseError):
    """Redis cannot serve now and redis-py has no class for it: ``BUSY`` (a long script runs),
    ``NOREPLICAS`` (too few replicas for ``min-replicas-to-write``)."""


#: Every class of "storage unavailable" (see the module docstring); :func:`storage_down` is the test.
STORAGE_DOWN: tuple[type[Exception], ...] = (
    RedisConnectionError,  # refused, reset, too many clients; LOADING (BusyLoadingError)
    RedisTimeoutError,
    OutOfMemoryError,  # OOM: used memory above maxmemory
    ReadOnlyError,  # READONLY: a replica, or a master demoted by a failover
    NoScriptError,  # NOSCRIPT: a promoted replica without the script cache
    ClusterError,  # CLUSTERDOWN, MASTERDOWN
    TryAgainError,  # TRYAGAIN: a slot on the move
    AskError,  # MOVED/ASK the cluster client gave up following (a failover's storm)
    RedisClusterUnreachableError,  # no node of the cluster answers
    SlotNotCoveredError,  # a slot's master is gone and not yet replaced
    StorageBusy,
)

#: An error code met inside a script, and the class it raises on its own.
_CODES: dict[str, type[ResponseError] | type[RedisConnectionError]] = {
    "OOM": OutOfMemoryError,
    "READONLY": ReadOnlyError,
    "LOADING": BusyLoadingError,
    "NOSCRIPT": NoScriptError,
    "MASTERDOWN": MasterDownError,
    "CLUSTERDOWN": ClusterDownError,
    "TRYAGAIN": TryAgainError,
    "BUSY": StorageBusy,
    "NOREPLICAS": StorageBusy,
}
#: The inner error of a Redis 6 script error: "... @user_script: 1: -OOM command not allowed ...".
_INNER = re.compile(r": -([A-Z]+) (.*)\Z", re.S)
#: What the cluster client says, as a plain RedisClusterException, when no node can give it the map.
_CLUSTER_GONE = ("cannot be connected", "are not covered", "could not agree")


def unwrapped(error: Exception) -> Exception:
    """``error`` as the class of what it means, when it is a storage fault in a generic class.

    A script's inner error (Redis 6) and the cluster client's plain ``RedisClusterException`` for
    a cluster it cannot reach come back as their own classes; any other error comes back as is.
    """
    if type(error) is ResponseError:
        code = getattr(error, "status_code", None) or str(error).split(" ", 1)[0]
        inner = _INNER.search(str(error))
        if inner is not None and inner.group(1) in _CODES:
            return _CODES[inner.group(1)](inner.group(2))
        if code in _CODES:
            return _CODES[code](str(error))
    elif type(error) is RedisClusterException:
        cause = error.__cause__
        if not isinstance(cause, (AuthenticationError, AuthorizationError)) and any(
            words in str(error) for words in _CLUSTER_GONE
        ):
            return RedisClusterUnreachableError(str(error))
    return error


def storage_down(error: BaseException) -> bool:
    """Whether ``error`` means storage is unavailable for now (retry later, nothing was changed)."""
    if isinstance(error, Exception) and not isinstance(error, STORAGE_DOWN):
        error = unwrapped(error)
    return isinstance(error, STORAGE_DOWN)


class Redis(aioredis.Redis):
    """The asyncio client, raising a storage fault met inside a script as its own class."""

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        """Run the command; see :func:`unwrapped`."""
        try:
            return await super().execute_command(*args, **options)  # type: ignore[no-untyped-call]
        except ResponseError as e:
            plain = unwrapped(e)
            if plain is e:
                raise
            raise plain from e


__all__ = [
    "STARTUP_STORAGE_WAIT",
    "STORAGE_DOWN",
    "Redis",
    "StorageBusy",
    "storage_down",
    "unwrapped",
    "when_storage_answers",
]


_T = TypeVar("_T")
#: Seconds a starting bot (or worker) waits for its storage (a Redis restarting, a cluster's master failing
#: over: Redis's default node timeout is 15 s) before it gives up and exits.
STARTUP_STORAGE_WAIT = 90.0


async def when_storage_answers(what: str, step: Callable[[], Awaitable[_T]]) -> _T:
    """``await step()``, again while storage is down (up to :data:`STARTUP_STORAGE_WAIT` seconds):
    a bot or a worker started while Redis restarts or a master fails over waits rather than exit."""
    waited, pause = 0.0, 0.5
    while True:
        try:
            return await step()
        except Exception as e:  # the one classification of "storage unavailable" (above)
            if not storage_down(e) or waited >= STARTUP_STORAGE_WAIT:
                raise
            _LOG.warning("storage unavailable at start (%s): %s; trying again in %.1f s", what, e, pause)
            await asyncio.sleep(pause)
            waited += pause
            pause = min(pause * 2, 5.0)
