"""The live table's HTTP side: the page, its session, its state, its live events and its taps.

Routes, added to whichever aiohttp application the bot already serves (the webhook's, the sandbox's,
or one of their own in polling mode):

* ``GET /webapp/`` and ``/webapp/static/…`` — the page (plain HTML, CSS and JavaScript modules);
* ``POST /webapp/api/session`` ``{"init_data", "link"}`` — Telegram's signed ``initData`` for a
  session token; the table is named by its ``start_param`` (a direct link) or by ``link`` (the ``?t=``
  of a DM button's URL); 401 if unsigned or old, 403 if the link is forged;
* ``GET /webapp/api/state?token=`` — the table as the viewer may see it;
* ``GET /webapp/api/events?token=&version=`` — Server-Sent Events, one ``state`` event a version
  (the whole state, its id the version: a page that reconnects, by ``Last-Event-ID`` or ``version``,
  catches up with no gap and no double), ``gone`` when the table ends;
* ``POST /webapp/api/act`` ``{"token", "data"}`` — a tap on the page: the signed data of one of the
  viewer's hand buttons, applied by the same code as the tap on that button in the DM, refused in
  the same words.

Tokens come in the query string or the body (``EventSource`` cannot set headers), never from cookies.
Each user may make :data:`RATE` requests in :data:`RATE_WINDOW` seconds; beyond that 429.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from aiohttp import web

from bot.render.coach_view import hint_words
from bot.render.i18n import Tr, pick_lang
from bot.storage import StaleWrite
from bot.storage.errors import STORAGE_DOWN
from bot.table.core import TableKey
from bot.table.game import Notice, Refusal
from bot.table.hints import hint_for
from bot.table.links import LinkError, Session, Tokens
from bot.table.moves import back_move, pick_move, play_move
from bot.table.payloads import Act, Back, BadData, Held, Hint, Tick
from bot.table.usecase import Snapshot
from bot.webapp.initdata import InitDataError, check_init_data
from bot.webapp.live import RECHECK, LiveHub
from bot.webapp.parts import Parts
from bot.webapp.payload import payload_for
from bot.webapp.turn import turn_deadline

__all__ = ["LiveTable"]

_LOG = logging.getLogger(__name__)
#: Requests a user may make in :data:`RATE_WINDOW` seconds.
RATE = 40
RATE_WINDOW = 10.0
#: Seconds between keep-alive comments on an open event stream.
PING = 15.0
#: The page's own words, by key in the catalogs.
PAGE_TEXTS = (
    "webapp.title", "webapp.your_turn", "webapp.turn_of", "webapp.trump", "webapp.last_trick",
    "webapp.no_last_trick", "webapp.watching", "webapp.points", "webapp.tricks", "webapp.penalty",
    "webapp.offline", "webapp.gone", "webapp.lobby", "webapp.over", "webapp.table", "webapp.you",
    "webapp.away", "webapp.open_in_telegram", "webapp.time_left", "webapp.time_up",
)  # fmt: skip
_STATIC = {"index.html": "text/html", "app.js": "text/javascript", "app.css": "text/css"}


class LiveTable:
    """The routes of the live table; ``services`` gives the bot's services once they are built."""

    def __init__(
        self,
        services: Callable[[], Parts | None],
        bot_token: str,
        hub: Callable[[], LiveHub | None],
        *,
        max_age: float = 24 * 3600,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._services = services
        self._bot_token = bot_token
        self.tokens = Tokens(bot_token)
        self._hub = hub
        self.max_age = max_age
        self.clock = clock
        self._requests: dict[int, deque[float]] = defaultdict(deque)

    def attach(self, svc: Parts, hub: LiveHub) -> None:
        """Turn the live table on for the bot's services: its links on the table message and the
        hands, every saved version published through ``hub``, and no DM calls for a person's hand
        while their page is open."""
        svc.links = self.tokens
        svc.live_present = lambda table: hub.present((table.chat_id, table.thread_id), self.clock())
        svc.tables.renderers.append(hub)

    def add_routes(self, app: web.Application) -> None:
        """Serve the page and its API from ``app``."""
        r = app.router
        r.add_get("/webapp/", self._index)
        r.add_get("/webapp/static/{name}", self._static)
        r.add_post("/webapp/api/session", self._session)
        r.add_get("/webapp/api/state", self._state)
        r.add_get("/webapp/api/events", self._events)
        r.add_post("/webapp/api/act", self._act)

    # -- helpers -----------------------------------------------------------------------------------

    def _svc(self) -> Parts:
        svc = self._services()
        if svc is None:
            raise _error(web.HTTPServiceUnavailable, "starting")
        return svc

    def _live(self) -> LiveHub:
        hub = self._hub()
        if hub is None:
            raise _error(web.HTTPServiceUnavailable, "starting")
        return hub

    def _limit(self, user_id: int) -> None:
        now = time.monotonic()
        seen = self._requests[user_id]
        while seen and seen[0] < now - RATE_WINDOW:
            seen.popleft()
        if len(seen) >= RATE:
            raise _error(web.HTTPTooManyRequests, "too many requests")
        seen.append(now)

    def _check(self, token: str) -> Session:
        try:
            session = self.tokens.check(token, now=self.clock())
        except LinkError as e:
            raise _error(web.HTTPUnauthorized, f"session {e.reason}") from None
        self._limit(session.user_id)
        return session

    async def _tr(self, svc: Parts, user_id: int, telegram_lang: str | None = None) -> Tr:
        chosen = await svc.presenter.lang_of(user_id)
        return Tr(pick_lang(chosen, telegram_lang))

    async def _load(self, svc: Parts, key: TableKey, snap: Snapshot | None = None) -> _Read | None:
        """The table for the pages: ``snap`` (as this instance just saved it), else read from storage."""
        snap = snap or await svc.tables.load(key)
        if snap is None:
            return None
        return _Read(snap, await turn_deadline(svc.tables.core, snap), await svc.presenter.hints_on(key[0]))

    async def _read(self, svc: Parts, key: TableKey, *, fresh: bool = False) -> _Read | None:
        """The table as stored, read once a wake for all of this instance's pages of it: a read begun
        since the latest wake is as new as any (``fresh``: read it anew, at a page's periodic check)."""
        watched = self._live().watched(key)
        if watched is None:
            return await self._load(svc, key)
        held = watched.read
        if fresh or held is None or held[0] < watched.wakes or (held[1].done() and held[1].exception()):
            # Woken by this instance's own save: its snapshot is the table as stored.
            saved = (
                watched.saved[1]
                if watched.saved and watched.saved[0] == watched.wakes and not fresh
                else None
            )
            held = (watched.wakes, asyncio.ensure_future(self._load(svc, key, saved)))
            watched.read = held
        read: _Read | None = await asyncio.shield(held[1])
        return read

    async def _payload(self, svc: Parts, session: Session, read: _Read | None) -> tuple[int, str] | None:
        """The version of ``read``'s table and its state as ``session``'s viewer may see it (JSON);
        None if the session's table is gone. A watcher's is made once a version and language."""
        link = session.link
        if read is None or read.snap.table.table_id != link.table_id:
            return None
        tr = await self._tr(svc, session.user_id)
        table, deal = read.snap.table, read.snap.deal
        watcher = table.seat_of(session.user_id) is None
        made = read.watchers.get(tr.lang)
        if watcher and made is not None and time.monotonic() - made[0] < 1.0:  # its time left still right
            return table.version, made[1]
        state = payload_for(
            tr, svc.codec, table, deal, session.user_id, hint=read.hint, deadline=read.deadline,
            now=self.clock(), memo=read.memo,
        )  # fmt: skip
        data = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
        if watcher:
            read.watchers[tr.lang] = (time.monotonic(), data)
        return table.version, data

    # -- routes ------------------------------------------------------------------------------------

    async def _index(self, _: web.Request) -> web.Response:
        return _file("index.html")

    async def _static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in _STATIC or name == "index.html":
            raise web.HTTPNotFound()
        return _file(name)

    async def _session(self, request: web.Request) -> web.Response:
        body = await _json(request)
        raw = body.get("init_data")
        try:
            user = check_init_data(
                raw if isinstance(raw, str) else "", self._bot_token, now=self.clock(), max_age=self.max_age
            )
        except InitDataError as e:
            raise _error(web.HTTPUnauthorized, f"initData {e.reason}") from None
        self._limit(user.user_id)
        # A direct link's start parameter comes in initData; a DM button's web_app URL carries it as
        # ``?t=`` and the page passes it on (signed by the bot either way).
        given = body.get("link")
        param = user.start_param or (given if isinstance(given, str) else "")
        try:
            link = self.tokens.read_start_param(param)
        except LinkError as e:
            raise _error(web.HTTPForbidden, f"link {e.reason}") from None
        svc = self._svc()
        tr = await self._tr(svc, user.user_id, user.language_code)
        token = self.tokens.issue(user.user_id, link, now=self.clock())
        texts = {key.removeprefix("webapp."): tr(key) for key in PAGE_TEXTS}
        return web.json_response({"token": token, "lang": tr.lang, "texts": texts})

    async def _state(self, request: web.Request) -> web.Response:
        session = self._check(request.query.get("token", ""))
        svc, link = self._svc(), session.link
        try:
            state = await self._payload(svc, session, await self._load(svc, (link.chat_id, link.thread_id)))
        except STORAGE_DOWN:
            raise _error(web.HTTPServiceUnavailable, "storage") from None
        if state is None:
            raise _error(web.HTTPNotFound, "gone")
        return web.Response(text=state[1], content_type="application/json")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        session = self._check(request.query.get("token", ""))
        svc = self._svc()
        # The version the page has: the last event's id when the browser reconnects by itself (a
        # network that dropped), else the one the page asks from (a page that slept and reconnects).
        try:
            last = int(request.headers.get("Last-Event-ID") or request.query.get("version", "-1"))
        except ValueError:
            last = -1
        link = session.link
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
            }
        )
        await response.prepare(request)
        await response.write(b"retry: 2000\n\n")
        hub, key = self._live(), (link.chat_id, link.thread_id)
        try:
            await self._stream(svc, session, hub, response, last)
        except ConnectionResetError:  # the page went away mid-write
            pass
        finally:
            # The page is closed (or gone quiet): its person's DM hand is brought up to date.
            with contextlib.suppress(*STORAGE_DOWN):
                await hub.left(key, session.user_id)
                snap = await svc.tables.load(key)
                if snap is not None and snap.table.seat_of(session.user_id) is not None:
                    svc.presenter.show(snap)
        return response

    async def _stream(
        self, svc: Parts, session: Session, hub: LiveHub, response: web.StreamResponse, last: int
    ) -> None:
        """Send the table's state at every saved version until the table is gone or the session ends;
        meanwhile the viewer counts as present (no DM calls for their hand)."""
        link = session.link
        key = (link.chat_id, link.thread_id)
        async with hub.watch(key) as changed:
            pinged = time.monotonic()
            present_at = -RECHECK
            woken = False  # a page (re)opening reads the table anew: it may have missed anything
            while True:
                changed.clear()
                try:
                    read = await self._read(svc, key, fresh=not woken)
                    if read is None or read.snap.table.table_id != link.table_id:
                        await response.write(b"event: gone\ndata: {}\n\n")
                        break
                    if read.snap.table.version != last:
                        state = await self._payload(svc, session, read)
                        assert state is not None
                        last, data = state
                        await response.write(f"id: {last}\nevent: state\ndata: {data}\n\n".encode())
                        pinged = time.monotonic()
                except STORAGE_DOWN:
                    pass  # unchanged; checked again shortly
                if time.monotonic() - pinged > PING:
                    await response.write(b": ping\n\n")
                    pinged = time.monotonic()
                if time.monotonic() - present_at >= RECHECK:  # after the state: it waits for nothing
                    with contextlib.suppress(*STORAGE_DOWN):
                        await hub.here(key, session.user_id, self.clock())
                        present_at = time.monotonic()
                if self.clock() > session.expires:
                    await response.write(b"event: expired\ndata: {}\n\n")
                    break
                try:
                    async with asyncio.timeout(RECHECK):
                        await changed.wait()
                    woken = True
                except TimeoutError:
                    woken = False

    async def _act(self, request: web.Request) -> web.Response:
        body = await _json(request)
        token, data = body.get("token"), body.get("data")
        session = self._check(token if isinstance(token, str) else "")
        svc = self._svc()
        tr = await self._tr(svc, session.user_id)
        link = session.link
        try:
            try:
                button, payload = svc.codec.read(data if isinstance(data, str) else None)
            except BadData:
                raise Refusal("alert.unknown_button") from None
            if (button.chat_id, button.thread_id, button.table_id) != (
                link.chat_id,
                link.thread_id,
                link.table_id,
            ):
                raise Refusal("alert.stale")
            if isinstance(payload, Act | Held):
                await play_move(svc.tables, button, payload, session.user_id)
            elif isinstance(payload, Tick):
                await pick_move(svc.tables, button, payload, session.user_id)
            elif isinstance(payload, Back):  # "I'm back", as the group's and the DM's button
                await back_move(svc.tables, button, session.user_id)
                return web.json_response({"ok": True, "text": tr("timer.back_toast")})
            elif isinstance(payload, Hint):  # 💡 where the chat allows hints: said on the page alone
                text = await hint_for(svc.tables, button, payload, session.user_id, hint_words(tr))
                return web.json_response({"ok": True, "text": text})
            else:
                raise Refusal("alert.unknown_button")
        except Notice as notice:
            return web.json_response({"ok": False, "text": tr(notice.key, **notice.values), "quiet": True})
        except Refusal as refusal:
            return web.json_response({"ok": False, "text": tr(refusal.key, **refusal.values)})
        except StaleWrite:
            return web.json_response({"ok": False, "text": tr("alert.busy")})
        except STORAGE_DOWN:
            return web.json_response({"ok": False, "text": tr("fault.try_again")}, status=503)
        return web.json_response({"ok": True})


