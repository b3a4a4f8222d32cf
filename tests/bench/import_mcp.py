#!/usr/bin/env python3
"""Import throughput from a ChatGPT-format export, and `memchat mcp` start-up to first answer.

    python tests/bench/import_mcp.py [--conversations 500] [--messages 20] [--runs 5]

Import: a synthetic ChatGPT export (a branch per conversation, the real node layout) into a
fresh profile, fresh process, `--no-embed` (parse + store) and with embedding (the bundled
encoder, prepared beforehand in a shared cache); messages per second, median of runs.
MCP: a fresh `memchat mcp` process, stopwatch from spawn to the `initialize` answer and to the
first `recall` answer (raw JSON-RPC over the pipes), median of runs. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = "garden trip budget recipe piano invoice deadline sister lisbon marathon camera novel".split()


def export(path: Path, conversations: int, messages: int) -> int:
    convs = []
    for c in range(conversations):
        mapping = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
        parent = "root"
        for m in range(messages):
            node = f"c{c}m{m}"
            role = "user" if m % 2 == 0 else "assistant"
            text = " ".join(WORDS[(c + m + i) % len(WORDS)] for i in range(12)) + f" number {c}-{m}."
            mapping[node] = {
                "id": node,
                "parent": parent,
                "children": [],
                "message": {
                    "id": node,
                    "author": {"role": role, "name": None, "metadata": {}},
                    "create_time": 1_700_000_000 + c * 3600 + m * 60,
                    "content": {"content_type": "text", "parts": [text]},
                    "metadata": {"model_slug": "gpt-4o"} if role == "assistant" else {},
                    "recipient": "all",
                },
            }
            mapping[parent]["children"].append(node)
            parent = node
        convs.append(
            {
                "id": f"conv-{c}",
                "title": f"Conversation {c}",
                "create_time": 1_700_000_000 + c * 3600,
                "mapping": mapping,
                "current_node": parent,
            }
        )
    path.write_text(json.dumps(convs))
    return conversations * messages


def run_import(file: Path, cache: str, embed: bool) -> float:
    home = tempfile.mkdtemp(prefix="memchat-imp-")
    env = dict(os.environ, MEMCHAT_HOME=home, MEMCHAT_CACHE_DIR=cache, HF_HUB_OFFLINE="1")
    args = [sys.executable, "-m", "memchat", "import", str(file)] + ([] if embed else ["--no-embed"])
    started = time.perf_counter()
    subprocess.run(args, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def rpc(proc: subprocess.Popen, message: dict) -> dict:
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the server closed its output")
        answer = json.loads(line)
        if answer.get("id") == message.get("id"):
            return answer


def run_mcp(home: str, cache: str) -> tuple[float, float]:
    env = dict(os.environ, MEMCHAT_HOME=home, MEMCHAT_CACHE_DIR=cache, HF_HUB_OFFLINE="1")
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memchat", "mcp"],
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
    rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    initialized = time.perf_counter() - started
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    call = {"name": "recall", "arguments": {"query": "when is the marathon?"}}
    answer = rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
    assert "error" not in answer, answer
    recalled = time.perf_counter() - started
    proc.stdin.close()
    proc.wait(timeout=30)
    return initialized, recalled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=500)
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    a = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    work = Path(tempfile.mkdtemp(prefix="memchat-bench-"))
    cache = str(work / "cache")
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from memchat.memory.recall import onnx_embed as o; from memchat.memory.recall.models import DEFAULT_MODEL as m; o.prepare(m)",
        ],
        env=dict(os.environ, MEMCHAT_CACHE_DIR=cache, HF_HUB_OFFLINE="1"),
        check=True,
    )
    file = work / "conversations.json"
    total = export(file, a.conversations, a.messages)
    print(
        f"import of a ChatGPT export: {a.conversations} conversations, {total:,} messages, "
        f"{file.stat().st_size / 1e6:.1f} MB; median of {a.runs} fresh processes\n"
    )
    print("| import | wall | messages/s |\n|---|---|---|")
    for embed in (False, True):
        t = statistics.median(run_import(file, cache, embed) for _ in range(a.runs))
        print(f"| {'with embedding' if embed else '--no-embed (parse + store)'} | {t:.2f} s | {total / t:,.0f} |")
    home = tempfile.mkdtemp(prefix="memchat-mcp-")
    subprocess.run(
        [sys.executable, "-m", "memchat", "import", str(file)],
        check=True,
        capture_output=True,
        env=dict(os.environ, MEMCHAT_HOME=home, MEMCHAT_CACHE_DIR=cache, HF_HUB_OFFLINE="1"),
    )
    times = [run_mcp(home, cache) for _ in range(a.runs)]
    print(f"\n`memchat mcp` over stdio, profile of {total:,} messages; median of {a.runs} fresh processes\n")
    print("| from spawn to | median |\n|---|---|")
    print(f"| `initialize` answered | {statistics.median(t[0] for t in times):.2f} s |")
    print(f"| first `recall` answered (encoder loaded) | {statistics.median(t[1] for t in times):.2f} s |")


if __name__ == "__main__":
    main()
