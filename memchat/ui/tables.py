"""Tables for the shells: the context budget, a session's history, what memory a call held."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memchat.text import plural, sanitize
from memchat.ui.console import err, out, say
from memchat.usage import by_purpose, dollars
from memchat.when import local_minute

if TYPE_CHECKING:  # rich loads when a table is drawn, not when a command module imports this
    from rich.console import Console, JustifyMethod
    from rich.text import Text


def budget_table(budget: Any) -> Any:
    """The /context table: each part's tokens and share of the window."""
    from rich.table import Table
    from rich.text import Text

    table = Table(
        box=None,
        header_style="bold",
        title=f"context window {budget.window:,} tokens (estimated)",
        title_justify="left",
    )
    table.add_column("part")
    table.add_column("tokens", justify="right")
    table.add_column("share", justify="right")
    for name, n in budget.rows():
        table.add_row(name, f"{n:,}", f"{100 * n / budget.window:.1f}%")
    table.add_row("[dim]safety margin (inside free)[/dim]", f"[dim]{budget.margin:,}[/dim]", "")
    if not budget.memory_source:
        return table
    from rich.console import Group

    names = {
        "pinned": ("pinned memory", "pinned memories"),
        "rules": ("rule", "rules"),
        "profile": ("profile fact", "profile facts"),
        "facts": ("fact", "facts"),
        "plans": ("plan", "plans"),
        "history": ("past event or message", "past events and messages"),
    }
    held = ", ".join(plural(n, *names.get(k, (k, k))) for k, n in budget.memory_counts.items()) or "nothing"
    return Group(table, Text(f"memory section: {held}, as in {budget.memory_source}", style="dim"))


def history_table(rows: list[tuple[int, Any, int, str]]) -> Any:
    """The /history table: message id, role, tokens, what happens to the message, a preview."""
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, header_style="bold")
    columns: list[tuple[str, JustifyMethod]] = [
        ("id", "right"),
        ("role", "left"),
        ("tokens", "right"),
        ("state", "left"),
        ("text", "left"),
    ]
    for col, justify in columns:
        table.add_column(col, justify=justify, no_wrap=col != "text", overflow="ellipsis")
    for _, m, n, disposition in rows:
        state = "pinned" if m.pinned else disposition
        if m.status not in ("ok",) and disposition != "unsent":
            state += f" ({m.status})"
        elif disposition == "unsent":
            state = m.status
        preview = sanitize(" ".join(m.content.split()))[:120]
        table.add_row(str(m.id), m.role, f"{n:,}", state, Text(preview))  # never read as markup
    return table


def memory_sent(section: Any, explain: bool = False) -> list[dict[str, Any]]:
    """What the memory section of a call held, compact (`ask --json`): each item's kind (fact, event,
    rule, or message for a snippet of a past conversation), id (of that memory or message), text as
    sent, and relevance score (null for what is always sent: pinned, rules, profile). With
    `explain`, also the section it went to and why."""
    if section is None:
        return []
    return [
        {
            "kind": i.kind,
            "id": i.memory_id if i.memory_id is not None else i.message_id,
            "text": i.text,
            "score": None if i.score is None else round(i.score, 3),
            **({"section": i.section, "reason": i.reason} if explain else {}),
        }
        for i in section.items
    ]


def memory_items(section: Any) -> list[dict[str, Any]]:
    """What the memory section of a call held, for --explain and /why."""
    if section is None:
        return []
    return [
        {"section": i.section, "text": i.text, "reason": i.reason, "memory_id": i.memory_id, "message_id": i.message_id}
        for i in section.items
    ]


def explain_memory(section: Any, console: Console | None = None) -> None:
    from rich.text import Text

    console = console or err()
    items = memory_items(section)
    if not items:
        console.print("[dim]no memories were sent with this message[/dim]")
        return
    from rich.table import Table

    table = Table(
        box=None, header_style="bold", title=f"sent with this message ({section.tokens} tokens)", title_justify="left"
    )
    for col in ("section", "why", "source", "text"):
        table.add_column(col, overflow="fold" if col == "text" else "ellipsis")
    for i in items:
        source = f"memory {i['memory_id']}" if i["memory_id"] else f"message {i['message_id']}"
        table.add_row(i["section"], Text(sanitize(i["reason"])), source, Text(sanitize(i["text"])))
    console.print(table)


def sessions_table(rows: list[Any]) -> Any:
    """`memchat sessions list`: id, title, message count, last update, model."""
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, header_style="bold")
    for col in ("id", "title", "msgs", "updated", "model"):
        table.add_column(
            col, overflow="fold" if col == "title" else "ellipsis", justify="right" if col in ("id", "msgs") else "left"
        )
    for s in rows:
        table.add_row(
            str(s.id),
            Text(sanitize(s.title or "(untitled)")),
            str(s.message_count),
            s.updated_at[:16].replace("T", " "),
            Text(sanitize(s.model or "")),
        )
    return table


