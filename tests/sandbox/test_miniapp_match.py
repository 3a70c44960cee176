"""A whole match played on the live table (the Mini App) in headless Chromium: two people on phones
(360 px wide, one in Telegram's light theme, one in its dark), two bot players, a watcher.

On the way: the turn's countdown; a network that drops mid-deal (the page's stream resumes by
version: no version twice, and the latest at once); a stale tap refused in the words of the same tap
in the DM; a person the turn timer marks away comes back with the page's "I'm back"; the watcher
never sees a hand. Screenshots go to ``$SANDBOX_SCREENSHOTS`` (else the test's temporary folder).

The match is classic to 6 penalty points (two or three deals, the later ones with the brag), with
an 8-second turn timer.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from bot.app import build_application, services_of
from bot.engine import Play, Rules
from bot.engine.cards import Card
from bot.sandbox import Driver, EmulatorConfig, SimUser
from bot.sandbox.miniapp import SANDBOX_WEBAPP_URL, THEME, launch_url
from bot.sandbox.server import SandboxServer, start_sandbox
from bot.storage import ChatSettings, RedisStorage
from bot.table.codec import Codec
from bot.table.core import Limits
from bot.table.payloads import Act, Held
from bot.tg.services import Settings
from tests.bot.helpers import lobby, sit
from tests.sandbox.test_sandbox_browser import CHROMIUM, CHROMIUM_FLAGS, _need_chromium

#: Telegram's dark theme, as its clients send it (``tgWebAppThemeParams``).
DARK = {
    "bg_color": "#17212b",
    "text_color": "#f5f5f5",
    "hint_color": "#708499",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#232e3c",
}
PHONE = {"width": 360, "height": 740}
TURN_TIME = 8
TARGET = 6
#: How long the whole match may take.
MATCH_SECONDS = 240


@pytest.fixture
async def sandbox(storage: RedisStorage) -> AsyncIterator[SandboxServer]:
    """The sandbox with the live table on; bot players take a short moment a card."""
    factory = functools.partial(
        build_application,
        storage=storage,
        settings=Settings(bot_delay=0.2, limits=Limits.off(), webapp_url=SANDBOX_WEBAPP_URL),
        rate_limiter=False,
    )
    server = await start_sandbox(
        factory, host="127.0.0.1", port=0, config=EmulatorConfig(rate_limits=False), poll_timeout=1.0
    )
    try:
        yield server
    finally:
        await server.stop()


class Proxy:
    """A TCP relay in front of the sandbox for one phone: ``drop`` cuts its connections and refuses
    new ones (the network is gone) until ``restore``."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.down = False
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down:
            writer.transport.abort()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, ConnectionError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers -= {writer, up_writer}

    def drop(self) -> None:
        self.down = True
        for w in list(self._writers):
            w.transport.abort()

    def restore(self) -> None:
        self.down = False

    async def close(self) -> None:
        self.drop()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


def _themed(url: str, theme: dict[str, str]) -> str:
    """A launch URL with another Telegram theme."""
    light = f"tgWebAppThemeParams={quote(json.dumps(THEME), safe='')}"
    assert light in url
    return url.replace(light, f"tgWebAppThemeParams={quote(json.dumps(theme), safe='')}")


async def _state(page: Any) -> dict[str, Any] | None:
    state: dict[str, Any] | None = await page.evaluate("() => window.kozel && window.kozel.state()")
    return state


async def _settled(page: Any, version: int, timeout_ms: int = 4000) -> None:
    """Until the page shows a state after ``version`` (or a toast said why not)."""
    with contextlib.suppress(Exception):
        await page.wait_for_function(
            "v => { const s = window.kozel.state(); const t = document.getElementById('toast');"
            " return (s && s.version !== v) || (t && !t.hidden); }",
            arg=version,
            timeout=timeout_ms,
        )


