"""The table message in the group (one per deal, edited in place) and the deal's summary (a new
message once the deal is over)."""

from __future__ import annotations

from functools import partial

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.engine import GOAT_WITH_DRIVERS, PARTNER_OF, Deal, Phase, Trick
from bot.engine.cards import SUITS, Card, Rank, mask_of
from bot.engine.eggs import EggDraw, egg_number
from bot.engine.scoring import CATEGORIES
from bot.render import people_view, sochi_view
from bot.render.brag_view import public_brag_lines
from bot.render.content import Content
from bot.render.i18n import Tr
from bot.render.labels import card_player, match_pair_players, pair_players, seat_player
from bot.render.words import (
    blind_seats,
    card_text,
    cards_text,
    pair_names,
    seat_name,
    suit_text,
    tally_text,
    three_seats,
)
from bot.storage import Table
from bot.table.codec import Codec
from bot.table.game import replay, rules_of, target_of
from bot.table.payloads import Rematch
from bot.table.played_by import current_index
from bot.table.rotation import as_seated

#: Eggs drawn at most that get a line each; with more, only the sums are shown.
EGG_LINES = 5
#: Events of a deal result that get a line of their own, in this order.
EVENTS = ("queen_caught", "eggs", "doubled", "redeal", "deal_passes", "swap", "last_card_swap", "all_tricks")


def trick_line(tr: Tr, table: Table, n: int, trick: Trick, index: int | None = None) -> str:
    """``3. Аня 10♠ · Борис T♠ … → Борис``: each card named by who played it (bot/render/labels.py)
    in the deal at ``index`` (the deal in play by default)."""
    at = current_index(table) if index is None else index
    plays = " · ".join(f"{card_player(tr, table, at, s, c)} {card_text(tr, c)}" for s, c in trick.plays)
    if trick.winner is None:
        return f"{n}. {plays}"
    won = next((c for s, c in trick.plays if s == trick.winner), None)
    return f"{n}. {plays} → {card_player(tr, table, at, trick.winner, won)} (+{trick.points})"


def turn_line(tr: Tr, table: Table, deal: Deal, *, mention: bool) -> str:
    """Whose decision the deal waits for, and what it is."""
    if deal.to_act is None:
        return ""
    name = seat_name(tr, table, deal.to_act, mention=mention)
    key = f"phase.{deal.phase.value}"
    return tr(key, name=name) if tr.has(key) else tr("phase.other", name=name)


def header(tr: Tr, table: Table, deal: Deal) -> list[str]:
    """Deal number, dealer, trump and each pair's penalty and tricks."""
    m = table.match
    assert m is not None
    if three_seats(table):
        return sochi_view.header_lines(tr, table, deal)
    lines = [
        tr(
            "table.title",
            n=deal.deal_no,
            dealer=card_player(tr, table, current_index(table), deal.dealer, None),
        ),
        tr("table.trump", suit=suit_text(tr, deal.trump)),
    ]
    if people_view.individual(table):
        # ``blind_rotates``: the pairs are this deal's only; the penalties are each person's.
        lines.extend(people_view.partner_lines(tr, table))
        lines.extend(
            tr("table.pair_deal", names=pair_names(tr, table, pair), tricks=deal.tricks_won[pair])
            for pair in (0, 1)
        )
        lines.append(people_view.scores_line(tr, table))
        return lines
    for pair in (0, 1):
        lines.append(
            tr(
                "table.pair",
                # A person who left this deal: "Борис (🤖)", as its summary will say.
                names=pair_players(tr, table, current_index(table), pair),
                penalty=m.penalty[pair],
                tricks=deal.tricks_won[pair],
            )
        )
    return lines


def void_notes(tr: Tr, table: Table) -> list[str]:
    """Why the deals just before this one were void (a redeal, the deal passing)."""
    m = table.match
    assert m is not None
    notes: list[str] = []
    for index in range(len(m.deals) - 1, -1, -1):
        deal = replay(m.deals[index])
        if deal.result is None or not deal.result.void:
            break
        notes.extend(void_lines(tr, table, index, deal))
    return list(reversed(notes))


def void_lines(tr: Tr, table: Table, index: int, deal: Deal) -> list[str]:
    """Why the void deal at ``index`` of the match was void, a line per reason (the next deal's table
    says it, and so does the replay viewer)."""
    assert deal.result is not None
    dealer = card_player(tr, table, index, deal.dealer, None)
    events = [e for e in deal.result.events if tr.has(f"void.{e}")]
    return [_void_note(tr, table, index, deal, e, dealer) for e in events]


