"""``python -m bot.engine.replay FILE``: print the result of a deal or match record (RULES.md §7).

Exit status: 0 with the result JSON on stdout; 1 when the record is refused (the reason, with the
move's index, on stderr); 2 when the file cannot be read as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys

from bot.engine.errors import RecordError
from bot.engine.record import dumps, result_of


def main(argv: list[str] | None = None) -> int:
    """Run the command line tool; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m bot.engine.replay", description=__doc__.splitlines()[0])
    parser.add_argument("file", help="a deal or match record (JSON); '-' reads standard input")
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            data = json.load(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as f:
                data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        print(f"cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    try:
        result = result_of(data)
    except RecordError as e:
        print(f"refused: {e}", file=sys.stderr)
        return 1
    print(dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
