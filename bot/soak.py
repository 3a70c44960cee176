"""``python -m bot.soak``: many tables for minutes through two bot instances that are killed at random.

The emulator runs here; every bot instance is a process of its own (webhook mode) on one Redis, under
a key prefix of this run's own (deleted at the end), so a soak never touches real tables. Every update
is posted to every instance that is up, and again until one answers 200 (as Telegram delivers what
was not confirmed; an instance answers only once it has handled the update), and every
``--restart-every`` seconds one instance, picked at random, is killed with SIGKILL and started again.

At each table one simulated person sits with three bot players and taps random legal decisions as
soon as their hand asks for one (and "one more match" when a match ends). At the end the instances are
stopped and every stored state is scanned: each table's match (every finished deal replayed, every
state on the way checked for card conservation, the match recounted) and every archived match.
Printed: deals finished, taps handled, errors (lines logged at ERROR or above by any instance: must be
0) and invariant violations (states the scan finds broken, plus saves the storage refused as broken:
must be 0), with the restarts and what they cost (taps left unanswered).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bot.app import build_application, codec_for
from bot.engine.invariants import replay_checked
from bot.handlers.codec import Act, BadData, Codec, Tick
from bot.handlers.hand_view import as_a_person_picks
from bot.handlers.i18n import DEFAULT_LANG, Tr
from bot.handlers.outbox import Limits
from bot.handlers.services import Settings
from bot.logs import setup_logging
from bot.sandbox import Driver, Emulator, EmulatorConfig, SandboxError, SimGroup, SimUser, StoredMessage
from bot.storage import EmbeddedRedis, RedisStorage, Table
from bot.storage.invariants import table_problems
from bot.webhook import SECRET_HEADER, serve_webhook, stop_webhook

WEBHOOK_PATH = "/soak"
#: Seconds a simulated person waits for the answer to a tap before taking it as lost (a killed
#: instance had claimed it) and tapping again.
TAP_TIMEOUT = 10.0
#: Seconds before an update no instance answered 200 is posted again (Telegram's retry, made quick).
REDELIVER_AFTER = 1.0
#: The simulated people read the bot in its default language; every text they look for is the catalog's.
TR = Tr(DEFAULT_LANG)
STARTED = TR("lobby.started", a="", b="", rules="").splitlines()[0]
FILL, SIT, START, REMATCH = TR("btn.fill"), TR("btn.sit", n=1), TR("btn.start"), TR("btn.rematch")
#: What a hand's title says between the chat's name and the deal's number (" · раздача №").
HAND = TR("hand.title", chat="\x00", n="\x01", seat=0).split("\x00")[1].split("\x01")[0].replace("</b>", "")


# ------------------------------------------------------------------------------ bot instances


@dataclass
class Instance:
    """One bot process, serving the webhook on ``port``; its log lines go to ``log``."""

    index: int
    port: int
    log: Path
    env: dict[str, str]
    process: asyncio.subprocess.Process | None = None
    up: bool = False

    async def start(self, http: aiohttp.ClientSession, timeout: float = 60.0) -> None:
        """Start the process and wait until its ``/healthz`` answers."""
        with self.log.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.soak", "--serve-bot", str(self.port),
                env=self.env, stdout=log, stderr=log,
            )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.returncode is not None:
                raise RuntimeError(f"bot instance {self.index} exited at start; see {self.log}")
            with contextlib.suppress(aiohttp.ClientError, OSError, TimeoutError):
                async with http.get(f"http://127.0.0.1:{self.port}/healthz") as response:
                    if response.status == 200:
                        self.up = True
                        return
            await asyncio.sleep(0.1)
        raise RuntimeError(f"bot instance {self.index} did not come up; see {self.log}")

    async def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        self.up = False
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()

    async def stop(self) -> None:
        """SIGTERM, then wait (SIGKILL after 30 s)."""
        self.up = False
        if self.process is None or self.process.returncode is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            await self.kill()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def serve_bot(port: int) -> None:
    """The bot side: one instance in webhook mode until SIGTERM (settings from ``KOZEL_SOAK_*``)."""
    env = os.environ
    setup_logging("WARNING", "json")
    storage = RedisStorage.from_url(env["KOZEL_SOAK_REDIS"], prefix=env["KOZEL_SOAK_PREFIX"])
    app = build_application(
        env["KOZEL_SOAK_TOKEN"],
        base_url=env["KOZEL_SOAK_BASE_URL"],
        storage=storage,
        settings=Settings(
            bot_delay=float(env.get("KOZEL_SOAK_BOT_DELAY", "0.2")),
            limits=Limits() if env.get("KOZEL_SOAK_PACED", "1") == "1" else Limits.off(),
        ),
        rate_limiter=False,
    )
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    runner = await serve_webhook(
        app,
        url=f"https://soak.invalid{WEBHOOK_PATH}",
        secret=env["KOZEL_SOAK_SECRET"],
        listen="127.0.0.1",
        port=port,
        register=False,
    )
    await stop.wait()
    await stop_webhook(app, runner)
    await storage.close()


# ------------------------------------------------------------------------------ the run


@dataclass
class Counts:
    """What the simulated people saw."""

    taps: int = 0
    unanswered: int = 0
    alerts: int = 0
    restarts: int = 0
    rematches: int = 0
    delivered: int = 0
    tables_started: int = 0


@dataclass
class Run:
    """Everything a run shares."""

    emulator: Emulator
    driver: Driver
    codec: Codec
    instances: list[Instance]
    secret: str
    stop_at: float
    counts: Counts = field(default_factory=Counts)

    @property
    def over(self) -> bool:
        """Whether the run's time is up."""
        return time.monotonic() >= self.stop_at


