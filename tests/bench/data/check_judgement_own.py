#!/usr/bin/env python3
"""Sanity check for judgement_own.json (own-assistant judgement set).

    python tests/bench/data/check_judgement_own.py [--quiet]

Asserts the counts the set promises, that every index is in range, that no 'need' points at a
superseded memory, and that every superseded_by points to a later memory with the same key.
Prints per-profile counts and, for each need case, the content words (4+ letters, stopwords
removed, light suffix folding) shared by the prompt and the needed memories.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

PATH = Path(__file__).with_name("judgement_own.json")

STOP = set(
    """
    about above after again against also always among another anything around away back been before being
    below between both came come could does doing done down during each else even every from further have
    having here hers herself himself into itself just like made make many more most much must myself never
    next once only other ours ourselves over same should some such than that their theirs them themselves
    then there these they this those through under until upon very want were what when where which while
    will with would your yours yourself yourselves actually really still these days
    """.split()
)


def fold(word: str) -> str:
    w = word.lower()
    for suf in ("ies", "es", "s", "ing", "ed"):
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            w = w[: -len(suf)] + ("y" if suf == "ies" else "")
            break
    return w


def content_words(text: str) -> set[str]:
    out = set()
    for tok in re.findall(r"[A-Za-z\u00C0-\u024F]+", text):  # apostrophes split: we're -> we, re
        if len(tok) < 4 or tok.lower() in STOP:
            continue
        f = fold(tok)
        if len(f) >= 3 and f not in STOP:
            out.add(f)
    return out


def near(a: set[str], b: set[str]) -> set[str]:
    """Pairs sharing a 5-letter prefix but not equal (e.g. promoted/promotion): a softer lexical hook."""
    return {f"{x}~{y}" for x in a for y in b if x != y and len(x) >= 5 and len(y) >= 5 and x[:5] == y[:5]}


MIN = {
    "large": dict(
        memories=320,
        sensitive=25,
        need=60,
        zero=60,
        direct=8,
        need_sensitive=6,
        forbid_sensitive=15,
        forbid_any=15,
        cases=90,
        sessions=(6, 10),
        messages=(30, 60),
    ),
    "fresh": dict(
        memories=30,
        max_memories=50,
        sensitive=2,
        need=15,
        zero=0,
        direct=0,
        need_sensitive=1,
        forbid_sensitive=2,
        forbid_any=2,
        cases=20,
        sessions=(0, 0),
        messages=(0, 0),
    ),
    "small": dict(
        memories=25,
        max_memories=40,
        sensitive=1,
        need=20,
        zero=0,
        direct=0,
        need_sensitive=0,
        forbid_sensitive=3,
        forbid_any=3,
        cases=30,
        max_cases=30,
        sessions=(0, 0),
        messages=(0, 0),
    ),
}


def check_profile(p: dict, quiet: bool) -> dict:
    name, mems, hist, cases = p["name"], p["memories"], p["history"], p["cases"]
    lim = MIN[name]
    n = len(mems)
    for i, m in enumerate(mems):
        assert set(m) <= {"text", "key", "sensitive", "superseded_by"}, (name, i, m)
        assert isinstance(m["text"], str) and m["text"].strip(), (name, i)
        if "superseded_by" in m:
            j = m["superseded_by"]
            assert isinstance(j, int) and i < j < n, f"{name} memory {i}: superseded_by {j} not a later index"
            assert "key" in m and mems[j].get("key") == m["key"], f"{name} memory {i}: key differs from {j}"
            assert "superseded_by" not in mems[j], f"{name} memory {j} is itself superseded"
    texts = [m["text"].lower() for m in mems]
    assert len(set(texts)) == len(texts), f"{name}: duplicate memory text"
    superseded = {i for i, m in enumerate(mems) if "superseded_by" in m}
    sensitive = {i for i, m in enumerate(mems) if m.get("sensitive")}

    for h in hist:
        assert set(h) == {"session", "role", "content", "timestamp"}, h
        assert h["role"] in ("user", "assistant") and h["timestamp"].startswith("2026-"), h
    sessions = {h["session"] for h in hist}

    prompts = [c["prompt"] for c in cases]
    assert len(set(prompts)) == len(prompts), f"{name}: duplicate prompt"
    stats = dict(need=0, zero=0, near_zero=0, direct=0, need_sensitive=0, forbid_sensitive=0, forbid_any=0)
    lines = []
    for k, c in enumerate(cases):
        if "need" in c:
            assert "forbid" not in c, c
            need = c["need"]
            assert 1 <= len(need) <= 4 and len(set(need)) == len(need), c
            for i in need:
                assert isinstance(i, int) and 0 <= i < n, f"{name} case {k}: index {i} out of range"
                assert i not in superseded, f"{name} case {k}: needs superseded memory {i}"
            stats["need"] += 1
            pw = content_words(c["prompt"])
            mw = set().union(*(content_words(mems[i]["text"]) for i in need))
            shared, soft = pw & mw, near(pw, mw)
            if not shared:
                stats["zero"] += 1
                if not soft:
                    stats["near_zero"] += 1
            else:
                stats["direct"] += 1
            if any(i in sensitive for i in need):
                stats["need_sensitive"] += 1
            tag = "ZERO" if not shared else "SHARE"
            lines.append(
                f"  [{k:3}] {tag:5} overlap={sorted(shared)}{' near=' + str(sorted(soft)) if soft else ''}"
                f"{' S' if any(i in sensitive for i in need) else ''} | {c['prompt']}  -> {need}"
            )
        else:
            assert c.get("forbid") in ("sensitive", "any") and set(c) == {"prompt", "forbid"}, c
            stats["forbid_" + c["forbid"]] += 1

    counts = dict(
        memories=n,
        sensitive=len(sensitive),
        superseded=len(superseded),
        sessions=len(sessions),
        messages=len(hist),
        cases=len(cases),
        **stats,
    )
    print(f"profile {name}: " + ", ".join(f"{k}={v}" for k, v in counts.items()))
    if not quiet:
        print("\n".join(lines))

    assert n >= lim["memories"] and n <= lim.get("max_memories", 10**9), (name, "memories", n)
    assert len(sensitive) >= lim["sensitive"], (name, "sensitive", len(sensitive))
    assert len(cases) >= lim["cases"] and len(cases) <= lim.get("max_cases", 10**9), (name, "cases", len(cases))
    for key in ("need", "zero", "direct", "need_sensitive", "forbid_sensitive", "forbid_any"):
        assert stats[key] >= lim[key], (name, key, stats[key], lim[key])
    lo, hi = lim["sessions"]
    assert lo <= len(sessions) <= hi, (name, "sessions", len(sessions))
    lo, hi = lim["messages"]
    assert lo <= len(hist) <= hi, (name, "messages", len(hist))
    return counts


def main() -> None:
    quiet = "--quiet" in sys.argv
    doc = json.loads(PATH.read_text(encoding="utf-8"))
    assert set(doc) == {"about", "now", "profiles"}, set(doc)
    names = [p["name"] for p in doc["profiles"]]
    assert names == ["large", "small", "fresh"], names
    for p in doc["profiles"]:
        assert set(p) == {"name", "memories", "history", "cases"}, set(p)
        check_profile(p, quiet)
    print("OK")


if __name__ == "__main__":
    main()
