"""The bot's messages: sendMessage, sendPhoto, sendDocument (and getFile for what was uploaded), the
edits (an edit that changes nothing is "message is not modified") and deleting with Telegram's rules.
Content and keyboards are checked by ``content.py``."""

from __future__ import annotations

import contextlib
import hashlib
from typing import Any

from bot.sandbox.content import MAX_CAPTION, MAX_TEXT, NOT_MODIFIED, parse_content, validate_markup
from bot.sandbox.records import (
    ApiError,
    ChatRecord,
    JSONDict,
    Params,
    StoredFile,
    StoredMessage,
    bad_request,
    image_size,
)
from bot.sandbox.store import MessageStore


class Messages(MessageStore):
    """Sending, editing and deleting the bot's messages."""

    # ----- sending -----------------------------------------------------------------------------

    def _thread_for(self, chat: ChatRecord, params: Params) -> int | None:
        thread_id = params.integer("message_thread_id")
        if not chat.is_forum:
            return None
        if thread_id is not None and thread_id != 1 and thread_id not in chat.topics:
            raise bad_request("message thread not found")
        return None if thread_id == 1 else thread_id

    def _reply_target(self, chat: ChatRecord, params: Params) -> int | None:
        reply = params.json_value("reply_parameters")
        reply_id = params.integer("reply_to_message_id")
        allow_missing = params.flag("allow_sending_without_reply")
        if isinstance(reply, dict):
            reply_id = reply.get("message_id")
            allow_missing = bool(reply.get("allow_sending_without_reply", allow_missing))
        if reply_id is None:
            return None
        target = self.messages.get((chat.id, int(reply_id)))
        if target is None or target.deleted:
            if allow_missing:
                return None
            raise bad_request("message to be replied not found")
        return int(reply_id)

    def api_sendMessage(self, params: Params) -> JSONDict:
        """sendMessage with text limits, HTML parsing, inline keyboards, topics and replies."""
        chat = self._resolve_chat(params)
        text, entities = parse_content(params, "text", MAX_TEXT, "message is too long")
        if not text.strip():
            raise bad_request("message text is empty")
        markup = validate_markup(params, private=chat.type == "private")
        self._check_can_write(chat)
        thread_id = self._thread_for(chat, params)
        reply_to = self._reply_target(chat, params)
        message = self._store_outgoing(
            chat, text=text, entities=entities, reply_markup=markup, thread_id=thread_id, reply_to=reply_to
        )
        return self._message_json(message)

    def _upload(self, params: Params, name: str, kind: str) -> StoredFile:
        if name in params.files:
            filename, mime, data = params.files[name]
        else:
            ref = params.string(name) or ""
            if ref.startswith("attach://") and ref[9:] in params.files:
                filename, mime, data = params.files[ref[9:]]
            elif ref in self.files:
                existing = self.files[ref]
                if existing.kind != kind:
                    raise bad_request(
                        f"can't use file of type {existing.kind.capitalize()} as {kind.capitalize()}"
                    )
                return existing
            elif ref.startswith(("http://", "https://")):
                raise bad_request("wrong file identifier/HTTP URL specified")
            elif not ref:
                raise bad_request(f"there is no {kind} in the request")
            else:
                raise bad_request("wrong file identifier/HTTP URL specified")
        width = height = 0
        if kind == "photo":
            if len(data) > 10 * 1024 * 1024:
                raise bad_request("PHOTO_SAVE_FILE_INVALID")
            size = image_size(data)
            if size is None:
                raise bad_request("IMAGE_PROCESS_FAILED")
            width, height = size
        elif len(data) > 50 * 1024 * 1024:
            raise ApiError(413, "Request Entity Too Large")
        digest = hashlib.sha256(data).hexdigest()[:20]
        unique = f"AQAD{digest}"
        file_id = f"{'AgAC' if kind == 'photo' else 'BQAC'}{digest}{len(self.files):04d}"
        stored = StoredFile(
            file_id=file_id,
            file_unique_id=unique,
            data=data,
            kind=kind,
            file_name=filename,
            mime_type=mime,
            width=width,
            height=height,
        )
        self.files[file_id] = stored
        return stored

    def api_sendPhoto(self, params: Params) -> JSONDict:
        """sendPhoto from a multipart upload or a known file_id; the bytes are kept."""
        return self._send_file(params, "photo")

    def api_sendDocument(self, params: Params) -> JSONDict:
        """sendDocument from a multipart upload or a known file_id."""
        return self._send_file(params, "document")

    def _send_file(self, params: Params, kind: str) -> JSONDict:
        """A message carrying an uploaded (or re-sent) file of ``kind`` "photo" or "document"."""
        chat = self._resolve_chat(params)
        caption, entities = parse_content(params, "caption", MAX_CAPTION, "message caption is too long")
        markup = validate_markup(params, private=chat.type == "private")
        self._check_can_write(chat)
        stored = self._upload(params, kind, kind)
        message = self._store_outgoing(
            chat,
            caption=caption or None,
            entities=entities,
            reply_markup=markup,
            thread_id=self._thread_for(chat, params),
            reply_to=self._reply_target(chat, params),
            **{f"{kind}_file_id": stored.file_id},
        )
        return self._message_json(message)

    def api_getFile(self, params: Params) -> JSONDict:
        """getFile: the file_path is served under ``/file/bot<token>/``."""
        stored = self.files.get(params.string("file_id") or "")
        if stored is None:
            raise bad_request("invalid file_id")
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": len(stored.data),
            "file_path": stored.file_path,
        }

    def file_by_path(self, path: str) -> StoredFile | None:
        """The stored file that getFile placed at ``path``."""
        return next((f for f in self.files.values() if f.file_path == path), None)

    # ----- editing and deleting ----------------------------------------------------------------

    def _editable(self, params: Params) -> StoredMessage:
        if params.has("inline_message_id"):
            raise bad_request("MESSAGE_ID_INVALID")
        chat = self._resolve_chat(params)
        message_id = params.integer("message_id")
        if message_id is None:
            raise bad_request("message identifier is not specified")
        self._check_can_write(chat)
        message = self.messages.get((chat.id, message_id))
        if message is None or message.deleted:
            raise bad_request("message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
        return message

    def _apply_edit(self, message: StoredMessage, **changes: Any) -> JSONDict:
        if all(getattr(message, name) == value for name, value in changes.items()):
            raise ApiError(400, NOT_MODIFIED)
        for name, value in changes.items():
            setattr(message, name, value)
        message.edit_date = self.now()
        message.edits += 1
        self._event("edit", message.chat_id, message.message_id)
        return self._message_json(message)

    def api_editMessageText(self, params: Params) -> JSONDict:
        """editMessageText; an edit that changes nothing is refused as "message is not modified"."""
        message = self._editable(params)
        if message.text is None:
            raise bad_request("there is no text in the message to edit")
        text, entities = parse_content(params, "text", MAX_TEXT, "MESSAGE_TOO_LONG")
        if not text.strip():
            raise bad_request("message text is empty")
        markup = validate_markup(params, private=message.chat_id > 0)
        return self._apply_edit(message, text=text, entities=entities, reply_markup=markup)

    def api_editMessageCaption(self, params: Params) -> JSONDict:
        """editMessageCaption."""
        message = self._editable(params)
        if message.photo_file_id is None and message.document_file_id is None:
            raise bad_request("there is no caption in the message to edit")
        caption, entities = parse_content(params, "caption", MAX_CAPTION, "message caption is too long")
        markup = validate_markup(params, private=message.chat_id > 0)
        return self._apply_edit(
            message, caption=caption or None, caption_entities=entities, reply_markup=markup
        )

    def api_editMessageReplyMarkup(self, params: Params) -> JSONDict:
        """editMessageReplyMarkup; no reply_markup removes the keyboard."""
        message = self._editable(params)
        markup = validate_markup(params, private=message.chat_id > 0)
        if markup == {"inline_keyboard": []}:
            markup = None
        return self._apply_edit(message, reply_markup=markup)

    def _delete_one(self, chat: ChatRecord, message_id: int | None) -> None:
        if message_id is None:
            raise bad_request("message identifier is not specified")
        message = self.messages.get((chat.id, message_id))
        if message is None or message.deleted:
            raise bad_request("message to delete not found")
        if message.service and "forum_topic_created" in message.service:
            raise bad_request("message can't be deleted")
        if chat.is_group:
            is_admin = chat.members.get(self.bot_id) in ("administrator", "creator")
            if not message.from_bot and not is_admin:
                raise bad_request("message can't be deleted")
            if self.now() - message.date > 48 * 3600 and not is_admin:
                raise bad_request("message can't be deleted for everyone")
        message.deleted = True
        self._event("delete", chat.id, message_id)

    def api_deleteMessage(self, params: Params) -> bool:
        """deleteMessage with Telegram's ownership and admin rules."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        self._delete_one(chat, params.integer("message_id"))
        return True

    def api_deleteMessages(self, params: Params) -> bool:
        """deleteMessages: deletes what it can, as Telegram does."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        ids = params.json_value("message_ids", "message_ids") or []
        for message_id in ids:
            with contextlib.suppress(ApiError):
                self._delete_one(chat, int(message_id))
        return True
