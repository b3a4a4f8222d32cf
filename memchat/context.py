"""Working memory: fit the session into the model's window for one call.

The budget: context_window = system prompt (with the memory section and the session
summary) + history + a reserve for the reply (max_tokens). Token counts are tiktoken
estimates scaled by a per-model correction factor learnt from the API's real usage.

Pinned messages are always sent, verbatim and in order. The rest of the history goes
by strategy: `window` (last N turns), `tokens` (newest turns that fit) or `compact`
(older turns folded into a rolling session summary; see memchat/compaction.py).
Whatever the strategy, the newest turns that fit are what is sent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memchat.errors import MemchatError
from memchat.sessions import Message
from memchat.text import fence

# Assistant text that was cut short is still what the model said: send it.
_SENT_ASSISTANT = {"ok", "interrupted", "incomplete"}
# Per-message framing the API adds around content (role markers and separators).
MESSAGE_OVERHEAD = 4
# The estimate is not Claude's tokenizer: keep a margin of the window free.
SAFETY_MARGIN = 0.03
OMITTED_MARKER = "(earlier conversation omitted)"


class ContextError(MemchatError):
    """The current message cannot fit the window at all."""


@dataclass
class Budget:
    window: int
    reserve: int
    system: int
    summary: int
    memory: int
    history: int  # tokens of the history actually sent
    history_budget: int
    margin: int
    memory_counts: dict[str, int] = field(default_factory=dict)  # items of the memory section, by part
    memory_source: str = ""  # which call's memory section the figure is (a preview shows the last one)

    @property
    def used(self) -> int:
        return self.system + self.summary + self.memory + self.history

    @property
    def free(self) -> int:
        return self.window - self.used - self.reserve

    def as_dict(self) -> dict[str, object]:
        return {
            "memory_items": dict(self.memory_counts),
            "memory_of": self.memory_source,
            "window": self.window,
            "system": self.system,
            "memory": self.memory,
            "summary": self.summary,
            "history": self.history,
            "reserve": self.reserve,
            "free": max(self.free, 0),
            "margin": self.margin,
        }

    def rows(self) -> list[tuple[str, int]]:
        return [
            ("system prompt", self.system),
            ("memory section", self.memory),
            ("session summary", self.summary),
            ("history", self.history),
            ("reply reserve (max_tokens)", self.reserve),
            ("free", max(self.free, 0)),
        ]


@dataclass
class Compiled:
    system: str
    messages: list[dict[str, Any]]
    budget: Budget
    disposition: dict[int, str]  # message id -> sent | pinned | summarised | dropped | unsent
    notices: list[str] = field(default_factory=list)
    estimate: int = 0  # estimated input tokens of the whole request (before correction)


def eligible(m: Message) -> bool:
    """Whether a stored message is part of the conversation the model sees."""
    if not m.content.strip():
        return False
    if m.role == "user":
        return m.status == "ok"
    return m.status in _SENT_ASSISTANT


def to_api(chosen: list[Message], current: Message | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in chosen:
        _append(out, m.role, m.content)
    if current is not None:
        _append(out, "user", current.content)
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": OMITTED_MARKER})
    return out


def _append(out: list[dict[str, Any]], role: str, text: str) -> None:
    # The API wants alternating roles: fold a repeated role into the previous message.
    if out and out[-1]["role"] == role:
        out[-1]["content"] += "\n\n" + text
    else:
        out.append({"role": role, "content": text})


def message_cost(m: Message, count: Callable[[str], int], factor: float = 1.0) -> int:
    raw = m.tokens if m.tokens is not None else count(m.content)
    return math.ceil(raw * factor) + MESSAGE_OVERHEAD


def history_budget_for(*, window: int, reserve: int, fixed_tokens: int) -> int:
    return window - reserve - int(window * SAFETY_MARGIN) - fixed_tokens


def summary_block(summary: str | None) -> str:
    if not summary:
        return ""
    return (
        "\n\n<session_summary>\nA summary of the earlier part of this conversation "
        "(older turns are not shown):\n" + fence(summary.strip()) + "\n</session_summary>"
    )


def _turns(messages: list[Message]) -> list[list[Message]]:
    """Group messages into turns: a user message and the replies after it."""
    turns: list[list[Message]] = []
    for m in messages:
        if m.role == "user" or not turns:
            turns.append([m])
        else:
            turns[-1].append(m)
    return turns


def compile_context(
    *,
    history: list[Message],
    current: Message | None,
    system: str,
    summary: str | None,
    summary_through: int | None,
    memory: str = "",
    window: int,
    reserve: int,
    strategy: str,
    window_turns: int,
    count: Callable[[str], int],
    factor: float = 1.0,
    withheld: frozenset[int] | set[int] = frozenset(),
) -> Compiled:
    """Choose what to send.

    `count` gives tiktoken's raw count for a text; `factor` corrects raw counts towards the
    model's real tokenizer. Messages carry their raw count in `tokens` when known. `withheld`:
    messages memory says no call may carry (something forgotten, a private memory's source).
    """
    notices: list[str] = []

    def est(text: str) -> int:
        return math.ceil(count(text) * factor) if text else 0

    def cost(m: Message) -> int:
        return message_cost(m, count, factor)

    full_system = system + (("\n\n" + memory) if memory else "") + summary_block(summary)
    sys_tokens = est(system)
    mem_tokens = est(memory)
    sum_tokens = est(summary_block(summary))
    margin = int(window * SAFETY_MARGIN)
    history_budget = window - reserve - margin - sys_tokens - mem_tokens - sum_tokens

    current_cost = cost(current) if current is not None else 0
    if current is not None and current_cost > history_budget:
        raise ContextError(
            f"your message is about {current_cost:,} tokens, but only {max(history_budget, 0):,} fit "
            f"(context_window {window:,} minus the system prompt, memory, summary and the "
            f"{reserve:,}-token reply reserve): shorten it, lower max_tokens or raise context_window"
        )
    disposition: dict[int, str] = {}
    candidates = _candidates(history, current, summary_through, disposition, withheld)
    pinned = [m for m in candidates if m.pinned]
    pinned_cost = sum(cost(m) for m in pinned)
    left = history_budget - current_cost - pinned_cost
    if left < 0 and pinned:
        notices.append(
            f"pinned messages take {pinned_cost:,} tokens, more than the {max(history_budget - current_cost, 0):,} "
            "left for history: they are sent anyway, with no other history (unpin some with /unpin N)"
        )
    turns = _turns([m for m in candidates if not m.pinned])
    if strategy == "window":
        turns = _last_turns(turns, window_turns, disposition)
    kept = _newest_that_fit(turns, left, cost, disposition)
    chosen = sorted(pinned + kept, key=lambda m: m.id)
    for m in chosen:
        disposition[m.id] = "pinned" if m.pinned else "sent"
    history_tokens = sum(cost(m) for m in chosen) + current_cost
    budget = Budget(
        window=window,
        reserve=reserve,
        system=sys_tokens,
        summary=sum_tokens,
        memory=mem_tokens,
        history=history_tokens,
        history_budget=history_budget,
        margin=margin,
    )
    return Compiled(
        system=full_system,
        messages=to_api(chosen, current),
        budget=budget,
        disposition=disposition,
        notices=notices,
        estimate=_raw_estimate(full_system, chosen + ([current] if current is not None else []), count),
    )


def _candidates(
    history: list[Message],
    current: Message | None,
    summary_through: int | None,
    disposition: dict[int, str],
    withheld: frozenset[int] | set[int],
) -> list[Message]:
    """The history that may be sent; what may not is marked in `disposition` (unsent, withheld or
    summarised)."""
    candidates: list[Message] = []
    for m in history:
        if current is not None and m.id == current.id:
            continue
        if not eligible(m):
            disposition[m.id] = "unsent"
        elif m.id in withheld:
            disposition[m.id] = "withheld"
        elif summary_through is not None and m.id <= summary_through and not m.pinned:
            disposition[m.id] = "summarised"
        else:
            candidates.append(m)
    return candidates


def _last_turns(turns: list[list[Message]], window_turns: int, disposition: dict[int, str]) -> list[list[Message]]:
    """The `window` strategy: the last window_turns turns; the older ones are marked dropped."""
    keep_from = max(len(turns) - window_turns, 0)
    for turn in turns[:keep_from]:
        for m in turn:
            disposition[m.id] = "dropped"
    return turns[keep_from:]


def _newest_that_fit(
    turns: list[list[Message]], left: int, cost: Callable[[Message], int], disposition: dict[int, str]
) -> list[Message]:
    """Newest turns first, whole turns only, until the budget `left` is spent; the rest are marked dropped."""
    kept: list[Message] = []
    for i in range(len(turns) - 1, -1, -1):
        turn_cost = sum(cost(m) for m in turns[i])
        if turn_cost > left:
            for older in turns[: i + 1]:
                for m in older:
                    disposition[m.id] = "dropped"
            break
        left -= turn_cost
        kept = turns[i] + kept
    return kept


def _raw_estimate(full_system: str, sent: list[Message], count: Callable[[str], int]) -> int:
    """The uncorrected estimate of the request, from counts already at hand (no re-encoding)."""
    return count(full_system) + sum(
        (m.tokens if m.tokens is not None else count(m.content)) + MESSAGE_OVERHEAD for m in sent
    )


def _unsummarised(history: list[Message], current: Message | None, summary_through: int | None) -> list[Message]:
    return [
        m
        for m in history
        if eligible(m)
        and (current is None or m.id != current.id)
        and (summary_through is None or m.id > summary_through)
        and not m.pinned
    ]


def needs_compaction(
    history: list[Message],
    current: Message | None,
    *,
    summary_through: int | None,
    budget_tokens: int,
    threshold_pct: int,
    count: Callable[[str], int],
    factor: float = 1.0,
) -> bool:
    """True when the unsummarised history passes threshold_pct of the history budget."""
    live = _unsummarised(history, current, summary_through)
    extra = message_cost(current, count, factor) if current is not None else 0
    return sum(message_cost(m, count, factor) for m in live) + extra > budget_tokens * threshold_pct / 100


def compaction_slice(
    history: list[Message],
    current: Message | None,
    *,
    summary_through: int | None,
    keep_tokens: int,
    count: Callable[[str], int],
    factor: float = 1.0,
) -> list[Message]:
    """The oldest unsummarised turns to fold into the summary, keeping the newest keep_tokens.

    Pinned messages are never summarised away: they are always sent verbatim.
    """
    turns = _turns(_unsummarised(history, current, summary_through))
    kept = 0
    cut = len(turns)
    for i in range(len(turns) - 1, -1, -1):
        kept += sum(message_cost(m, count, factor) for m in turns[i])
        if kept > keep_tokens:
            cut = i + 1
            break
        cut = i
    return [m for turn in turns[:cut] for m in turn]
