"""The JSON shapes of the Bot API objects the emulator answers with: Chat, ChatMember, File, Message.

Built from the records in :class:`~bot.sandbox.state.WorldState` with the fields Telegram sends, so
python-telegram-bot parses them as it parses Telegram's (a User is ``UserRecord.to_json``).
"""

from __future__ import annotations

import hashlib

from bot.sandbox.records import ChatRecord, JSONDict, SandboxError, StoredMessage
from bot.sandbox.state import WorldState


class Shapes(WorldState):
    """The world's records as Bot API JSON."""

    def _chat_instance(self, chat_id: int) -> str:
        digest = hashlib.sha256(f"{self.bot_id}:{chat_id}".encode()).digest()
        return str(int.from_bytes(digest[:8], "big") >> 1)

    def _chat_json(self, chat: ChatRecord) -> JSONDict:
        if chat.type == "private":
            user = self.users[chat.id]
            data: JSONDict = {"id": chat.id, "type": "private", "first_name": user.first_name}
            if user.last_name:
                data["last_name"] = user.last_name
            if user.username:
                data["username"] = user.username
            return data
        data = {"id": chat.id, "type": chat.type, "title": chat.title}
        if chat.username:
            data["username"] = chat.username
        if chat.is_forum:
            data["is_forum"] = True
        return data

    def _member_json(self, chat: ChatRecord, user_id: int, status: str) -> JSONDict:
        user = self.users[user_id].to_json()
        if status == "creator":
            return {"status": "creator", "user": user, "is_anonymous": False}
        if status == "administrator":
            is_bot = user_id == self.bot_id
            return {
                "status": "administrator",
                "user": user,
                "can_be_edited": not is_bot,
                "is_anonymous": False,
                "can_manage_chat": True,
                "can_delete_messages": True,
                "can_manage_video_chats": True,
                "can_restrict_members": True,
                "can_promote_members": False,
                "can_change_info": True,
                "can_invite_users": True,
                "can_post_stories": False,
                "can_edit_stories": False,
                "can_delete_stories": False,
                "can_pin_messages": True,
                "can_manage_topics": chat.is_forum,
            }
        if status == "kicked":
            return {"status": "kicked", "user": user, "until_date": 0}
        if status in ("member", "left"):
            return {"status": status, "user": user}
        raise SandboxError(f"unknown member status {status!r}")

    def _file_json(self, file_id: str) -> JSONDict:
        stored = self.files[file_id]
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": len(stored.data),
        }

    def _message_json(self, message: StoredMessage, *, nested: bool = False) -> JSONDict:
        chat = self.chats[message.chat_id]
        data: JSONDict = {
            "message_id": message.message_id,
            "from": self.users[message.sender_id].to_json(),
            "chat": self._chat_json(chat),
            "date": message.date,
        }
        if message.thread_id is not None and chat.is_forum:
            data["message_thread_id"] = message.thread_id
            data["is_topic_message"] = True
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        reply_to = message.reply_to
        if reply_to is None and message.thread_id is not None and chat.is_forum and not message.service:
            # Telegram presents every topic message as a reply to the topic's creation message.
            reply_to = message.thread_id
        if reply_to is not None and not nested:
            target = self.messages.get((chat.id, reply_to))
            if target is not None:
                data["reply_to_message"] = self._message_json(target, nested=True)
        if message.text is not None:
            data["text"] = message.text
            if message.entities:
                data["entities"] = message.entities
        if message.photo_file_id is not None:
            stored = self.files[message.photo_file_id]
            size = {"width": stored.width, "height": stored.height}
            data["photo"] = [{**self._file_json(stored.file_id), **size}]
        if message.document_file_id is not None:
            stored = self.files[message.document_file_id]
            document = self._file_json(stored.file_id)
            if stored.file_name:
                document["file_name"] = stored.file_name
            if stored.mime_type:
                document["mime_type"] = stored.mime_type
            data["document"] = document
        if message.caption is not None:
            data["caption"] = message.caption
            if message.caption_entities:
                data["caption_entities"] = message.caption_entities
        if message.service:
            data.update(message.service)
        if message.reply_markup and not nested:
            data["reply_markup"] = message.reply_markup
        return data

    def message_json(self, message: StoredMessage) -> JSONDict:
        """The Bot API Message object of a stored message."""
        return self._message_json(message)
