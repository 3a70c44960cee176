"""``python -m experiments.learned.train``: fit the learned policy to self-play records.

A softmax over each decision's legal cards, scored by a weighted sum of their features
(:mod:`bot.engine.ai.features`), one weight vector per preset family, fitted by minibatch Adam on the
cross-entropy of the card each seat chose, with a small L2 penalty. Plain Python (no numpy needed:
29 weights a family); a tenth of the decks (by deck number) is held out and its log-loss and top-1
accuracy printed beside the rule player's. Deterministic for a seed.

Writes the weights (what :func:`bot.engine.ai.policy.policy_from` reads) and, beside them, a
``.meta.json`` with the command, seed, data size and the held-out figures.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import sys
import time
from collections import defaultdict
from typing import Any

from bot.engine.ai.features import FAMILIES, FAMILY_NAMES, N_FEATURES
from bot.engine.ai.policy import Policy

Sample = tuple[list[list[float]], int]


def load(paths: list[str]) -> tuple[dict[str, list[Sample]], dict[str, list[Sample]], int]:
    """Per family: the training and held-out decisions (features per card, index chosen); records read."""
    train: dict[str, list[Sample]] = defaultdict(list)
    held: dict[str, list[Sample]] = defaultdict(list)
    n = 0
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                fam = FAMILIES[r["preset"]]
                (held if r["deck"] % 10 == 9 else train)[fam].append((r["x"], r["y"]))
                n += 1
    return train, held, n


def loss_acc(w: list[float], data: list[Sample]) -> tuple[float, float]:
    """Mean cross-entropy and top-1 accuracy of weights ``w`` on ``data``."""
    if not data:
        return 0.0, 0.0
    total, hit = 0.0, 0
    for xs, y in data:
        sc = [sum(a * b for a, b in zip(w, x, strict=True)) for x in xs]
        top = max(sc)
        z = sum(math.exp(v - top) for v in sc)
        total += -(sc[y] - top - math.log(z))
        hit += sc[y] == top
    return total / len(data), hit / len(data)


def fit(data: list[Sample], seed: int, epochs: int, lr: float, l2: float, batch: int = 64) -> list[float]:
    """Adam on the softmax cross-entropy (mean over a batch) plus ``l2`` times the squared weights."""
    rng = random.Random(seed)
    w = [0.0] * N_FEATURES
    m = [0.0] * N_FEATURES
    v = [0.0] * N_FEATURES
    b1, b2, eps = 0.9, 0.999, 1e-8
    t = 0
    order = list(range(len(data)))
    for _ in range(epochs):
        rng.shuffle(order)
        for start in range(0, len(order), batch):
            g = [l2 * 2 * x for x in w]
            idx = order[start : start + batch]
            k = 1.0 / len(idx)
            for i in idx:
                xs, y = data[i]
                sc = [sum(a * b for a, b in zip(w, x, strict=True)) for x in xs]
                top = max(sc)
                ex = [math.exp(s - top) for s in sc]
                z = sum(ex)
                for j, x in enumerate(xs):
                    c = (ex[j] / z - (1.0 if j == y else 0.0)) * k
                    if c:
                        for f, xf in enumerate(x):
                            if xf:
                                g[f] += c * xf
            t += 1
            for f in range(N_FEATURES):
                m[f] = b1 * m[f] + (1 - b1) * g[f]
                v[f] = b2 * v[f] + (1 - b2) * g[f] * g[f]
                mh = m[f] / (1 - b1**t)
                vh = v[f] / (1 - b2**t)
                w[f] -= lr * mh / (math.sqrt(vh) + eps)
    return w


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    ap = argparse.ArgumentParser(
        prog="python -m experiments.learned.train", description=__doc__.splitlines()[0]
    )
    ap.add_argument("data", nargs="+", help="self-play record files (python -m experiments.learned.selfplay)")
    ap.add_argument("--out", default="bot/engine/ai/weights/policy.json")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--l2", type=float, default=1e-4)
    args = ap.parse_args(argv)
    t0 = time.process_time()
    train, held, n = load(args.data)
    weights: dict[str, tuple[float, ...]] = {}
    report: dict[str, Any] = {}
    for fam in FAMILY_NAMES:
        w = fit(train[fam], args.seed, args.epochs, args.lr, args.l2)
        weights[fam] = tuple(round(x, 5) for x in w)
        loss, acc = loss_acc(list(weights[fam]), held[fam])
        uniform = sum(math.log(len(xs)) for xs, _ in held[fam]) / max(1, len(held[fam]))
        report[fam] = {
            "train": len(train[fam]),
            "held_out": len(held[fam]),
            "held_out_logloss": round(loss, 4),
            "held_out_uniform_logloss": round(uniform, 4),
            "held_out_top1": round(acc, 4),
        }
        print(fam, report[fam], file=sys.stderr, flush=True)
    policy = Policy(weights)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(policy.to_json(), f, indent=1)
        f.write("\n")
    meta = {
        "command": "python -m experiments.learned.train "
        + " ".join(argv if argv is not None else sys.argv[1:]),
        "seed": args.seed,
        "records": n,
        "data": args.data,
        "cpu_seconds": round(time.process_time() - t0, 1),
        "families": report,
    }
    with open(args.out.removesuffix(".json") + ".meta.json", "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
