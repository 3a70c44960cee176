"""What the group and the DM show, rendered from stored tables without Telegram."""

from __future__ import annotations

import random

from bot.engine import Deal, Rules
from bot.render.hand_view import hand_content
from bot.render.i18n import Tr
from bot.render.table_view import summary_content
from bot.storage import MatchState, Seat, Table
from bot.table import game
from bot.table.codec import Codec


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


def test_a_move_rebuilds_only_the_keyboards_it_changes() -> None:
    """The seats that neither acted nor are to act keep their keyboard object; the others get new ones."""
    rng = random.Random(5)
    table = Table(
        table_id="kb1",
        chat_id=-100,
        creator_id=1,
        rules=Rules.make("flip").to_json(),
        seats=[Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate("ABCD")],
    )
    game.start_match(table, rng)
    tr, codec = Tr("ru"), Codec(b"k")

    def keyboards() -> list[object]:
        deal = game.deal_of(table)
        assert deal is not None
        return [hand_content(tr, codec, table, deal, seat).markup for seat in range(4)]

    for _ in range(12):
        deal = game.deal_of(table)
        assert deal is not None and deal.to_act is not None and not deal.over
        actor = deal.to_act
        before = keyboards()
        assert keyboards() == before and all(a is b for a, b in zip(keyboards(), before, strict=True))
        game.apply(table, actor, rng.choice(deal.legal_actions(actor)), rng)
        after_deal = game.deal_of(table)
        assert after_deal is not None
        after = keyboards()
        for seat in range(4):
            if seat in (actor, after_deal.to_act):
                assert after[seat] is not before[seat]
            else:
                assert after[seat] is before[seat], f"seat {seat} kept its keyboard"
        # A cached keyboard is the one a fresh build gives.
        fresh_codec = Codec(b"k")
        for seat in range(4):
            rebuilt = hand_content(tr, fresh_codec, table, after_deal, seat).markup
            assert rebuilt == after[seat] and rebuilt is not after[seat]


def test_a_flip_summary_names_who_swapped_a_trump() -> None:
    """Flip's swap: the summary says which player passed his single trump and to whom."""
    from bot.engine import Swap

    rules = Rules.make("flip")
    for seed in range(5_000):
        rng = random.Random(seed)
        deal = Deal.shuffled(rules, rng, dealer=0)
        while not deal.over:
            seat = deal.to_act
            assert seat is not None
            acts = deal.legal_actions(seat)
            deal.apply(seat, Swap(True) if Swap(True) in acts else rng.choice(acts))
        if any(passed for _, passed in deal.swaps.log):
            break
    else:  # pragma: no cover - one flip deal in a few dozen has a swap
        raise AssertionError("no swap")
    names = "ABCD"
    table = _one_deal_table("sw1", rules, deal, names)
    swapper = next(x for x, passed in deal.swaps.log if passed)
    for lang, head in (("ru", "Обмен козыря"), ("en", "passed the single trump")):
        text = summary_content(Tr(lang), Codec(b"k"), table, 0).text
        lines = [s for s in text.splitlines() if head in s]
        assert len(lines) == sum(passed for _, passed in deal.swaps.log), text
        assert names[swapper] in lines[0] and names[(swapper + 2) % 4] in lines[0], lines


def test_a_draw_summary_names_whose_last_cards_were_swapped() -> None:
    """Draw's automatic last-card swap: the summary names the leader who held only a trump and his partner."""
    rules = Rules.make("draw")
    for seed in range(2_000):
        rng = random.Random(seed)
        deal = Deal.shuffled(rules, rng, dealer=seed % 4)
        while not deal.over:
            assert deal.to_act is not None
            deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
        if "last_card_swap" in deal.events:
            break
    else:  # pragma: no cover - a few draw deals in a hundred end with the swap
        raise AssertionError("no last-card swap")
    names = "ABCD"
    table = _one_deal_table("lc1", rules, deal, names)
    leader = deal.tricks[-1].leader
    for lang, head in (("ru", "Обмен последних карт"), ("en", "Last-card swap")):
        text = summary_content(Tr(lang), Codec(b"k"), table, 0).text
        lines = [s for s in text.splitlines() if head in s]
        assert lines == [lines[0]] and f"{names[leader]} ⇄ {names[(leader + 2) % 4]}" in lines[0], text


