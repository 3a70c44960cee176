"""Configuration from the environment (pydantic-settings), refused with a clear message when wrong.

Every setting is an environment variable of the same name in upper case (``BOT_TOKEN``,
``REDIS_URL``, ...); README.md's "Running in production" lists them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.storage.cluster import cluster_seeds, is_cluster_url

_TOKEN = re.compile(r"^\d{5,}:[A-Za-z0-9_-]{30,}$")
#: Telegram accepts 1-256 characters A-Z, a-z, 0-9, _ and - as a webhook secret token.
_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


class ConfigError(ValueError):
    """A missing or malformed setting; the message names the variable and what is wrong."""


class Config(BaseSettings):
    """The bot's settings."""

    model_config = SettingsConfigDict(case_sensitive=False, extra="ignore")

    bot_token: SecretStr | None = Field(None, description="the token from @BotFather; unset: local sandbox")
    redis_url: str | None = Field(
        None,
        description="redis://host:port/db, or redis+cluster://host1:port1,host2:port2,... (seed nodes "
        "of a Redis Cluster); unset: an embedded Redis",
    )
    bot_api_base_url: str | None = Field(
        None, description="a self-hosted Bot API server or an emulator, e.g. http://localhost:8081/bot"
    )
    webhook_url: str | None = Field(None, description="public HTTPS URL Telegram posts updates to")
    webhook_secret: SecretStr | None = Field(None, description="secret token Telegram sends with updates")
    webhook_listen: str = Field("0.0.0.0", description="address the webhook server binds")
    webhook_port: int = Field(8443, ge=1, le=65535, description="port the webhook server binds")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log_format: Literal["json", "text"] = "json"
    default_language: Literal["ru", "en"] = "ru"
    data_dir: Path = Field(Path("data"), description="embedded Redis data and the health heartbeat")
    bot_delay: float = Field(1.0, ge=0, le=10, description="seconds a bot player waits before a card")
    bot_thinking: Literal["processes", "threads", "redis"] = Field(
        "processes",
        description="where bot players think: processes of this instance, its threads, "
        "or `python -m bot.worker` processes taking jobs from Redis",
    )
    bot_workers: int = Field(
        0, ge=0, le=256, description="thinking processes of this instance; 0: one per CPU"
    )
    update_lease: float = Field(
        30.0, ge=1, le=3600, description="seconds an update is held by the process handling it"
    )
    webapp_url: str | None = Field(
        None, description="the live table's public https URL (its page is served by the bot); unset: off"
    )
    webapp_name: str | None = Field(
        None, description="the Mini App's short name from BotFather's /newapp; unset: the main Mini App"
    )
    webapp_port: int = Field(
        8090, ge=1, le=65535, description="port of the live table's server in polling mode"
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, v: object) -> object:
        return v.upper() if isinstance(v, str) else v

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, v: SecretStr | None) -> SecretStr | None:
        token = v.get_secret_value().strip() if v is not None else ""
        if not token:
            return None  # an empty BOT_TOKEN means the sandbox, like an unset one
        if not _TOKEN.match(token):
            raise ValueError("does not look like a bot token (digits, a colon, then 30+ letters/digits)")
        return SecretStr(token)

    @field_validator("redis_url")
    @classmethod
    def _redis_scheme(cls, v: str | None) -> str | None:
        schemes = ("redis://", "rediss://", "unix://", "redis+cluster://", "rediss+cluster://")
        if v and not v.startswith(schemes):
            raise ValueError(
                "must start with redis://, rediss:// or unix:// (one Redis), or redis+cluster:// "
                "or rediss+cluster:// (seed nodes of a Redis Cluster: host1:port1,host2:port2,...)"
            )
        if v and is_cluster_url(v):
            cluster_seeds(v)  # its ValueError says which seed is malformed
        return v or None

    @field_validator("bot_api_base_url", "webhook_url")
    @classmethod
    def _http(cls, v: str | None) -> str | None:
        if v and not re.match(r"^https?://[^\s/]+", v):
            raise ValueError("must be an http:// or https:// URL")
        return v or None

    @field_validator("webapp_url")
    @classmethod
    def _webapp_https(cls, v: str | None) -> str | None:
        if not v:
            return None
        if not re.match(r"^https://[^\s/?#]+(/[^\s?#]*)?$", v):
            raise ValueError("must be an https:// URL without a query (Telegram opens Mini Apps over HTTPS)")
        return v if v.endswith("/") else v + "/"

    @field_validator("webapp_name")
    @classmethod
    def _webapp_name(cls, v: str | None) -> str | None:
        if v and not re.fullmatch(r"[A-Za-z0-9_]{3,64}", v):
            raise ValueError("must be the Mini App's short name: 3-64 letters, digits or _")
        return v or None

    @field_validator("webhook_secret")
    @classmethod
    def _secret_shape(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and not _SECRET.match(v.get_secret_value()):
            raise ValueError("must be 1-256 characters of A-Z, a-z, 0-9, _ and -")
        return v

    @model_validator(mode="after")
    def _webhook_needs(self) -> Config:
        if self.webhook_url is not None:
            if self.bot_token is None:
                raise ValueError("WEBHOOK_URL needs BOT_TOKEN")
            if self.webhook_secret is None:
                raise ValueError("WEBHOOK_URL needs WEBHOOK_SECRET, so forged updates are refused")
            if not self.webhook_url.startswith("https://"):
                raise ValueError("WEBHOOK_URL must be https:// (Telegram posts only to HTTPS)")
        return self

    @property
    def mode(self) -> Literal["sandbox", "polling", "webhook"]:
        """How the bot gets its updates."""
        if self.bot_token is None:
            return "sandbox"
        return "webhook" if self.webhook_url else "polling"


def load_config(**overrides: object) -> Config:
    """The configuration from the environment (``overrides`` win); raises :class:`ConfigError`."""
    try:
        return Config(**overrides)  # type: ignore[arg-type]
    except ValidationError as e:
        problems = []
        for err in e.errors():
            name = "_".join(str(p) for p in err["loc"]).upper() or "configuration"
            msg = str(err["msg"]).removeprefix("Value error, ")
            problems.append(f"{name}: {msg}" if err["loc"] else msg)
        raise ConfigError("bad configuration: " + "; ".join(problems)) from None
