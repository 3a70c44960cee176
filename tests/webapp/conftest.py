"""The live table's tests run against the same bot as tests/bot (emulator, real Redis), with the live
table's routes on a test server of their own (``live``)."""

from tests.bot.conftest import app, config, driver, emulator, settings, svc
from tests.webapp.pages import live

__all__ = ["app", "config", "driver", "emulator", "live", "settings", "svc"]
