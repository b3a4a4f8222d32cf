"""How memories and recall hits look in a shell: Rich tables for people, plain dicts for --json.

Shared by `memchat recall` / `memchat memories` and the REPL's /recall and /memories.
Memory and message text is untrusted: it is sanitized and never read as Rich markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memchat.memory.recall.rank import hit_json  # noqa: F401 - the shells' JSON, re-exported
from memchat.memory.store.records import memory_json  # noqa: F401
from memchat.memory.text import clip_around, content_stems
from memchat.text import one_line, sanitize
from memchat.when import local_minute

if TYPE_CHECKING:
    from rich.console import JustifyMethod
    from rich.table import Table

    from memchat.memory.recall.search import Hit
    from memchat.memory.store.memories import HistoryEntry, Memory


def when(timestamp: str | None) -> str:
    return local_minute(timestamp)


def hit_text(hit: Hit) -> str:
    return f"{hit.name}: {hit.text}" if hit.name else hit.text


def _shown(hit: Hit, limit: int, query: str | None) -> str:
    """A hit's text on one line, cut to `limit`: for a long one, the sentences that match the query
    (a lease kept as a memory shows its plumber's number for "emergency plumber", not its first lines)."""
    text = " ".join(hit_text(hit).split())
    if query and len(text) > limit:
        text = clip_around(text, limit, content_stems(query))
    return one_line(text, limit)


def _plain(*cells: str) -> list[Any]:
    """Table cells as Text: stored text is shown as it is, never read as Rich markup."""
    from rich.text import Text

    return [Text(cell) for cell in cells]


def _table(*columns: tuple[str, JustifyMethod]) -> Table:
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    for name, justify in columns:
        table.add_column(
            name,
            justify=justify,
            overflow="fold" if name == "text" else "ellipsis",
            no_wrap=name not in ("text", "source"),
            ratio=3 if name == "text" else None,
        )
    return table


def hits_table(hits: list[Hit], query: str | None = None) -> Table:
    table = _table(("score", "right"), ("kind", "left"), ("text", "left"), ("when", "left"), ("source", "left"))
    for h in hits:
        kind = h.kind + (" 📌" if h.pinned else "")
        cells = _plain(score(h), kind, _shown(h, 300, query), when(h.when), one_line(h.source))
        if h.weak:
            for cell in cells:
                cell.stylize("dim")
        table.add_row(*cells)
    return table


def hit_rows(hits: list[Hit]) -> str:
    """The hits for a pipe: a header, then one tab-separated line per hit (score, weak, kind, text,
    when, source), the text whole and on one line, the score a plain number: for grep, cut, awk and
    sort. Weak is "weak" for a match below `recall.weak`, else empty."""
    rows = [("score", "weak", "kind", "text", "when", "source")]
    rows += [
        (
            f"{h.score:.3f}",
            "weak" if h.weak else "",
            h.kind + (" pinned" if h.pinned else ""),
            one_line(hit_text(h)),
            when(h.when),
            one_line(h.source),
        )
        for h in hits
    ]
    return "".join("\t".join(cell.replace("\t", " ") for cell in row) + "\n" for row in rows)


def score(hit: Hit) -> str:
    """The relevance, labelled when it is a weak match (below `recall.weak`)."""
    return f"{hit.score:.3f}" + (" weak" if hit.weak else "")


def hit_lines(hits: list[Hit], query: str | None = None) -> str:
    """Plain lines for the REPL: score, kind, id, text."""
    return "\n".join(
        f"{score(h):<10} {h.kind:<7} {('#' + str(h.id)) if h.type == 'memory' else 'msg ' + str(h.id):>8}  "
        f"{_shown(h, 160, query)}" + (" (private)" if h.memory is not None and h.memory.private else "")
        for h in hits
    )


def no_hits(nearest: Hit | None, min_score: float | None, filtered: bool) -> str:
    """Why a search came back empty, in one line: the bar it set, its filters, or an empty memory."""
    if nearest is not None and min_score is not None:
        return (
            f"nothing in memory reaches relevance {min_score:g}; the nearest is {nearest.kind} "
            f"({nearest.score:.3f}): {one_line(hit_text(nearest), 100)}"
        )
    if filtered:
        return "nothing in memory matches these filters"
    return "memory is empty: nothing remembered or said yet (memchat memories add TEXT, or chat)"


_PLURALS = {"fact": "facts", "event": "events", "rule": "rules"}


def no_memories(kind: str | None, status: str | None, pinned: bool, counts: dict[str, int], add: str) -> str:
    """Why a listing of memories is empty, in the words of its filters ("no superseded memories",
    "no pinned rules"). Unfiltered: an empty memory says how to add one (`add`), and one that
    holds only superseded or forgotten memories says how many and how to list them."""
    filters = [status] if status and status != "all" else []
    filters += ["pinned"] if pinned else []
    if filters or kind:
        return f"no {' '.join([*filters, _PLURALS.get(kind or '', 'memories')])}"
    others = {s: n for s, n in sorted(counts.items()) if n and s not in ("active", "pending")}
    if status == "all" or not others:
        return f"no memories yet: {add}"
    held = ", ".join(f"{n:,} {s}" for s, n in others.items())
    return f"no active or pending memories ({held}: `memchat memories list --status all` lists them)"


def memories_table(memories: list[Memory]) -> Table:
    table = _table(
        ("id", "right"), ("kind", "left"), ("status", "left"), ("key", "left"), ("text", "left"), ("updated", "left")
    )
    for m in memories:
        status = m.status + (" · pinned" if m.pinned else "") + (" · private" if m.private else "")
        text = one_line(m.text, 300) if m.status != "forgotten" else "(forgotten)"
        table.add_row(*_plain(str(m.id), m.kind, status, one_line(m.key or ""), text, when(m.updated_at)))
    return table


def memory_lines(memories: list[Memory]) -> str:
    return "\n".join(
        f"{'*' if m.pinned else ' '} #{m.id:<5} {m.kind:<5} {'' if m.status == 'active' else '(' + m.status + ') '}"
        f"{one_line(m.text, 160)}{' (private)' if m.private else ''}"
        for m in memories
    )


def memory_details(m: Memory) -> str:
    rows = [("memory", f"#{m.id}"), ("kind", m.kind), ("status", m.status), ("text", sanitize(m.text) or "(forgotten)")]
    if m.key:
        rows.append(("key", sanitize(m.key + (f" = {m.value}" if m.value else ""))))
    rows += [
        ("pinned", "yes" if m.pinned else "no"),
        ("private", "yes: never sent to a model unasked" if m.private else "no"),
        ("origin", m.origin),
        ("confidence", f"{m.confidence:g}"),
        ("importance", f"{m.importance:g}"),
        ("sensitive", "yes" if m.sensitive else "no"),
    ]
    if m.source_message_ids:
        rows.append(("from messages", ", ".join(str(i) for i in m.source_message_ids)))
    rows += [("valid", f"{when(m.valid_from)} → {when(m.valid_to) or 'now'}")]
    if m.superseded_by:
        rows.append(("superseded by", f"#{m.superseded_by}"))
    rows += [
        ("created", when(m.created_at)),
        ("updated", when(m.updated_at)),
        ("used", f"{m.use_count} times" + (f", last {when(m.last_used_at)}" if m.last_used_at else "")),
        ("vector", m.embedding_model or "not yet (made on the next recall)"),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)


def history_table(entries: list[HistoryEntry]) -> Table:
    table = _table(("at", "left"), ("action", "left"), ("actor", "left"), ("text", "left"))
    for e in entries:
        if e.action == "forget" or (e.old_text is None and e.new_text is None and e.action in ("add", "edit")):
            text = "(text forgotten)" if e.action != "forget" else ""
        elif e.old_text is not None and e.new_text is not None:
            text = f"{one_line(e.old_text)} → {one_line(e.new_text)}"
        else:
            text = one_line(e.new_text or e.old_text or "")
        if e.source_message_id:
            text += f" (message {e.source_message_id})"
        table.add_row(*_plain(when(e.at), e.action, e.actor, text))
    return table


def relevance_table(found: list[tuple[Memory, float]], sure: float) -> Table:
    """Memories a query is about: relevance, id, kind, text; a mark on the clear matches."""
    table = _table(("relevance", "right"), ("id", "right"), ("kind", "left"), ("text", "left"))
    for m, score in found:
        table.add_row(
            *_plain(f"{score:.2f}" + (" ✓" if score >= sure else ""), str(m.id), m.kind, one_line(m.text, 300))
        )
    return table
