"""Fixtures for the emulator tests: a started emulator on a free 127.0.0.1 port, a driver, a bot."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from bot.app import build_application
from bot.sandbox import Driver, Emulator, EmulatorConfig, FakeClock, running_bot
from bot.sandbox.driver import AnyApplication
from bot.storage import RedisStorage
from bot.table.core import Limits
from bot.tg.services import Settings


@pytest.fixture
def clock() -> FakeClock:
    """A clock the test moves by hand."""
    return FakeClock()


@pytest.fixture
def config() -> EmulatorConfig:
    """Emulator settings; tests override this fixture (or mutate it) to switch rules on."""
    return EmulatorConfig()


@pytest.fixture
async def emulator(config: EmulatorConfig, clock: FakeClock) -> AsyncIterator[Emulator]:
    """A running emulator on a free port."""
    async with Emulator(config, clock=clock) as running:
        yield running


@pytest.fixture
def driver(emulator: Emulator) -> Driver:
    """A driver for simulated users; waits are bounded to 5 seconds."""
    return Driver(emulator.world, default_timeout=5.0)


@pytest.fixture
async def bot(emulator: Emulator) -> AsyncIterator[Bot]:
    """A plain python-telegram-bot ``Bot`` talking to the emulator (for API-level tests)."""
    async with Bot(
        emulator.token, base_url=emulator.base_url, base_file_url=emulator.base_file_url
    ) as client:
        yield client


@pytest.fixture
async def app(emulator: Emulator, storage: RedisStorage) -> AsyncIterator[AnyApplication]:
    """The application from ``bot.app.build_application``, polling the emulator, on the test's Redis keys."""
    factory = functools.partial(
        build_application,
        storage=storage,
        settings=Settings(bot_delay=0.0, limits=Limits.off()),
        rate_limiter=False,
    )
    async with running_bot(factory, emulator, poll_timeout=1.0) as application:
        yield application
