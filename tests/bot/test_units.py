"""The codec, the catalogs, the outbox's coalescing and the embedded Redis."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
import redis

from bot.engine import ALL_CARDS, Cut, Declare, Exchange, Play, Suit, Swap
from bot.render.content import Content
from bot.render.i18n import LANGS, LOCALES_DIR, Tr, translations
from bot.storage import EmbeddedRedis
from bot.table.codec import MAX_CALLBACK, Button, Codec
from bot.table.core import Limits
from bot.table.payloads import BadData, decode_action, encode_action
from bot.tg.calls import LoopPace
from bot.tg.outbox import Outbox

ROOT = Path(__file__).resolve().parents[2]


def test_callback_data_round_trips_within_64_bytes() -> None:
    codec = Codec(b"secret")
    button = Button(-1_009_999_999_999, 2_147_483_647, "abcdef", 99_999, "AgASKSQHJD")
    data = codec.pack(button)
    assert len(data.encode()) <= MAX_CALLBACK
    assert codec.unpack(data) == button
    with pytest.raises(BadData):
        Codec(b"other").unpack(data)
    with pytest.raises(BadData):
        codec.unpack(data.replace("AgASKSQHJD", "AgASKSQHJC"))
    # A hand's button also carries the count of moves its keyboard was drawn at (two base-36 digits
    # cover any deal), and still fits; the count is signed like the rest.
    drawn = Button(-1_009_999_999_999, 2_147_483_647, "abcdef", 99_999, "AgASKSQHJD", moves=36 * 36 - 1)
    data = codec.pack(drawn)
    assert len(data.encode()) <= MAX_CALLBACK
    assert codec.unpack(data) == drawn and codec.unpack(codec.pack(button)).moves is None
    with pytest.raises(BadData):
        codec.unpack(data.replace(".zz.", ".zy."))


def test_deep_links_round_trip_and_fit_telegram() -> None:
    codec = Codec(b"secret")
    payload = codec.pack_link("j", -1_009_999_999_999, 12345, "abcdef", 3)
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", payload)
    assert codec.unpack_link(payload) == ("j", -1_009_999_999_999, 12345, "abcdef", 3)
    with pytest.raises(BadData):
        codec.unpack_link(payload[:-1] + ("0" if payload[-1] != "0" else "1"))


def test_every_action_has_a_short_code() -> None:
    actions: list[Any] = [Play(c) for c in ALL_CARDS] + [Declare(None), Declare(Suit.HEARTS), Swap(True),
                                                          Exchange(False), Cut(17)]  # fmt: skip
    for action in actions:
        assert decode_action(encode_action(action)) == action


def _keys_in_code() -> set[str]:
    keys: set[str] = set()
    for path in (ROOT / "bot" / "handlers").glob("*.py"):
        keys |= set(re.findall(r'(?:tr|utr|Refusal)(?:\.n)?\(\s*"([a-z_]+\.[a-z_.]+)"', path.read_text()))
        keys |= set(re.findall(r'"((?:alert|leave|stop)\.[a-z_]+)"', path.read_text()))
    return keys


def test_both_catalogs_translate_the_same_keys_with_the_same_placeholders() -> None:
    ru, en = translations("ru"), translations("en")
    ru_keys = {k for k in ru._catalog if isinstance(k, str) and k}  # type: ignore[attr-defined]
    en_keys = {k for k in en._catalog if isinstance(k, str) and k}  # type: ignore[attr-defined]
    assert ru_keys == en_keys
    for key in ru_keys:
        assert set(re.findall(r"{(\w+)}", Tr("ru")(key))) == set(re.findall(r"{(\w+)}", Tr("en")(key))), key
    missing = {k for k in _keys_in_code() if not Tr("ru").has(k)}
    assert not missing
    assert set(LANGS) == {p.name for p in LOCALES_DIR.iterdir() if p.is_dir()}


def test_english_texts_say_no_russian_word_but_the_terms_they_quote() -> None:
    """A Russian term is given in «» after its English name (the glossary's «шмон»), never in its place
    (the achievement once read "The шмон catches the queen")."""
    en = translations("en")
    texts = [v for k, v in en._catalog.items() if k]  # type: ignore[attr-defined]
    russian = [t for t in texts if re.search("[А-Яа-яЁё]", re.sub("«[^»]*»", "", t))]
    assert russian == []


class _CountingBot:
    def __init__(self) -> None:
        self.edits: list[str] = []

    async def edit_message_text(self, text: str, **kwargs: object) -> None:
        self.edits.append(text)


async def test_the_outbox_coalesces_quick_edits_and_always_sends_the_last() -> None:
    bot = _CountingBot()
    outbox = Outbox(bot, limits=Limits(group_interval=0.2, private_interval=0.2, global_interval=0))  # type: ignore[arg-type]
    for i in range(32):
        outbox.edit(-100, 1, Content(f"state {i}"))
        await asyncio.sleep(0.005)
    await outbox.drain()
    assert bot.edits[-1] == "state 31"
    assert len(bot.edits) <= 3


async def test_the_embedded_redis_keeps_its_data_append_only(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "data")
    url = await server.start()
    try:
        client = redis.Redis.from_url(url)
        client.set("k", "v")
        client.close()
        assert (tmp_path / "data" / "appendonlydir").exists() or (
            tmp_path / "data" / "appendonly.aof"
        ).exists()
    finally:
        server.stop()


def test_every_option_value_phase_and_event_has_a_text() -> None:
    from bot.engine import Phase
    from bot.engine.ai import LEVELS
    from bot.engine.cards import RANKS, SUITS
    from bot.engine.scoring import CATEGORIES
    from bot.render import rules_menu
    from bot.render.table_view import EVENTS

    for lang in LANGS:
        tr = Tr(lang)
        needed = [f"preset.{p}" for p in rules_menu.presets()]
        needed += [f"{k}.{p}" for p in rules_menu.presets() for k in ("lobby.about", "rules")]
        for preset in rules_menu.presets():
            for name, values in rules_menu.options_of(preset):
                needed.append(f"opt.{name}")
                for value in values:
                    assert not rules_menu.value_text(tr, value).startswith("val."), (lang, name, value)
        needed += [f"level.{level}" for level in LEVELS]
        needed += [f"rank.{r.value}" for r in RANKS] + [f"suit.{s.value}" for s in SUITS]
        needed += [f"phase.{p.value}" for p in Phase if p is not Phase.OVER]
        needed += [f"prompt.{p.value}" for p in Phase if p is not Phase.OVER]
        needed += [f"event.{e}" for e in EVENTS] + [f"cat.{c}" for c in CATEGORIES] + ["summary.tricks"]
        needed += ["void.redeal", "void.deal_passes"]
        assert [k for k in needed if not tr.has(k)] == [], lang


async def test_an_urgent_edit_does_not_wait_behind_a_relaxed_one() -> None:
    bot = _CountingBot()
    limits = Limits(group_interval=0, private_interval=0, global_interval=0, relaxed_interval=5.0)
    outbox = Outbox(bot, limits=limits)  # type: ignore[arg-type]
    outbox.edit(5, 1, Content("a"))
    await outbox.drain()
    outbox.edit(5, 1, Content("b"), urgent=False)  # mid-trick: may wait up to five seconds
    await asyncio.sleep(0.05)
    assert bot.edits == ["a"]
    outbox.edit(5, 2, Content("c"))  # another message, urgent: goes at once
    outbox.edit(5, 1, Content("d"))  # the waiting edit gets newer, urgent content
    loop = asyncio.get_running_loop()
    started = loop.time()
    await outbox.drain()
    assert loop.time() - started < 1.0
    assert sorted(bot.edits) == ["a", "c", "d"]


class _CountingPace(LoopPace):
    """Real time; counts the outbox's waits."""

    def __init__(self) -> None:
        self.sleeps = 0

    async def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        await asyncio.sleep(seconds)


async def test_a_relaxed_edit_waits_in_one_nap_and_the_same_content_made_urgent_wakes_it() -> None:
    bot = _CountingBot()
    limits = Limits(group_interval=0, private_interval=0, global_interval=0, relaxed_interval=0.6)
    pace = _CountingPace()
    outbox = Outbox(bot, limits=limits, pace=pace)  # type: ignore[arg-type]
    outbox.edit(5, 1, Content("a"), urgent=False)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await outbox.drain()
    # One wait for the whole relaxed interval, not a wake-up every fraction of a second.
    assert bot.edits == ["a"] and loop.time() - started >= 0.55 and pace.sleeps == 1
    outbox.edit(5, 1, Content("b"), urgent=False)
    await asyncio.sleep(0.05)
    assert bot.edits == ["a"]
    started = loop.time()
    outbox.edit(5, 1, Content("b"))  # the same content, now urgent: goes at once
    await outbox.drain()
    assert bot.edits == ["a", "b"] and loop.time() - started < 0.1


class _SendingBot:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def send_message(self, chat_id: int, text: str, **kwargs: Any) -> Any:
        self.sent.append((text, kwargs))
        return type("M", (), {"message_id": len(self.sent)})()

    async def send_photo(self, chat_id: int, photo: bytes, **kwargs: Any) -> Any:
        self.sent.append(("photo:" + str(kwargs["caption"]), kwargs))
        return type("M", (), {"message_id": len(self.sent)})()


async def test_a_posted_reply_is_queued_once_while_it_waits() -> None:
    bot = _SendingBot()
    outbox = Outbox(bot, limits=Limits(group_interval=0.05, private_interval=0.05, global_interval=0))  # type: ignore[arg-type]
    first = outbox.post(-100, Content("help"))
    same = [outbox.post(-100, Content("help")) for _ in range(5)]
    other = outbox.post(-100, Content("rules"), reply_to=7)
    photo = outbox.post(-100, Content("score"), photo=b"png")
    assert all(f is first for f in same) and other is not first
    await outbox.drain()
    assert [text for text, _ in bot.sent] == ["help", "rules", "photo:score"]
    assert bot.sent[1][1]["reply_parameters"].message_id == 7
    assert "reply_parameters" not in bot.sent[0][1]
    assert first.result().message_id == 1 and photo.result().message_id == 3
    again = outbox.post(-100, Content("help"))  # the first one went out: a new command gets its answer
    await outbox.drain()
    assert again is not first and [text for text, _ in bot.sent][-1] == "help"


def test_a_simulated_person_ticks_unticked_cards_then_confirms() -> None:
    from bot.render.hand_view import PICKABLE_MARK, PICKED_MARK, as_a_person_picks

    plain = [("7♠", "d1", "A1"), ("8♠", "d2", "A2")]
    assert as_a_person_picks(plain) == [("7♠", "d1"), ("8♠", "d2")], "no choice of several: every decision"
    ticking = [
        (PICKED_MARK + "7♠", "t1", "C7S"),
        (PICKABLE_MARK + "8♠", "t2", "C8S"),
        (PICKABLE_MARK + "9♠", "t3", "C9S"),
    ]
    assert as_a_person_picks(ticking) == [(PICKABLE_MARK + "8♠", "t2"), (PICKABLE_MARK + "9♠", "t3")]
    ready = [*ticking, ("✅ Отдать: выбрано 2 из 2", "ok", "Agive")]
    assert as_a_person_picks(ready) == [("✅ Отдать: выбрано 2 из 2", "ok")]
