"""A restarted sandbox (a fresh emulator, the same persistent store) still answers its first updates.

The bot handles each update id once (claimed in Redis); the emulator must therefore not start every
run at update id 1, or a restarted sandbox would be ignored until it passed the old ids.
"""

from __future__ import annotations

from bot.app import build_application
from bot.sandbox import Driver, Emulator, EmulatorConfig, running_bot
from bot.sandbox.driver import AnyApplication
from bot.storage import RedisStorage
from bot.table.core import Limits
from bot.tg.services import Settings


async def test_a_restarted_sandbox_answers_its_first_updates(storage: RedisStorage) -> None:
    def factory(token: str, **kwargs: object) -> AnyApplication:
        settings = Settings(bot_delay=0.0, limits=Limits.off())
        return build_application(token, storage=storage, settings=settings, rate_limiter=False, **kwargs)  # type: ignore[arg-type]

    for _ in range(2):
        async with Emulator(EmulatorConfig()) as emulator, running_bot(factory, emulator):
            driver = Driver(emulator.world, default_timeout=10.0)
            anya = driver.add_user("Аня")
            await anya.start()
            greeting = await anya.dm.wait_bot_message()
            assert "Привет" in greeting.content
