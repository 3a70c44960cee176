"""``python -m experiments.learned.table [DIR]``: the ``learned`` level's arena runs as docs/bots.md's table
(and any other runs in DIR, without the targets, which are ``learned``'s).

Reads every ``A_B_PRESET_seedS.json`` in DIR (default ``experiments/arena/results/learned``): the
arena's ``--json`` summary, or its ``--progress`` file where a run was stopped at its time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TARGET = {"hard": 0.15, "medium": 0.25}


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else "experiments/arena/results/learned")
    print("| A − B | preset | seed | pairs | margin per deal (95% CI) | target | A's time p95 / max |")
    print("|---|---|---|---|---|---|---|")
    for path in sorted(root.glob("*_seed*.json")):
        d = json.loads(path.read_text(encoding="utf-8"))
        lo, hi = d["ci95"]
        target = TARGET.get(d["b"]) if d["a"] == "learned" else None  # the targets are learned's
        if target is not None and d["b"] == "hard" and d["preset"] == "classic":
            met = "not worse: " + (
                "better" if lo > 0 else "not shown worse (CI holds 0)" if hi > 0 else "worse"
            )
        elif target is None:
            met = "—"
        else:
            met = f"+{target}: {'met' if d['margin_per_deal'] >= target and lo > 0 else 'not met'}"
        t = d["time_ms_a"]
        print(
            f"| {d['a']} − {d['b']} | {d['preset']} | {d['seed']} | {d['paired_deals']} | "
            f"{d['margin_per_deal']:+.3f} ({lo:.3f}, {hi:.3f}) | {met} | {t['p95']:.0f} / {t['max']:.0f} ms |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
