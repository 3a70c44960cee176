"""The lobby message: four seats as two pairs (three people for ``sochi``), bot players, the rules
picker and the start button."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.render import rules_menu
from bot.render.content import Content
from bot.render.i18n import Tr
from bot.render.rules_text import about, glossary, people
from bot.render.words import PAIRS, blind_seats, free_seats, people_names, seat_name, three_seats
from bot.storage import Table
from bot.table.codec import Codec
from bot.table.game import rules_of
from bot.table.payloads import (
    AddBot,
    Confirm,
    Decline,
    Fill,
    Level,
    Option,
    Payload,
    Preset,
    RemoveBot,
    RulesMenu,
    SeatsMenu,
    Sit,
    Start,
)


def awaiting(table: Table) -> list[int]:
    """The seats of a rematch's lobby whose person has not said yet whether they play."""
    return [seat for seat, person in table.humans if person.user_id in table.unconfirmed]


def _button(codec: Codec, table: Table, text: str, payload: Payload) -> InlineKeyboardButton:
    data = codec.data(table.chat_id, table.thread_id, table.table_id, 0, payload)
    return InlineKeyboardButton(text, callback_data=data)


def lobby_content(tr: Tr, codec: Codec, table: Table) -> Content:
    """The lobby as it stands: seats view, rules picker or the fill-with-bots question."""
    rules = rules_of(table)
    lines = [tr("lobby.title"), tr("lobby.rules", rules=rules_menu.summary(tr, rules))]
    if three_seats(table):  # sochi: three people, each for himself; the sides form every deal
        lines.append(tr("lobby.people", names=people_names(tr, table)))
    else:
        for pair, (a, b) in enumerate(PAIRS):
            lines.append(tr("lobby.pair", n=pair + 1, a=seat_name(tr, table, a), b=seat_name(tr, table, b)))
    rows: list[list[InlineKeyboardButton]] = []
    if table.lobby_view == "rules":
        lines.append("")
        lines.append(tr("lobby.rules_hint"))
        lines.append(about(tr, rules))  # the chosen preset in a line: who plays, the deck, the goal
        lines.append("")
        lines.append(glossary(tr, rules))  # the menu's jargon, one line a term, as this variant has it
        offered = [
            _button(
                codec,
                table,
                ("✓ " if p == rules.preset else "")
                + tr("lobby.preset_button", name=tr(f"preset.{p}"), people=tr(f"people.{people(p)}")),
                Preset(rules_menu.preset_code(p)),
            )
            for p in rules_menu.presets()
        ]
        rows.extend(offered[i : i + 2] for i in range(0, len(offered), 2))  # two a row: names stay legible
        for name, _ in rules_menu.options_of(rules.preset):
            value = rules_menu.value_text(tr, rules_menu.current(rules, name))
            option = Option(rules_menu.option_code(name))
            rows.append([_button(codec, table, f"{tr(f'opt.{name}')}: {value}", option)])
        rows.append([_button(codec, table, tr("btn.back"), SeatsMenu())])
    elif table.lobby_view == "confirm":
        empty = len(free_seats(table))
        lines.append("")
        lines.append(tr.n("lobby.confirm_fill", empty, level=tr(f"level.{table.bot_level}")))
        rows.append(
            [
                _button(codec, table, tr("btn.fill"), Fill()),
                _button(codec, table, tr("btn.back"), SeatsMenu()),
            ]
        )
    else:
        lines.append("")
        waiting = awaiting(table)
        if waiting:  # a rematch's lobby: the seats of the match before, each person to answer
            creator = table.seat_of(table.creator_id)
            lines.append(
                tr("lobby.rematch", name=seat_name(tr, table, creator) if creator is not None else "")
            )
            # Mentions: the lobby is a new message, so each of them is notified.
            names = ", ".join(seat_name(tr, table, seat, mention=True) for seat in waiting)
            lines.append(tr("lobby.unconfirmed", names=names))
            rows.append(
                [
                    _button(codec, table, tr("btn.confirm"), Confirm()),
                    _button(codec, table, tr("btn.decline"), Decline()),
                ]
            )
        lines.append(tr(_hint_key(table)))
        for seat in range(3) if three_seats(table) else (0, 2, 1, 3):
            if seat in blind_seats(table):
                continue  # nobody can take the blind's seat: the pair's line names it
            occupant = table.seats[seat]
            sit = (
                tr("btn.seat", n=seat + 1, name=seat_name(tr, table, seat))
                if occupant
                else tr("btn.sit", n=seat + 1)
            )
            row = [_button(codec, table, sit, Sit(seat))]
            if occupant is None:
                row.append(_button(codec, table, tr("btn.add_bot"), AddBot(seat)))
            elif occupant.is_bot:
                row.append(_button(codec, table, tr("btn.remove_bot"), RemoveBot(seat)))
            rows.append(row)
        rows.append([_button(codec, table, tr("btn.level", level=tr(f"level.{table.bot_level}")), Level())])
        rows.append(
            [
                _button(codec, table, tr("btn.rules"), RulesMenu()),
                _button(codec, table, tr("btn.start"), Start()),
            ]
        )
    return Content("\n".join(lines), InlineKeyboardMarkup(rows))


def _hint_key(table: Table) -> str:
    """The seats' hint for the table's number of people: the classic one offers the forms for three
    and two, which a table already playing one of them (a blind, or sochi's three seats) is not told."""
    if three_seats(table):
        return "lobby.hint_people"
    return {0: "lobby.hint", 1: "lobby.hint_blind"}.get(len(blind_seats(table)), "lobby.hint_blinds")


def expired_content(tr: Tr) -> Content:
    """What an expired lobby turns into."""
    return Content(tr("lobby.expired"))
