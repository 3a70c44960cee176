"""Arbitrary text — any Unicode, any length, bytes as a client might send them — as callback data,
deep-link payloads and command arguments, sent through the emulator to the running bot: each is
answered exactly once, with a localized refusal where the input means nothing, and nothing is logged
above WARNING (issue 33). The codec's readers, fed the same and lone surrogates too, refuse with
BadData and nothing else."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from telegram.ext import CommandHandler

from bot.render.i18n import Tr
from bot.sandbox import Driver, SimChat, SimGroup, SimUser, StoredMessage
from bot.sandbox.driver import AnyApplication
from bot.table.codec import Button, Codec
from bot.table.numbers import ascii_number
from bot.table.payloads import BadData, decode, from_b36
from bot.tg.services import Services
from tests.bot.helpers import inject


def hostile(max_examples: int) -> settings:
    """Hypothesis settings for examples sent through one emulator and bot: no deadline (a loaded
    machine is slow), the same examples on every run, no example database."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


#: Any text: every code point but lone surrogates (Telegram's JSON never carries one), bytes read as
#: UTF-8 (with replacement characters, as a server that checks UTF-8 passes them on) or as Latin-1,
#: and long ones (a message is at most 4096 UTF-16 units: 2000 code points always fit).
TEXTS = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace")),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.text(min_size=300, max_size=2000),
)
#: Arguments a sweep over every command sends: the issue's own, mixed scripts and controls, a long one.
NASTY = ("²", "١ ÄÖÜßéèêë \u202e\x00 🃏 j_a_0_abc_0_é", "ж🃏" * 1300)


@dataclass
class Scene:
    """Two people (Аня in Russian, Ann in English) who started the bot, and their group."""

    driver: Driver
    svc: Services
    people: list[SimUser]
    group: SimGroup
    commands: list[str]
    group_message: StoredMessage


def _registered_commands(application: AnyApplication) -> list[str]:
    """Every command the bot registers (bot/tg/__init__.py ``register``)."""
    found = {
        command
        for handlers in application.handlers.values()
        for handler in handlers
        if isinstance(handler, CommandHandler)
        for command in handler.commands
    }
    return sorted(found)


@pytest.fixture
async def scene(
    app: AnyApplication, driver: Driver, svc: Services, caplog: pytest.LogCaptureFixture
) -> Scene:
    caplog.set_level(logging.WARNING)
    anya, ann = driver.add_user("Аня"), driver.add_user("Ann", language_code="en")
    for person in (anya, ann):
        await person.start()
        await person.dm.wait_bot_message()
    group = driver.add_group("Козлятник", [anya, ann])
    await anya.send(group, "/help")
    group_message = await group.wait_bot_message()
    await driver.settle()
    return Scene(driver, svc, [anya, ann], group, _registered_commands(app), group_message)


def _tr(person: SimUser, chat: SimChat | None = None) -> Tr:
    """The language the bot answers ``person`` in: a group's (Russian), or the person's own."""
    private = chat is None or chat.id == person.id
    return Tr("en" if private and person.record.language_code == "en" else "ru")


def _errors_since(caplog: pytest.LogCaptureFixture, seen: int) -> list[str]:
    return [r.getMessage() for r in caplog.records[seen:] if r.levelno > logging.WARNING]


async def _send(
    scene: Scene, caplog: pytest.LogCaptureFixture, person: SimUser, chat: SimChat, text: str
) -> StoredMessage:
    """Send ``text``; the bot's only new message in ``chat`` (none logged above WARNING)."""
    seen, before = len(caplog.records), len(chat.bot_messages)
    await person.send(chat, text)
    await scene.driver.wait_for(
        lambda: True if len(chat.bot_messages) > before else None, what=f"the answer to {text!r}"
    )
    await scene.driver.settle(quiet=0.05)
    new = chat.bot_messages[before:]
    assert len(new) == 1, f"{text!r} got {[m.content for m in new]}"
    assert new[0].content.strip(), f"an empty answer to {text!r}"
    assert not _errors_since(caplog, seen), text
    return new[0]