async def _pump(run: Run, http: aiohttp.ClientSession, done: asyncio.Event) -> None:
    """Post every queued update to every instance that is up, each in a task of its own, and, as
    Telegram does, post it again until one of them answers 200 (an instance answers only once it has
    handled the update, and 503 when the other holds it)."""
    world = run.emulator.world
    headers = {SECRET_HEADER: run.secret}

    async def post(instance: Instance, update: dict[str, Any]) -> int:
        with contextlib.suppress(aiohttp.ClientError, OSError, TimeoutError):
            url = f"http://127.0.0.1:{instance.port}{WEBHOOK_PATH}"
            async with http.post(url, json=update, headers=headers) as response:
                return response.status
        return 0  # no answer: the instance was killed, or is not listening yet

    async def deliver(update: dict[str, Any]) -> None:
        while not done.is_set():
            targets = [i for i in run.instances if i.up]
            if 200 in await asyncio.gather(*(post(i, update) for i in targets)):
                return
            await asyncio.sleep(REDELIVER_AFTER)

    deliveries: set[asyncio.Task[None]] = set()
    try:
        while not done.is_set():
            updates = world.take_updates()
            if not updates:
                await world.wait_change(0.05)
                continue
            run.counts.delivered += len(updates)
            for update in updates:
                task = asyncio.create_task(deliver(update))
                deliveries.add(task)
                task.add_done_callback(deliveries.discard)
    finally:
        for task in deliveries:
            task.cancel()
        await asyncio.gather(*deliveries, return_exceptions=True)


async def _restarts(run: Run, http: aiohttp.ClientSession, every: float, rng: random.Random) -> None:
    """Every ``every`` seconds kill one instance (at random) and start it again."""
    while True:
        await asyncio.sleep(every * rng.uniform(0.5, 1.5))
        if run.over:
            return
        instance = rng.choice(run.instances)
        await instance.kill()
        await instance.start(http)
        run.counts.restarts += 1


def _buttons(message: StoredMessage) -> list[tuple[str, str]]:
    return [
        (str(b.get("text", "")), b["callback_data"])
        for row in message.buttons
        for b in row
        if b.get("callback_data")
    ]


