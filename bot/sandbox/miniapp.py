"""The live table (Mini App) as the sandbox opens it: the page, with ``initData`` signed by the
emulator's own bot token, as Telegram would open it for that user.

A ``web_app`` button's URL (the bot's ``WEBAPP_URL``, here :data:`SANDBOX_WEBAPP_URL`) opens the page
with the URL's query; a direct link ``t.me/<bot>[/<app>]?startapp=<param>`` opens it with
``start_param`` in ``initData``. Both are served by the sandbox's own address under ``/webapp/``.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote, urlsplit

from bot.sandbox.world import World
from bot.webapp.initdata import sign_init_data

__all__ = ["SANDBOX_WEBAPP_URL", "launch_url"]

#: The live table's public URL in the sandbox (https, as Telegram requires; the page maps it to itself).
SANDBOX_WEBAPP_URL = "https://sandbox.kozel.invalid/webapp/"
#: The colours a light Telegram theme sends (``tgWebAppThemeParams``).
THEME = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#707579",
    "button_color": "#3390ec",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#f4f4f5",
}


def launch_url(world: World, user_id: int, url: str, *, now: float) -> str | None:
    """Where the sandbox opens ``url`` for ``user_id`` as a Mini App, or None if it is not one."""
    start_param: str | None = None
    if url.startswith(SANDBOX_WEBAPP_URL):
        query = url[len(SANDBOX_WEBAPP_URL) :]
        if query and not query.startswith("?"):
            return None
    else:
        parts = urlsplit(url)
        bot = re.escape(world.config.bot_username)
        if parts.netloc != "t.me" or not re.fullmatch(rf"/{bot}(/[A-Za-z0-9_]+)?", parts.path):
            return None
        found = re.fullmatch(r"startapp=([A-Za-z0-9_-]{1,512})(&mode=\w+)?", parts.query)
        if found is None:
            return None
        start_param, query = found.group(1), ""
    user = world.users[user_id]
    fields = {
        "auth_date": str(int(now)),
        "user": json.dumps(
            {"id": user.id, "first_name": user.first_name, "language_code": user.language_code or "ru"},
            ensure_ascii=False,
            separators=(",", ":"),
        ),
    }
    if start_param is not None:
        fields["start_param"] = start_param
        fields["chat_type"] = "group"
    init_data = sign_init_data(world.config.token, fields)
    launch = "&".join(
        (
            f"tgWebAppData={quote(init_data, safe='')}",
            "tgWebAppVersion=8.0",
            "tgWebAppPlatform=sandbox",
            f"tgWebAppThemeParams={quote(json.dumps(THEME), safe='')}",
        )
    )
    return f"/webapp/{query}#{launch}"
