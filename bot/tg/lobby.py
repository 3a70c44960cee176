"""``/newgame`` and the lobby's buttons: sit, stand, bot players, rules, start."""

from __future__ import annotations

import random
import secrets
from typing import Any

from telegram import CallbackQuery, Chat, Update, User

from bot.engine import Rules, RulesError
from bot.render import people_view, rules_menu
from bot.render.content import Content
from bot.render.i18n import Tr, pick_lang
from bot.render.lobby_view import awaiting, lobby_content
from bot.render.words import blind_seats, free_seats, pair_names, people_names, three_seats
from bot.storage import ChatSettings, Seat, Table
from bot.storage.models import seats_for
from bot.table.bots import default_level, levels
from bot.table.codec import Button, Link
from bot.table.game import Notice, Progress, Refusal
from bot.table.payloads import (
    AddBot,
    Confirm,
    Decline,
    Fill,
    Level,
    LobbyButton,
    Option,
    Preset,
    RemoveBot,
    RulesMenu,
    SeatsMenu,
    Sit,
    Start,
)
from bot.table.usecase import Change
from bot.tg.common import (
    Context,
    alert,
    chat_tr,
    default_preset,
    quiet_answer,
    say,
    services,
    table_key,
    thread_of,
    user_tr,
)
from bot.tg.services import Services, TableKey


async def new_game(update: Update, context: Context) -> None:
    """Open a lobby in this group (or forum topic), or point at the table already there."""
    svc = services(context)
    chat, message, user = update.effective_chat, update.effective_message, update.effective_user
    assert chat is not None and message is not None and user is not None
    key = table_key(chat, message)
    tr = await chat_tr(svc, chat, user)
    existing = await svc.storage.load_table(*key)
    if existing is not None and existing.status == "lobby":
        say(svc, update, tr("newgame.lobby"), reply_to=existing.lobby_message_id)
        return
    if existing is not None and existing.status != "over":
        say(svc, update, tr("newgame.running"), reply_to=existing.table_message_id)
        return
    if existing is not None:
        await svc.storage.delete_table(existing)
        svc.presenter.forget(existing)
    settings = await svc.storage.chat_settings(chat.id)
    rules = _remembered_rules(settings)
    level = settings.bot_level if settings.bot_level in levels() else default_level()
    now = svc.settings.clock()
    table = Table(
        table_id=secrets.token_hex(3),
        chat_id=chat.id,
        thread_id=key[1],
        chat_title=chat.title or "",
        creator_id=user.id,
        rules=rules.to_json(),
        seats=[None] * seats_for(rules.to_json()),
        bot_level=level,
        created_at=now,
        updated_at=now,
    )
    # Stored before it is shown: a tap on the lobby must find its table.
    if not await svc.create(table):
        say(svc, update, tr("newgame.running"))
        return
    sent = await svc.outbox.send(chat.id, lobby_content(tr, svc.codec, table), thread_id=thread_of(message))
    if sent.message_id is None:
        await svc.storage.delete_table(table)
        return
    stored = await svc.presenter.lobby_posted(key, table.table_id, sent.message_id)
    if stored is None or stored.table.table_id != table.table_id:
        # Stopped while its message was on its way (/stop found no message to close): closed here,
        # so no live buttons stay behind.
        svc.outbox.edit(sent.chat_id or chat.id, sent.message_id, Content(tr("stop.message")))
        return
    # Its expiry is a timer in Redis (bot/table/timers.py), armed with the save that stored the
    # message id: it survives a restart.
    if not stored.armed:
        await svc.timers.arm(stored)


def _remembered_rules(settings: ChatSettings) -> Rules:
    if settings.rules:
        try:
            return Rules.parse(settings.rules)
        except RulesError:
            pass
    return Rules.make(default_preset())


def _sit(table: Table, seat: int, user: User) -> None:
    old = table.seat_of(user.id)
    if old is not None:
        table.seats[old] = None
    _answered(table, user.id)
    table.seats[seat] = Seat(kind="human", name=user.first_name, user_id=user.id, lang=user.language_code)


def _seat_change(table: Table, payload: Sit | AddBot | RemoveBot, user: User) -> None:
    """Each seat button says what the seat is to become, so a repeated tap changes nothing more:
    a double tap never stands a person up or takes out the bot just put in (standing up is /leave).
    """
    seat = payload.seat
    if seat >= len(table.seats):  # a forged or stale button: a seat this table has not (sochi's three)
        raise Refusal("alert.no_seat")
    occupant = table.seats[seat]
    if seat in blind_seats(table):  # a forged or stale button: the blind's seat is nobody's
        raise Refusal("alert.blind_seat")
    if isinstance(payload, Sit):
        if occupant is None:
            _sit(table, seat, user)
        elif occupant.user_id == user.id and user.id in table.unconfirmed:
            _answered(table, user.id)  # a rematch's lobby: their own seat tapped is "I'm in"
        elif occupant.user_id == user.id:
            raise Notice("lobby.already_seated", n=seat + 1)
        else:
            raise Notice("alert.seat_taken")
    elif isinstance(payload, AddBot):
        if occupant is None:
            table.seats[seat] = Seat(kind="bot", name="bot", level=table.bot_level)
        elif not occupant.is_bot:
            raise Notice("alert.seat_taken")
        else:
            raise Notice("lobby.bot_already", n=seat + 1)
    elif occupant is None:
        raise Notice("lobby.bot_gone", n=seat + 1)
    elif occupant.is_bot:
        table.seats[seat] = None
    else:
        raise Notice("alert.seat_taken")


