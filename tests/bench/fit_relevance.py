#!/usr/bin/env python3
"""Fit the relevance model's weights (memchat.memory.recall.relevance) on the LoCoMo development set.

    python tests/bench/fit_relevance.py [--eval-dir ../shared/eval] [--c 1.0]

Each conversation is imported as in eval_locomo.py; every question (categories 1-4 and
adversarial) runs through recall's first stage and neighbour expansion, and each candidate's
features are read from the shipped code (Hit.features), so what is fitted is what runs. A
candidate is positive when it is one of the question's evidence messages. The fit is an
L2-regularised logistic regression (Newton's method, numpy only).

It prints the weights for relevance.py, with and without the cosine feature (LEXICAL, for a
search without vectors), and recall@10 / MRR (categories 1-4) of ranking by the fitted model:
in-sample, and leave-one-conversation-out (fit on one conversation, score the other), which
is the figure to trust for conversations never seen. Development data only: the team
measures on conversations this script never reads.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def fit(x, y, c: float):
    """L2-regularised logistic regression by Newton's method; returns (weights, bias)."""
    import numpy as np

    xb = np.hstack([x, np.ones((x.shape[0], 1))])
    w = np.zeros(xb.shape[1])
    reg = np.eye(xb.shape[1]) / c
    reg[-1, -1] = 0.0  # the bias is not shrunk
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(xb @ w, -60, 60)))
        grad = xb.T @ (p - y) + reg @ w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], w[-1]


def collect(eval_dir: Path):
    """[(conversation, qid, category, [(features, label)])] from the shipped first stage."""
    from eval_locomo import CachedEmbedder, build, load

    from memchat.memory.recall.embed import get_embedder
    from memchat.memory.recall.search import TUNING, recall

    embedder = CachedEmbedder(get_embedder())
    convs, questions = load(eval_dir)
    tmp = Path(tempfile.mkdtemp(prefix="memchat-fit-"))
    out = []
    for conv, rows in convs.items():
        db, _ = build(conv, rows, tmp, embedder)
        external = dict(db.conn.execute("SELECT id, external_id FROM messages"))
        for q in questions[conv]:
            evidence = set(q["evidence"])
            for lexical in (False, True):
                hits = recall(
                    db, q["question"], None if lexical else embedder, kinds=("message",), limit=10_000, tuning=TUNING
                )
                out.append(
                    (
                        conv,
                        q["qid"],
                        q["category"],
                        lexical,
                        [(h.features, int(external[h.id] in evidence)) for h in hits],
                    )
                )
    return out


def matrix(rows, features):
    import numpy as np

    x = np.array([[f.get(name, 0.0) for name in features] for f, _ in rows], dtype=float)
    y = np.array([label for _, label in rows], dtype=float)
    return x, y


def scores(questions, features, w, b):
    """recall@10 and MRR (categories 1-4) when each question's candidates are ranked by the model."""
    import numpy as np

    r10, mrr = [], []
    for _, _, category, _, rows in questions:
        if category == "adversarial":
            continue
        if not rows:
            r10.append(0.0)
            mrr.append(0.0)
            continue
        x, y = matrix(rows, features)
        order = np.argsort(-(x @ w + b), kind="stable")
        ranks = [i + 1 for i, j in enumerate(order) if y[j]]
        r10.append(float(bool(ranks) and ranks[0] <= 10))
        mrr.append(1 / ranks[0] if ranks else 0.0)
    return statistics.mean(r10), statistics.mean(mrr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eval-dir", default=str(ROOT.parent / "shared" / "eval"))
    ap.add_argument("--c", type=float, default=1.0, help="Inverse L2 strength.")
    args = ap.parse_args()
    os.environ["MEMCHAT_HOME"] = tempfile.mkdtemp(prefix="memchat-fit-")
    from memchat.memory.recall import relevance

    data = collect(Path(args.eval_dir))
    for lexical, label in ((False, "WEIGHTS (hybrid)"), (True, "LEXICAL (no vectors)")):
        features = [f for f in relevance.FEATURES if not (lexical and f == "cosine") and f != "in_period"]
        part = [d for d in data if d[3] == lexical]
        x, y = matrix([r for d in part for r in d[4]], features)
        w, b = fit(x, y, args.c)
        print(f"\n{label}: {len(y)} candidates, {int(y.sum())} positive")
        print("  " + ", ".join(f'"{f}": {v:.3f}' for f, v in zip(features, w, strict=True)) + f"; bias {b:.3f}")
        r10, mrr = scores(part, features, w, b)
        print(f"  in-sample: recall@10 {r10:.3f}, MRR {mrr:.3f}")
        for held in sorted({d[0] for d in part}):
            train = [r for d in part if d[0] != held for r in d[4]]
            wt, bt = fit(*matrix(train, features), args.c)
            r10, mrr = scores([d for d in part if d[0] == held], features, wt, bt)
            print(f"  fitted without {held}, scored on it: recall@10 {r10:.3f}, MRR {mrr:.3f}")


if __name__ == "__main__":
    main()
