"""The browser sandbox: a page showing the group chat and one player's DM, driven like Telegram.

Served by the emulator's own aiohttp app. The page long-polls ``/sandbox/api/state`` and posts the
user's actions (send, tap, open a link, block) to ``/sandbox/api/*``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from aiohttp import web

from bot.sandbox.emulator import Emulator
from bot.sandbox.miniapp import launch_url
from bot.sandbox.records import SandboxError, StoredMessage
from bot.sandbox.world import World

JSONDict = dict[str, Any]
PLAYER_NAMES = ("Аня", "Борис", "Вера", "Глеб")
_MAX_SHOWN = 300


@dataclass
class Scene:
    """Who is in the sandbox: up to four players and the group they play in."""

    group_id: int
    player_ids: list[int] = field(default_factory=list)


def build_scene(world: World, *, names: tuple[str, ...] = PLAYER_NAMES, title: str = "Козлятник") -> Scene:
    """Create the players (the first one owns the group) and a group with the bot in it."""
    if not 1 <= len(names) <= 4:
        raise ValueError("the sandbox shows one to four players")
    usernames = ("anya", "boris", "vera", "gleb")
    players = [world.add_user(name, username=f"{usernames[i]}_sandbox") for i, name in enumerate(names)]
    group = world.add_group(title, [p.id for p in players], supergroup=True)
    return Scene(group_id=group.id, player_ids=[p.id for p in players])


def _service_text(world: World, message: StoredMessage) -> str:
    service = message.service or {}
    actor = world.users[message.sender_id].first_name
    if "new_chat_members" in service:
        names = ", ".join(u.get("first_name", "?") for u in service["new_chat_members"])
        return f"{actor} добавляет {names}"
    if "forum_topic_created" in service:
        return f"{actor} создаёт тему «{service['forum_topic_created'].get('name', '')}»"
    return "служебное сообщение"


def message_view(world: World, message: StoredMessage) -> JSONDict:
    """What the page needs to draw one message."""
    sender = world.users[message.sender_id]
    view: JSONDict = {
        "id": message.message_id,
        "from": sender.full_name,
        "from_id": sender.id,
        "from_bot": message.from_bot,
        "html": message.html,
        "date": message.date,
        "edited": message.edit_date is not None,
        "buttons": [
            [
                {
                    "text": str(button.get("text", "")),
                    "kind": "url"
                    if "url" in button
                    else (
                        "web_app"
                        if "web_app" in button
                        else ("callback" if "callback_data" in button else "other")
                    ),
                    "url": button.get("url") or (button.get("web_app") or {}).get("url"),
                }
                for button in row
            ]
            for row in message.buttons
        ],
    }
    if message.service:
        view["service"] = _service_text(world, message)
    if message.photo_file_id:
        view["photo"] = f"/sandbox/file/{message.photo_file_id}"
    if message.document_file_id:
        stored = world.files[message.document_file_id]
        view["document"] = {"url": f"/sandbox/file/{stored.file_id}", "name": stored.file_name or "file"}
    if message.reply_to is not None:
        target = world.messages.get((message.chat_id, message.reply_to))
        if target is not None:
            view["reply_to"] = {
                "from": world.users[target.sender_id].full_name,
                "text": (target.content or "")[:80],
            }
    return view


def state_view(world: World, scene: Scene, user_id: int) -> JSONDict:
    """The whole page state for one selected player."""
    group = world.chats[scene.group_id]
    notices = [
        {
            "id": record.id,
            "text": record.answer_text,
            "show_alert": record.show_alert,
            "url": record.url,
            "chat_id": record.chat_id,
        }
        for record in world.callbacks.values()
        if record.user_id == user_id and record.answered
    ][-20:]
    return {
        "version": world.version,
        "bot": {"name": world.bot.first_name, "username": world.bot.username},
        "players": [
            {
                "id": uid,
                "name": world.users[uid].first_name,
                "started": world.users[uid].started_bot,
                "blocked": world.users[uid].blocked_bot,
            }
            for uid in scene.player_ids
        ],
        "user_id": user_id,
        "group": {
            "id": group.id,
            "title": group.title,
            "messages": [message_view(world, m) for m in world.chat_messages(group.id)[-_MAX_SHOWN:]],
        },
        "dm": {
            "id": user_id,
            "messages": [message_view(world, m) for m in world.chat_messages(user_id)[-_MAX_SHOWN:]],
        },
        "commands": world.default_commands(),
        "notices": notices,
    }


class SandboxPage:
    """Routes of the sandbox page, added to an :class:`Emulator`'s web app."""

    def __init__(self, emulator: Emulator, scene: Scene) -> None:
        self.emulator = emulator
        self.world = emulator.world
        self.scene = scene
        router = emulator.app.router
        router.add_get("/", self._index)
        router.add_get("/sandbox/api/state", self._state)
        router.add_post("/sandbox/api/send", self._send)
        router.add_post("/sandbox/api/tap", self._tap)
        router.add_post("/sandbox/api/open", self._open)
        router.add_post("/sandbox/api/webapp", self._webapp)
        router.add_post("/sandbox/api/block", self._block)
        router.add_get("/sandbox/file/{file_id}", self._file)

    def _player(self, raw: Any) -> int:
        try:
            user_id = int(raw)
        except (TypeError, ValueError):
            raise web.HTTPBadRequest(text="unknown player") from None
        if user_id not in self.scene.player_ids:
            raise web.HTTPBadRequest(text="unknown player")
        return user_id

    def _chat(self, raw: Any, user_id: int) -> int:
        try:
            chat_id = int(raw)
        except (TypeError, ValueError):
            raise web.HTTPBadRequest(text="unknown chat") from None
        if chat_id not in (self.scene.group_id, user_id):
            raise web.HTTPBadRequest(text="unknown chat")
        return chat_id

    async def _index(self, request: web.Request) -> web.Response:
        page = resources.files("bot.sandbox").joinpath("static/index.html").read_text(encoding="utf-8")
        return web.Response(text=page, content_type="text/html", charset="utf-8")

    async def _state(self, request: web.Request) -> web.Response:
        user_id = self._player(request.query.get("user", self.scene.player_ids[0]))
        since = int(request.query.get("since", "-1"))
        wait = min(float(request.query.get("wait", "0")), 25.0)
        if since >= self.world.version and wait > 0:
            await self.world.wait_change(wait)
        return web.json_response(state_view(self.world, self.scene, user_id), dumps=_dumps)

    async def _body(self, request: web.Request) -> JSONDict:
        try:
            body = await request.json()
        except ValueError:
            raise web.HTTPBadRequest(text="expected JSON") from None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(text="expected a JSON object")
        return body

    async def _send(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        user_id = self._player(body.get("user"))
        chat_id = self._chat(body.get("chat"), user_id)
        try:
            self.world.user_sends(user_id, chat_id, str(body.get("text", "")).strip())
        except SandboxError as error:
            return web.json_response({"ok": False, "error": str(error)}, dumps=_dumps)
        return web.json_response({"ok": True})

    async def _tap(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        user_id = self._player(body.get("user"))
        chat_id = self._chat(body.get("chat"), user_id)
        try:
            outcome = self.world.tap(
                user_id, chat_id, int(body["message"]), row=int(body["row"]), column=int(body["column"])
            )
        except (SandboxError, KeyError, ValueError) as error:
            return web.json_response({"ok": False, "error": str(error)}, dumps=_dumps)
        if isinstance(outcome, str):
            return web.json_response({"ok": True, "url": outcome}, dumps=_dumps)
        return web.json_response({"ok": True, "callback": outcome.id})

    async def _open(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        user_id = self._player(body.get("user"))
        url = str(body.get("url", ""))
        try:
            started = self.world.follow_url(user_id, url)
        except SandboxError as error:
            return web.json_response({"ok": False, "error": str(error)}, dumps=_dumps)
        return web.json_response({"ok": True, "deep_link": started is not None})

    async def _webapp(self, request: web.Request) -> web.Response:
        """Where a link or a ``web_app`` button opens the live table for the user, if it is one."""
        body = await self._body(request)
        user_id = self._player(body.get("user"))
        url = launch_url(self.world, user_id, str(body.get("url", "")), now=time.time())
        return web.json_response({"ok": url is not None, "url": url}, dumps=_dumps)

    async def _block(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        user_id = self._player(body.get("user"))
        self.world.set_blocked(user_id, bool(body.get("blocked")))
        return web.json_response({"ok": True})

    async def _file(self, request: web.Request) -> web.Response:
        stored = self.world.files.get(request.match_info["file_id"])
        if stored is None:
            raise web.HTTPNotFound()
        return web.Response(body=stored.data, content_type=stored.mime_type or "application/octet-stream")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
