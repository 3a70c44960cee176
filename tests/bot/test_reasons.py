"""Every reason the engine refuses a move for has its own alert, in every language."""

from __future__ import annotations

from bot.engine.cards import Suit
from bot.engine.errors import Reason
from bot.engine.refusal import IllegalMoveError
from bot.render.i18n import LANGS, Tr
from bot.table.moves import REASON_KEYS, reason_key, refusal_of


def test_every_reason_has_a_localized_alert_in_both_catalogs() -> None:
    assert set(REASON_KEYS) == set(Reason)
    for lang in LANGS:
        tr = Tr(lang)
        missing = [key for key in (*REASON_KEYS.values(), "alert.must_follow_suit") if not tr.has(key)]
        assert missing == [], lang


def test_the_alert_follows_the_reason_not_the_message() -> None:
    error = IllegalMoveError("seat 1 cannot play QC: it is seat 2's turn", Reason.MUST_FOLLOW)
    assert reason_key(error) == "alert.must_follow"
    assert reason_key(IllegalMoveError("anything")) == "alert.illegal"
    assert Tr("ru")(reason_key(IllegalMoveError("x", Reason.NOT_YOUR_TURN))) == "Сейчас не ваш ход."
    assert Tr("en")(reason_key(IllegalMoveError("x", Reason.NOT_YOUR_TURN))) == "It is not your turn."


def test_a_refused_follow_names_the_suit_and_a_trump_lead_asks_for_a_trump() -> None:
    suit = refusal_of(IllegalMoveError("x", Reason.MUST_FOLLOW, Suit.HEARTS))
    assert Tr("ru")(suit.key, **suit.values) == "Нужно ходить в масть: ♥."
    assert Tr("en")(suit.key, **suit.values) == "You must follow suit: ♥."
    trump = refusal_of(IllegalMoveError("x", Reason.MUST_FOLLOW_TRUMP))
    assert Tr("ru")(trump.key) == "Ход с козыря — нужно положить козырь."
    assert Tr("en")(trump.key) == "A trump was led — you must play a trump."
