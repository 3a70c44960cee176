"""``python -m bot.measure.bench``: the options (see :mod:`bot.measure.bench`)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from bot.measure import bench
from bot.measure.bench.botside import serve_bot
from bot.measure.bench.figures import cpu_shares
from bot.measure.bench.miniapp import Pages
from bot.measure.bench.players import PRESETS, Seating
from bot.measure.bench.run import Thinking, run


def main() -> None:
    """Parse arguments, run, print the figures."""
    parser = argparse.ArgumentParser(description=bench.__doc__.splitlines()[0] if bench.__doc__ else None)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--deals", type=int, default=1, help="deals to play at each table")
    parser.add_argument("--preset", choices=["default", *PRESETS], default="flip")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", metavar="FILE", help="write the bot process's cProfile statistics here")
    parser.add_argument("--bots", type=int, choices=range(4), default=0, help="bot players per table")
    parser.add_argument("--level", default="hard", help="the bot players' level")
    parser.add_argument("--thinking", choices=["processes", "threads", "redis"], default="processes")
    parser.add_argument("--workers", type=int, default=0, help="thinking processes (0: one per CPU)")
    parser.add_argument("--miniapp", action="store_true", help="the people play on the live table's pages")
    parser.add_argument(
        "--watchers", type=int, default=0, help="with --miniapp: more pages a table, watching"
    )
    parser.add_argument(
        "--pace", type=float, default=0.0, help="seconds a person thinks before a tap (0: none)"
    )
    hidden = ("BASE_URL", "FILE_URL", "REDIS", "PREFIX", "STATS", "PROFILE", "THINK", "N", "WEBAPP_PORT")
    parser.add_argument("--serve-bot", nargs=9, help=argparse.SUPPRESS, metavar=hidden)
    args = parser.parse_args()
    if args.serve_bot:
        asyncio.run(serve_bot(*args.serve_bot))
        return
    profile = str(Path(args.profile).resolve()) if args.profile else None
    seating, thinking = Seating(args.bots, args.level), Thinking(args.thinking, args.workers)
    pages = Pages(args.watchers) if args.miniapp else None
    figures = asyncio.run(
        run(args.tables, args.deals, args.preset, args.seed, profile, seating, thinking, pages, args.pace)
    )
    if profile:
        # Where the bot process's CPU went (cProfile's own cost inflates code that makes many calls).
        figures.update({f"cpu_share_{k}": v for k, v in cpu_shares(profile).items()})
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
