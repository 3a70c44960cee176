"""The Bot API methods about the bot itself: getMe, logOut and close, the webhook (set, delete, info)
and the command menu (setMyCommands with Telegram's validation, per scope and language)."""

from __future__ import annotations

import json
import re

from bot.sandbox.records import JSONDict, Params, bad_request
from bot.sandbox.state import WorldState

_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")


class BotApi(WorldState):
    """The bot's profile, webhook and commands."""

    def api_getMe(self, params: Params) -> JSONDict:
        """getMe."""
        data = self.bot.to_json()
        data.update(
            can_join_groups=True,
            can_read_all_group_messages=not self.config.privacy_mode,
            supports_inline_queries=False,
            can_connect_to_business=False,
            has_main_web_app=False,
        )
        return data

    def api_logOut(self, params: Params) -> bool:
        """logOut (accepted, nothing to do locally)."""
        return True

    def api_close(self, params: Params) -> bool:
        """close (accepted, nothing to do locally)."""
        return True

    def api_deleteWebhook(self, params: Params) -> bool:
        """deleteWebhook, optionally dropping pending updates."""
        self.webhook_url = ""
        if params.flag("drop_pending_updates"):
            self._updates.clear()
        return True

    def api_setWebhook(self, params: Params) -> bool:
        """setWebhook: remembered (so getUpdates then conflicts) but nothing is delivered to it."""
        url = params.string("url", "") or ""
        if url and not url.startswith("https://"):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        self.webhook_url = url
        if params.flag("drop_pending_updates"):
            self._updates.clear()
        return True

    def api_getWebhookInfo(self, params: Params) -> JSONDict:
        """getWebhookInfo."""
        return {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }

    def _commands_key(self, params: Params) -> str:
        scope = params.json_value("scope") or {"type": "default"}
        return json.dumps([scope, params.string("language_code", "") or ""], sort_keys=True)

    def api_setMyCommands(self, params: Params) -> bool:
        """setMyCommands with Telegram's validation of names and descriptions."""
        commands = params.json_value("commands", "commands") or []
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("too many commands" if isinstance(commands, list) else "can't parse commands")
        for command in commands:
            if not isinstance(command, dict) or not _COMMAND_NAME.match(str(command.get("command", ""))):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise bad_request("command description must be non-empty")
        self.commands[self._commands_key(params)] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        self._changed()
        return True

    def api_getMyCommands(self, params: Params) -> list[JSONDict]:
        """getMyCommands."""
        return self.commands.get(self._commands_key(params), [])

    def api_deleteMyCommands(self, params: Params) -> bool:
        """deleteMyCommands."""
        self.commands.pop(self._commands_key(params), None)
        self._changed()
        return True

    def default_commands(self) -> list[JSONDict]:
        """The command menu for the default scope and no language, for the sandbox page."""
        return self.commands.get(json.dumps([{"type": "default"}, ""], sort_keys=True), [])
