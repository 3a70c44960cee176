"""``python -m bot`` without BOT_TOKEN: the README's run command starts the sandbox and stops on Ctrl-C."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


async def test_python_m_bot_serves_the_sandbox_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    # No REDIS_URL: the bot starts its embedded Redis, here with its data in a temporary folder.
    env = {k: v for k, v in os.environ.items() if k not in ("BOT_TOKEN", "REDIS_URL")}
    env.update(
        SANDBOX_HOST="127.0.0.1",
        SANDBOX_PORT="0",
        PYTHONUNBUFFERED="1",
        DATA_DIR=str(tmp_path / "data"),
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert process.stdout is not None
    output: list[str] = []
    try:
        url = None
        deadline = time.monotonic() + 20
        while url is None and time.monotonic() < deadline:
            line = await asyncio.wait_for(process.stdout.readline(), timeout=20)
            if not line:
                break
            output.append(line.decode())
            found = re.search(r"http://127\.0\.0\.1:\d+/", output[-1])
            url = found.group() if found else None
        assert url, "no sandbox URL printed:\n" + "".join(output)

        async with httpx.AsyncClient(base_url=url, trust_env=False, timeout=10) as client:
            page = await client.get("/")
            assert page.status_code == 200 and "Козёл" in page.text
            state = (await client.get("/sandbox/api/state")).json()
            anya = state["players"][0]["id"]
            assert [p["name"] for p in state["players"]] == ["Аня", "Борис", "Вера", "Глеб"]
            sent = await client.post("/sandbox/api/send", json={"user": anya, "chat": anya, "text": "/start"})
            assert sent.json() == {"ok": True}
            for _ in range(50):
                state = (await client.get("/sandbox/api/state", params={"user": anya})).json()
                if len(state["dm"]["messages"]) >= 2:
                    break
                await asyncio.sleep(0.1)
            assert state["dm"]["messages"][-1]["from_bot"] is True
            assert "Привет" in state["dm"]["messages"][-1]["html"]
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGINT)
        rest, _ = await asyncio.wait_for(process.communicate(), timeout=15)
        output.append(rest.decode())
    assert process.returncode == 0, "".join(output)
    assert "Traceback" not in "".join(output), "".join(output)
    data = tmp_path / "data"
    assert (data / "appendonly.aof").exists() or (data / "appendonlydir").is_dir(), "no append-only file"
    # The health check's heartbeat is written by the running bot.
    assert (data / "heartbeat").exists(), "no heartbeat file"
    logged = [line for line in "".join(output).splitlines() if line.startswith("{")]
    assert logged and all(json.loads(line)["level"] for line in logged), "logs are JSON lines"
