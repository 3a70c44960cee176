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

from bot.engine import Phase, Play, Rules, view_for
from bot.engine.cards import ALL_CARDS, Card
from bot.engine.rules import BLIND_SEATS, PRESETS
from bot.render.hand_view import hand_content
from bot.render.i18n import Tr
from bot.render.words import card_text
from bot.storage import Seat, Table
from bot.table import game
from bot.table.codec import Codec
from bot.table.game import decider
from bot.table.payloads import Back, Hint
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


#: Rules whose matches reach every kind of decision the DM hand offers.
DECIDING = [
    ("classic", {}),  # the brag (one card, and two at once), the exchange and its give
    ("classic", {"brag": "mirror"}),  # the mirror's cut
    ("classic", {"brag_choice": ["pants", "mirror"]}),  # the bragger picks the kind
    ("flip", {}),  # the swap and the partner's card back
    ("flip", {"trump_mode": "declare"}),  # trump declared
    ("sochi", {}),  # the discard, ♣Q never among it
    ("dummy", {}),  # a blind's brag, taken by its partner
]


def _deciding_table(preset: str, options: dict[str, object], seed: int) -> Table:
    rules = Rules.make(preset, match_target=24, **options)  # type: ignore[arg-type]
    n = 3 if preset == "sochi" else 4
    blinds = BLIND_SEATS.get(preset, ())
    seats: list[Seat | None] = [
        None if i in blinds else Seat(kind="human", name=f"P{i}", user_id=i + 1) for i in range(n)
    ]
    table = Table(table_id=f"d{seed}", chat_id=-100, creator_id=1, rules=rules.to_json(), seats=seats)
    game.start_match(table, random.Random(seed))
    return table


def test_every_decision_the_dm_hand_offers_is_offered_on_the_page() -> None:
    """At every decision of whole matches, each button of the person's DM hand is on their page: a
    button about one card as a tap on that card of the hand (marked as the DM marks it), any other as
    a decision; the 💡 hint too where the chat allows it."""
    phases: set[str] = set()
    kinds: set[str] = set()
    for preset, options in DECIDING:
        for seed in range(3):
            table = _deciding_table(preset, options, seed)
            rng = random.Random(seed)
            for _ in range(900):
                deal = game.deal_of(table)
                if table.status != "playing" or deal is None or deal.to_act is None or deal.deal_no > 8:
                    break
                if deal.phase is Phase.PLAY and len(deal.moves) % 5:  # a card now and then is enough
                    game.apply(table, deal.to_act, rng.choice(deal.legal_actions(deal.to_act)), rng)
                    continue
                person = table.seats[decider(table, deal.to_act)]
                assert person is not None and person.user_id is not None
                page = payload_for(Tr("ru"), CODEC, table, deal, person.user_id, hint=True)
                hand = page["hand"]
                assert hand["seat"] == deal.to_act
                dm = hand_content(Tr("ru"), CODEC, table, deal, deal.to_act, hint=True).markup
                assert dm is not None
                dm_data = {str(b.callback_data) for row in dm.inline_keyboard for b in row}
                on_cards = {c["data"] for c in hand["cards"] if "data" in c}
                decisions = {b["data"] for row in hand["buttons"] for b in row if "card" not in b}
                assert on_cards | decisions == dm_data, (preset, deal.phase)
                assert not on_cards & decisions
                acts = {
                    a.card.code if isinstance(a, Play) else None
                    for a in deal.legal_actions(deal.to_act)
                    if isinstance(a, Play)
                }
                assert {c["code"] for c in hand["cards"] if c["legal"]} >= acts
                for c in hand["cards"]:
                    if "kind" in c:
                        kind = type(CODEC.read(c["data"])[1]).__name__
                        assert {"act": "Act", "held": "Held"}.get(c["kind"], "Tick") == kind or (
                            c["kind"] == "held" and kind == "Tick"  # sochi's ♣Q: a tap says why
                        )
                        kinds.add(c["kind"])
                assert any(isinstance(CODEC.read(d)[1], Hint) for d in decisions)
                phases.add(deal.phase.value)
                game.apply(table, deal.to_act, rng.choice(deal.legal_actions(deal.to_act)), rng)
    assert {
        "play", "brag", "exchange", "exchange_give", "swap", "swap_return", "declare", "discard", "cut",
        "brag_kind",
    } <= phases, phases  # fmt: skip
    assert {"act", "held", "pick"} <= kinds


def test_a_person_the_turn_timers_marked_away_is_offered_i_am_back() -> None:
    table = _table("classic", 1)
    deal = game.deal_of(table)
    assert deal is not None and deal.to_act is not None
    seat = deal.to_act
    tr = Tr("en")
    assert payload_for(tr, CODEC, table, deal, seat + 1)["hand"]["back"] is None
    table.away = [seat]
    hand = payload_for(tr, CODEC, table, deal, seat + 1)["hand"]
    assert hand["back"]["text"] == tr("timer.back_button") and hand["away"] == tr("webapp.away_note")
    assert isinstance(CODEC.read(hand["back"]["data"])[1], Back)
    assert not [c for c in hand["cards"] if c["legal"]]  # the bot makes this move, as the DM says
    assert payload_for(tr, CODEC, table, deal, WATCHER)["hand"] is None
    other = payload_for(tr, CODEC, table, deal, (seat + 1) % 4 + 1)
    assert other["hand"]["back"] is None and other["seats"][seat]["away"] is True


def test_the_turn_and_its_time_left_are_sent_to_every_viewer() -> None:
    table = _table("classic", 1)
    deal = game.deal_of(table)
    assert deal is not None and deal.to_act is not None
    for user in (1, 2, WATCHER):
        sent = payload_for(Tr("ru"), CODEC, table, deal, user, deadline=1000.0, now=958.04)
        assert sent["deal"]["turn"] == {"seat": deal.to_act, "left": 42.0}
        assert payload_for(Tr("ru"), CODEC, table, deal, user)["deal"]["turn"] is None