def fit_seats(table: Table) -> None:
    """As many seats as the table's rules play (three for ``sochi``): whoever sat in a seat that goes
    stands up; a seat that comes back is free."""
    n = seats_for(table.rules)
    table.seats = table.seats[:n] + [None] * (n - len(table.seats))


def _answered(table: Table, user_id: int) -> None:
    """A person of a rematch's lobby has said whether they play (or sat down again)."""
    if user_id in table.unconfirmed:
        table.unconfirmed.remove(user_id)


def _reply(table: Table, payload: Confirm | Decline, user: User) -> None:
    """ "I'm playing" keeps the seat, "not this time" frees it; a repeat changes nothing more."""
    seat = table.seat_of(user.id)
    if isinstance(payload, Confirm):
        if seat is None:
            raise Refusal("alert.not_seated")
        if user.id not in table.unconfirmed:
            raise Notice("lobby.already_confirmed")
    elif seat is None:
        raise Notice("lobby.declined_already")
    else:
        table.seats[seat] = None
        if user.id == table.creator_id and table.humans:
            # Someone must be able to start: the first who said they play, else the first seated.
            said = [p for _, p in table.humans if p.user_id not in table.unconfirmed]
            table.creator_id = (said or [p for _, p in table.humans])[0].user_id or table.creator_id
    _answered(table, user.id)


def _drop_unanswered(table: Table, creator_id: int) -> None:
    """The creator starts: she plays (starting says so, her seat is kept); the seats of those who have
    not answered are free (bots may take them)."""
    _answered(table, creator_id)
    for seat in awaiting(table):
        table.seats[seat] = None
    table.unconfirmed = []


#: What a preset change kept and left behind: the rules before and after, the options kept and dropped.
Carried = tuple[Rules, Rules, dict[str, Any], dict[str, Any]]


def lobby_change(
    c: Change,
    button: Button,
    payload: LobbyButton,
    user: User,
    rng_bits: int,
    told: list[Carried] | None = None,
) -> Progress | None:
    """Apply one lobby button to the table; raises :class:`Refusal` with the reason to show (and
    puts in ``told`` what a preset change kept of the options and what it left behind)."""
    table = c.table
    if table is None or table.table_id != button.table_id or table.status == "over":
        raise Refusal("alert.stale")
    if table.status != "lobby":  # a tap on the lobby of a game that has just started
        raise Refusal("lobby.game_started")
    creator = user.id == table.creator_id
    if isinstance(payload, Sit | AddBot | RemoveBot):
        _seat_change(table, payload, user)
        table.lobby_view = "seats"
        return None
    if isinstance(payload, Confirm | Decline):
        _reply(table, payload, user)
        return None
    # Seats are everyone's: anyone may sit, stand, or put a bot player in an empty seat (and take it
    # out again). What the table plays is its creator's, as in the rules menu: the rules, and the
    # bot players' level, which sets how hard the match is for both pairs.
    if not creator:
        raise Notice("alert.creator_only")
    if isinstance(payload, Level):
        found = levels()
        table.bot_level = (
            found[(found.index(table.bot_level) + 1) % len(found)] if table.bot_level in found else found[0]
        )
        # The button names the level the table's bots play at: those already seated too.
        for seated in table.seats:
            if seated is not None and seated.is_bot:
                seated.level = table.bot_level
        return None
    if isinstance(payload, RulesMenu):
        table.lobby_view = "rules"
    elif isinstance(payload, SeatsMenu):
        table.lobby_view = "seats"
    elif isinstance(payload, Preset):
        chosen = rules_menu.preset_of(payload.index)
        if chosen is None:
            raise Refusal("alert.unknown_button")
        before = Rules.parse(table.rules)
        if before.preset != chosen:
            # What the creator changed stays where the new preset has it too; the tap says what went.
            after, kept, dropped = rules_menu.carried(before, chosen)
            table.rules = after.to_json()
            if told is not None:
                told[:] = [(before, after, kept, dropped)]
            for b in blind_seats(table):  # whoever sat where a blind now sits stands up
                table.seats[b] = None
            fit_seats(table)
    elif isinstance(payload, Option):
        try:
            table.rules = rules_menu.cycle(Rules.parse(table.rules), payload.code).to_json()
        except ValueError:
            # A keyboard of another preset (or release): its option is not this preset's.
            raise Refusal("alert.stale_menu") from None
    elif isinstance(payload, Start):
        _drop_unanswered(table, user.id)
        if free_seats(table):
            table.lobby_view = "confirm"
            return None
        return _start(c, rng_bits)
    elif isinstance(payload, Fill):
        _drop_unanswered(table, user.id)
        for i in free_seats(table):
            table.seats[i] = Seat(kind="bot", name="bot", level=table.bot_level)
        return _start(c, rng_bits)
    return None


