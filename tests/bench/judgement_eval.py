#!/usr/bin/env python3
"""Judgement on first-person use: does each prompt get the memories it needs, and nothing it must not?

    python tests/bench/judgement_eval.py [--eval-dir ../shared/eval] [--cases] [--only NAME]

Sets: `judgement_dev.json` (../shared/eval, when present), the profiles of
`tests/bench/data/judgement_own.json` (written for this project), and the eight people of
`tests/bench/data/judgement_helper.json` (written by helper sessions that saw neither memchat's
code nor the other sets; one row for the eight, `--only helper-b3` for one). Each profile is built as a
user would build it: every memory stored through `memories add`'s code (`app.memories.remember`,
with its key; a later value of a key supersedes the earlier), its history as past sessions.
Then every prompt is asked on a fresh copy of the profile through `ask`'s code path
(`app.chat.send`, offline echo provider) and the memory section that call was sent
(`ask --explain --json`'s items) is read back. Each set runs with and without its history,
on its own clock when it says when it was written ("now": memchat's clock is set there).

Per set it prints:
- need sent: the share of needed memories (over all "need" cases) that reached the section,
  in any part of it (profile, facts, events);
- leaks: "sensitive" cases that were sent a sensitive memory, and "any" cases that were sent
  any retrieved item (profile, pins and rules aside; a sensitive memory never);
- junk/call: retrieved items (facts, events, snippets; not the profile) that the case does
  not need, per call;
- median and largest section tokens, and the largest profile block.
Development data only: acceptance is measured on held-out sets of the same kind.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import md_tables  # tests/bench/md_tables.py, beside this script

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
OWN = Path(__file__).parent / "data" / "judgement_own.json"
HELPER = Path(__file__).parent / "data" / "judgement_helper.json"
HELPER_ROW = "helper, 8 people (no history)"
RETRIEVED = ("facts", "plans", "history")  # the parts of the section a search filled (not pins, rules, profile)


@dataclass
class Profile:
    name: str
    memories: list[dict]
    history: list[dict]
    cases: list[dict]
    now: str | None = None  # the moment the set was written for ("next month", a plan still to come)


@contextlib.contextmanager
def clock(now: str | None):
    """memchat's clock at the set's `now` (the timestamps it stores, memchat.db.utcnow, and the age
    search ranks by), a millisecond further at each reading (so what is stored later is later): a
    set's dated plans and "next month" mean what they meant when it was written, whatever day the
    bench runs. None: the real clock."""
    if now is None:
        yield
        return
    from datetime import datetime, timedelta

    import memchat.db
    import memchat.memory.recall.rank

    start = datetime.fromisoformat(now.replace("Z", "+00:00"))
    ticks = iter(range(10**9))

    class Frozen(datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[override]
            return (start + timedelta(milliseconds=next(ticks))).astimezone(tz)

    modules = (memchat.db, memchat.memory.recall.rank)
    real = [m.datetime for m in modules]
    for m in modules:
        m.datetime = Frozen  # type: ignore[misc]
    try:
        yield
    finally:
        for m, was in zip(modules, real, strict=True):
            m.datetime = was  # type: ignore[misc]


@dataclass
class Outcome:
    needed: int = 0
    needed_sent: int = 0
    sensitive_cases: int = 0
    sensitive_leaks: int = 0
    any_cases: int = 0
    any_leaks: int = 0
    junk: int = 0
    calls: int = 0
    tokens: list[int] = field(default_factory=list)
    profile_tokens: list[int] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)
    junk_by: dict[str, int] = field(default_factory=dict)  # unneeded items by why they were sent


def load_sets(eval_dir: Path) -> list[Profile]:
    sets = []
    dev = eval_dir / "judgement_dev.json"
    if dev.exists():
        data = json.loads(dev.read_text())
        sets.append(Profile("dev", data["memories"], data["history"], data["cases"]))
    own = json.loads(OWN.read_text())
    for p in own["profiles"]:
        sets.append(Profile(f"own-{p['name']}", p["memories"], p["history"], p["cases"], own.get("now")))
    helper = json.loads(HELPER.read_text())
    for p in helper["profiles"]:
        sets.append(Profile(f"helper-{p['name']}", p["memories"], p["history"], p["cases"], helper.get("now")))
    return sets


def combined(outcomes: list[Outcome]) -> Outcome:
    """Several people's outcomes as one set's."""
    total = Outcome()
    for o in outcomes:
        for name in (
            "needed",
            "needed_sent",
            "sensitive_cases",
            "sensitive_leaks",
            "any_cases",
            "any_leaks",
            "junk",
            "calls",
        ):
            setattr(total, name, getattr(total, name) + getattr(o, name))
        total.tokens += o.tokens
        total.profile_tokens += o.profile_tokens
        total.misses += o.misses
        for why, n in o.junk_by.items():
            total.junk_by[why] = total.junk_by.get(why, 0) + n
    return total


def _open(db: Path):
    from memchat.app import Memchat

    return Memchat.load(provider="echo", db=str(db))


def build(profile: Profile, db: Path, with_history: bool) -> dict[int, int]:
    """The profile in `db`; returns memory id -> index in the set."""
    from memchat import sessions

    app = _open(db)
    ids: dict[int, int] = {}
    for i, m in enumerate(profile.memories):
        done = app.memories.remember(m["text"], key=m.get("key"), kind=m.get("kind"))
        ids[done.memory.id] = i
    if with_history and profile.history:
        by_session: dict[str, int] = {}
        stamps = []
        for msg in profile.history:
            sid = by_session.get(msg["session"])
            if sid is None:
                sid = by_session[msg["session"]] = sessions.create_session(app.db).id
            added = sessions.add_message(app.db, sid, msg["role"], msg["content"], status="ok")
            if msg.get("timestamp"):
                stamps.append((_ts(msg), added.id))
        app.db.conn.executemany("UPDATE messages SET created_at = ? WHERE id = ?", stamps)  # the history's own time
        app.db.conn.commit()
        app.memories.reindex()
    app.close()
    return ids


def _ts(msg: dict) -> str:
    return msg["timestamp"].removesuffix("Z") + ".000000Z"


def _copy(base: Path, to: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(base) + suffix)
        if src.exists():
            shutil.copyfile(src, str(to) + suffix)
    vectors = Path(str(base) + ".vectors")
    if vectors.exists():
        shutil.copytree(vectors, str(to) + ".vectors")


def ask(base: Path, workdir: Path, prompt: str):
    db = workdir / "case.db"
    for leftover in workdir.iterdir():
        shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    _copy(base, db)
    app = _open(db)
    try:
        session = app.chat.start_session()
        return app.chat.send(session, prompt).memory
    finally:
        app.close()


def judge(profile: Profile, ids: dict[int, int], base: Path, workdir: Path) -> Outcome:
    out = Outcome()
    sensitive = {i for i, m in enumerate(profile.memories) if m.get("sensitive")}
    for case in profile.cases:
        section = ask(base, workdir, case["prompt"])
        items = section.items if section is not None else []
        sent = {ids[i.memory_id] for i in items if i.memory_id in ids}
        retrieved = [i for i in items if i.section in RETRIEVED]
        need = set(case.get("need", []))
        out.calls += 1
        out.tokens.append(section.tokens if section is not None else 0)
        out.profile_tokens.append(section.profile_tokens if section is not None else 0)
        if need:
            out.needed += len(need)
            out.needed_sent += len(need & sent)
            if need - sent:
                out.misses.append(f"  miss {case['prompt']!r}: {[profile.memories[i]['text'] for i in need - sent]}")
        forbid = case.get("forbid")
        if forbid == "sensitive" or forbid == "any":
            out.sensitive_cases += forbid == "sensitive"
            leaked = sent & sensitive
            if forbid == "any":
                out.any_cases += 1
                leaked = leaked | {i.memory_id or -i.message_id for i in retrieved if i.memory_id or i.message_id}
                out.any_leaks += bool(leaked)
            else:
                out.sensitive_leaks += bool(leaked)
            if leaked:
                out.misses.append(f"  leak {case['prompt']!r}: {[i.text[:70] for i in items if i.section != 'rules']}")
        unneeded = [i for i in retrieved if not (i.memory_id in ids and ids[i.memory_id] in need)]
        out.junk += len(unneeded)
        for item in items:
            if item.reason.startswith("topic") and os.environ.get("JUDGE_SCORES"):
                ok = item.memory_id in ids and ids[item.memory_id] in need
                print(f"SCORE {int(ok)} {item.reason.split()[-1]} {item.reason.split()[1]}")
            if item.memory_id in ids and ids[item.memory_id] in need:
                why = "needed " + item.reason.split()[0]
                out.junk_by[why] = out.junk_by.get(why, 0) + 1
        for item in unneeded:
            why = item.reason.split()[0] + (" (message)" if item.message_id else "")
            out.junk_by[why] = out.junk_by.get(why, 0) + 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", type=Path, default=ROOT.parent / "shared" / "eval")
    parser.add_argument("--cases", action="store_true", help="print every miss and leak")
    parser.add_argument("--only", help="run only the set with this name")
    parser.add_argument("--markdown", action="store_true", help="Only the Markdown table(s) on stdout (for README).")
    args = parser.parse_args()
    md_tables.tables_only(args.markdown)
    rows = []
    for profile in load_sets(args.eval_dir):
        if args.only and profile.name != args.only:
            continue
        for with_history in (True, False):
            if not profile.history and with_history is False:
                continue  # no history to leave out: one run
            with tempfile.TemporaryDirectory() as tmp:
                base = Path(tmp) / "base.db"
                with clock(profile.now):
                    ids = build(profile, base, with_history)
                    work = Path(tmp) / "work"
                    work.mkdir()
                    out = judge(profile, ids, base, work)
            label = f"{profile.name}{'' if with_history or not profile.history else ' (no history)'}"
            rows.append((label, out))
            if args.cases:
                print(f"# {label}")
                print("\n".join(out.misses) or "  (none)")
                print(f"  unneeded items by reason: {out.junk_by}")
    helpers = [o for label, o in rows if label.startswith("helper-")]
    if len(helpers) > 1:  # one row for the eight
        rows = [(label, o) for label, o in rows if not label.startswith("helper-")] + [(HELPER_ROW, combined(helpers))]
    print()
    print(
        "| set | need sent | leaks (sensitive) | leaks (any) | junk/call | median tokens | max tokens | max profile |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, o in rows:
        print(
            f"| {label} | {o.needed_sent}/{o.needed} = {o.needed_sent / max(1, o.needed):.2f} "
            f"| {o.sensitive_leaks}/{o.sensitive_cases} | {o.any_leaks}/{o.any_cases} "
            f"| {o.junk / max(1, o.calls):.2f} | {statistics.median(o.tokens) if o.tokens else 0:.0f} "
            f"| {max(o.tokens, default=0)} | {max(o.profile_tokens, default=0)} |"
        )


if __name__ == "__main__":
    main()
