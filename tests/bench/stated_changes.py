#!/usr/bin/env python3
"""Which memories a statement added by hand is said to be close to (what it may replace).

    python tests/bench/stated_changes.py

The large first-person profile of `tests/bench/data/judgement_own.json` (300+ memories) is built
as `memories add` builds it. Then each statement below is added on a fresh copy, and the script
reads which memories memchat names as what it may replace, two ways:

- asked: what `memories add` asks the person about on a terminal (and names on stderr to a script);
- model: what a chat's "remember that ..." shows the memory model, which then decides.

CHANGES each replace a memory of the profile (the words it must name); NEW_FACTS replace none.
It prints, for each way, how many changes had their memory named and how many new facts had any
memory named. Written for this check; development data only.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

CHANGES = {
    "We've just moved to Exeter": "Bristol",
    "I've left Tidewater and joined Octopus Energy as a staff engineer": "Tidewater",
    "We swapped the Niro for a Polestar 2": "Niro",
    "I sold the car; we get around by bike and train now": "Niro",
    "I now work at the Met Office": "Tidewater",
    "Home is now a cottage outside Frome": "Bristol",
    "I got a Pixel 9 to replace my iPhone": "iPhone",
    "My new work laptop is a ThinkPad X1": "MacBook",
    "We're living in Cardiff these days": "Bristol",
    "I took a job at the BBC as an SRE": "Tidewater",
    "Ines has started eating meat again": "pescatarian",
    "I've cut out coffee completely": "flat whites",
}
NEW_FACTS = [
    "I'm reading Middlemarch",
    "Biscuit loves the beach",
    "I've started learning the ukulele",
    "Our neighbour's cat visits every morning",
    "I usually take the train to London for work trips",
    "The office is in Temple Quay",
    "I get the 72 bus to the office",
    "We've got solar panels on the roof",
    "My favourite pub is the Hare on the Hill",
    "I'm trying to drink less coffee",
    "We're repainting the living room green",
    "I want to visit Japan one day",
    "My team is hiring two engineers",
    "The Niro's tyres need replacing soon",
    "I charge the car at home overnight",
]


def main() -> None:
    from memchat.app import Memchat
    from memchat.memory.capture.policy import stated_neighbours

    work = Path(tempfile.mkdtemp(prefix="memchat-stated-"))
    os.environ.setdefault("MEMCHAT_HOME", str(work))
    own = json.loads((ROOT / "tests/bench/data/judgement_own.json").read_text())
    (large,) = [p for p in own["profiles"] if p["name"] == "large"]
    base = work / "base.db"
    app = Memchat.load(provider="echo", db=str(base))
    for m in large["memories"]:
        app.memories.remember(m["text"], key=m.get("key"), kind=m.get("kind"))
    app.close()
    named: dict[str, dict[str, list[str]]] = {"asked": {}, "model": {}}
    for text in [*CHANGES, *NEW_FACTS]:
        db = work / "copy.db"
        shutil.copy(base, db)
        if base.with_name("base.db.vectors").exists():
            shutil.copytree(base.with_name("base.db.vectors"), work / "copy.db.vectors")
        app = Memchat.load(provider="echo", db=str(db))
        memory = app.memories.remember(text).memory
        named["asked"][text] = [m.text for m in app.memories.close_to(memory)]
        named["model"][text] = [m.text for m in stated_neighbours(app.store, memory, app.embedder())]
        app.close()
        db.unlink()
        shutil.rmtree(work / "copy.db.vectors", ignore_errors=True)
    print(f"{len(large['memories'])} memories; {len(CHANGES)} changes, {len(NEW_FACTS)} new facts\n")
    print("| named for | changes with their memory named | new facts with a memory named |")
    print("|---|---|---|")
    for way, label in (("asked", "the person (`memories add`)"), ("model", "the memory model (chat)")):
        found = sum(any(old in t for t in named[way][text]) for text, old in CHANGES.items())
        noisy = sum(bool(named[way][text]) for text in NEW_FACTS)
        print(f"| {label} | {found} of {len(CHANGES)} | {noisy} of {len(NEW_FACTS)} |")
    print("\nasked, case by case:")
    for text in [*CHANGES, *NEW_FACTS]:
        print(f"  {'change' if text in CHANGES else 'new   '}  {text!r} -> {named['asked'][text]}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