async def _tap_something(page: Any) -> bool:
    """Whatever a person would tap now on the page: "I'm back", a card marked to play (not the ♣Q
    while another may go: leading it into the шмон ends the deal at once, and a match of such deals is
    over before the checks are made), a choice's confirm, a card to tick, or another decision (never
    the hint). False if there is nothing."""
    legal = page.locator("#hand .card.legal")
    for found in (
        page.locator("#away button.back"),
        legal.filter(has_not_text="Д♣"),
        legal,
        page.locator("#decisions button:text-matches('^✅')"),
        page.locator("#hand .card.pick"),
        page.locator("#decisions button:not(:text-matches('^💡'))"),
    ):
        if await found.count():
            await found.first.click()
            return True
    return False


class Phone:
    """One person's page, played by a loop that taps what the page offers on their turn."""

    def __init__(self, name: str, page: Any, shots: Path, prefix: str) -> None:
        self.name, self.page, self.shots, self.prefix = name, page, shots, prefix
        self.played = 0
        self.hold = asyncio.Event()  # set: wait (the turn timer will run out)
        self.pause = asyncio.Event()  # set: do nothing (the test is looking at something)
        self.decided_other = False
        self.shot_turn = False
        #: Called in the loop after each card the person played (with their count so far).
        self.dropped = False
        self.after_play: Callable[[int], Awaitable[None]] | None = None

    async def shot(self, name: str) -> None:
        await self.page.screenshot(path=str(self.shots / f"{self.prefix}-{name}.png"), full_page=True)

    async def play(self) -> None:
        deadline = time.monotonic() + MATCH_SECONDS
        while time.monotonic() < deadline:
            state = await _state(self.page)
            if state is not None and state["status"] == "over":
                return
            hand = state and state.get("hand")
            if self.pause.is_set() or not hand or not (hand["your_turn"] or hand["back"]):
                await asyncio.sleep(0.1)
                continue
            if self.hold.is_set() and not hand["back"]:
                await asyncio.sleep(0.2)
                continue
            if not self.shot_turn and hand["your_turn"] and state["deal"]["turn"]:
                self.shot_turn = True  # the countdown shown on the turn's seat and the status line
                await self.page.locator("#status", has_text="⏳").wait_for()
                await self.shot("turn")
            phase = state["deal"]["phase"]
            if phase != "play" and hand["your_turn"] and not self.decided_other:
                self.decided_other = True
                await self.shot(f"decision-{phase}")
            version = state["version"]
            if await _tap_something(self.page):
                await _settled(self.page, version)
                if phase == "play" and hand["your_turn"]:
                    self.played += 1
                    if self.after_play is not None:
                        await self.after_play(self.played)
            else:
                await asyncio.sleep(0.1)
        raise AssertionError(f"{self.name}'s match did not end in {MATCH_SECONDS} s")