@dataclass
class _Read:
    """A table as read for the pages: its snapshot, its turn's deadline, whether the chat allows
    hints, and the state a watcher is sent, by language (made once, with when)."""

    snap: Snapshot
    deadline: float | None
    hint: bool
    watchers: dict[str, tuple[float, str]] = field(default_factory=dict)
    #: What every viewer's state shares, made once (:func:`bot.webapp.payload.payload_for`).
    memo: dict[Any, Any] = field(default_factory=dict)


def _error(kind: type[web.HTTPException], reason: str) -> web.HTTPException:
    # ``text``: what the page tells a person (the operator's language: no session, no viewer's yet).
    body = {"error": reason, "text": Tr(pick_lang(None))("webapp.open_in_telegram")}
    return kind(text=json.dumps(body, ensure_ascii=False), content_type="application/json")


async def _json(request: web.Request) -> dict[str, Any]:
    if request.content_length is not None and request.content_length > 8192:
        raise _error(web.HTTPRequestEntityTooLarge, "too large")
    try:
        body = await request.json()
    except (ValueError, UnicodeDecodeError):
        raise _error(web.HTTPBadRequest, "not JSON") from None
    if not isinstance(body, dict):
        raise _error(web.HTTPBadRequest, "not an object")
    return body


def _file(name: str) -> web.Response:
    data = resources.files("bot.webapp").joinpath("static", name).read_bytes()
    return web.Response(body=data, content_type=_STATIC[name], charset="utf-8")