async def _command(
    scene: Scene, caplog: pytest.LogCaptureFixture, name: str, argument: str, person: SimUser, in_group: bool
) -> None:
    """``/name argument`` gets one answer; /export and /start with nonsense get their refusal."""
    chat: SimChat = scene.group if in_group else person.dm
    reply = await _send(scene, caplog, person, chat, f"/{name} {argument}")
    tr, words = _tr(person, chat), argument.split()
    if name == "export" and in_group:  # no match played here: a number gets "none yet"
        assert reply.content in (tr("export.bad_number"), tr("history.none")), reply.content
    if name == "start" and not in_group:
        assert reply.content == tr("start.bad_link" if words else "start.hello"), reply.content


async def _tap(
    scene: Scene, caplog: pytest.LogCaptureFixture, person: SimUser, in_group: bool, data: str
) -> None:
    """A button with ``data`` tapped: answered once, with "this button does not work"."""
    message = scene.group_message if in_group else person.dm.bot_messages[0]
    inject(message, data)
    seen = len(caplog.records)
    tap = await person.tap(message, "👆")
    await scene.driver.settle(quiet=0.05)
    assert tap.callback is not None
    answers = [
        c
        for c in scene.driver.calls("answerCallbackQuery")
        if c.params.get("callback_query_id") == tap.callback.id
    ]
    assert len(answers) == 1 and answers[0].ok, answers
    assert tap.show_alert and tap.answer_text == _tr(person)("alert.unknown_button"), tap.answer_text
    assert not _errors_since(caplog, seen), data


# ----- the cases -------------------------------------------------------------------------


async def test_a_callback_signature_in_non_ascii_letters_is_refused(
    scene: Scene, caplog: pytest.LogCaptureFixture
) -> None:
    real = scene.svc.codec.pack(Button(scene.group.id, None, "abc", 0, "G"))
    forged = real.rsplit(".", 1)[0] + ".ÄÖÜßéèêë"
    for person in scene.people:
        await _tap(scene, caplog, person, False, forged)
        await _tap(scene, caplog, person, True, forged)


async def test_empty_and_overlong_callback_data_are_refused(
    scene: Scene, caplog: pytest.LogCaptureFixture
) -> None:
    # Telegram carries 1-64 bytes; a forged client may try none or more.
    real = scene.svc.codec.pack(Button(scene.group.id, None, "abc", 0, "G"))
    for data in ("", real + "." + "a" * 64, real + "é" * 40, "é" * 33):
        await _tap(scene, caplog, scene.people[0], False, data)
        await _tap(scene, caplog, scene.people[1], True, data)


async def test_a_deep_link_with_a_non_ascii_letter_is_refused(
    scene: Scene, caplog: pytest.LogCaptureFixture
) -> None:
    real = scene.svc.codec.pack_link("j", scene.group.id, None, "abc", 0)
    for person in scene.people:
        for payload in ("j_a_0_abc_0_é", real[:-1] + "é", real.replace("abc", "abç")):
            reply = await _send(scene, caplog, person, person.dm, f"/start {payload}")
            assert reply.content == _tr(person)("start.bad_link")


async def test_export_with_a_digit_that_is_not_ascii_is_refused(
    scene: Scene, caplog: pytest.LogCaptureFixture
) -> None:
    anya = scene.people[0]
    for argument in ("²", "١", "1²", "٣", "𝟙", "+1", " 1_0"):
        reply = await _send(scene, caplog, anya, scene.group, f"/export {argument}")
        assert reply.content == Tr("ru")("export.bad_number"), argument
    reply = await _send(scene, caplog, anya, scene.group, "/export 1")
    assert reply.content == Tr("ru")("history.none")