#: The four queens: a hand holding them all is redealt (RULES.md §1).
QUEENS = mask_of([Card(Rank.QUEEN, s) for s in SUITS])


def _event_line(tr: Tr, table: Table, index: int, deal: Deal, event: str) -> str:
    """A summary's line for one event; a redeal says whose four queens (or that the deck ran out)."""
    if event == "redeal":
        return _void_note(tr, table, index, deal, event, card_player(tr, table, index, deal.dealer, None))
    return tr(f"event.{event}")


def _void_note(tr: Tr, table: Table, index: int, deal: Deal, event: str, dealer: str) -> str:
    """Why the deal at ``index`` was void; a redeal names who held the four queens (or says the
    brag's deck ran out: the mirror or fishing found no card to lay)."""
    if event != "redeal":
        return tr(f"void.{event}", dealer=dealer)
    four = [s for s, hand in enumerate(deal.hands) if hand & QUEENS == QUEENS]
    if not four:
        return tr("void.redeal_deck", dealer=dealer)
    return tr("void.redeal", dealer=dealer, player=seat_player(tr, table, index, four[0]))


def live_content(tr: Tr, table: Table, deal: Deal) -> Content:
    """The table during a deal."""
    lines = void_notes(tr, table) + header(tr, table, deal)
    if deal.tricks:
        lines.append("")
        lines.append(tr("table.tricks"))
        lines.extend(trick_line(tr, table, i + 1, t) for i, t in enumerate(deal.tricks))
    brag = public_brag_lines(tr, table, deal)
    if brag:
        lines += ["", *brag]
    if deal.phase is Phase.PLAY:
        lines.append("")
        at = current_index(table)
        on_table = " · ".join(f"{card_player(tr, table, at, s, c)} {card_text(tr, c)}" for s, c in deal.trick)
        lines.append(tr("table.on_table", cards=on_table or "—"))
        lines.extend(blind_lines(tr, table, deal))
    lines.append(turn_line(tr, table, deal, mention=True))
    return Content("\n".join(lines))


def blind_lines(tr: Tr, table: Table, deal: Deal) -> list[str]:
    """Each blind's cards turned so far in play, as they fell, and how many are left in its stack."""
    out = []
    skip = len(deal.brag.laid[0][1]) if deal.brag is not None and deal.brag.laid else 0
    for b in blind_seats(table):
        turned = [c for t in deal.tricks[skip:] for s, c in t.plays if s == b]
        turned += [c for s, c in deal.trick if s == b]
        out.append(
            tr.n(
                "table.blind_turned",
                deal.hands[b].bit_count(),
                name=seat_name(tr, table, b),
                cards=cards_text(tr, turned) or "—",
            )
        )
    return out


def totals_until(table: Table, index: int) -> tuple[int, int]:
    """Penalty per pair after the deal at ``index`` of the match's finished deals."""
    assert table.match is not None
    total = [0, 0]
    for record in table.match.deals[: index + 1]:
        result = replay(record).result
        assert result is not None
        total[0] += result.penalty[0]
        total[1] += result.penalty[1]
    return total[0], total[1]


