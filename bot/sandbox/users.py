"""What simulated users do: create accounts, write, start or block the bot, open links.

Each action checks what a Telegram client would allow (a user cannot write before pressing START, nor
in a group they are not in) and raises :class:`~bot.sandbox.records.SandboxError` otherwise; what the
bot would be told is queued as an update.
"""

from __future__ import annotations

import re

from bot.sandbox.content import MAX_TEXT
from bot.sandbox.formatting import utf16_len
from bot.sandbox.records import ChatRecord, SandboxError, StoredMessage, UserRecord
from bot.sandbox.store import MessageStore


class UserActions(MessageStore):
    """Simulated accounts and what they do."""

    def add_user(
        self,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "ru",
        user_id: int | None = None,
    ) -> UserRecord:
        """Create a simulated account with its (not yet started) private chat with the bot."""
        uid = user_id if user_id is not None else next(self._user_ids)
        if uid in self.users:
            raise SandboxError(f"user id {uid} already exists")
        user = UserRecord(
            id=uid, first_name=first_name, last_name=last_name, username=username, language_code=language_code
        )
        self.users[uid] = user
        self.chats[uid] = ChatRecord(id=uid, type="private", members={uid: "member", self.bot_id: "member"})
        self._chat_messages[uid] = []
        return user

    def user_sends(
        self,
        user_id: int,
        chat_id: int,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: int | None = None,
    ) -> StoredMessage:
        """A user types ``text`` into a chat; the bot gets an update if Telegram would send one."""
        user = self._user(user_id)
        chat = self._chat(chat_id)
        if not text:
            raise SandboxError("Telegram clients do not send empty messages")
        if chat.type == "private":
            if chat_id != user_id:
                raise SandboxError("a user can only write in their own private chat with the bot")
            is_start = text == "/start" or text.startswith("/start ")
            if user.blocked_bot:
                # Clients offer "Restart" on a blocked bot: it unblocks and sends /start.
                self.set_blocked(user_id, False)
                if not is_start:
                    raise SandboxError(f"{user.first_name} blocked the bot and must restart it with /start")
            if not user.started_bot and not is_start:
                raise SandboxError(f"{user.first_name} has not started the bot: the client only offers START")
            if is_start:
                user.started_bot = True
        elif chat.migrated_to is not None:
            raise SandboxError(f"{chat.title!r} is now the supergroup {chat.migrated_to}")
        elif chat.members.get(user_id) not in ("creator", "administrator", "member"):
            raise SandboxError(f"{user.first_name} is not a member of {chat.title!r}")
        if utf16_len(text) > MAX_TEXT:
            raise SandboxError("Telegram clients split text over 4096 characters")
        if thread_id is not None and chat.is_forum and thread_id not in chat.topics:
            raise SandboxError(f"no topic {thread_id} in {chat.title!r}")
        if reply_to is not None:
            target = self.messages.get((chat_id, reply_to))
            if target is None or target.deleted:
                raise SandboxError(f"no message {reply_to} to reply to")
            if chat.is_forum and thread_id is None:
                thread_id = target.thread_id
        return self._store_incoming(chat, user_id, text=text, thread_id=thread_id, reply_to=reply_to)

    def start_bot(self, user_id: int, payload: str | None = None) -> StoredMessage:
        """The user opens the bot (optionally via a t.me deep link) and presses START."""
        if payload is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", payload):
            raise SandboxError("deep-link payloads are 1-64 characters of A-Z, a-z, 0-9, _ and -")
        text = "/start" if payload is None else f"/start {payload}"
        return self.user_sends(user_id, user_id, text)

    def set_blocked(self, user_id: int, blocked: bool) -> None:
        """The user blocks (or unblocks) the bot; the bot gets a my_chat_member update."""
        user = self._user(user_id)
        if user.blocked_bot == blocked:
            return
        user.blocked_bot = blocked
        chat = self.chats[user_id]
        old, new = ("member", "kicked") if blocked else ("kicked", "member")
        self._queue_update(
            "my_chat_member",
            {
                "chat": self._chat_json(chat),
                "from": user.to_json(),
                "date": self.now(),
                "old_chat_member": self._member_json(chat, self.bot_id, old),
                "new_chat_member": self._member_json(chat, self.bot_id, new),
            },
        )
        self._changed()

    def follow_url(self, user_id: int, url: str) -> StoredMessage | None:
        """Open a URL as the user: a deep link to this bot starts it with the payload; others do nothing."""
        payload = self.deep_link_payload(url)
        if payload is None:
            return None
        return self.start_bot(user_id, payload or None)
