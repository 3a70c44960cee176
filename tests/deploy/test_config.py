"""Configuration from the environment: defaults, modes and a clear error for each bad value."""

from __future__ import annotations

from pathlib import Path

import pytest
from redis.asyncio.cluster import RedisCluster

from bot.__main__ import forget_sandbox_store
from bot.__main__ import main as bot_main
from bot.config import ConfigError, load_config
from bot.storage import RedisStorage
from bot.worker import main as worker_main

TOKEN = "123456789:" + "A" * 35


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "BOT_TOKEN",
        "REDIS_URL",
        "BOT_API_BASE_URL",
        "WEBHOOK_URL",
        "WEBHOOK_SECRET",
        "LOG_LEVEL",
        "DEFAULT_LANGUAGE",
        "DATA_DIR",
        "BOT_DELAY",
        "WEBHOOK_PORT",
    ):
        monkeypatch.delenv(name, raising=False)


def test_config_defaults_run_the_sandbox() -> None:
    config = load_config()
    assert config.mode == "sandbox" and config.redis_url is None and config.default_language == "ru"


def test_config_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("REDIS_URL", "redis://redis:6379/0")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    config = load_config()
    assert config.mode == "polling" and config.log_level == "DEBUG"
    assert config.bot_token is not None and config.bot_token.get_secret_value() == TOKEN
    assert TOKEN not in repr(config), "the token must not leak into logs"
    monkeypatch.setenv("WEBHOOK_URL", "https://kozel.example.org/tg")
    monkeypatch.setenv("WEBHOOK_SECRET", "s3cret_token-1")
    assert load_config().mode == "webhook"


@pytest.mark.parametrize(
    ("url", "seeds"),
    [
        ("redis+cluster://10.0.0.5:6379", [("10.0.0.5", 6379)]),
        ("rediss+cluster://node.example.org:6380", [("node.example.org", 6380)]),
        (
            "redis+cluster://10.0.0.5:7000,10.0.0.6:7001,[fd00::7]:7002",
            [("10.0.0.5", 7000), ("10.0.0.6", 7001), ("fd00::7", 7002)],
        ),
        ("redis+cluster://user:pw@a.example,b.example:7000/0", [("a.example", 6379), ("b.example", 7000)]),
    ],
)
async def test_a_cluster_url_picks_redis_cluster_with_every_seed_node(
    monkeypatch: pytest.MonkeyPatch, url: str, seeds: list[tuple[str, int]]
) -> None:
    monkeypatch.setenv("REDIS_URL", url)
    assert load_config().redis_url == url
    store = RedisStorage.from_url(url)  # connects at its first command: nothing is reached here
    assert isinstance(store.client, RedisCluster) and store.cluster and store.timer_buckets > 1
    startup = store.client.nodes_manager.startup_nodes.values()
    assert [(n.host, n.port) for n in startup] == seeds
    if "pw@" in url:
        assert {n.connection_kwargs.get("password") for n in startup} == {"pw"}
    plain = RedisStorage.from_url("redis://10.0.0.5:6379/0")
    assert not plain.cluster and plain.timer_buckets == 1 and plain.timers_key() == "kozel:timers"
    await store.close()
    await plain.close()


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"BOT_TOKEN": "12345"}, "BOT_TOKEN: does not look like a bot token"),
        ({"REDIS_URL": "localhost:6379"}, "REDIS_URL: must start with redis://"),
        ({"REDIS_URL": "redis+cluster://"}, "REDIS_URL: names no seed node"),
        ({"REDIS_URL": "redis+cluster://a:7000,,b:7000"}, "REDIS_URL: an empty seed"),
        ({"REDIS_URL": "redis+cluster://a:7000,b:70000"}, "REDIS_URL: seed 'b:70000': the port must be"),
        ({"REDIS_URL": "redis+cluster://a:7000;b:7000"}, "REDIS_URL: seed 'a:7000;b:7000' is not host:port"),
        ({"REDIS_URL": "redis+cluster://a:7000,b:7000/2"}, "REDIS_URL: a cluster has database 0 only"),
        ({"BOT_API_BASE_URL": "ftp://x"}, "BOT_API_BASE_URL: must be an http"),
        ({"LOG_LEVEL": "loud"}, "LOG_LEVEL"),
        ({"DEFAULT_LANGUAGE": "de"}, "DEFAULT_LANGUAGE"),
        ({"WEBHOOK_PORT": "http"}, "WEBHOOK_PORT"),
        ({"BOT_DELAY": "-1"}, "BOT_DELAY"),
        ({"WEBHOOK_URL": "https://x.org/tg"}, "WEBHOOK_URL needs BOT_TOKEN"),
        ({"BOT_TOKEN": TOKEN, "WEBHOOK_URL": "https://x.org/tg"}, "needs WEBHOOK_SECRET"),
        ({"BOT_TOKEN": TOKEN, "WEBHOOK_URL": "http://x.org/tg", "WEBHOOK_SECRET": "abc"}, "must be https://"),
        (
            {"BOT_TOKEN": TOKEN, "WEBHOOK_URL": "https://x.org", "WEBHOOK_SECRET": "no spaces"},
            "WEBHOOK_SECRET",
        ),
    ],
)
def test_config_refuses_a_bad_value_by_name(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        load_config()


def test_a_malformed_cluster_url_stops_the_bot_and_a_worker_with_status_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = "redis+cluster://10.0.0.5:7000,10.0.0.6"  # the second seed's port forgotten: 6379, fine
    monkeypatch.setenv("REDIS_URL", bad + ",:7002")
    assert bot_main() == 2
    assert "REDIS_URL: seed ':7002' is not host:port" in capsys.readouterr().err
    assert worker_main(["--redis-url", bad + "/1"]) == 2
    assert "REDIS_URL: a cluster has database 0 only" in capsys.readouterr().err


def test_sandbox_starts_with_an_empty_store(tmp_path: Path) -> None:
    (tmp_path / "appendonly.aof").write_text("*1\r\n$8\r\nFLUSHALL\r\n")
    (tmp_path / "appendonlydir").mkdir()
    (tmp_path / "appendonlydir" / "x.aof").write_text("")
    (tmp_path / "heartbeat").touch()
    forget_sandbox_store(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["heartbeat"]
