"""Kozel (Козёл) for Telegram group chats."""
