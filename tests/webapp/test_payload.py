"""The live table never sends a viewer a card that viewer may not see.

Whole matches of every preset are played at random; at every decision the payload of each seated
person and of a watcher is turned to JSON and scanned for every card code and every card as a reader
sees it (``Д♣``, ``10♦``, in the viewer's language): each must be one that viewer's seat sees (the
engine's ``view_for``), or, for a watcher, one that every seat sees. The blind's face-down stack and
sochi's discards included.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from bot.engine import Rules, view_for
from bot.engine.cards import ALL_CARDS, Card
from bot.engine.rules import BLIND_SEATS, PRESETS
from bot.render.i18n import Tr
from bot.render.words import card_text
from bot.storage import Seat, Table
from bot.table import game
from bot.table.codec import Codec
from bot.table.game import decider
from bot.webapp.payload import payload_for, public_cards, seen_cards

CODEC = Codec(b"k")
WATCHER = 999


def _table(preset: str, seed: int) -> Table:
    rules = Rules.make(preset, match_target=6)  # type: ignore[arg-type]
    n = 3 if preset == "sochi" else 4
    blinds = BLIND_SEATS.get(preset, ())
    seats: list[Seat | None] = [
        None if i in blinds else Seat(kind="human", name=f"P{i}", user_id=i + 1) for i in range(n)
    ]
    table = Table(table_id=f"w{seed}", chat_id=-100, creator_id=1, rules=rules.to_json(), seats=seats)
    game.start_match(table, random.Random(seed))
    return table


def _cards_in(text: str, tr: Tr) -> set[Card]:
    found = {c for c in ALL_CARDS if re.search(rf'"{c.code}"', text)}
    # A card as a reader sees it, not preceded by a digit (``10♦`` is not ``0♦``).
    found |= {c for c in ALL_CARDS if re.search(rf"(?<![0-9]){re.escape(card_text(tr, c))}", text)}
    return found


@pytest.mark.parametrize("preset", PRESETS)
def test_no_payload_carries_a_card_its_viewer_may_not_see(preset: str) -> None:
    for seed in range(2):
        table = _table(preset, seed)
        rng = random.Random(seed)
        steps = 0
        while table.status == "playing" and steps < 400:
            deal = game.deal_of(table)
            assert deal is not None
            tr = Tr("ru" if steps % 2 else "en")
            people = [s.user_id for s in table.seats if s is not None and s.user_id is not None]
            for user in [*people, WATCHER]:
                sent = json.dumps(payload_for(tr, CODEC, table, deal, user), ensure_ascii=False)
                seat = table.seat_of(user)
                if seat is None:
                    allowed = public_cards(deal)
                else:
                    allowed = seen_cards(view_for(deal, seat))
                    for blind in BLIND_SEATS.get(preset, ()):
                        if deal.to_act == blind and decider(table, blind) == seat:
                            allowed |= seen_cards(view_for(deal, blind))
                leaked = _cards_in(sent, tr) - allowed
                assert not leaked, (preset, seed, steps, user, sorted(c.code for c in leaked))
            if deal.to_act is None:
                break
            game.apply(table, deal.to_act, rng.choice(deal.legal_actions(deal.to_act)), rng)
            steps += 1
        assert steps > 10


def test_a_watcher_gets_no_hand_and_a_seated_person_every_decision_of_the_dm() -> None:
    table = _table("classic", 1)
    deal = game.deal_of(table)
    assert deal is not None and deal.to_act is not None
    tr = Tr("en")
    watcher = payload_for(tr, CODEC, table, deal, WATCHER)
    assert watcher["hand"] is None and watcher["seat"] is None
    assert all(s["cards"] is not None for s in watcher["seats"])
    mine = payload_for(tr, CODEC, table, deal, deal.to_act + 1)
    hand = mine["hand"]
    legal = {a.card.code for a in deal.legal_actions(deal.to_act) if hasattr(a, "card")}
    assert {c["code"] for c in hand["cards"] if c["legal"]} == legal
    assert {b["card"] for row in hand["buttons"] for b in row if "card" in b} >= legal
    assert all(CODEC.read(b["data"]) for row in hand["buttons"] for b in row if b["data"])
