"""Inline buttons: a user's tap (a callback query update, or the URL of a url button) and the bot's
answerCallbackQuery, which Telegram refuses when it comes twice or after the answer timeout."""

from __future__ import annotations

import secrets

from bot.sandbox.content import MAX_CALLBACK_ANSWER
from bot.sandbox.records import ApiError, CallbackRecord, Params, SandboxError, bad_request
from bot.sandbox.store import MessageStore

QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"


class Callbacks(MessageStore):
    """Button taps and their answers."""

    def tap(
        self, user_id: int, chat_id: int, message_id: int, *, row: int, column: int
    ) -> CallbackRecord | str:
        """A user taps an inline button: a callback query for callback buttons, the URL for url buttons."""
        user = self._user(user_id)
        chat = self._chat(chat_id)
        message = self.messages.get((chat_id, message_id))
        if message is None or message.deleted:
            raise SandboxError(f"message {message_id} is not in the chat")
        if chat.type == "private" and chat_id != user_id:
            raise SandboxError("users see only their own private chat")
        if chat.migrated_to is not None:
            raise SandboxError(f"{chat.title!r} is now the supergroup {chat.migrated_to}")
        if chat.is_group and chat.members.get(user_id) not in ("creator", "administrator", "member"):
            raise SandboxError(f"{user.first_name} is not a member of {chat.title!r}")
        try:
            button = message.buttons[row][column]
        except IndexError:
            raise SandboxError(f"message {message_id} has no button at row {row}, column {column}") from None
        if "url" in button:
            return str(button["url"])
        if "web_app" in button:  # the client opens the Mini App itself
            return str(button["web_app"].get("url", ""))
        if "callback_data" not in button:
            raise SandboxError(f"the button {button.get('text')!r} is not a callback button")
        query_id = str(secrets.randbits(63))
        record = CallbackRecord(
            id=query_id,
            user_id=user_id,
            chat_id=chat_id,
            message_id=message_id,
            data=button["callback_data"],
            created_at=self.clock.time(),
        )
        self.callbacks[query_id] = record
        self._queue_update(
            "callback_query",
            {
                "id": query_id,
                "from": user.to_json(),
                "message": self._message_json(message),
                "chat_instance": self._chat_instance(chat_id),
                "data": button["callback_data"],
            },
        )
        self._event("tap", chat_id, message_id, user_id)
        return record

    def api_answerCallbackQuery(self, params: Params) -> bool:
        """answerCallbackQuery: too late or twice is "query is too old"; a URL must be a deep link."""
        query_id = params.string("callback_query_id") or ""
        record = self.callbacks.get(query_id)
        if (
            record is None
            or record.answered
            or self.clock.time() - record.created_at > self.config.callback_answer_timeout
        ):
            raise ApiError(400, QUERY_TOO_OLD)
        text = params.string("text")
        if text is not None and len(text) > MAX_CALLBACK_ANSWER:
            raise bad_request("MESSAGE_TOO_LONG")
        url = params.string("url")
        if url is not None and self.deep_link_payload(url) is None:
            raise bad_request("URL_INVALID")
        record.answered = True
        record.answer_text = text
        record.show_alert = params.flag("show_alert")
        record.url = url
        record.answered_at = self.clock.time()
        self._event("answer", record.chat_id, record.message_id, record.user_id)
        return True
