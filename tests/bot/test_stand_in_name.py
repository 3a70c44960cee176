"""A seat a bot took over from a person who left mid-match has one name in every view (issue 34,
item 3): ``Вера (🤖)`` in the tricks, the turn line, the next deal's table and hands, the summary and
the goat line — never the bot's lobby name."""

from __future__ import annotations

import random

from bot.engine import Play, Rules
from bot.render.hand_view import hand_content
from bot.render.i18n import Tr
from bot.render.labels import match_pair_players
from bot.render.table_view import live_content, summary_content, turn_line
from bot.render.words import seat_name
from bot.storage import Seat, Table
from bot.table import game
from bot.table.codec import Codec
from bot.table.played_by import person_left

VERA = 2


def _play_until(table: Table, rng: random.Random, done: object) -> None:
    for _ in range(500):
        deal = game.deal_of(table)
        assert deal is not None and deal.to_act is not None
        if callable(done) and done(deal):
            return
        seat = deal.to_act
        game.apply(table, seat, rng.choice(deal.legal_actions(seat)), rng)
    raise AssertionError("never got there")


def test_a_seat_taken_over_by_a_bot_is_named_after_the_person_who_left_in_every_view() -> None:
    rng = random.Random(3)
    table = Table(
        table_id="si1",
        chat_id=-100,
        creator_id=1,
        rules=Rules.make("classic").to_json(),
        seats=[
            Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate(("Аня", "Борис", "Вера", "Глеб"))
        ],
    )
    game.start_match(table, rng)
    # Вера plays a card, then leaves mid-deal: a bot takes her seat (as /leave does).
    _play_until(table, rng, lambda d: any(s == VERA and isinstance(a, Play) for s, a in d.moves))
    deal = game.deal_of(table)
    assert table.match is not None and deal is not None
    index = len(table.match.deals)
    person_left(table, deal, VERA)
    table.seats[VERA] = Seat(kind="bot", name="bot", level="easy")
    tr, codec = Tr("ru"), Codec(b"k")
    # The next time the seat is to act, in the next deal: the turn line, the table, a hand.
    _play_until(table, rng, lambda d: len(table.match.deals) > index and d.to_act == VERA)  # type: ignore[union-attr]
    deal = game.deal_of(table)
    assert deal is not None
    texts = {
        "seat": seat_name(tr, table, VERA),
        "turn": turn_line(tr, table, deal, mention=False),
        "table": live_content(tr, table, deal).text,
        "hand": hand_content(tr, codec, table, deal, 0).text,
        "summary": summary_content(tr, codec, table, index).text,
        "pair": match_pair_players(tr, table, 0),
    }
    for what, text in texts.items():
        assert "Вера (🤖)" in text, (what, text)
        assert "Бот №3" not in text, (what, text)
    assert texts["seat"] == "Вера (🤖)" and texts["pair"] == "Аня и Вера (🤖)"
    # Her cards before she left keep her name; the bot's after it say it played for her.
    summary = texts["summary"]
    assert "Вера (🤖)" in summary and "Вера " in summary.replace("Вера (🤖)", ""), summary
    # Another match at the same table (a rematch): the bot is a bot again.
    table.match = None
    assert seat_name(tr, table, VERA) == "🤖 Бот №3"