def _decisions(codec: Codec, user: SimUser) -> tuple[StoredMessage, list[str]] | None:
    """The person's hand and its decision buttons, if the hand asks them to act."""
    hands = [m for m in user.dm.bot_messages if HAND in m.content]
    if not hands or "👉" not in hands[-1].content:
        return None
    found = []
    for label, data in _buttons(hands[-1]):
        try:
            button, what = codec.read(data)
        except BadData:
            continue
        # A decision, or a card to tick in a choice of several (the exchange's give).
        if isinstance(what, Act) or (isinstance(what, Tick) and what.card is not None):
            found.append((label, data, button.payload))
    out = [data for _, data in as_a_person_picks(found)]
    return (hands[-1], out) if out else None


async def _tap(run: Run, user: SimUser, message: StoredMessage, *, text: str | None = None,
               data: str | None = None) -> bool | None:  # fmt: skip
    """Tap and wait for the answer: True if it was an alert, False if not, None if no answer came."""
    try:
        tap = await user.tap(message, text, data=data, timeout=TAP_TIMEOUT)
    except SandboxError:
        return False  # the button is gone: the message was edited meanwhile
    except TimeoutError:
        run.counts.taps += 1
        run.counts.unanswered += 1
        return None
    run.counts.taps += 1
    if tap.show_alert:
        run.counts.alerts += 1
    return tap.show_alert


