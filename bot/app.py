"""The bot's composition root: ``build_application`` wires storage, outbox, presenter and handlers."""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from telegram import Update
from telegram.ext import AIORateLimiter, Application, ContextTypes

from bot.aiohttp_request import AiohttpRequest
from bot.render.i18n import set_default_lang
from bot.storage import EmbeddedRedis, RedisStorage, Storage
from bot.storage.budget import RedisBudget
from bot.storage.errors import when_storage_answers
from bot.table.codec import Codec
from bot.tg import faults, register, tick
from bot.tg.calls import Pace
from bot.tg.commands import set_commands
from bot.tg.outbox import Outbox
from bot.tg.services import Services, Settings
from bot.thinking import Thinker
from bot.thinking.local import PoolThinker, workers_for
from bot.thinking.stream import StreamThinker
from bot.webapp.live import LiveHub
from bot.webapp.server import LiveTable

AnyApplication = Application[Any, Any, Any, Any, Any, Any]
_LOG = logging.getLogger(__name__)
#: ``bot_data`` keys of the live table's routes and of this instance's hub (bot/webapp).
LIVE_TABLE = "live_table"
LIVE_HUB = "live_hub"


def build_application(
    token: str,
    *,
    base_url: str | None = None,
    base_file_url: str | None = None,
    redis_url: str | None = None,
    storage: Storage | None = None,
    settings: Settings | None = None,
    pace: Pace | None = None,
    rate_limiter: bool = True,
    thinker: Thinker | None = None,
    data_dir: str = "data",
    heartbeat: Path | None = None,
) -> AnyApplication:
    """Build the Kozel bot.

    Storage: ``storage`` if given (the caller owns it), else Redis at ``redis_url`` or ``$REDIS_URL``,
    else an embedded redis-server with its data in ``data_dir``. ``settings`` tunes bot delays,
    expiry and pacing; ``pace`` is the clock the outbox paces by (tests pass a virtual one);
    ``rate_limiter`` adds python-telegram-bot's AIORateLimiter as a safety net behind the outbox.
    ``thinker`` (the caller owns it): where bot players think; else as ``settings.thinking`` says
    (:mod:`bot.thinking`).
    """
    settings = settings or Settings()
    set_default_lang(settings.default_language)  # DEFAULT_LANGUAGE: where no chat or person has one
    builder = Application.builder().token(token)
    if base_url is not None:
        builder = builder.base_url(base_url)
    if base_file_url is not None:
        builder = builder.base_file_url(base_file_url)
    if rate_limiter:
        builder = builder.rate_limiter(AIORateLimiter(max_retries=3))  # type: ignore[arg-type]
    # Taps of different tables are handled concurrently; one table's are serialised by its lock.
    builder = builder.concurrent_updates(32)
    # aiohttp rather than httpx: a quarter of the CPU per call (bot/aiohttp_request.py). The outbox
    # keeps at most one call per chat in flight; a full pool waits rather than failing.
    builder = builder.request(AiohttpRequest(connection_pool_size=64, pool_timeout=30.0))
    builder = builder.get_updates_request(AiohttpRequest(connection_pool_size=1))
    owned = thinker is None
    wiring = _Wiring(token, settings, storage, redis_url, data_dir, pace, thinker, owned_thinker=owned)
    builder = builder.application_class(KozelApplication, kwargs={"wiring": wiring})
    application = builder.build()
    if settings.webapp_url is not None:
        # The live table's routes exist from the start (a server may mount them before initialize);
        # they find the services and the hub once initialize has built them.
        application.bot_data[LIVE_TABLE] = LiveTable(
            lambda: application.bot_data.get("svc"),
            token,
            lambda: application.bot_data.get(LIVE_HUB),
            max_age=settings.webapp_max_age,
        )
    if heartbeat is not None and application.job_queue is not None:
        # The image's health check reads this file's age (python -m bot.healthcheck). An interval
        # job added before the scheduler starts first fires one interval after start, hence the
        # beat in KozelApplication.start as well.
        wiring.heartbeat = heartbeat
        application.job_queue.run_repeating(_beat, interval=15, data=heartbeat, name="heartbeat")
    if application.job_queue is not None:
        # Turn timers and expiry live in Redis; this job fires the due ones (late ones at the first run).
        application.job_queue.run_repeating(tick, interval=settings.timer_interval, first=0.0, name="timers")
    register(application)
    application.add_error_handler(_log_error)
    return application


@dataclass
class _Wiring:
    """What the application sets up on initialize and tears down on shutdown."""

    token: str
    settings: Settings
    storage: Storage | None
    redis_url: str | None
    data_dir: str
    pace: Pace | None
    thinker: Thinker | None
    owned_thinker: bool
    embedded: list[EmbeddedRedis] = field(default_factory=list)
    heartbeat: Path | None = None


