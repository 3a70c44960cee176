"""The emulated Telegram world: users, chats, messages, updates, and the Bot API methods over them.

Everything here is synchronous and single-threaded (it lives on one asyncio loop); the HTTP layer in
``emulator.py`` turns requests into :meth:`World.call` and long-polls with :meth:`World.wait_change`.
Errors are raised as :class:`ApiError` with Telegram's own codes and descriptions, so that
python-telegram-bot raises the same exceptions it would raise in production.

:class:`World` is assembled from one module per role (the list is in ``state.py``, which holds the
state); this module dispatches a call — the method table, the call log, injected faults and flood
limits — and holds getUpdates.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from bot.sandbox.bot_api import BotApi
from bot.sandbox.callbacks import QUERY_TOO_OLD, Callbacks
from bot.sandbox.chats import Chats
from bot.sandbox.clock import Clock
from bot.sandbox.content import (
    MAX_BUTTONS,
    MAX_BUTTONS_PER_ROW,
    MAX_CALLBACK_ANSWER,
    MAX_CALLBACK_DATA,
    MAX_CAPTION,
    MAX_TEXT,
    NOT_MODIFIED,
)
from bot.sandbox.limits import COUNTED_METHODS
from bot.sandbox.messages import Messages
from bot.sandbox.records import (
    ApiCall,
    ApiError,
    ChatRecord,
    EmulatorConfig,
    Fault,
    JSONDict,
    LateAnswer,
    Params,
)
from bot.sandbox.users import UserActions

__all__ = [
    "MAX_BUTTONS",
    "MAX_BUTTONS_PER_ROW",
    "MAX_CALLBACK_ANSWER",
    "MAX_CALLBACK_DATA",
    "MAX_CAPTION",
    "MAX_TEXT",
    "NOT_MODIFIED",
    "QUERY_TOO_OLD",
    "World",
]


class World(UserActions, Callbacks, Chats, Messages, BotApi):
    """All state of the emulated Telegram and the Bot API methods that act on it."""

    def __init__(self, config: EmulatorConfig | None = None, *, clock: Clock | None = None) -> None:
        super().__init__(config, clock=clock)
        self._methods: dict[str, Callable[[Params], Any]] = {
            name.lower(): getattr(self, f"api_{name}")
            for name in (
                "getMe",
                "logOut",
                "close",
                "deleteWebhook",
                "setWebhook",
                "getWebhookInfo",
                "setMyCommands",
                "getMyCommands",
                "deleteMyCommands",
                "sendMessage",
                "sendPhoto",
                "sendDocument",
                "editMessageText",
                "editMessageCaption",
                "editMessageReplyMarkup",
                "deleteMessage",
                "deleteMessages",
                "answerCallbackQuery",
                "getChat",
                "getChatMember",
                "getChatAdministrators",
                "getChatMemberCount",
                "sendChatAction",
                "pinChatMessage",
                "unpinChatMessage",
                "unpinAllChatMessages",
                "getFile",
                "leaveChat",
            )
        }

    # ----- the Bot API -------------------------------------------------------------------------

    def call(self, method: str, params: Params) -> Any:
        """Run one Bot API method and log it; raises :class:`ApiError` as Telegram would answer."""
        handler = self._methods.get(method.lower())
        self.last_api_activity = self.clock.time()
        loggable = {k: v for k, v in params.raw.items()}
        for name, (filename, _, data) in params.files.items():
            loggable[name] = f"<file {filename or name}: {len(data)} bytes>"
        call = ApiCall(
            seq=len(self.calls) + 1, method=method, params=loggable, time=self.clock.time(), ok=False
        )
        with contextlib.suppress(ApiError, ValueError):
            call.chat_id = params.integer("chat_id")
        if method.lower() != "getupdates":
            self.calls.append(call)
            self.api_call_count += 1
        fault = self._take_fault(method, call.chat_id)
        try:
            if handler is None:
                raise ApiError(404, "Not Found")
            if fault is not None and not fault.delay:
                raise fault.error()
            if method.lower() in COUNTED_METHODS:
                self._check_rate(params)
            result = handler(params)
        except ApiError as error:
            call.error_code, call.description = error.code, error.description
            raise
        call.ok, call.result = True, result
        if method.lower() in COUNTED_METHODS and self.config.rate_limits:
            self._consume_rate(params)
        if fault is not None:
            raise LateAnswer(result, fault.delay)
        return result

    # ----- injected faults ---------------------------------------------------------------------

    @property
    def faults(self) -> list[Fault]:
        """Injected failures, first match wins (see :meth:`inject_faults`)."""
        return self._faults.faults

    def inject_faults(
        self,
        *,
        method: str | None = None,
        status: int = 500,
        count: int = 1,
        retry_after: int | None = None,
        chat_id: int | None = None,
        probability: float = 1.0,
        delay: float = 0.0,
    ) -> Fault:
        """Make the next ``count`` matching Bot API calls fail, as Telegram sometimes does.

        ``status`` 429 answers "Too Many Requests" with ``retry_after`` (default 1 s); 500, 502, 503
        and 504 answer Telegram's server errors; 400 refuses the call for good ("Bad Request", as a
        group that forbids media refuses a picture). Such a call is *not* applied. With ``delay`` > 0 the
        call *is* applied but its answer is held back ``delay`` seconds, so a client with a shorter
        read timeout sees a timeout for a call that took effect. ``method`` (any when None) and
        ``chat_id`` narrow which calls fail; with ``probability`` < 1 each matching call fails only
        with that chance (from a seeded generator, so runs repeat), until ``count`` have failed.
        """
        return self._faults.inject(
            method=method,
            status=status,
            count=count,
            retry_after=retry_after,
            chat_id=chat_id,
            probability=probability,
            delay=delay,
        )

    def clear_faults(self) -> None:
        """Remove every injected fault."""
        self._faults.clear()

    def _take_fault(self, method: str, chat_id: int | None) -> Fault | None:
        return self._faults.take(method, chat_id)

    # ----- rate limits -------------------------------------------------------------------------

    def _limit_chat(self, params: Params) -> ChatRecord | None:
        try:
            return self._resolve_chat(params)
        except ApiError:
            return None

    def _check_rate(self, params: Params) -> None:
        if not self.config.rate_limits:
            return
        now = self.clock.time()
        self._rates.check(now, self._limit_chat(params))

    def _consume_rate(self, params: Params) -> None:
        self._rates.consume(self.clock.time(), self._limit_chat(params))

    # ----- updates: getUpdates and webhook delivery --------------------------------------------

    @property
    def pending_updates(self) -> int:
        """Updates queued but not yet confirmed by the bot."""
        return len(self._updates)

    @property
    def undelivered_updates(self) -> int:
        """Updates the bot has not fetched yet."""
        return self._updates.undelivered

    def queued_update_ids(self) -> list[int]:
        """Ids of the updates queued and not yet confirmed by the bot (fetched or not)."""
        return self._updates.ids()

    def take_updates(self) -> list[JSONDict]:
        """Remove and return every queued update, for delivering them by webhook (to one or more bots)."""
        return self._updates.take()

    def get_updates(self, params: Params) -> list[JSONDict]:
        """Return pending updates for getUpdates (the waiting is done by the HTTP layer)."""
        if self.webhook_url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete "
                "the webhook first",
            )
        return self._updates.fetch(params)

    def log_get_updates(self, params: Params, result: list[JSONDict]) -> None:
        """Log a completed getUpdates (logged at its end, since it long-polls)."""
        self.calls.append(
            ApiCall(
                seq=len(self.calls) + 1,
                method="getUpdates",
                params=dict(params.raw),
                time=self.clock.time(),
                ok=True,
                result=result,
            )
        )

    def new_poll_generation(self) -> int:
        """Start a getUpdates request; an older one still waiting is then answered with 409."""
        generation = self._updates.new_poll_generation()
        self._wake()
        return generation

    def poll_superseded(self, generation: int) -> bool:
        """Whether a newer getUpdates request arrived since ``generation`` started."""
        return self._updates.poll_superseded(generation)

    def has_updates_for(self, params: Params) -> bool:
        """Whether getUpdates with these parameters would return something now."""
        return self._updates.has_updates_for(params)
