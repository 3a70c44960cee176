"""The standings' figures of a match, and their one atomic, idempotent update per finished match."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.engine import Card
from bot.engine.record import match_result, replay_deal
from bot.engine.rules import Rules
from bot.stats.__main__ import rebuild
from bot.stats.counting import archive, month_of
from bot.stats.entry import Meta, Player, make_entry, meta_of, record_of
from bot.stats.facts import facts_of
from bot.stats.standings import personal_of, standings_of
from bot.storage import RedisStorage

pytestmark = pytest.mark.cluster
RECORDS = Path(__file__).resolve().parents[1] / "records"
CHAT = -1001
PEOPLE = ("Аня", "Борис", "Вера")


def _entry(
    name: str = "classic_match_goat", match_id: str = "abc123", *, at: float = 1_796_000_000.0
) -> dict[str, Any]:
    record = json.loads((RECORDS / f"{name}.json").read_text())
    seats = [Player(kind="human", name=n, user_id=100 + i) for i, n in enumerate(PEOPLE)]
    seats.append(Player(kind="bot", name="bot", level="easy"))
    return make_entry(record, Meta(id=match_id, chat_id=CHAT, at=at, seats=seats))


def test_a_match_gives_each_seat_its_figures_and_the_goat_to_the_losing_pair() -> None:
    entry = _entry()
    meta = meta_of(entry)
    assert meta is not None and record_of(entry) == json.loads(
        (RECORDS / "classic_match_goat.json").read_text()
    )
    facts = facts_of(entry, meta)
    result = match_result(record_of(entry))
    assert result["loser"] == 0 and result["title"] == "goat"
    anya, boris, vera, bot = (
        facts.figures["u100"],
        facts.figures["u101"],
        facts.figures["u102"],
        facts.figures["beasy"],
    )
    assert anya["played"] == boris["played"] == vera["played"] == bot["played"] == 1
    # Seats 0 and 2 (Аня, Вера) are pair A, the goat; Борис and the bot won.
    assert (anya["goat"], vera["goat"], boris["won"], bot["won"]) == (1, 1, 1, 1)
    assert anya["won"] == vera["won"] == boris["goat"] == 0
    assert facts.pairs == [("u100", "u102", False)]  # the bot's pair is no pair of people
    # The last deal ends with the ♣Q caught: the top trump's player caught it, the ♣Q's lost it.
    rules = Rules.parse(record_of(entry)["rules"])
    last = replay_deal(record_of(entry)["deals"][-1], rules)
    assert last.result is not None and last.tables is not None
    plays = dict((c, s) for s, c in last.result.tricks[-1].plays)
    catcher, loser = plays[last.tables.top], plays[Card.parse("QC")]
    keys = ["u100", "u101", "u102", "beasy"]
    assert facts.figures[keys[catcher]]["caught"] == 1 and facts.figures[keys[loser]]["lost"] == 1
    assert sum(f["caught"] for f in facts.figures.values()) == 1


def test_a_stopped_match_adds_nothing() -> None:
    entry = _entry()
    meta = meta_of(entry)
    assert meta is not None
    stopped = meta.model_copy(update={"finished": False})
    assert facts_of(entry, stopped).figures == {}


async def test_a_finish_handled_twice_counts_once_in_the_chat_and_for_each_person(
    storage: RedisStorage,
) -> None:
    entry = _entry()
    assert await archive(storage, entry) is True
    assert await archive(storage, entry) is False  # a restart handles the finish again
    assert len(await storage.history(CHAT)) == 1
    for period in ("all", month_of(1_796_000_000.0)):
        counts, names = await storage.standings(CHAT, period)
        st = standings_of(counts, names)
        assert [r.name for r in st.people] == ["Борис", "Аня", "Вера"]  # the winner first
        assert [r.key for r in st.bots] == ["beasy"]
        assert st.people[0].figures["played"] == 1 and st.people[0].figures["won"] == 1
        assert [(p.a, p.b, p.matches, p.won) for p in st.best] == [("u100", "u102", 1, 0)]
    assert standings_of(*await storage.standings(CHAT, "2000-01")).empty
    anya = personal_of(await storage.personal(100))
    assert anya.figures["played"] == 1 and anya.figures["goat"] == 1 and anya.streak == -1
    assert anya.partner_key == "u102" and anya.partner_name == "Вера" and anya.partner_matches == 1
    boris = personal_of(await storage.personal(101))
    assert boris.streak == 1 and boris.best_streak == 1 and boris.partner_key == "beasy"


async def test_the_standings_rebuild_from_the_history(storage: RedisStorage) -> None:
    await archive(storage, _entry(match_id="m1", at=1_796_000_000.0))
    await archive(storage, _entry(match_id="m2", at=1_796_000_100.0))
    before = await storage.standings(CHAT, "all"), await storage.personal(101)
    assert standings_of(*before[0]).people[0].figures["played"] == 2
    assert personal_of(before[1]).streak == 2
    await storage.client.hincrby(storage.stats.chat_stats_key(CHAT, "top"), "all|u101|won", 40)  # broken
    assert await rebuild(storage) == (1, 2)
    assert (await storage.standings(CHAT, "all"), await storage.personal(101)) == before
    assert len(await storage.history(CHAT)) == 2  # the history itself is left as it was


async def test_the_standings_move_with_a_group_to_its_supergroup(storage: RedisStorage) -> None:
    entry = _entry()
    await archive(storage, entry)
    before = await storage.standings(CHAT, "all")
    await storage.move_chat(CHAT, -1002002, None, ttl=60)
    assert await storage.standings(-1002002, "all") == before
    assert standings_of(*await storage.standings(CHAT, "all")).empty
    moved = {**entry, "meta": {**entry["meta"], "chat_id": -1002002}}
    assert await archive(storage, moved) is False  # still counted once, in the supergroup


def test_the_new_buttons_travel_and_come_back_as_they_were() -> None:
    from bot.table.payloads import BadData, Export, Top, View, decode, encode

    for payload in (View(0, 0), View(12, 999), Top(0), Top(1), Export()):
        assert decode(encode(payload)) == payload
    for bad in ("V1", "V1:", "V:2", "V1:2000", "Vx:1"):
        with pytest.raises(BadData):
            decode(bad)


def test_a_deal_without_a_trick_in_tricks_counts_as_a_shestak_given_by_the_other_pair() -> None:
    entry = _entry("tricks_match_all_nine")
    meta = meta_of(entry)
    assert meta is not None
    figures = facts_of(entry, meta).figures
    assert match_result(record_of(entry))["loser"] == 0
    assert figures["u101"]["shestak"] == figures["beasy"]["shestak"] == 1  # pair B took all nine
    assert figures["u100"]["shestak"] == figures["u102"]["shestak"] == 0


async def test_a_persons_figures_add_up_across_chats(storage: RedisStorage) -> None:
    entry = _entry()
    elsewhere = {**entry, "meta": {**entry["meta"], "chat_id": -1009}}  # the same table id, another chat
    assert await archive(storage, entry) and await archive(storage, elsewhere)
    anya = personal_of(await storage.personal(100))
    assert anya.figures["played"] == 2 and anya.figures["goat"] == 2 and anya.streak == -2
    assert anya.partner_matches == 2
    assert standings_of(*await storage.standings(-1009, "all")).people[0].figures["played"] == 1


async def test_python_m_bot_stats_rebuild(storage: RedisStorage, redis_url: str) -> None:
    await archive(storage, _entry())
    before = await storage.standings(CHAT, "all")
    await storage.clear_stats()
    env = {**os.environ, "REDIS_URL": redis_url}
    run = subprocess.run(
        [sys.executable, "-m", "bot.stats", "rebuild", "--prefix", storage.prefix],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "1 chats from 1 matches" in run.stdout
    assert await storage.standings(CHAT, "all") == before
