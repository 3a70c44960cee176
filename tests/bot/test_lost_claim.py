"""A timer claim whose answer is lost with its connection (issue 33): the claim is applied in Redis,
the connection drops before its answer arrives. The claim is made again under the same token (by
redis-py's retry on a new connection, or by the next tick once Redis is reachable again) and gets
what it took, so the timer fires within seconds of the connection's return, not after its 60-s lease.

The connection is really dropped: the bot's Redis client goes through a TCP proxy that closes it
instead of passing on the claim's answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
import uuid
from collections.abc import AsyncIterator
from urllib.parse import urlparse

import pytest

from bot.app import build_application, services_of
from bot.sandbox import Emulator, EmulatorConfig, running_bot
from bot.sandbox.driver import AnyApplication
from bot.storage import RedisStorage
from bot.storage.scripts import CLAIM
from bot.table.core import Limits
from bot.table.timers import TimerId
from bot.tg.services import Settings

#: The claim script as redis-py names it on the wire (EVALSHA).
CLAIM_SHA = hashlib.sha1(CLAIM.encode()).hexdigest().encode()


class ClaimDropper:
    """A TCP proxy in front of Redis. Once :attr:`armed`, it closes the connection on which the
    answer to a timer claim carries timers (the claim applied, its answer lost), and then refuses
    every connection for ``outage`` seconds (closing the open ones), as a network that comes back."""

    def __init__(self, url: str, outage: float) -> None:
        parsed = urlparse(url)
        self.host, self.upstream = parsed.hostname or "127.0.0.1", parsed.port or 6379
        self.outage = outage
        self.armed = False
        #: When the claim's answer was dropped (monotonic), if it was.
        self.dropped_at: float | None = None
        self._down_until = 0.0
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[str]:
        """Serve on a free port; yields the URL to give the client."""
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        try:
            yield f"redis://127.0.0.1:{self.port}/0"
        finally:
            server.close()
            self._close_all()
            await server.wait_closed()

    def _close_all(self) -> None:
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if time.monotonic() < self._down_until:
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.upstream)
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_writer}
        claiming = False

        async def upward() -> None:
            nonlocal claiming
            while data := await reader.read(65536):
                claiming = CLAIM_SHA in data  # redis-py sends one command at a time per connection
                up_writer.write(data)
                await up_writer.drain()

        async def downward() -> None:
            while data := await up_reader.read(65536):
                if claiming and self.armed and data.startswith(b"*") and not data.startswith(b"*0\r\n"):
                    self.armed = False
                    self.dropped_at = time.monotonic()
                    self._down_until = self.dropped_at + self.outage
                    self._close_all()
                    return
                writer.write(data)
                await writer.drain()

        try:
            await asyncio.gather(upward(), downward())
        except (OSError, ConnectionError):
            pass
        finally:
            for w in (writer, up_writer):
                w.close()
                self._writers.discard(w)


@pytest.mark.parametrize("outage", [0.0, 3.0], ids=["reconnects-at-once", "down-for-3-s"])
async def test_a_timer_whose_claim_answer_was_lost_fires_within_seconds_not_after_its_lease(
    outage: float, storage: RedisStorage, redis_url: str
) -> None:
    """With ``outage`` 0 redis-py's own retry makes the claim again on a new connection; with 3 s its
    retries give up (about 1.5 s), the tick fails, and the first tick once Redis is reachable makes
    the claim again under the token it kept."""
    dropper = ClaimDropper(redis_url, outage)
    async with dropper.running() as proxied, Emulator(EmulatorConfig()) as emulator:
        through = RedisStorage.from_url(proxied, prefix=storage.prefix)
        settings = Settings(bot_delay=0.0, limits=Limits.off(), timer_interval=0.2)

        def factory(token: str, **kwargs: object) -> AnyApplication:
            return build_application(token, storage=through, settings=settings, rate_limiter=False, **kwargs)  # type: ignore[arg-type]

        try:
            async with running_bot(factory, emulator, poll_timeout=1.0) as app:
                svc = services_of(app)
                assert svc.settings.timer_lease == 60.0
                ghost = TimerId("lobby", -45, None, f"g{uuid.uuid4().hex[:6]}").pack()  # firing: a no-op
                dropper.armed = True
                await storage.add_timers({ghost: time.time()})
                deadline = time.monotonic() + outage + 15.0
                while ghost not in svc.timers.fired:
                    assert time.monotonic() < deadline, "not fired: left to its lease"
                    await asyncio.sleep(0.05)
                fired_at = time.monotonic()
                await svc.timers.idle()
                assert dropper.dropped_at is not None, "the claim's answer was not dropped"
                # Within a few seconds of the connection's return.
                assert fired_at - (dropper.dropped_at + outage) < 4.0
                assert list(svc.timers.fired).count(ghost) == 1
                inflight = storage.inflight_key(storage.bucket_of(ghost))
                assert await storage.client.zcard(inflight) == 0, "fired: its lease is released"
        finally:
            await through.close()


async def test_a_claim_made_again_with_its_token_gets_what_it_took(storage: RedisStorage) -> None:
    await storage.add_timers({"a": 10.0, "b": 20.0, "c": 30.0})
    assert await storage.claim_timers(25.0, token="t1") == ["a", "b"]
    await storage.add_timers({"d": 5.0})
    # Its answer lost: the same claim again returns what it took, and takes nothing more.
    assert await storage.claim_timers(25.0, token="t1") == ["a", "b"]
    assert await storage.claim_timers(25.0, token="t2") == ["d"]
    assert await storage.claim_timers(25.0, token="t3") == []
    # A claim that took nothing is not kept: made again later, it takes what is due then.
    assert await storage.claim_timers(35.0, token="t3") == ["c"]
    # Kept for the lease only.
    assert await storage.client.pttl(storage.claim_key(0, "t1")) <= 60_000