async def _wait(run: Run, probe: Any, seconds: float) -> Any:
    """``probe()`` once it is not None, or None after ``seconds`` (or when the run is over)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not run.over:
        found = probe()
        if found is not None:
            return found
        # Polled: waiting for any change in the world would wake every table on every message.
        await asyncio.sleep(0.25)
    return None


async def _extend(run: Run, storage: RedisStorage, restarts: int, deals: int, limit: float) -> None:
    """Push the run's end back, up to ``limit``, until it has ``restarts`` restarts and ``deals``
    finished deals."""
    while True:
        await asyncio.sleep(max(0.0, run.stop_at - time.monotonic() - 3.0))
        if run.over or time.monotonic() >= limit:
            return
        if run.stop_at - time.monotonic() > 3.5:
            continue
        finished = 0
        if run.counts.restarts >= restarts:
            async for table in storage.tables():
                finished, _ = _count(table, finished, 0)
        if run.counts.restarts >= restarts and finished >= deals:
            return
        run.stop_at = min(limit, run.stop_at + 3.0)


async def _open_table(run: Run, user: SimUser, group: SimGroup) -> bool:
    """/newgame, take seat 1, start with bot players; each step again if its update was lost."""
    while user.dm.last_bot_message is None and not run.over:
        await user.start()
        await _wait(run, lambda: user.dm.last_bot_message, 10)
    lobby: StoredMessage | None = None
    while not run.over:
        if lobby is None:
            await user.send(group, "/newgame")
            lobby = await _wait(run, lambda: next((m for m in group.bot_messages if m.buttons), None), 15)
            continue
        if STARTED in lobby.content:
            return True
        labels = [text for text, _ in _buttons(lobby)]
        if FILL in labels:
            label = FILL
        elif user.name not in lobby.content:
            label = SIT
        elif START in labels:
            label = START
        else:
            await asyncio.sleep(0.25)
            continue
        edits = lobby.edits
        await _tap(run, user, lobby, text=label)
        await _wait(run, lambda m=lobby, e=edits: True if m.edits != e else None, 10)
    return False


async def _table(run: Run, n: int, rng: random.Random) -> None:
    """One table: a person and three bot players, playing match after match until the run is over."""
    user = run.driver.add_user(f"Soak{n}")
    group = run.driver.add_group(f"Soak {n}", [user])
    if not await _open_table(run, user, group):
        return
    run.counts.tables_started += 1
    rematched: set[int] = set()
    while not run.over:
        lobby = next(
            (m for m in reversed(group.bot_messages) if any(t == START for t, _ in _buttons(m))), None
        )
        if lobby is not None:  # a rematch's lobby: the same seats, and she tapped 🔁, so she starts
            await _tap(run, user, lobby, text=START)
            await _wait(run, lambda m=lobby: None if any(t == START for t, _ in _buttons(m)) else True, 10)
            continue
        summary = next(
            (m for m in reversed(group.bot_messages)
             if m.message_id not in rematched and any(t == REMATCH for t, _ in _buttons(m))),
            None,
        )  # fmt: skip
        if summary is not None:
            if await _tap(run, user, summary, text=REMATCH) is not None:
                rematched.add(summary.message_id)
                run.counts.rematches += 1
            continue
        found = _decisions(run.codec, user)
        if found is None:
            await asyncio.sleep(0.3)
            continue
        message, options = found
        edits = message.edits
        alert = await _tap(run, user, message, data=rng.choice(options))
        # Wait a little for the hand to show the tap (a person does not tap again on the same
        # keyboard at once); after an alert the keyboard may be current (a card ticked too many for
        # the give), so the wait is short.
        await _wait(run, lambda m=message, e=edits: True if m.edits != e else None, 2 if alert else 5)


async def _scan(storage: RedisStorage) -> dict[str, Any]:
    """Check every stored table and every archived match; count deals."""
    finished = void = tables = 0
    violations: list[str] = []
    async for table in storage.tables():
        tables += 1
        problems = table_problems(table, deep=True)
        violations += [f"chat {table.chat_id}: {p}" for p in problems]
        finished, void = _count(table, finished, void)
    history_keys = [k async for k in storage.client.scan_iter(match=f"{storage.prefix}kozel:*:history")]
    archived = 0
    for key in history_keys:
        for raw in await storage.client.lrange(key, 0, -1):
            record = json.loads(raw)
            archived += 1
            for i, deal_record in enumerate(record.get("deals", [])):
                deal, problems = replay_checked(deal_record, every_move=True)
                violations += [f"{key} deal {i}: {p}" for p in problems]
                if deal is not None and deal.result is not None:
                    if deal.result.void:
                        void += 1
                    else:
                        finished += 1
    return {
        "tables": tables,
        "archived_matches": archived,
        "finished": finished,
        "void": void,
        "violations": violations,
    }


def _count(table: Table, finished: int, void: int) -> tuple[int, int]:
    if table.match is None:
        return finished, void
    for record in table.match.deals:
        deal, _ = replay_checked(record)
        if deal is not None and deal.result is not None and deal.result.void:
            void += 1
        else:
            finished += 1
    return finished, void


def _log_errors(paths: list[Path]) -> tuple[list[str], int, int]:
    """Lines logged at ERROR or above (and anything that is not a JSON log line), the warnings, and
    the saves the storage refused because the state broke an invariant (each is an error too)."""
    errors, warnings, refused = [], 0, 0
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text(errors="replace").splitlines():
            try:
                level = json.loads(line)["level"]
            except (ValueError, KeyError, TypeError):
                errors.append(f"{path.name}: {line}")
                continue
            if level in ("ERROR", "CRITICAL"):
                errors.append(f"{path.name}: {line}")
                refused += "InvariantViolation" in line
            elif level == "WARNING":
                warnings += 1
    return errors, warnings, refused


async def run(
    tables: int,
    seconds: float,
    *,
    instances: int = 2,
    restart_every: float = 30.0,
    seed: int = 1,
    bot_delay: float = 0.2,
    paced: bool = True,
    redis_url: str | None = None,
    workdir: Path | None = None,
    min_restarts: int = 0,
    min_deals: int = 0,
    max_seconds: float | None = None,
) -> dict[str, Any]:
    """Soak ``tables`` tables for ``seconds``; return the figures (see the module docstring).

    ``paced``: the instances pace their calls as in production (Telegram's per-chat limits);
    without, every call goes at once (quicker games, for short runs). ``min_restarts`` and
    ``min_deals``: past ``seconds`` the run goes on until it has seen that many restarts and
    finished deals (a slow or loaded machine gets there later), but not past ``max_seconds``.
    """
    workdir = workdir or Path(tempfile.mkdtemp(prefix="kozel-soak-"))
    server: EmbeddedRedis | None = None
    url = redis_url or os.environ.get("REDIS_URL")
    if not url:
        server = EmbeddedRedis(workdir / "redis")
        url = await server.start()
    prefix = f"soak-{uuid.uuid4().hex[:10]}:"
    storage = RedisStorage.from_url(url, prefix=prefix)
    secret = uuid.uuid4().hex
    rng = random.Random(seed)
    started = time.monotonic()
    try:
        async with Emulator(EmulatorConfig(rate_limits=False)) as emulator, aiohttp.ClientSession() as http:
            env = {
                **os.environ,
                "KOZEL_SOAK_TOKEN": emulator.token,
                "KOZEL_SOAK_BASE_URL": emulator.base_url,
                "KOZEL_SOAK_REDIS": url,
                "KOZEL_SOAK_PREFIX": prefix,
                "KOZEL_SOAK_SECRET": secret,
                "KOZEL_SOAK_BOT_DELAY": str(bot_delay),
                "KOZEL_SOAK_PACED": "1" if paced else "0",
                "PYTHONUNBUFFERED": "1",
            }
            bots = [Instance(i, _free_port(), workdir / f"bot-{i}.log", env) for i in range(instances)]
            driver = Driver(emulator.world, default_timeout=TAP_TIMEOUT)
            soak = Run(emulator, driver, codec_for(emulator.token), bots, secret, stop_at=float("inf"))
            done = asyncio.Event()
            pump = asyncio.create_task(_pump(soak, http, done))
            try:
                await asyncio.gather(*(b.start(http) for b in bots))
                soak.stop_at = time.monotonic() + seconds
                restarts = asyncio.create_task(
                    _restarts(soak, http, restart_every, random.Random(rng.random()))
                )
                limit = time.monotonic() + max(seconds, max_seconds or seconds)
                extend = asyncio.create_task(_extend(soak, storage, min_restarts, min_deals, limit))
                await asyncio.gather(*(_table(soak, n, random.Random(rng.random())) for n in range(tables)))
                await restarts
                await extend
                # Let what is in flight land, then stop the instances gracefully. (Not "until quiet":
                # bot players, and turn timers playing for people, keep the tables going.)
                await asyncio.sleep(2.0)
            finally:
                for b in bots:
                    await b.stop()
                done.set()
                await pump
            scan = await _scan(storage)
            errors, warnings, refused = _log_errors([b.log for b in bots])
            answered = sum(1 for c in emulator.world.calls_of("answerCallbackQuery") if c.ok)
            return {
                "tables": tables,
                "tables_started": soak.counts.tables_started,
                "seconds": round(time.monotonic() - started, 1),
                "instances": instances,
                "restarts": soak.counts.restarts,
                "deals_finished": scan["finished"],
                "void_deals": scan["void"],
                "matches_archived": scan["archived_matches"],
                "taps": soak.counts.taps,
                "taps_handled": answered,
                "taps_unanswered": soak.counts.unanswered,
                "alerts": soak.counts.alerts,
                "updates_delivered": soak.counts.delivered,
                "errors": len(errors),
                "warnings": warnings,
                "invariant_violations": len(scan["violations"]) + refused,
                "first_errors": errors[:5],
                "first_violations": scan["violations"][:5],
                "logs": str(workdir),
                "redis_prefix": prefix,
            }
    finally:
        keys = [k async for k in storage.client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await storage.client.delete(*keys)
        await storage.close()
        if server is not None:
            server.stop()


def main() -> None:
    """Parse arguments, run, print the figures (``--json``: one JSON object)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument("--restart-every", type=float, default=30.0, help="seconds between kills (mean)")
    parser.add_argument("--bot-delay", type=float, default=0.2, help="seconds a bot player waits")
    parser.add_argument("--unpaced", action="store_true", help="no per-chat pacing of Bot API calls")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve-bot", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_bot:
        asyncio.run(serve_bot(args.serve_bot))
        return
    figures = asyncio.run(
        run(
            args.tables,
            args.minutes * 60,
            instances=args.instances,
            restart_every=args.restart_every,
            seed=args.seed,
            bot_delay=args.bot_delay,
            paced=not args.unpaced,
        )
    )
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        width = max(len(k) for k in figures)
        for key, value in figures.items():
            print(f"{key:<{width}}  {value}")
    sys.exit(0 if figures["errors"] == 0 and figures["invariant_violations"] == 0 else 1)


if __name__ == "__main__":
    main()
