"""The image's health check: the heartbeat file in polling/sandbox mode."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.healthcheck import HEARTBEAT, STALE_AFTER, healthy


def test_healthcheck_reads_the_heartbeat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOT_TOKEN", raising=False)
    monkeypatch.delenv("WEBHOOK_URL", raising=False)
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    ok, why = healthy()
    assert not ok and "no heartbeat" in why
    (tmp_path / HEARTBEAT).touch()
    assert healthy()[0]
    assert not healthy(now=time.time() + STALE_AFTER + 5)[0]


def test_healthcheck_fails_on_bad_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "nonsense")
    ok, why = healthy()
    assert not ok and "REDIS_URL" in why
