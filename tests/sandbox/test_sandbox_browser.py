"""The browser sandbox in real headless Chromium: send a command, tap a button, switch players."""

from __future__ import annotations

import functools
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.app import build_application
from bot.handlers.outbox import Limits
from bot.handlers.services import Settings
from bot.sandbox import EmulatorConfig
from bot.sandbox.server import SandboxServer, start_sandbox
from bot.storage import RedisStorage

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# The machine has no internet: keep Chromium from phoning home (and failing noisily).
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 10_000


@pytest.fixture
async def sandbox(storage: RedisStorage) -> AsyncIterator[SandboxServer]:
    """The sandbox with the bot on a free 127.0.0.1 port."""
    # Flood limits off: the scripted clicks come faster than a person's (the limits have their own tests).
    factory = functools.partial(
        build_application,
        storage=storage,
        settings=Settings(bot_delay=0.0, limits=Limits.off()),
        rate_limiter=False,
    )
    server = await start_sandbox(
        factory,
        host="127.0.0.1",
        port=0,
        config=EmulatorConfig(rate_limits=False),
        poll_timeout=1.0,
    )
    try:
        yield server
    finally:
        await server.stop()


async def test_sandbox_page_in_headless_chromium(sandbox: SandboxServer, tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium is missing at {CHROMIUM}: install Debian's package (apt-get install chromium) — "
            ".ci/run does this — or point $CHROMIUM at a Chromium binary"
        )
    from playwright.async_api import async_playwright, expect

    async with async_playwright() as playwright:
        context = await playwright.chromium.launch_persistent_context(
            user_data_dir=str(tmp_path / "profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 800},
        )
        try:
            page = await context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            await page.goto(sandbox.url)
            await expect(page.get_by_test_id("player-Аня")).to_have_class("active")

            # Аня starts the bot in private with the START button.
            await page.get_by_test_id("dm-start").get_by_role("button").click()
            await expect(page.get_by_test_id("dm-messages")).to_contain_text("Привет! Я бот для игры в козла")

            # /newgame in the group: the lobby; Аня takes seat 1.
            await page.get_by_test_id("group-input").fill("/newgame")
            await page.get_by_test_id("group-input").press("Enter")
            group = page.get_by_test_id("group-messages")
            await group.get_by_test_id("inline-button").filter(has_text="Место 1").click()
            await expect(group).to_contain_text("Пара 1: Аня")
            await page.screenshot(path=str(tmp_path / "sandbox.png"))

            # Борис never started the bot: his tap opens the bot by deep link and seats him.
            await page.get_by_test_id("player-Борис").click()
            await expect(page.get_by_test_id("player-Борис")).to_have_class("active")
            await expect(page.get_by_test_id("dm-start")).to_be_visible()
            await group.get_by_test_id("inline-button").filter(has_text="Место 2").click()
            await expect(page.get_by_test_id("dm-messages")).to_contain_text("Вы сели за стол")
            await expect(group).to_contain_text("Пара 2: Борис")

            # Аня starts with two bot players; her cards arrive in her DM.
            await page.get_by_test_id("player-Аня").click()
            await expect(page.get_by_test_id("player-Аня")).to_have_class("active")
            await group.get_by_test_id("inline-button").filter(has_text="Начать").click()
            await group.get_by_test_id("inline-button").filter(has_text="с ботами").click()
            await expect(group).to_contain_text("Раздача №1")
            await expect(page.get_by_test_id("dm-messages")).to_contain_text("ваше место 1")
            await page.screenshot(path=str(tmp_path / "sandbox-boris.png"))

            # A t.me deep link opened in the page makes the selected player start the bot with its payload.
            await page.get_by_test_id("player-Вера").click()
            await expect(page.get_by_test_id("player-Вера")).to_have_class("active")
            await page.evaluate("openUrl('https://t.me/kozel_sandbox_bot?start=table_7')")
            await expect(page.get_by_test_id("dm-messages")).to_contain_text("Эта ссылка устарела")
            await expect(page.get_by_test_id("dm-input")).to_be_visible()
        finally:
            await context.close()

    world = sandbox.emulator.world
    assert not [c for c in world.calls if not c.ok]
    assert (tmp_path / "sandbox.png").stat().st_size > 10_000
    shots = os.environ.get("SANDBOX_SCREENSHOTS")
    if shots:  # keep the screenshots for a human to look at
        Path(shots).mkdir(parents=True, exist_ok=True)
        for name in ("sandbox.png", "sandbox-boris.png"):
            (Path(shots) / name).write_bytes((tmp_path / name).read_bytes())
