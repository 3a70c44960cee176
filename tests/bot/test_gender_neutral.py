"""Texts that speak of a person say nothing of their gender (issue 20): no masculine defaults, no "(а)"."""

from __future__ import annotations

import re

from babel.messages.pofile import read_po

from bot.render.i18n import DOMAIN, LOCALES_DIR

#: Forms that give a person a gender: pronouns for a player, "(а)" endings, past tenses said of a
#: person ("вернулся", "тот, кто собрал", "сдавал"), "самому", and the phrasings replaced in issue 20.
_RU_GENDERED = [
    r"\(а\)",
    r"\(ла\)",
    r"\bон\b",
    r"\bона\b",
    r"за него\b",
    r"за неё\b",
    r"\(неё\)",
    r"\bсамому\b",
    r"\bсамой\b",
    r"вернул(ся|ась)",
    r"\bтот, кто\b",
    r"\bне успел\b",
    r"\bзаблокировал\b",
    r"\bсдавал\b",
    r"по его выбору",
    r"отдадите ему",
]
_EN_GENDERED = [
    r"\bhe\b",
    r"\bhim\b",
    r"\bhis\b",
    r"\bhimself\b",
    r"\bshe\b",
    r"\bher\b",
    r"\(s\)he\b",
    r"/she\b",
]


def _texts(lang: str) -> list[tuple[str, str]]:
    with (LOCALES_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as f:
        catalog = read_po(f)
    out = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        key = message.id if isinstance(message.id, str) else message.id[0]
        out += [(key, s) for s in strings]
    return out


def test_russian_texts_give_no_person_a_gender() -> None:
    found = [(k, s) for k, s in _texts("ru") for p in _RU_GENDERED if re.search(p, s, re.IGNORECASE)]
    assert found == []


def test_english_texts_give_no_person_a_gender() -> None:
    found = [(k, s) for k, s in _texts("en") for p in _EN_GENDERED if re.search(p, s, re.IGNORECASE)]
    assert found == []


def test_the_check_finds_the_forms_it_looks_for() -> None:
    old = "💤 {name} не успевает — теперь за него играет бот, пока он не вернётся."
    assert any(re.search(p, old) for p in _RU_GENDERED)
    assert any(re.search(p, "🚫 {name} заблокировал(а) бота") for p in _RU_GENDERED)
    assert any(re.search(p, "the bot plays for him") for p in _EN_GENDERED)