def summary_content(tr: Tr, codec: Codec, table: Table, index: int) -> Content:
    """A finished deal: the tricks, card points, the event and penalty, the tally; the goat at the end.
    Each name is of who played that deal (bot/render/labels.py), though they may have left since."""
    assert table.match is not None
    deal = replay(table.match.deals[index], rules_of(table))
    result = deal.result
    assert result is not None
    table = as_seated(table, deal.deal_no)  # ``blind_rotates``: the names of this deal's seats
    assert table.match is not None
    lines = [tr("summary.title", n=deal.deal_no, suit=suit_text(tr, deal.trump))]
    lines.extend(trick_line(tr, table, i + 1, t, index) for i, t in enumerate(result.tricks))
    lines.append("")
    if three_seats(table):
        lines.extend(_event_line(tr, table, index, deal, e) for e in EVENTS if e in result.events)
        why = next((tr(f"cat.{e}") for e in CATEGORIES if e in result.events), "")
        lines.extend(sochi_view.summary_lines(tr, table, deal, index, why))
        return _ending(tr, codec, table, index, lines)
    totals = totals_until(table, index)
    if not result.void:  # a void deal counts no points: its event line says why
        lines.append(
            tr(
                "summary.points",
                a=pair_players(tr, table, index, 0),
                b=pair_players(tr, table, index, 1),
                pa=result.points[0],
                pb=result.points[1],
            )
        )
    if deal.rules.by_tricks and not result.void:  # tricks: the tricks decide, the points are only shown
        won = result.tricks_won
        a, b = pair_players(tr, table, index, 0), pair_players(tr, table, index, 1)
        lines.append(tr("summary.tricks", a=a, b=b, ta=won[0], tb=won[1]))
    who = partial(seat_player, tr, table, index)
    for e in EVENTS:
        if e == "swap":  # one line per swap, naming the partners
            lines.extend(
                tr("event.swap", name=who(x), partner=who(PARTNER_OF[x]))
                for x, passed in deal.swaps.log
                if passed
            )
        elif e == "last_card_swap":  # draw: the leader held only a trump, his partner a plain card
            if e in result.events and result.tricks:
                x = result.tricks[-1].leader
                lines.append(
                    tr(
                        f"event.{e}",
                        name=who(x),
                        partner=who(PARTNER_OF[x]),
                    )
                )
        elif e in result.events:
            lines.append(_event_line(tr, table, index, deal, e))
    for pair in (0, 1):
        if result.penalty[pair]:
            why = next((tr(f"cat.{e}") for e in CATEGORIES if e in result.events), "")
            names, n = pair_players(tr, table, index, pair), result.penalty[pair]
            # A caught queen's penalty has no category: its event line above says why.
            lines.append(
                tr("summary.penalty", names=names, n=n, why=why)
                if why
                else tr("summary.penalty_only", names=names, n=n)
            )
    lines.append("")
    if people_view.individual(table):
        lines.extend(people_view.tally_lines(tr, table, people_view.scores_until(table, index)))
    for pair in () if people_view.individual(table) else (0, 1):
        lines.append(
            tr(
                "summary.tally",
                names=pair_players(tr, table, index, pair),
                n=totals[pair],
                tally=tally_text(totals[pair], target_of(table)),
            )
        )
    return _ending(tr, codec, table, index, lines)


def _ending(tr: Tr, codec: Codec, table: Table, index: int, lines: list[str]) -> Content:
    """A summary's lines, with the match's result and the rematch button under the last deal."""
    assert table.match is not None
    markup = None
    last = index == len(table.match.deals) - 1
    if table.status == "over" and last:
        lines.append("")
        lines.extend(match_over_lines(tr, table))
        data = codec.data(table.chat_id, table.thread_id, table.table_id, table.match.deal_seq, Rematch())
        markup = InlineKeyboardMarkup([[InlineKeyboardButton(tr("btn.rematch"), callback_data=data)]])
    return Content("\n".join(lines), markup)


def match_over_lines(tr: Tr, table: Table) -> list[str]:
    """The goat (with drivers), and the eggs the losing pair drew (RULES.md §2: a pair of cards per
    egg, diameter then weight, summed), as drawn once when the match ended."""
    m = table.match
    assert m is not None
    if three_seats(table):
        return sochi_view.match_over_lines(tr, table)
    goat = people_view.goat_line(tr, table)
    if goat is not None:
        names = people_view.goat_names(tr, table)
        lines = [goat]
    elif m.loser is None:
        return [tr("match.unfinished")]
    else:
        names = match_pair_players(tr, table, m.loser)  # a person who left keeps the goat's name
        key = "match.goat_drivers" if m.title == GOAT_WITH_DRIVERS else "match.goat"
        lines = [tr(key, names=names, a=m.penalty[0], b=m.penalty[1])]
    if m.eggs and m.egg_cards:
        draw = EggDraw.of([Card.parse(code) for code in m.egg_cards])
        lines.append(tr.n("match.eggs", m.eggs, names=names))
        if len(draw.pairs) <= EGG_LINES:
            lines.extend(
                tr("match.egg", d=_egg_card(tr, diameter), w=_egg_card(tr, weight))
                for diameter, weight in draw.pairs
            )
        lines.append(tr("match.egg_sum", d=draw.diameter, w=draw.weight))
    return lines


def _egg_card(tr: Tr, c: Card) -> str:
    """``A♥ (11)``: the card drawn and what it counts for."""
    return f"{card_text(tr, c)} ({egg_number(c)})"
