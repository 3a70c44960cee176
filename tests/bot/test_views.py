"""What the group and the DM show, rendered from stored tables without Telegram."""

from __future__ import annotations

import random

from bot.engine import Deal, Rules
from bot.handlers.codec import Codec
from bot.handlers.i18n import Tr
from bot.handlers.table_view import summary_content
from bot.storage import MatchState, Seat, Table


def _caught_queen_table() -> Table:
    """A table whose one finished deal ended with the queen of clubs caught (a penalty with no category)."""
    rules = Rules.make("classic")
    for seed in range(20_000):
        rng = random.Random(seed)
        deal = Deal.shuffled(rules, rng, dealer=0)
        while not deal.over:
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        result = deal.result
        assert result is not None
        if "queen_caught" in result.events and not {"para", "cherpak", "shestak"} & set(result.events):
            seats: list[Seat | None] = [Seat(kind="human", name=n, user_id=ord(n)) for n in "ABCD"]
            return Table(
                table_id="abc123",
                chat_id=-100,
                creator_id=1,
                status="playing",
                rules=rules.to_json(),
                seats=seats,
                match=MatchState(first_dealer=0, dealer=0, deals=[deal.record()], deal_seq=1),
            )
    raise AssertionError("no caught queen")  # pragma: no cover - the seeds above hold several


def test_a_caught_queens_penalty_reads_without_an_empty_category() -> None:
    table = _caught_queen_table()
    for lang, line in (("ru", "штрафных +"), ("en", "penalty +")):
        text = summary_content(Tr(lang), Codec(b"k"), table, 0).text
        penalties = [s for s in text.splitlines() if line in s]
        assert penalties, text
        assert all(":  —" not in s and ": —" not in s for s in penalties), penalties
