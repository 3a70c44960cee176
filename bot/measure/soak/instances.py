"""The soak's processes: bot instances (each in webhook mode) and thinking workers (``python -m
bot.worker``'s loop), each a process of its own, killed and started again."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from bot.app import build_application
from bot.logs import setup_logging
from bot.storage import RedisStorage
from bot.table.core import Limits
from bot.tg.services import Settings
from bot.thinking.job import NICE
from bot.webhook import serve_webhook, stop_webhook
from bot.worker import Worker

WEBHOOK_PATH = "/soak"


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
                sys.executable, "-m", "bot.measure.soak", "--serve-bot", str(self.port),
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


@dataclass
class WorkerProcess:
    """One thinking worker process (``--serve-worker``); its log lines go to ``log``. ``name`` is its
    consumer's name in the jobs' group (the soak's own, so a takeover can be told from its log)."""

    index: int
    log: Path
    env: dict[str, str]
    process: asyncio.subprocess.Process | None = None
    started: int = 0

    @property
    def name(self) -> str:
        """This start's consumer name: ``soak-w<index>.<start>``."""
        return f"soak-w{self.index}.{self.started}"

    async def start(self) -> None:
        """Start the process (it waits for Redis and the jobs' group itself)."""
        self.started += 1
        with self.log.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.measure.soak", "--serve-worker", self.name,
                env=self.env, stdout=log, stderr=log,
            )  # fmt: skip

    async def kill(self) -> None:
        """SIGKILL: a job in hand stays pending in the group, for another worker to take over."""
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()

    async def stop(self) -> None:
        """SIGTERM (the worker ends after the decision in hand), then wait (SIGKILL after 10 s)."""
        if self.process is None or self.process.returncode is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), 10)
        except TimeoutError:
            await self.kill()


def free_port() -> int:
    """A loopback port free now."""
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
            # "redis": the bot players' decisions are the worker processes' jobs (--workers).
            thinking=env.get("KOZEL_SOAK_THINKING", "threads"),
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


async def serve_worker(name: str) -> None:
    """The worker side: one thinking worker (:class:`bot.worker.Worker`) named ``name`` until SIGTERM
    (settings from ``KOZEL_SOAK_*``), logging JSON lines at INFO (a job taken over is one)."""
    env = os.environ
    with contextlib.suppress(OSError):
        os.nice(NICE)  # as python -m bot.worker: the instances' taps come first
    setup_logging("INFO", "json")
    url, prefix = env["KOZEL_SOAK_REDIS"], env["KOZEL_SOAK_PREFIX"]
    storage = RedisStorage.from_url(url, prefix=prefix, max_connections=4)
    worker = Worker(storage.client, prefix=storage.prefix, name=name)
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, worker.stopping.set)
    try:
        await worker.run()
    finally:
        await storage.close()
