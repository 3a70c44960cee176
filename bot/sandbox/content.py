"""What the bot may send: Telegram's limits on text, captions and inline keyboards, and its answers.

Pure checks over a request's :class:`~bot.sandbox.records.Params`, shared by sending and editing
(``messages.py``); they raise :class:`~bot.sandbox.records.ApiError` with Telegram's descriptions.
"""

from __future__ import annotations

import json
import re

from bot.sandbox.formatting import EntityParseError, parse_text, utf16_len
from bot.sandbox.records import JSONDict, Params, bad_request

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_CALLBACK_DATA = 64
MAX_BUTTONS = 100
MAX_BUTTONS_PER_ROW = 8
MAX_CALLBACK_ANSWER = 200
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
_TEXT_BUTTONS = "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"


def validate_markup(params: Params, *, private: bool = True) -> JSONDict | None:
    """The request's ``reply_markup``, an inline keyboard checked as Telegram checks it (``private``:
    the chat is a private one, the only kind where a ``web_app`` button is allowed)."""
    markup = params.json_value("reply_markup", "reply keyboard markup")
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        # Reply keyboards and ForceReply are accepted but not modelled by the sandbox.
        return markup
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request("can't parse inline keyboard button: InlineKeyboardButton must be an Object")
    # Telegram's own limits; real clients also hide buttons past 8 in a row, so the emulator refuses them.
    if sum(len(row) for row in rows) > MAX_BUTTONS or any(len(row) > MAX_BUTTONS_PER_ROW for row in rows):
        raise bad_request("reply markup is too long")
    if len(json.dumps(markup, ensure_ascii=False).encode()) > 10_000:
        raise bad_request("reply markup is too long")
    for row in rows:
        for button in row:
            if not isinstance(button, dict):
                raise bad_request(
                    "can't parse inline keyboard button: InlineKeyboardButton must be an Object"
                )
            if not str(button.get("text", "")):
                raise bad_request(
                    "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
                )
            if "callback_data" in button:
                data = button["callback_data"]
                if not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA:
                    raise bad_request("BUTTON_DATA_INVALID")
            elif "url" in button:
                url = str(button["url"])
                if not re.match(r"^(https?|tg)://\S+$", url) and not url.startswith("t.me/"):
                    raise bad_request(f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL")
            elif "web_app" in button:
                web_app = button["web_app"]
                if not private:
                    raise bad_request("BUTTON_TYPE_INVALID")
                if not isinstance(web_app, dict) or not str(web_app.get("url", "")).startswith("https://"):
                    raise bad_request("BUTTON_URL_INVALID")
            elif not any(
                key in button
                for key in (
                    "login_url",
                    "switch_inline_query",
                    "switch_inline_query_current_chat",
                    "switch_inline_query_chosen_chat",
                    "callback_game",
                    "pay",
                    "web_app",
                    "copy_text",
                )
            ):
                raise bad_request(_TEXT_BUTTONS)
    return {"inline_keyboard": rows}


def parse_content(params: Params, field_name: str, limit: int, too_long: str) -> tuple[str, list[JSONDict]]:
    """The text (or caption) in ``field_name`` and its entities, parsed with the request's parse_mode."""
    source = params.string(field_name, "") or ""
    entities_param = params.json_value(f"{'caption_' if field_name == 'caption' else ''}entities")
    try:
        text, entities = parse_text(source, params.string("parse_mode"))
    except EntityParseError as error:
        raise bad_request(str(error)) from None
    if isinstance(entities_param, list):
        entities = entities_param
    if utf16_len(text) > limit:
        raise bad_request(too_long)
    return text, entities
