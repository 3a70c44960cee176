"""The end of a match in the group: the eggs drawn once and told the same on every rendering; flip's
36-card deck in the rules menu."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from bot.engine import Card, Match, Rules, result_of, view_for
from bot.engine.actions import action_from_json
from bot.engine.ai.base import make_player
from bot.engine.eggs import EggDraw, egg_number
from bot.render import rules_menu
from bot.render.i18n import Tr
from bot.render.table_view import EGG_LINES, match_over_lines, summary_content
from bot.render.words import card_text
from bot.storage import MatchState, Seat, Table
from bot.storage.invariants import table_problems
from bot.table import game
from bot.table.codec import Codec

RECORDS = Path(__file__).resolve().parents[1] / "records"


def _before_the_last_move() -> tuple[Table, int, Any]:
    """The classic match of ``tests/records/classic_match_eggs.json`` (two eggs) stored at its last
    move: the table, the seat to move and the move that makes pair A the goat."""
    rec = json.loads((RECORDS / "classic_match_eggs.json").read_text(encoding="utf-8"))
    rules = Rules.parse(rec["rules"])
    *done, last = rec["deals"]
    match = Match(rules, dealer=done[0]["dealer"])
    for record in done:
        result = game.replay(record, rules).result
        assert result is not None
        match.add(result)
    state = MatchState(
        first_dealer=done[0]["dealer"], dealer=match.dealer, deals=done, deal_seq=len(rec["deals"])
    )
    state.deal_no, state.penalty = match.deal_no, (match.penalty[0], match.penalty[1])
    state.eggs, state.eggs_in_row = match.eggs, match.eggs_in_row
    *moves, final = last["moves"]
    state.current = {**last, "moves": moves}
    table = Table(
        table_id="egg1",
        chat_id=-100,
        creator_id=1,
        status="playing",
        rules=rec["rules"],
        seats=[Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate("ABCD")],
        match=state,
    )
    key = next(k for k in final if k != "seat")
    return table, final["seat"], action_from_json(key, final[key])


def test_eggs_drawn_once_with_the_tables_rng_and_told_the_same_every_time() -> None:
    table, seat, action = _before_the_last_move()
    progress = game.apply(table, seat, action, random.Random(11))
    state = table.match
    assert progress.match_over and state is not None and state.loser == 0 and state.eggs == 2
    assert len(state.egg_cards) == 4
    # The same randomness draws the same cards: the draw is the engine's, fed the table's rng.
    again, seat2, action2 = _before_the_last_move()
    game.apply(again, seat2, action2, random.Random(11))
    assert again.match is not None and again.match.egg_cards == state.egg_cards
    draw = EggDraw.of([Card.parse(c) for c in state.egg_cards])
    tr, codec = Tr("ru"), Codec(b"k")
    index = len(state.deals) - 1
    first = summary_content(tr, codec, table, index).text
    assert summary_content(tr, codec, table, index).text == first  # every re-render tells the same joke
    lines = match_over_lines(tr, table)
    assert lines[1] == "A и C тянут яйца — 2 штуки:", lines
    d, w = draw.pairs[0]
    assert (
        lines[2]
        == f"🥚 диаметр — {card_text(tr, d)} ({egg_number(d)}), вес — {card_text(tr, w)} ({egg_number(w)})"
    )
    assert len([s for s in lines if s.startswith("🥚 диаметр")]) == 2
    assert (
        lines[-1] == f"Σ диаметр — {draw.diameter}, вес — {draw.weight} (единицы — на усмотрение играющих)."
    )
    assert all(line in first for line in lines)
    en = match_over_lines(Tr("en"), table)
    assert en[-1].startswith(f"Σ diameter {draw.diameter}, weight {draw.weight}")
    # The archived match record carries the cards, and its replay shows the same pairs and sums.
    replayed = result_of(json.loads(json.dumps(game.match_record(table))))
    assert replayed["egg_draw"] == draw.to_json()
    # The stored counters rebuild the engine's match with the cards drawn, and the storage checks them.
    assert game.match_of(table).egg_draw == draw
    assert table_problems(table, deep=True) == []
    state.egg_cards = state.egg_cards[:2]
    assert table_problems(table, deep=True) == ["stored 2 egg cards but the deals give 2 eggs to draw"]


def test_eggs_beyond_a_handful_only_the_sums_are_told() -> None:
    table, seat, action = _before_the_last_move()
    game.apply(table, seat, action, random.Random(2))
    state = table.match
    assert state is not None
    state.eggs = EGG_LINES + 3
    state.egg_cards = ["AH", "7C"] * state.eggs
    lines = match_over_lines(Tr("en"), table)
    assert not any(s.startswith("🥚 diameter") for s in lines)
    assert lines[-1].startswith(f"Σ diameter {11 * state.eggs}, weight {7 * state.eggs}")
    assert len(lines) == 3


def test_flip_deck_36_offered_in_the_rules_menu() -> None:
    assert ("deck", (32, 36)) in rules_menu.options_of("flip")
    code = rules_menu.option_code("deck")
    rules = rules_menu.cycle(Rules.make("flip"), code)
    assert rules == Rules.make("flip", deck=36)
    assert rules_menu.cycle(rules, code) == Rules.make("flip")
    assert rules_menu.summary(Tr("ru"), rules).endswith("Колода: 36")
    assert rules_menu.summary(Tr("en"), rules).endswith(": 36")


def test_flip_deck_36_match_played_to_the_end_at_a_table_by_bot_players() -> None:
    rules = Rules.make("flip", deck=36, trump_mode="declare")
    table = Table(
        table_id="f36",
        chat_id=-100,
        creator_id=1,
        rules=rules.to_json(),
        seats=[Seat(kind="bot", name=n, level="easy") for n in "ABCD"],
    )
    rng = random.Random(36)
    game.start_match(table, rng)
    players = [make_player(level) for level in ("easy", "greedy", "random", "easy")]
    while table.status == "playing":
        deal = game.deal_of(table)
        assert deal is not None and deal.to_act is not None
        view = view_for(deal, deal.to_act)
        action = players[deal.to_act].decide(view, rng)
        assert action in view.legal
        game.apply(table, deal.to_act, action, rng)
    state = table.match
    assert state is not None and state.loser is not None
    assert all(len(d["deck"]) == 36 for d in state.deals)
    assert len(state.egg_cards) == 2 * state.eggs
    assert table_problems(table, deep=True) == []
    assert result_of(game.match_record(table))["loser"] == state.loser