async def test_a_whole_match_on_the_live_table(
    sandbox: SandboxServer, storage: RedisStorage, tmp_path: Path
) -> None:
    _need_chromium()
    from playwright.async_api import async_playwright, expect

    shots = Path(os.environ.get("SANDBOX_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    world = sandbox.emulator.world
    svc = services_of(sandbox.application)
    driver = Driver(world, default_timeout=20)
    anya, boris, vera = (driver.user(i) for i in sandbox.scene.player_ids[:3])
    group = driver.group(sandbox.scene.group_id)
    rules = Rules.make("classic", match_target=TARGET).to_json()
    await storage.save_chat_settings(
        group.id, ChatSettings(rules=rules, turn_time=TURN_TIME, timeout_action="away")
    )
    # Аня and Борис sit as opponents; the two bot players are their partners.
    message = await lobby(driver, group, anya)
    await sit(anya, message, 0, group)
    await sit(boris, message, 1, group)
    await anya.tap(message, "Начать")
    await group.wait_until(message, lambda m: "Посадить туда" in m.content)
    await anya.tap(message, "с ботами")
    table_message = await group.wait_bot_message(
        lambda m: any("Стол вживую" in str(b.get("text")) for row in m.buttons for b in row)
    )
    direct = next(b["url"] for row in table_message.buttons for b in row if "Стол вживую" in b["text"])
    # Аня's DM hand is there before her page opens (then the bot spends no private call on it).
    await anya.dm.wait_bot_message(lambda m: len(m.buttons) > 2)

    def launch(user: SimUser) -> str:
        url = launch_url(world, user.id, direct, now=time.time())
        assert url is not None
        return url

    base = sandbox.url.rstrip("/")
    port = int(base.rsplit(":", 1)[1])
    anya_net, boris_net = Proxy(port), Proxy(port)
    anya_at, boris_at = await anya_net.start(), await boris_net.start()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        phone = {"viewport": PHONE, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
        try:
            # A context (a window) for each phone: a page behind another tab of its window gets an
            # animation frame about once a second in headless Chromium, and every click and wait on
            # it took that second.
            anya_page, boris_page, vera_page = [
                await (await browser.new_context(**phone, color_scheme=scheme)).new_page()
                for scheme in ("light", "dark", "light")
            ]
            for page in (anya_page, boris_page, vera_page):
                page.set_default_timeout(20_000)
            await anya_page.goto(f"http://127.0.0.1:{anya_at}{launch(anya)}")
            await boris_page.goto(f"http://127.0.0.1:{boris_at}{_themed(launch(boris), DARK)}")
            await vera_page.goto(f"{base}{launch(vera)}")
            await expect(anya_page.locator("#seat-bottom")).to_contain_text("Аня")
            await expect(boris_page.locator("#seat-bottom")).to_contain_text("Борис")

            # Вера is not seated: she watches, with no hand and no decision.
            await expect(vera_page.locator("#banner")).to_contain_text("Вы смотрите игру")
            await expect(vera_page.locator("#seat-bottom")).to_contain_text("Аня")
            assert await vera_page.locator("#hand .card, #decisions button").count() == 0
            await vera_page.screenshot(path=str(shots / "vera-watcher-light.png"), full_page=True)

            a, b = (
                Phone("Аня", anya_page, shots, "anya-light"),
                Phone("Борис", boris_page, shots, "boris-dark"),
            )
            b.hold.set()  # Борис lets his first turn run out: the bot takes it and he is away

            async def checks(played: int) -> None:
                if played == 1:
                    await _stale_tap(a, anya, svc.codec, expect)
                elif played == 3:
                    await _network_drop(a, anya_net, storage, group.id, expect)

            a.after_play = checks
            players = [asyncio.create_task(a.play()), asyncio.create_task(b.play())]
            try:
                await _away_and_back(b, expect)
                done, _ = await asyncio.wait(
                    players, timeout=MATCH_SECONDS, return_when=asyncio.ALL_COMPLETED
                )
                for task in done:
                    task.result()
            finally:
                for task in players:
                    task.cancel()
            # The match is over on every page: the result, the same on the watcher's.
            pages = {"anya-light": anya_page, "boris-dark": boris_page, "vera-watcher-light": vera_page}
            for name, page in pages.items():
                await page.wait_for_function("() => window.kozel.state().status === 'over'")
                result = await page.evaluate("() => window.kozel.state().result")
                assert result and "🐐" in result, result
                await expect(page.locator("#status")).to_have_text(result)
                await page.screenshot(path=str(shots / f"{name}-over.png"), full_page=True)
            assert a.played >= 3 and b.played >= 3, (a.played, b.played)
            assert a.dropped, "her network dropped mid-deal"
            assert await vera_page.locator("#hand .card").count() == 0
        finally:
            await browser.close()
            await anya_net.close()
            await boris_net.close()
    stored = await storage.load_table(group.id, None)
    assert stored is not None and stored.status == "over" and stored.match is not None
    assert max(stored.match.penalty) >= TARGET
    assert not [c for c in world.calls if not c.ok]


async def _away_and_back(b: Phone, expect: Any) -> None:
    """Борис's turn runs out: the bot moves for him, his page offers "I'm back"; he taps it."""
    page = b.page
    back = page.locator("#away button.back")
    b.pause.set()
    b.hold.clear()
    await expect(back).to_be_visible(timeout=(TURN_TIME + 20) * 1000)
    await expect(page.locator("#seat-bottom")).to_contain_text("💤")
    await b.shot("away")
    # The bot plays his cards meanwhile, redrawing the hand; the bar stands still at the foot of the
    # screen, so a click that waits for the button to be stable lands at once.
    box = await back.bounding_box()
    await back.click(timeout=5000)
    assert box is not None and box["y"] + box["height"] <= PHONE["height"], "on screen without scrolling"
    await expect(page.locator("#toast")).to_contain_text("С возвращением")
    await expect(back).to_have_count(0)
    b.pause.clear()


def _card_of(codec: Codec, data: str) -> Card | None:
    """The card a hand's button stands for (one to play, or one that may not go now)."""
    _, payload = codec.read(data)
    if isinstance(payload, Held):
        return payload.card
    if isinstance(payload, Act) and isinstance(payload.action, Play):
        return payload.action.card
    return None


async def _until(check: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


async def _stale_tap(a: Phone, anya: SimUser, codec: Codec, expect: Any) -> None:
    """A card Аня played, tapped again on the page and in her DM (whose hand the bot left as it was
    while her page was open): refused in the same words."""
    page = a.page
    stale = await page.evaluate("() => window.kozel.lastActed()")
    card = _card_of(codec, stale)
    assert card is not None, stale
    await page.evaluate("data => window.kozel.act(data)", stale)
    toast = page.locator("#toast")
    await expect(toast).to_be_visible()
    on_page = await toast.text_content()
    await a.shot("stale")
    # Her newest DM hand (the bot has not touched it since her page opened).
    dm_hand = [m for m in anya.dm.bot_messages if m.buttons][-1]
    found = [
        str(btn["callback_data"])
        for row in dm_hand.buttons
        for btn in row
        if btn.get("callback_data") and _card_of(codec, str(btn["callback_data"])) == card
    ]
    if not found:  # her card ended the deal (a queen caught): the DM hand is the deal's end now
        assert on_page and "раздача" in dm_hand.content.lower(), (on_page, dm_hand.content)
        return
    inline = await anya.tap(dm_hand, data=found[0])
    assert on_page and inline.answer_text == on_page, (on_page, inline.answer_text)
    assert "уже сыграна" in on_page


async def _network_drop(a: Phone, net: Proxy, storage: RedisStorage, chat_id: int, expect: Any) -> None:
    """Аня's network drops mid-deal while the others play on; once it is back her page's stream
    resumes from the version it had: the latest version at once, none twice."""
    page = a.page
    net.drop()
    await expect(page.locator("#banner")).to_contain_text("Нет связи", timeout=10_000)
    await a.shot("offline")
    before = max(await page.evaluate("() => window.kozel.received()"))  # the last it had
    for _ in range(100):  # the others play on meanwhile (until it is her turn)
        table = await storage.load_table(chat_id, None)
        if table is not None and table.version >= before + 2:
            break
        await asyncio.sleep(0.1)
    net.restore()
    table = await storage.load_table(chat_id, None)
    assert table is not None
    latest = table.version
    await page.wait_for_function("v => window.kozel.state().version >= v", arg=latest, timeout=15_000)
    await expect(page.locator("#banner")).to_be_hidden()
    received: list[int] = await page.evaluate("() => window.kozel.received()")
    assert received == sorted(set(received)), received  # no version twice, none out of order
    after = [v for v in received if v > before]
    assert after and after[0] >= latest, (before, latest, received)  # caught up at once, no gap
    a.dropped = True
