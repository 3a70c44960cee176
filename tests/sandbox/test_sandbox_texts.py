"""A match to 6 read in headless Chromium: the lobby's rules picker, /rules and /score say 6, not 12
(issue 34, item 6); with $SANDBOX_SCREENSHOTS the pages are kept for a person to look at."""

from __future__ import annotations

import os
from pathlib import Path

from bot.sandbox.server import SandboxServer
from bot.storage import RedisStorage, StaleWrite
from tests.sandbox.test_sandbox_browser import CHROMIUM, CHROMIUM_FLAGS, TIMEOUT_MS, _need_chromium, sandbox

__all__ = ["sandbox"]  # the fixture, shared with the other browser tests

SHOTS = ("lobby-to-6.png", "rules-to-6.png", "score-to-6.png")


async def _penalty(storage: RedisStorage, chat_id: int, penalty: tuple[int, int]) -> None:
    """Give the pairs of the group's match ``penalty`` (bot players may save in between: try again)."""
    for _ in range(20):
        table = await storage.load_table(chat_id, None)
        assert table is not None and table.match is not None
        table.match.penalty = penalty
        try:
            await storage.save_table(table, ttl=3600)
        except StaleWrite:
            continue
        return
    raise AssertionError("the table kept changing")


async def test_a_match_to_6_reads_6_in_the_lobby_rules_and_score_in_headless_chromium(
    sandbox: SandboxServer, storage: RedisStorage, tmp_path: Path
) -> None:
    _need_chromium()
    from playwright.async_api import async_playwright, expect

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 2600})
            page.set_default_timeout(TIMEOUT_MS)
            await page.goto(sandbox.url)
            await page.get_by_test_id("dm-start").get_by_role("button").click()
            await expect(page.get_by_test_id("dm-messages")).to_contain_text("Привет!")
            group = page.get_by_test_id("group-messages")
            buttons = group.get_by_test_id("inline-button")

            async def command(text: str) -> None:
                await page.get_by_test_id("group-input").fill(text)
                await page.get_by_test_id("group-input").press("Enter")

            await command("/newgame")
            await buttons.filter(has_text="Правила").click()
            await expect(buttons.filter(has_text="со слепым · трое")).to_be_visible()
            await buttons.filter(has_text="Игра до: 12").click()
            await expect(group).to_contain_text("Игра до 6: пара, первой набравшая 6 штрафных")
            messages = group.get_by_test_id("message")
            await messages.filter(has_text="собираемся за столом").last.screenshot(
                path=str(tmp_path / SHOTS[0])
            )
            await buttons.filter(has_text="Назад").click()
            await buttons.filter(has_text="Место 1").click()
            await expect(group).to_contain_text("Пара 1: Аня")
            await buttons.filter(has_text="Начать").click()
            await buttons.filter(has_text="с ботами").click()
            await expect(group).to_contain_text("Раздача №1")

            await command("/rules")
            await expect(group).to_contain_text("Словарь")  # the lobby's picker is closed: this is /rules
            await expect(group).to_contain_text("Игра до 6")
            await messages.filter(has_text="Словарь").last.screenshot(path=str(tmp_path / SHOTS[1]))
            await _penalty(storage, sandbox.scene.group_id, (2, 4))
            await command("/score")
            await expect(group).to_contain_text("6 — козёл")
            score = messages.filter(has_text="Счёт на шестёрках").last
            await expect(score.locator("img")).to_be_visible()
            await score.locator("img").evaluate("img => img.decode()")
            await score.screenshot(path=str(tmp_path / SHOTS[2]))
            text = await group.inner_text()
            assert "Кто первым наберёт 12" not in text and "12 — козёл" not in text
        finally:
            await browser.close()

    assert not [c for c in sandbox.emulator.world.calls if not c.ok]
    shots = os.environ.get("SANDBOX_SCREENSHOTS")
    if shots:  # keep the screenshots for a human to look at
        Path(shots).mkdir(parents=True, exist_ok=True)
        for name in SHOTS:
            (Path(shots) / name).write_bytes((tmp_path / name).read_bytes())
