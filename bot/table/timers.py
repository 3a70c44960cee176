"""Turn timers and expiry, kept in Redis so they survive restarts and fire once across processes.

Every deadline is a member of a Redis sorted set (score: the Unix time it is due): one set on a single
Redis, one of several buckets chosen by the table on a cluster (:mod:`bot.storage.cluster`). A periodic
JobQueue job (:func:`tick`) moves the due ones to an in-flight set under a lease in one Lua script,
so of several processes exactly one fires each, and a timer that came due while the bot was down
fires at the first tick after a start. A fired timer's lease is released; one whose process died
before firing it goes back to the due set when its lease ends, and the next tick (of any process)
takes it; a claim whose answer was lost is made again under its token, and returns what it took.
One that fails while storage is unavailable (:mod:`bot.storage.errors`) is due again a second after
storage is back. A timer names the turn it was set for (deal and number of moves); one that fires
after the turn moved on does nothing: the change that plays for the absent seat is a
compare-and-set that checks the turn again.

Kinds: ``remind`` (a DM at half time), ``timeout`` (the bot player decides for the absent person; two
timeouts in a row, or one when the chat's ``/settings`` say so, make the seat *away*), ``away`` (a
decision of an away seat, played at once until its person taps "I'm back"), ``lobby`` and ``table``
(a lobby nobody starts, a game nobody plays: deleted with a notice).
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from bot.engine import Phase, view_for
from bot.storage import Seat, StaleWrite, Table, TimerPlan
from bot.storage.errors import storage_down
from bot.table import game
from bot.table.bots import decide, default_level
from bot.table.core import Core, TableKey
from bot.table.game import Progress, decider
from bot.table.played_by import bot_played
from bot.table.timer_ids import (
    TAKEN_TURNS,
    TIDY_AFTER,
    TURN_KINDS,
    TimerId,
    TimerKind,
    Turn,
    held_until,
    taken_turn_timers,
    turn_of,
    turn_time,
)
from bot.table.usecase import Change, Snapshot, Tables

_LOG = logging.getLogger(__name__)
#: Timers taken per tick; the rest wait for the next one.
CLAIM_BATCH = 100
#: A timer whose firing failed (a table too busy, a bug) is tried again this much later.
RETRY_SECONDS = 5.0
#: A timer whose firing met storage unavailable (:func:`bot.storage.errors.storage_down`) is due
#: again this much later; while its claim cannot even be given back, that is tried every
#: :data:`STORAGE_POLL` seconds, so it fires within seconds of storage coming back, not after its lease.
STORAGE_RETRY = 1.0
STORAGE_POLL = 1.0
#: Turns whose turn time is kept (see :meth:`Timers._turn_time`): many more than tables in play.
TURNS_KEPT = 4096


class Notices(Protocol):
    """What the timers tell people, and the messages of theirs they tidy once moot: the front end's
    (the Telegram adapter's :class:`bot.tg.timer_notices.TimerNotices`)."""

    def turn_moved(self, table: Table, turn: tuple[int, int, int] | None) -> None:
        """``table`` changed (``turn``: the one it waits for now): tidy reminders and keyboards now moot."""
        ...

    async def remind(self, table: Table, person: Seat, seconds: float) -> int | None:
        """Remind ``person`` (in a DM) that ``seconds`` are left for their decision; the message's id."""
        ...

    def reminded(self, key: TableKey, item: Reminder) -> None:
        """Delete the reminder ``item`` once its turn is gone (while this process runs)."""
        ...

    def tidy(self, key: TableKey, chat_id: int, message_id: int) -> None:
        """Delete a reminder whose turn is gone (its ``tidy`` timer fired)."""
        ...

    async def tell(self, table: Table, seat: int, notice: str) -> None:
        """Tell the group that ``seat`` timed out (``timeout``) or is away now (``away``, ``away_now``)."""
        ...

    async def lobby_expired(self, table: Table) -> None:
        """``table``'s lobby was deleted: nobody started it."""
        ...

    async def table_expired(self, table: Table) -> None:
        """``table`` was deleted: nobody played it."""
        ...


@dataclass(frozen=True, slots=True)
class Reminder:
    """A reminder sent: whose turn, in which message, and the ``tidy`` timer that deletes it."""

    table_id: str
    seat: int
    chat_id: int
    message_id: int
    turn: tuple[int, int, int]
    timer: str


class Timers:
    """Arms the timers of a table after each change, and fires the due ones (see the module docstring)."""

    def __init__(self, core: Core, tables: Tables, notices: Notices) -> None:
        self.core = core
        self.tables = tables
        self.notices = notices
        self._tasks: set[asyncio.Task[None]] = set()
        #: The token of a claim that failed (its answer lost, say): the next tick makes it again.
        self._claim: str | None = None
        #: The timers this process fired lately (tests and logs look at it).
        self.fired: deque[str] = deque(maxlen=1000)
        #: The turn time of each turn planned lately, by its timeout timer (see :meth:`_turn_time`).
        self._turn_times: OrderedDict[str, int] = OrderedDict()

    # ----- arming ------------------------------------------------------------------------------

    async def plan(self, snap: Snapshot) -> TimerPlan | None:
        """The timers the table needs in this state (None: none), armed with the save that makes it.

        A turn's timers are armed once: while its timeout is pending, another change of the table
        (someone's /leave, a message id saved) leaves them as they are. An expiry timer is set once
        per table and moved on when it fires early; a timer of an earlier turn does nothing when it
        fires. The timers of the turns just taken are dropped (:func:`taken_turn_timers`).
        """
        core = self.core
        table = snap.table
        key = (table.chat_id, table.thread_id)
        due: dict[str, float] = {}
        unless: str | None = None
        drop: list[str] = []
        if table.status == "lobby":
            due[TimerId("lobby", *key, table.table_id).pack()] = table.updated_at + core.settings.lobby_ttl
        elif table.status == "playing":
            due[TimerId("table", *key, table.table_id).pack()] = table.updated_at + core.settings.table_ttl
            drop = taken_turn_timers(snap)
            turn = turn_of(snap)
            if turn is not None:
                now = core.settings.clock()
                named = {
                    kind: TimerId(kind, *key, table.table_id, turn.deal_seq, turn.moves, turn.seat).pack()
                    for kind in TURN_KINDS
                }
                if decider(table, turn.seat) in table.away:
                    due[named["away"]] = now + core.settings.bot_delay
                else:
                    seconds = await self._turn_time(table.chat_id, named["timeout"])
                    if seconds > 0:
                        unless = named["timeout"]
                        due[named["remind"]] = now + seconds / 2
                        due[named["timeout"]] = now + seconds
        if not due and not drop:
            return None
        return TimerPlan(due, unless, drop)

    async def _turn_time(self, chat_id: int, timeout: str) -> int:
        """The turn time of the turn whose timeout is ``timeout``: read from the chat's settings when
        the turn is first planned, then kept, since every save while it waits plans it again (a
        message id stored, someone's /leave) and its timers are armed once anyway."""
        seconds = self._turn_times.get(timeout)
        if seconds is None:
            seconds = turn_time(await self.core.storage.chat_settings(chat_id), self.core.settings)
            self._turn_times[timeout] = seconds
            while len(self._turn_times) > TURNS_KEPT:
                self._turn_times.popitem(last=False)
        return seconds

    async def arm(self, shown: Table | Snapshot) -> None:
        """Make sure the table's expiry is set and, when the deal waits for a person, their turn timers.

        A change made through the table use case arms them with its save (:meth:`plan`); this is for
        the others, and for every table at start, which restores timers lost with a process.
        """
        snap = shown if isinstance(shown, Snapshot) else self.tables.snapshot(shown)
        plan = await self.plan(snap)
        if plan is not None:
            await self.core.storage.add_timers(plan.due, unless=plan.unless, drop=plan.drop)

    def show(self, snap: Snapshot) -> None:
        """A table changed: arm its timers, unless its save did; tidy reminders and keyboards now moot."""
        turn = turn_of(snap)
        self.notices.turn_moved(
            snap.table, (turn.deal_seq, turn.moves, turn.seat) if turn is not None else None
        )
        if not snap.armed:
            self.arm_soon(snap)

    def drop_soon(self, member: str) -> None:
        """Drop the timer ``member`` in the background (a reminder's ``tidy`` once it is deleted: the
        notices tidied it, which the timer would otherwise do again)."""
        task = asyncio.create_task(self._drop_logged(member), name="drop timer")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drop_logged(self, member: str) -> None:
        try:
            await self.core.storage.add_timers({}, drop=[member])
        except Exception as e:  # it fires then, finds the reminder's turn gone and deletes it again
            _LOG.warning("could not drop timer %s: %s", member, e)

    def arm_soon(self, table: Table | Snapshot) -> None:
        """:meth:`arm` in the background, so a tap's answer does not wait for it."""
        task = asyncio.create_task(self._arm_logged(table), name="arm")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _arm_logged(self, table: Table | Snapshot) -> None:
        try:
            await self.arm(table)
        except Exception as e:  # storage trouble: the next change, or the next start, arms it again
            t = table.table if isinstance(table, Snapshot) else table
            log = _LOG.warning if storage_down(e) else _LOG.exception  # a traceback for a bug only
            log("could not arm the timers of table %s: %s", t.table_id, e)

    async def resume(self) -> int:
        """After a start: make sure every table has its timers (lost ones, or tables older than timers)."""
        count = 0
        async for table in self.core.storage.tables():
            if table.status != "over":
                await self.arm(table)
                count += 1
        return count

    # ----- firing ------------------------------------------------------------------------------

    async def tick(self) -> int:
        """Claim the due timers and fire each in a task of its own; returns how many were claimed.

        A claim is a lease (``Settings.timer_lease``): a timer claimed by a process that dies before
        it has fired is due again once the lease ends, and the next claim (of any process) takes it.
        A claim that raised may have been applied (its answer lost with the connection): the next
        tick makes it again under the same token, and gets what it took, so those timers fire at
        once rather than after their lease.
        """
        settings = self.core.settings
        self._claim = token = self._claim or secrets.token_hex(8)
        claimed = await self.core.storage.claim_timers(
            settings.clock(), CLAIM_BATCH, lease=settings.timer_lease, token=token
        )
        self._claim = None
        for member in claimed:
            task = asyncio.create_task(self._fire_claimed(member), name=f"timer {member}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return len(claimed)

    async def _fire_claimed(self, member: str) -> None:
        """:meth:`fire` a claimed timer, then release its lease; nothing escapes the task.

        If the firing failed and storage could not even take its retry, the claim is given back (its
        lease ends a moment later, and the next tick of any process takes it) as soon as storage takes
        that: the timer fires within seconds of a storage fault's end, not when its lease ends.
        """
        storage, clock = self.core.storage, self.core.settings.clock
        try:
            await self.fire(member)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            if not storage_down(e):
                _LOG.exception("timer %s: its retry could not be stored", member)
            await self._until_stored(member, lambda: storage.release_timer(member, clock() + STORAGE_RETRY))
            return
        await self._until_stored(member, lambda: storage.finish_timer(member))

    async def _until_stored(self, member: str, step: Callable[[], Awaitable[object]]) -> None:
        """Run ``step`` for the claimed timer ``member``, again every :data:`STORAGE_POLL` s while
        storage is unavailable, until its lease is over (then any process takes the timer again)."""
        settings = self.core.settings
        ends = settings.clock() + settings.timer_lease
        while True:
            try:
                await step()
                return
            except Exception as e:
                if not storage_down(e):
                    _LOG.exception("timer %s left to its lease", member)
                    return
                if settings.clock() + STORAGE_POLL >= ends:
                    _LOG.warning("timer %s left to its lease: %s", member, e)
                    return
            await asyncio.sleep(STORAGE_POLL)

    async def idle(self) -> None:
        """Wait until every timer armed or fired so far has done its work (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        """Stop firing (on shutdown)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def fire(self, member: str) -> None:
        """Do what a claimed timer says, if its table is still where it was."""
        timer = TimerId.parse(member)
        if timer is None:
            _LOG.warning("dropping a malformed timer %r", member)
            return
        self.fired.append(member)
        try:
            if timer.kind == "remind":
                await self._remind(timer)
            elif timer.kind in ("timeout", "away"):
                await self._timeout(timer)
            elif timer.kind == "tidy":
                await self._tidy(timer)
            elif timer.kind == "lobby":
                await self._expire_lobby(timer)
            else:
                await self._expire_table(timer)
        except Exception as e:
            down = storage_down(e)
            if down:  # one line, not a traceback
                _LOG.warning("timer %s waits for storage (%s); again in %s s", member, e, STORAGE_RETRY)
            else:  # a table too busy, or a bug: try again shortly rather than let the turn hang
                _LOG.exception("timer %s failed; trying again in %s s", member, RETRY_SECONDS)
            # If storage cannot take the retry either, this raises: a claimed timer's claim is then
            # given back once it can (see _fire_claimed).
            if timer.kind != "remind":
                later = STORAGE_RETRY if down else RETRY_SECONDS
                await self.core.storage.add_timers({member: self.core.settings.clock() + later})

    def _current(self, shown: Snapshot | Table | None, timer: TimerId) -> Turn | None:
        """The turn ``timer`` was set for, if the table still waits for it."""
        if shown is None:
            return None
        snap = shown if isinstance(shown, Snapshot) else self.tables.snapshot(shown)
        table = snap.table
        if table.table_id != timer.table_id:
            return None
        turn = turn_of(snap)
        if turn is None or turn != Turn(timer.deal_seq, timer.moves, timer.seat):
            return None
        # An away seat's decisions are the ``away`` timer's; a person back again has a fresh timeout.
        return turn if (decider(table, timer.seat) in table.away) == (timer.kind == "away") else None

    async def _remind(self, timer: TimerId) -> None:
        core = self.core
        snap = await self.tables.load(timer.key)
        if snap is None or self._current(snap, timer) is None:
            return
        table = snap.table
        person = table.seats[decider(table, timer.seat)]
        assert person is not None and person.user_id is not None
        seconds = turn_time(await core.storage.chat_settings(table.chat_id), core.settings)
        # Not while they tick cards, nor while their live table's page counts their time down.
        present = await core.live_present(table) if core.live_present is not None else frozenset()
        if await self._held(table, timer, seconds / 2) or person.user_id in present:
            return
        message_id = await self.notices.remind(table, person, seconds)
        if message_id is not None:
            # Deleted once the decision is taken or the game ends: by this process as it sees the
            # table change, or — after a restart, or a change another process handled — by its
            # ``tidy`` timer, which any process fires once the turn is gone.
            turn = (timer.deal_seq, timer.moves, timer.seat)
            tidy = TimerId(
                "tidy", *timer.key, timer.table_id, *turn, message=(person.user_id, message_id)
            ).pack()
            await core.storage.add_timers({tidy: core.settings.clock() + seconds / 2 + TIDY_AFTER})
            item = Reminder(
                table.table_id, decider(table, timer.seat), person.user_id, message_id, turn, tidy
            )
            self.notices.reminded(timer.key, item)

    async def _tidy(self, timer: TimerId) -> None:
        """A reminder's turn is gone (taken, timed out, the game over): delete it; else look again later."""
        assert timer.message is not None
        core = self.core
        snap = await self.tables.load(timer.key)
        if snap is not None and snap.table.table_id == timer.table_id:
            turn = turn_of(snap)
            if turn == Turn(timer.deal_seq, timer.moves, timer.seat):
                await core.storage.add_timers({timer.pack(): core.settings.clock() + TIDY_AFTER})
                return
        chat_id, message_id = timer.message
        self.notices.tidy(timer.key, chat_id, message_id)

    async def _timeout(self, timer: TimerId) -> None:
        core = self.core
        snap = await self.tables.load(timer.key)
        table = snap.table if snap is not None else None
        if snap is None or table is None or self._current(snap, timer) is None:
            return
        chat = await core.storage.chat_settings(table.chat_id)
        seconds = turn_time(chat, core.settings)
        if await self._held(table, timer, seconds):
            return
        deal = snap.deal
        assert deal is not None
        rng = random.Random(core.rng.getrandbits(64))
        action = await decide(default_level(), view_for(deal, timer.seat), rng, core.thinker)
        actions = [action]
        # "We exchange" and the cards given are one decision for a person: a timeout takes both, not
        # leaving the cards to pick on a fresh timer.
        then = deal.copy()
        then.apply(timer.seat, action)
        if then.phase is Phase.EXCHANGE_GIVE and then.to_act == timer.seat:
            actions.append(await decide(default_level(), view_for(then, timer.seat), rng, core.thinker))
        at_once = chat.timeout_action == "away"

        def change(c: Change) -> tuple[Progress, str | None] | None:
            # Only if the turn is still the one timed out: the person may have decided meanwhile,
            # or ticked a card while the bot thought (then the timer is set again below).
            stored = c.table
            if stored is None or self._current(Snapshot(stored, c.deal), timer) is None:
                return None
            if held_until(stored, timer, seconds, core.settings.clock()) is not None:
                return None
            for taken in actions:
                bot_played(stored, timer.seat, taken)  # 💤 on this card only
                progress = c.play(timer.seat, taken)
            if timer.kind == "away":
                return progress, None
            who = decider(stored, timer.seat)  # the person whose turn it was (a blind's partner for it)
            row = stored.timeouts.get(who, 0) + 1
            stored.timeouts[who] = row
            if at_once or row >= 2:
                stored.away.append(who)
                # The first time out under "the bot takes over" is not "again".
                return progress, "away" if row >= 2 else "away_now"
            return progress, "timeout"

        after, outcome = await self.tables.run(timer.key, change)
        if outcome is None:
            # A tick meanwhile: the timeout counts from it.
            await self._held(after.table if after is not None else None, timer, seconds)
            return
        assert after is not None
        _, notice = outcome
        await self.tables.publish(after)
        # The match's end is its last message: a timeout that ended it is not told below the goat.
        if notice is not None and after.table.status == "playing":
            await self.notices.tell(table, decider(table, timer.seat), notice)

    async def _held(self, table: Table | None, timer: TimerId, span: float) -> bool:
        """Set ``timer`` again for ``span`` after the person's last tick, if they are ticking now."""
        later = held_until(table, timer, span, self.core.settings.clock())
        if later is None or self._current(table, timer) is None:
            return False
        await self.core.storage.add_timers({timer.pack(): later})
        return True

    async def _expire_lobby(self, timer: TimerId) -> None:
        core = self.core
        table = await core.storage.load_table(*timer.key)
        if table is None or table.table_id != timer.table_id or table.status != "lobby":
            return
        if not await self._idle_for(table, timer, core.settings.lobby_ttl):
            return
        await self.notices.lobby_expired(table)

    async def _expire_table(self, timer: TimerId) -> None:
        core = self.core
        table = await core.storage.load_table(*timer.key)
        if table is None or table.table_id != timer.table_id or table.status != "playing":
            return
        if not await self._idle_for(table, timer, core.settings.table_ttl, archive=True):
            return
        await self.notices.table_expired(table)

    async def _idle_for(self, table: Table, timer: TimerId, ttl: float, *, archive: bool = False) -> bool:
        """Delete ``table`` if untouched for ``ttl``; else set the timer again for its new end."""
        core = self.core
        ends = table.updated_at + ttl
        if core.settings.clock() < ends:
            await core.storage.add_timers({timer.pack(): ends})
            return False
        record = (
            game.match_record(table) if archive and table.match is not None and table.match.deals else None
        )
        try:
            await core.storage.delete_table(table, archive=record)
        except StaleWrite:  # touched just now: that change set the timer again
            await core.storage.add_timers({timer.pack(): core.settings.clock() + RETRY_SECONDS})
            return False
        return True


__all__ = [
    "CLAIM_BATCH", "RETRY_SECONDS", "STORAGE_POLL", "STORAGE_RETRY", "TAKEN_TURNS", "TIDY_AFTER",
    "TURNS_KEPT", "TimerId", "TimerKind", "Timers", "Turn", "held_until", "taken_turn_timers", "turn_of",
    "turn_time",
]  # fmt: skip
