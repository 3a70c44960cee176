"""An away person's hand on their turn says the bot makes the move and invites no tap (issue 34,
item 4): the bot player moves for them a moment later, and a tap after it would be refused."""

from __future__ import annotations

import random

import pytest

from bot.render.hand_view import LEGAL_MARK, hand_content
from bot.render.i18n import Tr
from bot.table import game
from bot.table.codec import Codec
from tests.bot.helpers import started_table

AWAY = {"ru": "💤 Сейчас за вас играет бот", "en": "💤 The bot is playing for you"}
TURN = {"ru": "Ваш ход", "en": "Your turn"}


def _taps(codec: Codec, markup: object) -> list[str]:
    """The kinds of payload a hand's buttons carry."""
    rows = markup.inline_keyboard  # type: ignore[attr-defined]
    return [type(codec.read(str(b.callback_data))[1]).__name__ for row in rows for b in row]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_an_away_persons_hand_on_their_turn_says_the_bot_moves_and_offers_no_decision(lang: str) -> None:
    tr, codec = Tr(lang), Codec(b"k")
    table = started_table("classic", 4)
    deal = game.deal_of(table)
    assert deal is not None and deal.to_act is not None
    seat = deal.to_act
    here = hand_content(tr, codec, table, deal, seat, hint=True)
    assert TURN[lang] in here.text and AWAY[lang] not in here.text
    assert "Act" in _taps(codec, here.markup)
    table.away = [seat]
    away = hand_content(tr, codec, table, deal, seat, hint=True)
    assert AWAY[lang] in away.text and TURN[lang] not in away.text, away.text
    assert away.markup is not None
    labels = [b.text for row in away.markup.inline_keyboard for b in row]
    assert not any(label.startswith(LEGAL_MARK) for label in labels), labels  # nothing marked to play
    assert set(_taps(codec, away.markup)) <= {"Held"}  # no decision, no 💡
    # Another seat's hand still says whose turn it is, naming the away person with 💤.
    other = hand_content(tr, codec, table, deal, (seat + 1) % 4)
    assert "💤" in other.text and AWAY[lang] not in other.text


def test_an_away_partner_of_a_blind_is_told_the_bot_brags_for_it() -> None:
    tr, codec = Tr("ru"), Codec(b"k")
    table = started_table("dummy", 3)
    rng = random.Random(3)
    for _ in range(2000):  # a later deal's brag: the blind's decision, taken by its partner
        deal = game.deal_of(table)
        assert deal is not None and deal.to_act is not None
        if deal.to_act == 3:
            break
        game.apply(table, deal.to_act, rng.choice(deal.legal_actions(deal.to_act)), rng)
    else:
        pytest.fail("the blind never had a decision")
    partner = 1  # the blind's partner brags for it (its hand is shown in his DM)
    table.away = [partner]
    content = hand_content(tr, codec, table, deal, 3, hint=True)
    assert AWAY["ru"] in content.text and TURN["ru"] not in content.text, content.text
    assert set(_taps(codec, content.markup)) <= {"Held"}