async def test_every_registered_command_answers_nasty_arguments_once(
    scene: Scene, caplog: pytest.LogCaptureFixture
) -> None:
    assert {"start", "newgame", "export", "stats"} <= set(scene.commands)
    for n, name in enumerate(scene.commands):
        for argument in NASTY:
            await _command(scene, caplog, name, argument, scene.people[n % 2], True)
            await _command(scene, caplog, name, argument, scene.people[(n + 1) % 2], False)


# ----- properties: any text, any command, any button ----------------------------------------------


@hostile(40)
@given(command=st.integers(0, 99), argument=TEXTS, who=st.integers(0, 1), in_group=st.booleans())
async def test_any_command_with_any_argument_is_answered_once(
    scene: Scene, caplog: pytest.LogCaptureFixture, command: int, argument: str, who: int, in_group: bool
) -> None:
    name = scene.commands[command % len(scene.commands)]
    await _command(scene, caplog, name, argument, scene.people[who], in_group)


@hostile(25)
@given(payload=TEXTS, mode=st.sampled_from(["whole", "signature", "field"]), who=st.integers(0, 1))
async def test_any_deep_link_payload_is_refused_once(
    scene: Scene, caplog: pytest.LogCaptureFixture, payload: str, mode: str, who: int
) -> None:
    parts = scene.svc.codec.pack_link("j", scene.group.id, None, "abc", 0).split("_")
    if mode == "signature":
        payload = "_".join([*parts[:-1], payload])
    elif mode == "field":
        payload = "_".join([*parts[:3], payload, *parts[4:]])
    await _command(scene, caplog, "start", payload, scene.people[who], False)


@hostile(30)
@given(
    data=st.one_of(TEXTS, st.text(min_size=65, max_size=200)),
    mode=st.sampled_from(["whole", "signature", "payload"]),
    who=st.integers(0, 1),
    in_group=st.booleans(),
)
async def test_any_callback_data_is_refused_once(
    scene: Scene, caplog: pytest.LogCaptureFixture, data: str, mode: str, who: int, in_group: bool
) -> None:
    real = scene.svc.codec.pack(Button(scene.group.id, None, "abc", 0, "G"))
    parts = real.split(".")
    if mode == "signature":
        data = ".".join([*parts[:-1], data])
    elif mode == "payload":
        data = ".".join([*parts[:5], data, *parts[6:]])
    assume(data != real)
    await _tap(scene, caplog, scene.people[who], in_group, data)


# ----- the codec alone: more examples, and lone surrogates a JSON decoder could hand over -----------

ANY_TEXT = st.one_of(TEXTS, st.binary().map(lambda b: b.decode("utf-8", "surrogateescape")))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(text=ANY_TEXT, mode=st.sampled_from(["whole", "signature", "field"]))
def test_the_codec_refuses_any_text_with_bad_data_only(text: str, mode: str) -> None:
    codec = Codec(b"secret")
    data = codec.pack(Button(-1_009_999_999_999, 7, "abcdef", 3, "G")).split(".")
    link = codec.pack_link("j", -1_009_999_999_999, 7, "abcdef", 3).split("_")
    at = {"signature": -1, "field": 1, "whole": 0}[mode]
    assume(text not in (data[at], link[at]))
    if mode == "whole":
        data, link = [text], [text]
    data[at], link[at] = text, text
    with pytest.raises(BadData):
        codec.read(".".join(data))
    with pytest.raises(BadData):
        codec.read_link("_".join(link))
    with contextlib.suppress(BadData):  # a payload's short code, or BadData: nothing else
        decode(text)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(text=ANY_TEXT)
def test_numbers_are_ascii_digits_only(text: str) -> None:
    n = ascii_number(text)
    assert (n is not None) == (0 < len(text) <= 9 and all(c in "0123456789" for c in text))
    assert n is None or n == int(text)


def test_base36_numbers_are_this_codecs_digits_only() -> None:
    assert from_b36("-crupjz7l") == -1_001_000_000_001
    for bad in ("١", " 1", "1_0", "+1", "", "A", "1" * 14):
        with pytest.raises(BadData):
            from_b36(bad)
