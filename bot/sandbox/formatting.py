"""Telegram's text formatting: HTML parse mode in, plain text plus entities out, and back to HTML.

Telegram measures entity offsets and lengths in UTF-16 code units, so everything here does too.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Any

JSONDict = dict[str, Any]

# Tags Telegram accepts in parse_mode=HTML, mapped to the entity type each produces.
_SIMPLE_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "a": "text_link",
    "span": "spoiler",
    "tg-emoji": "custom_emoji",
}

_COMMAND_RE = re.compile(r"(?<![^\s])/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?![A-Za-z0-9_@])")
_MENTION_RE = re.compile(r"(?<![^\s])@[A-Za-z0-9_]{5,32}(?![A-Za-z0-9_])")
_URL_RE = re.compile(r"(?<![^\s(])(?:https?://|t\.me/)[^\s<>\"]+")


class EntityParseError(ValueError):
    """The text is not valid Telegram HTML; the message is Telegram's own wording."""


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, the unit of Telegram's offsets and limits."""
    return len(text.encode("utf-16-le")) // 2


class _TelegramHTMLParser(HTMLParser):
    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self.parts: list[str] = []
        self.pos16 = 0
        self.stack: list[tuple[str, int, JSONDict]] = []
        self.entities: list[JSONDict] = []
        self._line_starts = [0]
        for match in re.finditer("\n", source):
            self._line_starts.append(match.end())

    def _byte_offset(self) -> int:
        line, col = self.getpos()
        char_offset = self._line_starts[line - 1] + col
        return len(self.source[:char_offset].encode("utf-8"))

    def handle_data(self, data: str) -> None:
        """Collect text, advancing the UTF-16 position."""
        self.parts.append(data)
        self.pos16 += utf16_len(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Open an entity, refusing tags Telegram does not support."""
        attributes = {name: value or "" for name, value in attrs}
        if tag not in _SIMPLE_TAGS:
            raise EntityParseError(
                f'can\'t parse entities: Unsupported start tag "{tag}" at byte offset {self._byte_offset()}'
            )
        extra: JSONDict = {"type": _SIMPLE_TAGS[tag]}
        if tag == "a":
            href = attributes.get("href", "")
            if not href:
                raise EntityParseError(
                    f"can't parse entities: Can't find end of a tag at byte offset {self._byte_offset()}"
                )
            extra["url"] = href
        elif tag == "span" and attributes.get("class") != "tg-spoiler":
            raise EntityParseError(
                f'can\'t parse entities: Unsupported start tag "span" at byte offset {self._byte_offset()}'
            )
        elif tag == "blockquote" and "expandable" in attributes:
            extra["type"] = "expandable_blockquote"
        elif tag == "tg-emoji":
            extra["custom_emoji_id"] = attributes.get("emoji-id", "")
        elif tag == "code" and self.stack and self.stack[-1][0] == "pre":
            language = attributes.get("class", "")
            if language.startswith("language-"):
                self.stack[-1][2]["language"] = language.removeprefix("language-")
                extra = {"type": "_inner_code"}
        self.stack.append((tag, self.pos16, extra))

    def handle_endtag(self, tag: str) -> None:
        """Close the innermost entity, which must be this tag's."""
        if not self.stack or self.stack[-1][0] != tag:
            raise EntityParseError(
                f"can't parse entities: Unexpected end tag at byte offset {self._byte_offset()}"
            )
        _, start, extra = self.stack.pop()
        length = self.pos16 - start
        if length > 0 and extra["type"] != "_inner_code":
            self.entities.append({**extra, "offset": start, "length": length})

    def finish(self) -> tuple[str, list[JSONDict]]:
        """The plain text and its entities in Telegram's order."""
        self.close()
        if self.stack:
            raise EntityParseError(
                f"can't parse entities: Can't find end tag corresponding to start tag \"{self.stack[-1][0]}\""
            )
        entities = sorted(self.entities, key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.parts), [_ordered(e) for e in entities]


def _ordered(entity: JSONDict) -> JSONDict:
    head = {"offset": entity["offset"], "length": entity["length"], "type": entity["type"]}
    head.update({k: v for k, v in entity.items() if k not in head})
    return head


def parse_html(source: str) -> tuple[str, list[JSONDict]]:
    """Turn Telegram-flavoured HTML into plain text and MessageEntity dicts, as Telegram does."""
    parser = _TelegramHTMLParser(source)
    parser.feed(source)
    return parser.finish()


def parse_text(text: str, parse_mode: str | None) -> tuple[str, list[JSONDict]]:
    """Apply ``parse_mode`` to outgoing bot text; Markdown modes are passed through unparsed."""
    if parse_mode is not None and parse_mode.upper() == "HTML":
        return parse_html(text)
    return text, []


def user_entities(text: str) -> list[JSONDict]:
    """The entities Telegram's clients attach to a typed message: commands, mentions and links."""
    found: list[JSONDict] = []
    for kind, pattern in (("bot_command", _COMMAND_RE), ("mention", _MENTION_RE), ("url", _URL_RE)):
        for match in pattern.finditer(text):
            found.append(
                {
                    "offset": utf16_len(text[: match.start()]),
                    "length": utf16_len(match.group()),
                    "type": kind,
                }
            )
    return sorted(found, key=lambda e: (e["offset"], -e["length"]))


_RENDER_TAGS = {
    "bold": ("<b>", "</b>"),
    "italic": ("<i>", "</i>"),
    "underline": ("<u>", "</u>"),
    "strikethrough": ("<s>", "</s>"),
    "spoiler": ('<span class="spoiler">', "</span>"),
    "code": ("<code>", "</code>"),
    "pre": ("<pre>", "</pre>"),
    "blockquote": ("<blockquote>", "</blockquote>"),
    "expandable_blockquote": ("<blockquote>", "</blockquote>"),
    "bot_command": ('<span class="cmd">', "</span>"),
    "mention": ('<span class="mention">', "</span>"),
}


def _open_tag(entity: JSONDict, covered: str) -> tuple[str, str]:
    kind = entity["type"]
    if kind in ("text_link", "url"):
        url = entity.get("url", covered)
        return f'<a href="{html.escape(url, quote=True)}" data-url="{html.escape(url, quote=True)}">', "</a>"
    return _RENDER_TAGS.get(kind, ("<span>", "</span>"))


def render_html(text: str, entities: list[JSONDict]) -> str:
    """Render plain text and its entities as safe HTML for the sandbox page."""
    units = text.encode("utf-16-le")

    def slice16(start: int, end: int) -> str:
        return units[start * 2 : end * 2].decode("utf-16-le", "replace")

    total = len(units) // 2
    opens: dict[int, list[JSONDict]] = {}
    for entity in entities:
        opens.setdefault(entity["offset"], []).append(entity)
    out: list[str] = []
    stack: list[tuple[int, str]] = []
    position = 0
    boundaries = sorted({0, total, *opens.keys(), *(e["offset"] + e["length"] for e in entities)})
    for boundary in boundaries:
        if boundary > position:
            out.append(html.escape(slice16(position, boundary)))
            position = boundary
        while stack and stack[-1][0] <= position:
            out.append(stack.pop()[1])
        for entity in sorted(opens.get(position, []), key=lambda e: -e["length"]):
            end = entity["offset"] + entity["length"]
            start_tag, end_tag = _open_tag(entity, slice16(position, end))
            out.append(start_tag)
            stack.append((end, end_tag))
    while stack:
        out.append(stack.pop()[1])
    return "".join(out)
