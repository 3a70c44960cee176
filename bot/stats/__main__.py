"""``python -m bot.stats rebuild``: count the standings again from every chat's stored history.

Every standings key (chats' and people's) is deleted, then each chat's history is counted oldest
first, as the matches ended. ``REDIS_URL`` names the Redis (as for the bot; on a cluster the keys
are found on every master). Prints the chats and matches counted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from bot.stats.counting import archive
from bot.storage import RedisStorage
from bot.storage.redis_store import HISTORY_KEPT


async def rebuild(storage: RedisStorage) -> tuple[int, int]:
    """Delete the standings and count every stored match again; (chats, matches counted)."""
    await storage.clear_stats()
    chats = await storage.history_chats()
    matches = 0
    for chat_id in chats:
        for entry in reversed(await storage.history(chat_id, HISTORY_KEPT)):
            matches += int(await archive(storage, entry, push=False))
    return len(chats), matches


async def _run(url: str, prefix: str) -> int:
    storage = RedisStorage.from_url(url, prefix=prefix)
    try:
        chats, matches = await rebuild(storage)
    finally:
        await storage.close()
    print(f"rebuilt the standings of {chats} chats from {matches} matches")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line tool; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m bot.stats", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["rebuild"])
    parser.add_argument("--prefix", default="", help="the key prefix of a deployment (tests, the soak)")
    args = parser.parse_args(argv)
    url = os.environ.get("REDIS_URL")
    if not url:
        print("REDIS_URL is not set: name the Redis to rebuild the standings in", file=sys.stderr)
        return 2
    return asyncio.run(_run(url, args.prefix))


if __name__ == "__main__":
    sys.exit(main())