def _start(c: Change, rng_bits: int) -> Progress:
    assert c.table is not None
    if not c.table.humans:
        raise Refusal("alert.nobody")
    return c.start(random.Random(rng_bits))


async def lobby_tap(
    query: CallbackQuery, button: Button, payload: LobbyButton, svc: Services, context: Context
) -> None:
    """A tap on a lobby button."""
    message = query.message
    user = query.from_user
    chat = message.chat if message is not None else None
    if chat is None or chat.type == Chat.PRIVATE or chat.id != button.chat_id:
        raise Refusal("alert.unknown_button")
    key: TableKey = (button.chat_id, button.thread_id)
    if isinstance(payload, Sit):
        # Someone the bot cannot write to yet is sent to its DM first, and seated when they press Start.
        seat = payload.seat
        table = await svc.storage.load_table(*key)
        free = (
            table is not None
            and table.table_id == button.table_id
            and seat < len(table.seats)
            and table.seats[seat] is None
        )
        if free and not (await svc.storage.user_settings(user.id)).started:
            link = svc.codec.link(Link("join", button.chat_id, button.thread_id, button.table_id, seat))
            await alert(query, "", url=svc.deep_link(link))
            return
    told: list[Carried] = []
    snap, progress = await svc.run(
        key, lambda c: lobby_change(c, button, payload, user, svc.rng.getrandbits(64), told)
    )
    await quiet_answer(query, carried_text(await user_tr(svc, user), told[0]) if told else None)
    assert snap is not None
    if snap.table.status != "lobby":
        await _started(svc, snap.table, progress)
    await svc.publish(snap)


def carried_text(tr: Tr, carried: Carried) -> str | None:
    """The toast of a preset change: the options changed before that it kept, and those it has not."""
    before, after, kept, dropped = carried
    preset = tr(f"preset.{after.preset}")
    parts = []
    if kept:
        parts.append(tr("lobby.preset_kept", preset=preset, options=rules_menu.options_text(tr, after, kept)))
    if dropped:
        parts.append(
            tr("lobby.preset_dropped", preset=preset, options=rules_menu.options_text(tr, before, dropped))
        )
    return " ".join(parts) or None


async def _started(svc: Services, table: Table, progress: Progress | None) -> None:
    """Turn the lobby into a note of who plays whom, and remember the rules for this chat."""
    settings = await svc.storage.chat_settings(table.chat_id)
    settings.rules = table.rules
    settings.bot_level = table.bot_level
    await svc.storage.save_chat_settings(table.chat_id, settings)
    tr = Tr(pick_lang(settings.lang))
    if table.lobby_message_id is not None and three_seats(table):
        text = tr(
            "lobby.started_sochi",
            names=people_names(tr, table),
            rules=rules_menu.summary(tr, Rules.parse(table.rules)),
        )
        svc.outbox.edit(table.chat_id, table.lobby_message_id, Content(text))
    elif table.lobby_message_id is not None and people_view.individual(table):
        text = people_view.started_text(tr, table, rules_menu.summary(tr, Rules.parse(table.rules)))
        svc.outbox.edit(table.chat_id, table.lobby_message_id, Content(text))
    elif table.lobby_message_id is not None:
        text = tr(
            "lobby.started",
            a=pair_names(tr, table, 0),
            b=pair_names(tr, table, 1),
            rules=rules_menu.summary(tr, Rules.parse(table.rules)),
        )
        svc.outbox.edit(table.chat_id, table.lobby_message_id, Content(text))


async def join_by_link(svc: Services, user: User, key: TableKey, table_id: str, seat: int) -> Table | None:
    """Seat someone who came through a join link (after pressing Start); None if they could not sit."""

    def change(table: Table | None) -> bool:
        if table is None or table.table_id != table_id or table.status != "lobby":
            raise Refusal("join.gone")
        if seat >= len(table.seats):
            raise Refusal("alert.no_seat")
        if table.seats[seat] is not None and table.seats[seat].user_id != user.id:  # type: ignore[union-attr]
            raise Refusal("join.taken")
        if seat in blind_seats(table):
            raise Refusal("alert.blind_seat")
        _sit(table, seat, user)
        return True

    snap, _ = await svc.run(key, lambda c: change(c.table))
    if snap is not None:
        svc.presenter.show(snap)
    return snap.table if snap is not None else None
