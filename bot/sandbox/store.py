"""Storing messages: what users post (queued as updates when the bot may see it) and what the bot sends.

A chat keeps its last ``messages_kept_per_chat`` messages. In a group with privacy mode on, a bot that
is not an admin sees only commands (to it or to no bot in particular), replies to its messages and
service messages, as on Telegram.
"""

from __future__ import annotations

from bot.sandbox.formatting import user_entities
from bot.sandbox.records import ChatRecord, JSONDict, StoredMessage
from bot.sandbox.shapes import Shapes


class MessageStore(Shapes):
    """Appending messages to chats."""

    def _append(self, chat: ChatRecord, message: StoredMessage) -> None:
        self.messages[message.key] = message
        ids = self._chat_messages.setdefault(chat.id, [])
        ids.append(message.message_id)
        if len(ids) > self.config.messages_kept_per_chat:
            old = ids.pop(0)
            self.messages.pop((chat.id, old), None)

    def _store_incoming(
        self,
        chat: ChatRecord,
        user_id: int,
        *,
        text: str | None,
        thread_id: int | None,
        reply_to: int | None = None,
        service: JSONDict | None = None,
    ) -> StoredMessage:
        message = StoredMessage(
            chat_id=chat.id,
            message_id=chat.next_message_id,
            sender_id=user_id,
            date=self.now(),
            text=text,
            entities=user_entities(text) if text else [],
            thread_id=thread_id,
            reply_to=reply_to,
            service=service,
        )
        chat.next_message_id += 1
        self._append(chat, message)
        if self._bot_sees(chat, message):
            self._queue_update("message", self._message_json(message))
        self._event("message", chat.id, message.message_id, user_id)
        return message

    def _bot_sees(self, chat: ChatRecord, message: StoredMessage) -> bool:
        if chat.type == "private":
            return True
        if chat.members.get(self.bot_id) not in ("member", "administrator", "creator"):
            return False
        if not self.config.privacy_mode or chat.members.get(self.bot_id) in ("administrator", "creator"):
            return True
        if message.service is not None:
            return True
        if message.reply_to is not None:
            target = self.messages.get((chat.id, message.reply_to))
            if target is not None and target.from_bot:
                return True
        for entity in message.entities:
            if entity["type"] != "bot_command" or message.text is None:
                continue
            units = message.text.encode("utf-16-le")
            command = units[entity["offset"] * 2 : (entity["offset"] + entity["length"]) * 2]
            _, _, mention = command.decode("utf-16-le").partition("@")
            if not mention or mention.lower() == (self.bot.username or "").lower():
                return True
        return False

    def _store_outgoing(
        self,
        chat: ChatRecord,
        *,
        text: str | None = None,
        caption: str | None = None,
        entities: list[JSONDict],
        reply_markup: JSONDict | None,
        thread_id: int | None,
        reply_to: int | None,
        photo_file_id: str | None = None,
        document_file_id: str | None = None,
    ) -> StoredMessage:
        if reply_to is not None and chat.is_forum and thread_id is None:
            thread_id = self.messages[(chat.id, reply_to)].thread_id
        message = StoredMessage(
            chat_id=chat.id,
            message_id=chat.next_message_id,
            sender_id=self.bot_id,
            date=self.now(),
            text=text,
            entities=entities if text is not None else [],
            caption=caption,
            caption_entities=entities if caption is not None else [],
            photo_file_id=photo_file_id,
            document_file_id=document_file_id,
            reply_markup=reply_markup if reply_markup and "inline_keyboard" in reply_markup else None,
            thread_id=thread_id,
            reply_to=reply_to,
            from_bot=True,
        )
        chat.next_message_id += 1
        self._append(chat, message)
        self._event("message", chat.id, message.message_id)
        return message
