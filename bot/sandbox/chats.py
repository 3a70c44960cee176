"""Groups and their members: creating groups and topics, adding or promoting the bot, upgrading a group
to a supergroup, and the Bot API methods on chats (getChat, members and admins, pins, chat actions,
leaveChat)."""

from __future__ import annotations

from bot.sandbox.records import ApiError, ChatRecord, JSONDict, Params, SandboxError, bad_request
from bot.sandbox.store import MessageStore

_CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)


class Chats(MessageStore):
    """Groups, members, topics and the chat methods."""

    # ----- building groups ---------------------------------------------------------------------

    def add_group(
        self,
        title: str,
        members: list[int],
        *,
        supergroup: bool = True,
        forum: bool = False,
        username: str | None = None,
        owner: int | None = None,
        admins: list[int] | None = None,
        bot_status: str | None = "member",
        chat_id: int | None = None,
    ) -> ChatRecord:
        """Create a group whose first member (or ``owner``) created it, and optionally add the bot."""
        if forum and not supergroup:
            raise SandboxError("only supergroups can be forums")
        if chat_id is None:
            chat_id = (
                -(1_000_000_000_000 + next(self._supergroup_ids)) if supergroup else -next(self._group_ids)
            )
        chat = ChatRecord(
            id=chat_id,
            type="supergroup" if supergroup else "group",
            title=title,
            username=username,
            is_forum=forum,
        )
        creator = owner if owner is not None else (members[0] if members else None)
        for uid in members:
            if uid not in self.users:
                raise SandboxError(f"no user {uid}")
            chat.members[uid] = "member"
        for uid in admins or []:
            chat.members[uid] = "administrator"
        if creator is not None:
            chat.members[creator] = "creator"
        self.chats[chat_id] = chat
        self._chat_messages[chat_id] = []
        if bot_status is not None:
            self.add_bot_to_group(chat_id, by=creator, status=bot_status)
        return chat

    def add_bot_to_group(self, chat_id: int, *, by: int | None, status: str = "member") -> None:
        """Add the bot to a group: a ``new_chat_members`` service message and a my_chat_member update."""
        chat = self._chat(chat_id)
        old = chat.members.get(self.bot_id, "left")
        chat.members[self.bot_id] = status
        actor = by if by is not None else self.bot_id
        self._queue_update(
            "my_chat_member",
            {
                "chat": self._chat_json(chat),
                "from": self.users[actor].to_json(),
                "date": self.now(),
                "old_chat_member": self._member_json(chat, self.bot_id, old),
                "new_chat_member": self._member_json(chat, self.bot_id, status),
            },
        )
        if by is not None:
            self._store_incoming(
                chat, by, text=None, service={"new_chat_members": [self.bot.to_json()]}, thread_id=None
            )

    def set_bot_status(self, chat_id: int, status: str) -> None:
        """Promote or demote the bot in a group (sends my_chat_member like Telegram)."""
        chat = self._chat(chat_id)
        old = chat.members.get(self.bot_id, "left")
        chat.members[self.bot_id] = status
        owner = next((uid for uid, s in chat.members.items() if s == "creator"), self.bot_id)
        self._queue_update(
            "my_chat_member",
            {
                "chat": self._chat_json(chat),
                "from": self.users[owner].to_json(),
                "date": self.now(),
                "old_chat_member": self._member_json(chat, self.bot_id, old),
                "new_chat_member": self._member_json(chat, self.bot_id, status),
            },
        )

    def create_topic(self, chat_id: int, name: str, *, by: int) -> int:
        """Create a forum topic; returns its message_thread_id (the id of its creation message)."""
        chat = self._chat(chat_id)
        if not chat.is_forum:
            raise SandboxError("topics exist only in forum supergroups")
        thread_id = chat.next_message_id
        chat.topics[thread_id] = name
        self._store_incoming(
            chat,
            by,
            text=None,
            service={"forum_topic_created": {"name": name, "icon_color": 7322096}},
            thread_id=thread_id,
        )
        return thread_id

    def migrate_to_supergroup(self, chat_id: int, *, by: int) -> ChatRecord:
        """Upgrade a basic group to a supergroup, as Telegram does when a group grows or changes settings.

        The supergroup gets a new id and the same members. Telegram then sends two service messages:
        ``migrate_to_chat_id`` in the old group, ``migrate_from_chat_id`` in the new supergroup. From
        then on every call naming the old id fails with 400 "group chat was upgraded to a supergroup
        chat" carrying ``migrate_to_chat_id``. The old messages are not the bot's to edit in the new
        chat (their ids there are unknown to it), so the supergroup starts without them.
        """
        chat = self._chat(chat_id)
        if chat.type != "group" or chat.migrated_to is not None:
            raise SandboxError("only a basic group that was not upgraded yet can become a supergroup")
        if chat.members.get(by) not in ("creator", "administrator"):
            raise SandboxError("only the group's owner or an admin can upgrade it")
        new_id = -(1_000_000_000_000 + next(self._supergroup_ids))
        new = ChatRecord(
            id=new_id, type="supergroup", title=chat.title, username=chat.username, members=dict(chat.members)
        )
        self.chats[new_id] = new
        self._chat_messages[new_id] = []
        self._store_incoming(chat, by, text=None, service={"migrate_to_chat_id": new_id}, thread_id=None)
        chat.migrated_to = new_id
        self._store_incoming(new, by, text=None, service={"migrate_from_chat_id": chat_id}, thread_id=None)
        return new

    # ----- API: chats and members --------------------------------------------------------------

    def _knows_user(self, user_id: int) -> bool:
        user = self.users.get(user_id)
        if user is None:
            return False
        if user.started_bot or user.is_bot:
            return True
        return any(
            user_id in chat.members and self.bot_id in chat.members
            for chat in self.chats.values()
            if chat.is_group
        )

    def api_getChat(self, params: Params) -> JSONDict:
        """getChat returning a ChatFullInfo."""
        chat = self._resolve_chat(params)
        if chat.type == "private" and not self._knows_user(chat.id):
            raise bad_request("chat not found")
        if chat.is_group and chat.members.get(self.bot_id) not in ("member", "administrator", "creator"):
            raise ApiError(403, f"Forbidden: bot is not a member of the {self._chat_noun(chat)} chat")
        data = self._chat_json(chat)
        data.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        if chat.pinned:
            data["pinned_message"] = self._message_json(self.messages[(chat.id, chat.pinned[-1])])
        return data

    def _group_for_members(self, params: Params) -> ChatRecord:
        chat = self._resolve_chat(params)
        if chat.is_group and chat.members.get(self.bot_id) not in ("member", "administrator", "creator"):
            raise ApiError(403, f"Forbidden: bot is not a member of the {self._chat_noun(chat)} chat")
        return chat

    def api_getChatMember(self, params: Params) -> JSONDict:
        """getChatMember (status creator / administrator / member / left / kicked)."""
        chat = self._group_for_members(params)
        user_id = params.integer("user_id")
        if user_id is None or user_id not in self.users:
            raise bad_request("user not found")
        if chat.type == "private":
            status = "member" if user_id in (chat.id, self.bot_id) else "left"
        else:
            status = chat.members.get(user_id, "left")
        return self._member_json(chat, user_id, status)

    def api_getChatAdministrators(self, params: Params) -> list[JSONDict]:
        """getChatAdministrators, owner first."""
        chat = self._group_for_members(params)
        if chat.type == "private":
            raise bad_request("there are no administrators in the private chat")
        admins = [uid for uid, s in chat.members.items() if s == "creator"]
        admins += [uid for uid, s in chat.members.items() if s == "administrator"]
        return [self._member_json(chat, uid, chat.members[uid]) for uid in admins]

    def api_getChatMemberCount(self, params: Params) -> int:
        """getChatMemberCount."""
        chat = self._group_for_members(params)
        return sum(1 for s in chat.members.values() if s in ("creator", "administrator", "member"))

    def api_sendChatAction(self, params: Params) -> bool:
        """sendChatAction: validated and logged, shown by nothing."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        if params.string("action") not in _CHAT_ACTIONS:
            raise bad_request("wrong parameter action in request")
        return True

    def api_pinChatMessage(self, params: Params) -> bool:
        """pinChatMessage; in groups the bot needs to be an administrator."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        if chat.is_group and chat.members.get(self.bot_id) not in ("administrator", "creator"):
            raise bad_request("not enough rights to manage pinned messages in the chat")
        message_id = params.integer("message_id")
        message = self.messages.get((chat.id, message_id or 0))
        if message is None or message.deleted:
            raise bad_request("message to pin not found")
        if message.message_id not in chat.pinned:
            chat.pinned.append(message.message_id)
        self._event("pin", chat.id, message.message_id)
        return True

    def api_unpinChatMessage(self, params: Params) -> bool:
        """unpinChatMessage (the latest pinned one when no message_id is given)."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        if chat.is_group and chat.members.get(self.bot_id) not in ("administrator", "creator"):
            raise bad_request("not enough rights to manage pinned messages in the chat")
        message_id = params.integer("message_id")
        if message_id is None and chat.pinned:
            message_id = chat.pinned[-1]
        if message_id in chat.pinned:
            chat.pinned.remove(message_id)
        self._event("pin", chat.id, message_id)
        return True

    def api_unpinAllChatMessages(self, params: Params) -> bool:
        """unpinAllChatMessages."""
        chat = self._resolve_chat(params)
        self._check_can_write(chat)
        if chat.is_group and chat.members.get(self.bot_id) not in ("administrator", "creator"):
            raise bad_request("not enough rights to manage pinned messages in the chat")
        chat.pinned.clear()
        self._event("pin", chat.id)
        return True

    def api_leaveChat(self, params: Params) -> bool:
        """leaveChat."""
        chat = self._resolve_chat(params)
        if chat.type == "private":
            raise bad_request("chat member status can't be changed in private chats")
        self._check_can_write(chat)
        chat.members[self.bot_id] = "left"
        self._changed()
        return True
