"""Texts from ``locales/``: gettext catalogs (Babel ``.po`` files) compiled in memory at first use.

Every user-facing text is a message key such as ``"lobby.title"`` translated in both catalogs, so no
text a user reads lives in the code. Placeholders are ``str.format`` names: ``{name}``.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALES_DIR = Path(__file__).resolve().parents[2] / "locales"
DOMAIN = "kozel"
LANGS = ("ru", "en")
#: The built-in default; the operator's ``DEFAULT_LANGUAGE`` replaces it at start (set_default_lang).
DEFAULT_LANG = "ru"
#: The language where no chat or person has one: ``[lang]``, set once by the composition root.
_FALLBACK = [DEFAULT_LANG]


def set_default_lang(lang: str) -> None:
    """Speak ``lang`` where no chat or person has chosen a supported language (``DEFAULT_LANGUAGE``)."""
    if lang not in LANGS:
        raise ValueError(f"unsupported language {lang!r}; one of {', '.join(LANGS)}")
    _FALLBACK[0] = lang


def default_lang() -> str:
    """The language where no chat or person has one."""
    return _FALLBACK[0]


@cache
def translations(lang: str) -> gettext.GNUTranslations:
    """The compiled catalog of ``lang`` (compiled from its ``.po`` file once per process)."""
    path = LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def pick_lang(*candidates: str | None) -> str:
    """The first supported language among ``candidates`` (Telegram ``language_code`` values too)."""
    for code in candidates:
        if code:
            base = code.lower().split("-")[0]
            if base in LANGS:
                return base
    return _FALLBACK[0]


class Tr:
    """Translate keys into one language: ``tr("lobby.title", name=...)``, ``tr.n("tricks", 3)``."""

    def __init__(self, lang: str) -> None:
        self.lang = lang if lang in LANGS else _FALLBACK[0]
        self._t = translations(self.lang)

    def __call__(self, key: str, /, **values: object) -> str:
        """The text of ``key`` with ``values`` filled in."""
        text = self._t.gettext(key)
        return text.format(**values) if values else text

    def has(self, key: str) -> bool:
        """Whether the catalog translates ``key``."""
        return self._t.gettext(key) != key

    def n(self, key: str, count: int, /, **values: object) -> str:
        """The plural form of ``key`` for ``count`` (``{n}`` is the count)."""
        text = self._t.ngettext(key, key + ".plural", count)
        return text.format(n=count, **values)
