"""The brag in the DM and the group, rendered from stored tables without Telegram: the mirror's cut
asked with a handful of buttons in each player's DM, the trumps he took shown to him alone, and the
table showing every laid card face up but the bragger's."""

from __future__ import annotations

import random

import pytest

from bot.engine import CUT_NAMES, Brag, Cut, Deal, Phase, Rules, cut_points
from bot.render.brag_view import FACE_DOWN
from bot.render.hand_view import hand_content
from bot.render.i18n import LANGS, Tr
from bot.render.table_view import live_content
from bot.render.words import card_text
from bot.storage import Seat, Table
from bot.table import game
from bot.table.codec import Codec

CODEC = Codec(b"k")


def brag_table(rules: Rules, seed: int = 3) -> Table:
    """A table of four people whose match has reached its second deal (the first brag)."""
    rng = random.Random(seed)
    table = Table(
        table_id=f"bv{seed}",
        chat_id=-100,
        creator_id=1,
        rules=rules.to_json(),
        seats=[Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate("ABCD")],
    )
    game.start_match(table, rng)
    while True:
        deal = game.deal_of(table)
        assert deal is not None and deal.to_act is not None
        if deal.brag is not None:
            return table
        game.apply(table, deal.to_act, rng.choice(deal.legal_actions(deal.to_act)), rng)


def current(table: Table) -> Deal:
    deal = game.deal_of(table)
    assert deal is not None
    return deal


def decisions(tr: Tr, table: Table, seat: int) -> list[tuple[str, object]]:
    """The (label, action) of each decision button in ``seat``'s DM."""
    markup = hand_content(tr, CODEC, table, current(table), seat).markup
    assert markup is not None
    out = []
    for row in markup.inline_keyboard:
        for b in row:
            payload = CODEC.unpack(str(b.callback_data)).payload
            if payload.startswith("A"):
                out.append((b.text, game.decode_action(payload[1:])))
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_mirror_each_player_is_asked_his_cut_in_his_dm_with_a_handful_of_buttons(lang: str) -> None:
    tr = Tr(lang)
    table = brag_table(Rules.make("classic", brag="mirror"))
    rng = random.Random(1)
    asked = []
    while current(table).phase is Phase.CUT:
        deal = current(table)
        seat = deal.to_act
        assert seat is not None
        n = len(deal.brag.stock) if deal.brag is not None else 0
        buttons = decisions(tr, table, seat)
        assert [a for _, a in buttons] == [Cut(at) for _, at in cut_points(n)]
        assert all(label and not label.startswith("act.") for label, _ in buttons)
        for other in range(4):
            if other != seat:
                assert decisions(tr, table, other) == []
        text = hand_content(tr, CODEC, table, deal, seat).text
        assert str(n) in text.splitlines()[-1]  # the prompt says how many cards are left
        asked.append(seat)
        _, action = rng.choice(buttons)
        assert isinstance(action, Cut)
        game.apply(table, seat, action, rng)
    bragger = (current(table).dealer + 1) % 4
    assert asked[0] == bragger and set(asked) == {0, 1, 2, 3}


def test_every_cut_point_has_a_text_in_every_language() -> None:
    for lang in LANGS:
        tr = Tr(lang)
        assert all(tr.has(f"act.cut_{name}") for name in CUT_NAMES), lang
        assert "{n}" not in tr("prompt.cut", n=17) and "17" in tr("prompt.cut", n=17)


def test_mirror_the_trumps_a_player_took_are_shown_to_him_alone() -> None:
    tr = Tr("ru")
    for seed in range(40):
        table = brag_table(Rules.make("classic", brag="mirror"), seed)
        deal = current(table)
        assert deal.brag is not None and deal.to_act is not None
        seat, before = deal.to_act, set(deal.hand(deal.to_act))
        game.apply(table, seat, Cut(len(deal.brag.stock) // 2), random.Random(0))
        deal = current(table)
        assert deal.brag is not None
        if not deal.brag.took[seat] or deal.over:
            continue
        t = deal.tables
        assert t is not None
        taken = [c for c in deal.hand(seat) if c not in before and t.is_trump(c)]
        assert taken
        mine = hand_content(tr, CODEC, table, deal, seat).text
        assert tr.n("hand.took", deal.brag.took[seat]) in mine
        group = live_content(tr, table, deal).text
        name = table.seats[seat].name  # type: ignore[union-attr]
        assert f"{name} {deal.brag.took[seat]}" in group.split(tr("table.brag_took", counts=""))[1]
        for text in [group] + [hand_content(tr, CODEC, table, deal, s).text for s in range(4) if s != seat]:
            assert not any(card_text(tr, c) in text for c in taken), text
            assert tr.n("hand.took", deal.brag.took[seat]) not in text
        return
    raise AssertionError("no cut took a trump")


@pytest.mark.parametrize("brag", ["pants", "mirror"])
def test_the_table_shows_each_laid_card_face_up_and_the_braggers_face_down(brag: str) -> None:
    tr = Tr("ru")
    table = brag_table(Rules.make("classic", brag=brag), seed=5)
    rng = random.Random(2)
    deal = current(table)
    assert deal.brag is not None
    bragger = deal.brag.bragger
    while current(table).phase in (Phase.CUT, Phase.BRAG):
        deal = current(table)
        assert deal.to_act is not None
        acts = [a for a in deal.legal_actions(deal.to_act) if not isinstance(a, Brag) or len(a.cards) == 1]
        game.apply(table, deal.to_act, rng.choice(acts), rng)
        deal = current(table)
        assert deal.brag is not None
        if deal.brag.turned or deal.over:
            break
        text = live_content(tr, table, deal).text
        (line,) = [s for s in text.splitlines() if s.startswith("Хвалёж")]
        assert tr(f"val.{brag}") in line
        laid = dict(deal.brag.laid)
        assert f"{table.seats[bragger].name} {FACE_DOWN}" in line  # type: ignore[union-attr]
        assert card_text(tr, laid[bragger][0]) not in line
        for s, cs in laid.items():
            if s != bragger:
                assert f"{table.seats[s].name} {card_text(tr, cs[0])}" in line  # type: ignore[union-attr]
        # The bragger sees his own card in his DM.
        assert card_text(tr, laid[bragger][0]) in hand_content(tr, CODEC, table, deal, bragger).text
    deal = current(table)
    assert deal.brag is not None and deal.brag.turned
    text = live_content(tr, table, deal).text
    assert FACE_DOWN not in text and card_text(tr, dict(deal.brag.laid)[bragger][0]) in text
