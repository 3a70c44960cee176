"""Three people play a sochi match to 6 in headless Chromium, each in a page of their own, and read
what a person reads (issue 34, the last item): three seats and no pairs, the talon taken by "you" in
the lone player's own DM, each person's tally, and the talon in the /history viewer."""

from __future__ import annotations

import os
import re
from pathlib import Path

from bot.sandbox.server import SandboxServer
from tests.sandbox.test_sandbox_browser import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    _need_chromium,
    _play_to_the_end,
    _started_pages,
    sandbox,
)

__all__ = ["sandbox"]  # the fixture, shared with the other browser tests
NAMES = ("Аня", "Борис", "Вера")
SHOTS = ("sochi-talon.png", "sochi-end.png", "sochi-history.png")


async def test_a_sochi_match_to_6_reads_as_three_people_each_for_themselves_in_headless_chromium(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    _need_chromium()
    from playwright.async_api import async_playwright, expect

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            pages = await _started_pages(browser, sandbox, NAMES, 900)
            anya = pages[0]
            group = anya.get_by_test_id("group-messages")
            buttons = group.get_by_test_id("inline-button")
            messages = group.get_by_test_id("message")

            async def command(text: str) -> None:
                await anya.get_by_test_id("group-input").fill(text)
                await anya.get_by_test_id("group-input").press("Enter")

            await command("/newgame")
            await buttons.filter(has_text="Правила").click()
            await buttons.filter(has_text="сочинский на троих · трое").click()
            await expect(buttons.filter(has_text="✓ сочинский на троих")).to_be_visible()
            await buttons.filter(has_text="Игра до: 12").click()
            await expect(buttons.filter(has_text="Игра до: 6")).to_be_visible()
            await buttons.filter(has_text="Назад").click()
            await expect(group).to_contain_text("Трое, счёт у всех свой")
            await expect(group).to_contain_text("здесь три места, постоянных пар нет")
            for seat, (page, name) in enumerate(zip(pages, NAMES, strict=True), start=1):
                seat_buttons = page.get_by_test_id("group-messages").get_by_test_id("inline-button")
                for before, sitter in enumerate(NAMES[: seat - 1], start=1):
                    await expect(seat_buttons.filter(has_text=f"Место {before}: {sitter}")).to_be_visible()
                await seat_buttons.filter(has_text="сесть").first.click()
                await expect(seat_buttons.filter(has_text=f"Место {seat}: {name}")).to_be_visible()
            await expect(buttons.filter(has_text="сесть")).to_have_count(0)  # three seats, no fourth
            await buttons.filter(has_text="Начать").click()
            await expect(group).to_contain_text("Играют: Аня, Борис, Вера")

            # The ♣Q holder discards with the talon face up: told that "you" take it, the others who.
            discarding = None
            for _ in range(100):
                for page, name in zip(pages, NAMES, strict=True):
                    if "Снесите две карты" in await page.get_by_test_id("dm-messages").inner_text():
                        discarding = name
                if discarding is not None:
                    break
                await anya.wait_for_timeout(100)
            assert discarding is not None, "nobody was asked to discard"
            for page, name in zip(pages, NAMES, strict=True):
                hand = page.get_by_test_id("dm-messages").get_by_test_id("message").last
                if name == discarding:
                    await expect(hand).to_contain_text("— его берёте вы")
                    await page.screenshot(path=str(tmp_path / SHOTS[0]))
                else:
                    await expect(hand).to_contain_text(f"— его берёт {discarding}")

            await _play_to_the_end(pages)
            await expect(group).to_contain_text(re.compile(r"🐐 Коз(ёл|лы)( с погонялами)? — "))
            await command("/score")
            score = messages.filter(has_text="Счёт на шестёрках — у всех свой").last
            await expect(score).to_contain_text("6 — козёл")
            await expect(score.locator("img")).to_be_visible()
            await anya.screenshot(path=str(tmp_path / SHOTS[1]))
            text = await group.inner_text()
            assert "Пара 1:" not in text and "12 — козёл" not in text

            await command("/history")
            listing = messages.filter(has_text="Последние партии").last
            await expect(listing).to_contain_text("сочинский на троих, Игра до: 6")
            await expect(listing).to_contain_text("Аня, Борис, Вера")
            await buttons.filter(has_text="Просмотр 1").click()
            viewer = messages.filter(has_text="🎬 Просмотр").last  # a void first deal has no steps
            # The talon of deal 1, and who took it (or the ♣Q it held: a redeal).
            await expect(viewer).to_contain_text(
                re.compile(r"В одиночку против двоих: \S+ \(прикуп: |Прикуп открыт: ")
            )
            await viewer.screenshot(path=str(tmp_path / SHOTS[2]))
        finally:
            await browser.close()

    assert not [c for c in sandbox.emulator.world.calls if not c.ok]
    shots = os.environ.get("SANDBOX_SCREENSHOTS")
    if shots:  # keep the screenshots for a human to look at
        Path(shots).mkdir(parents=True, exist_ok=True)
        for name in SHOTS:
            (Path(shots) / name).write_bytes((tmp_path / name).read_bytes())