def _one_deal_table(table_id: str, rules: Rules, deal: Deal, names: str) -> Table:
    """A table of four people named by ``names`` whose match holds the one finished ``deal``."""
    return Table(
        table_id=table_id,
        chat_id=-100,
        creator_id=1,
        status="playing",
        rules=rules.to_json(),
        seats=[Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate(names)],
        match=MatchState(first_dealer=deal.dealer, dealer=deal.dealer, deals=[deal.record()], deal_seq=1),
    )


def test_dummy_partner_dm_shows_the_blind_brag_and_the_table_its_stack() -> None:
    """When the blind is to brag its partner's DM is the blind's cards and keyboard, headed as his
    blind's; in play the table and every DM say what the blind turned and how many cards remain."""
    from bot.engine import Phase
    from bot.render.table_view import live_content

    rules = Rules.make("dummy")
    seats: list[Seat | None] = [Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate("ABC")]
    table = Table(
        table_id="bl1",
        chat_id=-100,
        creator_id=1,
        status="playing",
        rules=rules.to_json(),
        seats=[*seats, None],
    )
    tr, codec = Tr("ru"), Codec(b"k")
    deal = Deal.shuffled(rules, random.Random(4), dealer=2, deal_no=2)  # seat 3, the blind, brags
    assert deal.phase is Phase.BRAG and deal.to_act == 3
    table.match = MatchState(first_dealer=2, dealer=2, deal_no=2, deal_seq=1, current=deal.record())
    text = hand_content(tr, codec, table, deal, 3).text
    assert "Вы хвалитесь за своего слепого" in text and "место 4 — ваш 🙈 слепой" in text
    assert "ваше место" not in text  # B sits in seat 2: seat 4 is his blind's, not his own
    # Read by B, the blind's partner: the score line's partner is B's blind, not B himself.
    assert "вы с партнёром (🙈 слепой (B))" in text, text
    assert game.deal_of(table) is not None
    rng = random.Random(1)
    while deal.phase is not Phase.PLAY or not deal.tricks[1:]:
        assert deal.to_act is not None
        deal.apply(deal.to_act, rng.choice(deal.legal_actions(deal.to_act)))
    table.match.current = deal.record()
    live = live_content(tr, table, deal).text
    left = deal.hands[3].bit_count()
    assert "🙈 слепой (B): открыты " in live and f"в стопке {left} карт" in live, live
    assert "🙈 слепой (B): в стопке" in hand_content(tr, codec, table, deal, 0).text


def test_the_sochi_talon_in_the_lone_players_dm_says_he_takes_it() -> None:
    """While the ♣Q holder discards, the talon lies face up: the others' DMs name who takes it, his own
    says that he does (it said his own name to him)."""
    from bot.engine import Phase
    from bot.render.words import cards_text

    rules = Rules.make("sochi")
    seats: list[Seat | None] = [Seat(kind="human", name=n, user_id=i + 1) for i, n in enumerate("ABC")]
    table = Table(
        table_id="so1", chat_id=-100, creator_id=1, status="playing", rules=rules.to_json(), seats=seats
    )
    deal = next(
        d
        for seed in range(100)
        if (d := Deal.shuffled(rules, random.Random(seed), dealer=0)).phase is Phase.DISCARD
    )
    table.match = MatchState(first_dealer=0, dealer=0, deal_seq=1, current=deal.record(), scores=[0, 0, 0])
    lone = deal.talon.lone
    assert lone is not None
    for lang in ("ru", "en"):
        tr = Tr(lang)
        cards = cards_text(tr, deal.talon.talon)
        for seat in range(3):
            text = hand_content(tr, Codec(b"k"), table, deal, seat).text
            if seat == lone:
                assert tr("sochi.talon_yours", cards=cards) in text
                assert tr("sochi.talon_taking", cards=cards, name="ABC"[lone]) not in text
            else:
                assert tr("sochi.talon_taking", cards=cards, name="ABC"[lone]) in text