def usage_table(rows: list[Any]) -> Any:
    """`memchat usage` and /cost: calls, tokens and cost by day, model and purpose, with a total."""
    from rich.table import Table

    table = Table(box=None, header_style="bold", show_footer=True)
    known = [r.cost for r in rows if r.cost is not None]
    total = dollars(sum(known)) + (" (some unpriced)" if len(known) < len(rows) else "") if known else "-"
    for name, footer, justify in (
        ("day", "total", "left"),
        ("model", "", "left"),
        ("purpose", "", "left"),
        ("calls", f"{sum(r.calls for r in rows):,}", "right"),
        ("input", f"{sum(r.input_tokens for r in rows):,}", "right"),
        ("output", f"{sum(r.output_tokens for r in rows):,}", "right"),
        ("cost", total, "right"),
    ):
        table.add_column(name, footer=footer, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(
            r.day, r.model, r.purpose, f"{r.calls:,}", f"{r.input_tokens:,}", f"{r.output_tokens:,}", dollars(r.cost)
        )
    return table


def purpose_split(rows: list[Any]) -> str:
    """Under `memchat usage` and /cost: chat apart from memory (capture) and summaries, e.g.
    'chat 3 calls $0.0120 · memory 1 call $0.0021'."""
    return " · ".join(f"{t.purpose} {plural(t.calls, 'call')} {dollars(t.cost)}" for t in by_purpose(rows))


def memory_so_far(rows: list[Any]) -> str:
    """For the line after a reply: what learning from this session has cost so far (capture runs
    after replies, so this is every capture before this turn's), or '' when nothing yet."""
    spent = [t for t in by_purpose(rows) if t.purpose == "memory"]
    return f"memory {dollars(spent[0].cost)} this session" if spent else ""


def capture_status_line(status: Any) -> str:
    """`memchat doctor` and `memchat consent`: capture on or off, when it last ran, what waits to
    be read, and the newest background failure since."""
    waiting = plural(status.waiting, "session") + (
        (" waits" if status.waiting == 1 else " wait") + " to be read" if status.on else " not read (nothing is learnt)"
    )
    parts = [
        "on" if status.on else "off",
        f"last ran {local_minute(status.last_run)}" if status.last_run else "never ran yet",
        waiting,
    ]
    if status.failure is not None:
        failure = status.failure
        parts.append(f"last error {local_minute(failure.at)} ({failure.what}): {sanitize(failure.reason)}")
    return " · ".join(parts)


def audit_table(entries: list[Any]) -> Any:
    """`memchat audit`: when, what, who or what caused it, which memory, details (never memory text)."""
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, header_style="bold")
    for name in ("when", "action", "origin", "memory", "detail"):
        table.add_column(name)
    for e in entries:
        table.add_row(
            local_minute(e.at), e.action, e.origin, "" if e.memory_id is None else str(e.memory_id), Text(e.detail)
        )
    return table


def offered_models(found: list[Any]) -> Text:
    """`memchat models`: per server, its models (the roles' marked), or why it could not say."""
    from rich.text import Text

    lines: list[str] = []
    for offered in found:
        where = f" at {offered.url}" if offered.url else ""
        lines.append(f"{offered.provider}{where}")
        if offered.models is None:
            lines.append(f"  cannot list its models: {offered.error}")
        listed = offered.models or []
        width = max((len(m) for m in [*listed, *offered.roles]), default=0)
        for model in listed:
            used = offered.roles.get(model)
            lines.append(f"  {model:<{width}}  {'← ' + ', '.join(used) if used else ''}".rstrip())
        for model, used in offered.roles.items():
            if offered.models is not None and model not in listed:
                lines.append(f"  {model:<{width}}  ← {', '.join(used)} (not offered by this server)")
            elif offered.models is None:
                lines.append(f"  {', '.join(used)}: {model}")
    return Text(sanitize("\n".join(lines)))


def exchange_lines(found: list[Any]) -> None:
    """`memchat log`: each exchange as a dim header (when, session, model, tokens, cost), the prompt
    and the reply, stored text sanitized."""
    console = out()
    for n, e in enumerate(found):
        tokens = f"{e.input_tokens or 0:,} in · {e.output_tokens or 0:,} out" if e.reply_id else "no reply"
        if e.reply_id and e.model == "echo":
            tokens = "offline, no tokens"  # echo counts words, not a model's tokens
        title = f' "{e.session_title}"' if e.session_title else ""
        status = "" if e.status == "ok" else f" · {e.status}"
        head = (
            f"{local_minute(e.at)} · session {e.session_id}{title} · {e.model or '-'} · {tokens} · "
            f"{dollars(e.cost_usd)}{status}"
        )
        if n:
            console.print()
        say(f"── {head}", console, style="dim")
        say(f"> {e.prompt}".replace("\n", "\n> "), console, style="bold")
        if e.reply is not None:
            say(e.reply, console)
