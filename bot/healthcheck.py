"""``python -m bot.healthcheck``: exit 0 when the running bot is healthy (the image's HEALTHCHECK).

Webhook mode asks the bot's own ``/healthz``; polling and sandbox modes read the heartbeat file the
bot touches every few seconds in ``DATA_DIR`` (stale after :data:`STALE_AFTER` seconds).
"""

from __future__ import annotations

import sys
import time
import urllib.request
from pathlib import Path

from bot.config import ConfigError, load_config

HEARTBEAT = "heartbeat"
STALE_AFTER = 60.0


def healthy(now: float | None = None) -> tuple[bool, str]:
    """Whether the bot is healthy, and why not."""
    try:
        config = load_config()
    except ConfigError as e:
        return False, str(e)
    if config.mode == "webhook":
        url = f"http://127.0.0.1:{config.webhook_port}/healthz"
        try:
            with urllib.request.urlopen(url, timeout=3) as response:
                return response.status == 200, f"{url} answered {response.status}"
        except OSError as e:
            return False, f"{url}: {e}"
    beat = Path(config.data_dir) / HEARTBEAT
    try:
        age = (time.time() if now is None else now) - beat.stat().st_mtime
    except OSError:
        return False, f"no heartbeat at {beat}"
    return age <= STALE_AFTER, f"heartbeat {age:.0f} s old"


def main() -> int:
    """Print the verdict; exit 0 when healthy."""
    ok, why = healthy()
    print(("healthy: " if ok else "unhealthy: ") + why)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