class KozelApplication(Application):  # type: ignore[type-arg]
    """The Application, plus the bot's services built on initialize (which every way of running calls)."""

    def __init__(self, *, wiring: _Wiring, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._wiring = wiring

    async def initialize(self) -> None:
        """Connect storage (starting an embedded Redis if needed), build the services, set commands."""
        await super().initialize()
        w = self._wiring
        store = w.storage
        if store is None:
            url = w.redis_url or os.environ.get("REDIS_URL")
            if not url:
                server = EmbeddedRedis(w.data_dir)
                url = await server.start()
                w.embedded.append(server)
            store = RedisStorage.from_url(url)
        thinker = w.thinker or make_thinker(w.settings, store)
        w.thinker = thinker
        # The workers' stream and group live in Redis too: a bot started mid-failover waits for it.
        await when_storage_answers("the thinking workers' stream", thinker.start)
        svc = Services(
            storage=store,
            outbox=Outbox(self.bot, limits=w.settings.limits, pace=w.pace, budget=_budget(w, store)),
            codec=codec_for(w.token),
            settings=w.settings,
            bot_username=self.bot.username,
            thinker=thinker,
        )
        faults.install(svc)
        live: LiveTable | None = self.bot_data.get(LIVE_TABLE)
        if live is not None:
            # Every saved version goes out on Redis for the open pages of every instance.
            hub = LiveHub(getattr(store, "client", None), getattr(store, "prefix", ""))
            live.attach(svc, hub)
            self.bot_data[LIVE_HUB] = hub
        self.bot_data["svc"] = svc
        # Games live in Redis, not in this process: pick up the ones a bot player was thinking in.
        resumed = await when_storage_answers("resuming the games", svc.driver.resume)
        if resumed:
            _LOG.info("resumed %d table(s) waiting for a bot player", resumed)
        await when_storage_answers("resuming the timers", svc.timers.resume)
        try:
            await set_commands(self)
        except Exception as e:  # the menu is a nicety; the bot works without it
            _LOG.warning("setMyCommands failed: %s", e)

    async def start(self) -> None:
        """Start the application (and its job queue) and beat once right away."""
        await super().start()
        if self._wiring.heartbeat is not None:
            _touch(self._wiring.heartbeat)

    async def stop(self) -> None:
        """Stop bot players and the outbox, then the application."""
        svc: Services | None = self.bot_data.get("svc")
        hub: LiveHub | None = self.bot_data.get(LIVE_HUB)
        if hub is not None:
            await hub.close()
        if svc is not None:
            await svc.driver.close()
            await svc.timers.close()
            await svc.presenter.close()
            await svc.announcer.close()
            await svc.outbox.close()
        await super().stop()

    async def shutdown(self) -> None:
        """Close what initialize opened."""
        svc: Services | None = self.bot_data.get("svc")
        w = self._wiring
        if svc is not None and w.storage is None:
            await svc.storage.close()
        for server in w.embedded:
            server.stop()
        w.embedded.clear()
        if w.owned_thinker and w.thinker is not None:
            await w.thinker.close()
            w.thinker = None
        await super().shutdown()


def make_thinker(settings: Settings, store: Storage) -> Thinker:
    """Where this instance's bot players think, as ``settings.thinking`` says (:mod:`bot.thinking`).

    ``redis`` needs the storage to be Redis; with another storage it is ``threads``.
    """
    workers = workers_for(settings.bot_workers)
    if settings.thinking == "processes":
        return PoolThinker.processes(workers)
    if settings.thinking == "redis" and isinstance(store, RedisStorage):
        return StreamThinker(store.client, PoolThinker.threads(min(workers, 2)), prefix=store.prefix)
    return PoolThinker.threads()


def _budget(w: _Wiring, store: Storage) -> RedisBudget | None:
    """The Telegram budget this bot's processes share in Redis (bot/storage/budget.py).

    Whenever the storage is Redis (the embedded one too) and the outbox paces by real time: the
    buckets count on Redis's clock, which a test's virtual clock (``pace``) does not follow; such a
    test, or a storage that is not Redis, gets the outbox's pacing within its process alone.
    """
    if w.pace is not None or not isinstance(store, RedisStorage):
        return None
    return RedisBudget(store.client, bot_id=w.token.split(":", 1)[0], prefix=store.prefix)


async def _beat(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Touch the heartbeat file: the job queue runs, so the event loop is alive."""
    path = context.job.data if context.job is not None else None
    if isinstance(path, Path):
        _touch(path)


def _touch(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


async def _log_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Unexpected failures are logged with their traceback; expected bad input never gets here."""
    _LOG.error("handling %r failed", update, exc_info=context.error)


def live_table_of(application: AnyApplication) -> LiveTable | None:
    """The live table's routes, if ``WEBAPP_URL`` turned it on (:mod:`bot.webapp`)."""
    live: LiveTable | None = application.bot_data.get(LIVE_TABLE)
    return live


def codec_for(token: str) -> Codec:
    """The callback codec of the bot with this token (its secret is derived from the token)."""
    return Codec(hashlib.sha256(b"kozel-callback:" + token.encode()).digest())


def services_of(application: AnyApplication) -> Services:
    """The services of a running application (tests and the bench look inside)."""
    svc: Services = application.bot_data["svc"]
    return svc


__all__ = ["Settings", "Update", "build_application", "services_of"]
