"""Fixtures for the bot's end-to-end tests: the emulator, the real Application and real Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.app import build_application, services_of
from bot.sandbox import Driver, Emulator, EmulatorConfig, running_bot
from bot.sandbox.driver import AnyApplication
from bot.storage import RedisStorage
from bot.table.core import Limits
from bot.tg.services import Services, Settings


@pytest.fixture
def config() -> EmulatorConfig:
    """Emulator settings (flood limits off unless a test turns them on)."""
    return EmulatorConfig()


@pytest.fixture
def settings() -> Settings:
    """Bot settings for tests: bots move at once, nothing is paced."""
    return Settings(bot_delay=0.0, limits=Limits.off())


@pytest.fixture
async def emulator(config: EmulatorConfig) -> AsyncIterator[Emulator]:
    """A running emulator on a free port (real clock)."""
    async with Emulator(config) as running:
        yield running


@pytest.fixture
def driver(emulator: Emulator) -> Driver:
    """Simulated users; waits are bounded."""
    return Driver(emulator.world, default_timeout=10.0)


@pytest.fixture
async def app(emulator: Emulator, storage: RedisStorage, settings: Settings) -> AsyncIterator[AnyApplication]:
    """The real bot application polling the emulator, on the test's own Redis keys."""

    def factory(token: str, **kwargs: object) -> AnyApplication:
        return build_application(token, storage=storage, settings=settings, rate_limiter=False, **kwargs)  # type: ignore[arg-type]

    async with running_bot(factory, emulator, poll_timeout=1.0) as application:
        yield application


@pytest.fixture
def svc(app: AnyApplication) -> Services:
    """The running bot's services."""
    return services_of(app)
