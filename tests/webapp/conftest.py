"""The live table's tests run against the same bot as tests/bot (emulator, real Redis)."""

from tests.bot.conftest import app, config, driver, emulator, settings, svc

__all__ = ["app", "config", "driver", "emulator", "settings", "svc"]
