"""What calls cost: every model call's tokens, recorded by purpose, priced from a table.

Each call to a provider that reports real usage is recorded (model, purpose, input and output
tokens, session) in the `usage` table; cost is computed when shown, from the `[prices]` table
of the config file over DEFAULT_PRICES (dollars per million tokens), so changing a price
re-prices the past. Purposes: chat (replies), memory (capture: extraction, decisions, the
session summary) and summary (compaction of a long conversation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memchat.db import immediate, sql_errors, utcnow
from memchat.log import get_logger
from memchat.prices import DEFAULT_PRICES, price

__all__ = ["DEFAULT_PRICES", "price", "cost", "record", "totals"]  # price lives in memchat.prices

if TYPE_CHECKING:
    from memchat.db import Database

PURPOSES = ("chat", "memory", "summary")


def cost(model: str, input_tokens: int, output_tokens: int, prices: dict | None = None) -> float | None:
    p = price(model, prices)
    return None if p is None else (input_tokens * p[0] + output_tokens * p[1]) / 1_000_000


def dollars(amount: float | None) -> str:
    """$0.0042, $1.23; '-' when the price is unknown."""
    if amount is None:
        return "-"
    return f"${amount:.4f}" if amount < 0.1 else f"${amount:,.2f}"


def record(
    db: Database, model: str, purpose: str, input_tokens: int, output_tokens: int, session_id: int | None = None
) -> None:
    """Store one call's usage; a failure (a locked or full database) is logged, never raised:
    bookkeeping must not break a reply."""
    try:
        with immediate(db):
            db.conn.execute(
                "INSERT INTO usage (at, model, purpose, input_tokens, output_tokens, session_id)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (utcnow(), model, purpose if purpose in PURPOSES else "chat", input_tokens, output_tokens, session_id),
            )
    except sql_errors() as exc:
        get_logger().warning("could not record usage: %s", exc)


@dataclass
class Total:
    day: str
    model: str
    purpose: str
    calls: int
    input_tokens: int
    output_tokens: int
    cost: float | None  # None: no price known for the model


def totals(
    db: Database,
    *,
    since: str | None = None,
    session_id: int | None = None,
    prices: dict | None = None,
) -> list[Total]:
    """Calls, tokens and cost by local day, model and purpose (newest day first)."""
    where = "WHERE 1"
    params: list[object] = []
    if since:
        where += " AND at >= ?"
        params.append(since)
    if session_id is not None:
        where += " AND session_id = ?"
        params.append(session_id)
    rows = db.conn.execute(
        "SELECT date(at, 'localtime') AS day, model, purpose, count(*), sum(input_tokens), sum(output_tokens) "
        f"FROM usage {where} GROUP BY day, model, purpose ORDER BY day DESC, model, purpose",
        params,
    ).fetchall()
    return [Total(d, m, p, n, i, o, cost(m, i, o, prices)) for d, m, p, n, i, o in rows]


def by_purpose(rows: list[Total]) -> list[Total]:
    """The rows summed by purpose (chat, memory, summary, in that order), over every day and model:
    what the conversation cost apart from what learning from it cost. A sum's cost counts the
    priced rows (None when none is priced)."""
    sums: dict[str, Total] = {}
    for r in rows:
        s = sums.setdefault(r.purpose, Total("", "", r.purpose, 0, 0, 0, None))
        s.calls += r.calls
        s.input_tokens += r.input_tokens
        s.output_tokens += r.output_tokens
        if r.cost is not None:
            s.cost = (s.cost or 0.0) + r.cost
    order = {p: i for i, p in enumerate(PURPOSES)}
    return sorted(sums.values(), key=lambda t: order.get(t.purpose, len(order)))
