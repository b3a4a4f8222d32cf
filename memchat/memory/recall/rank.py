"""Ranking: fuse the BM25 and vector lists, then re-score the first candidates by relevance.

1. Reciprocal rank fusion: fused = sum over lists of weight / (rrf_k + rank), divided by
   what first place in every list would score (so 1.0 is the best possible).
2. The first FIRST_STAGE candidates, and the turns around the best messages, are read and
   re-scored by memchat.memory.recall.relevance: a calibrated probability that the candidate holds
   what the query asks for. That is `Hit.score`.
3. The score: that probability, its odds times a light boost for recency, importance, pins and use.
4. A question that asks for a set ("what are Kate's hobbies?") is re-ordered for coverage
   (memchat.memory.recall.coverage): every piece of its answer, not only the best one.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memchat.memory.recall import coverage, relevance
from memchat.memory.store.memories import Memory, MemoryStore
from memchat.memory.text import TEXT_WINDOW, window
from memchat.patterns import pattern

if TYPE_CHECKING:
    import numpy as np

    from memchat.db import Database
    from memchat.memory.recall.dates import Period
    from memchat.memory.recall.vectors import VectorSet

FIRST_STAGE = 60  # candidates the second stage reads


@dataclass(frozen=True)
class Tuning:
    """Knobs of the first stage. The defaults were chosen on the LoCoMo development set only
    (tests/bench/eval_locomo.py --sweep): a small rrf_k trusts each list's first places, and
    BM25 a little more than cosine."""

    rrf_k: int = 5
    bm25_weight: float = 1.25
    vector_weight: float = 1.0
    pool: int = 100
    name_weight: float = 1.0  # BM25 weight of a message's speaker name against its content
    stopwords: bool = True
    recency_weight: float = 0.05
    half_life_days: float = 90.0
    importance_weight: float = 0.1
    pin_weight: float = 0.2
    use_weight: float = 0.05
    rescore: bool = True  # the second stage (off: rank by the fused score, as before it existed)
    set_discount: float = coverage.DISCOUNT  # set questions: a hit's discount per hit of its session above (0: off)


TUNING = Tuning()


@dataclass
class Hit:
    """One search result: what it is, its text, its relevance, when, and where it came from."""

    type: str  # "memory" or "message"
    id: int
    kind: str  # fact | event | rule | message
    text: str
    score: float  # relevance: the probability that it holds what the query asks for (0..1)
    when: str
    source: str
    session_id: int | None = None
    message_id: int | None = None
    role: str | None = None
    name: str | None = None
    status: str | None = None
    pinned: bool = False
    key: str | None = None
    bm25_rank: int | None = None
    vector_rank: int | None = None
    cosine: float | None = None
    fused: float = 0.0  # the first stage's score
    previous_id: int | None = None  # the turn before and after (messages)
    next_id: int | None = None
    weak: bool = False  # below the `recall.weak` label: shown by a search, marked as a weak match
    memory: Memory | None = field(default=None, repr=False, compare=False)
    features: dict[str, float] = field(default_factory=dict, repr=False, compare=False)


@dataclass
class Query:
    """What the second stage needs to know about the query."""

    text: str
    vector: np.ndarray | None
    period: Period | None = None
    vectors: dict[str, VectorSet] = field(default_factory=dict)  # "memory" / "message" -> matrix


def with_tuning(**changes: Any) -> Tuning:
    return replace(TUNING, **changes)


Lists = list[tuple[str, str, list[tuple[int, float]]]]


def fuse(lists: Lists, t: Tuning) -> dict[tuple[str, int], dict[str, Any]]:
    """(type, id) -> {fused, bm25 rank, vector rank, cosine}, for every candidate of every list."""
    fused: dict[tuple[str, int], dict[str, Any]] = {}
    weights = {"bm25": t.bm25_weight, "vector": t.vector_weight, "period": t.bm25_weight}
    for typ, method, ranked in lists:
        rank, previous = 0, None
        for position, (item_id, raw) in enumerate(ranked, 1):
            if raw != previous:  # equal scores share a rank: a tie is not a preference
                rank, previous = position, raw
            entry = fused.setdefault((typ, item_id), {"rrf": 0.0, "bm25": None, "vector": None, "cosine": None})
            entry["rrf"] += weights[method] / (t.rrf_k + rank)
            if method != "period":
                entry[method] = rank
            if method == "vector":
                entry["cosine"] = raw
    used = {m for _, m, _ in lists if m != "period"}
    best = sum(weights[m] for m in used) / (t.rrf_k + 1) or 1.0
    for entry in fused.values():
        entry["fused"] = min(1.0, entry["rrf"] / best)
    return fused


def rank(db: Database, lists: Lists, q: Query, t: Tuning, limit: int) -> list[Hit]:
    """The best `limit` hits: fused, re-scored by relevance, boosted."""
    fused = fuse(lists, t)
    if not fused:
        return []
    first = sorted(fused, key=lambda k: (-fused[k]["rrf"], k))[:FIRST_STAGE] if t.rescore else list(fused)
    hits = _details(db, {k: fused[k] for k in first})
    if t.rescore:
        hits = _with_neighbours(db, hits, fused)
        _rescore(db, hits, q)
    else:
        for h in hits:
            h.score = h.fused
    now = datetime.now(UTC)
    for h in hits:  # pins, importance, use and recency tip the balance, a little (on the odds: still a probability)
        odds = h.score / max(1e-12, 1.0 - h.score) * _boost(h, t, now)
        h.score = round(odds / (1.0 + odds), 4)
    _summaries_below_facts(hits)
    hits.sort(key=lambda h: (-h.score, h.type, h.id))
    if t.set_discount and coverage.is_set_question(q.text):
        hits = coverage.diversify(hits, t.set_discount)
    return hits[:limit]


SUMMARY_KEY = pattern(r"^session\.\d+\.summary$")
ANSWERING_FACT = 0.01  # a fact this relevant is taken to answer: no session summary ranks above it


def _summaries_below_facts(hits: list[Hit]) -> None:
    """A session's summary retells many things and matches many questions; the fact that answers
    one says it better. So no summary outranks a fact that answers (many one-shot asks' summaries
    once buried the fact itself)."""
    best_fact = max((h.score for h in hits if h.type == "memory" and h.kind == "fact"), default=0.0)
    if best_fact < ANSWERING_FACT:
        return
    for h in hits:
        if h.type == "memory" and h.key and SUMMARY_KEY.match(h.key) and h.score >= best_fact:
            h.score = round(best_fact * 0.9, 4)


def _with_neighbours(db: Database, hits: list[Hit], fused: dict[tuple[str, int], dict[str, Any]]) -> list[Hit]:
    """Add the turns before and after the best messages: an answer often sits beside what matched."""
    have = {(h.type, h.id) for h in hits}
    best = sorted((h for h in hits if h.type == "message"), key=lambda h: -h.fused)[: relevance.SESSION_WINDOW]
    extra = {n for h in best for n in (h.previous_id, h.next_id) if n and ("message", n) not in have}
    if not extra:
        return hits
    empty = {"rrf": 0.0, "fused": 0.0, "bm25": None, "vector": None, "cosine": None}
    return hits + _details(db, {("message", i): fused.get(("message", i), empty) for i in extra})


def _cosines(q: Query, typ: str, ids: list[int]) -> dict[int, float]:
    import numpy as np

    vs = q.vectors.get(typ)
    if q.vector is None or vs is None or not ids or vs.matrix.shape[0] == 0 or vs.matrix.shape[1] != q.vector.shape[0]:
        return {}
    wanted = np.asarray(ids, dtype=np.int64)
    pos = np.clip(np.searchsorted(vs.ids, wanted), 0, len(vs.ids) - 1)
    found = vs.ids[pos] == wanted
    if not found.any():
        return {}
    sims = np.asarray(vs.matrix[pos[found]]) @ q.vector
    return {int(i): float(s) for i, s in zip(wanted[found], sims, strict=True)}


def _rescore(db: Database, hits: list[Hit], q: Query) -> None:
    terms = relevance.query_terms(db, q.text)
    names = relevance.speaker_stems(h.name for h in hits)
    # A memory's key names what it is about ("user.city": city), a word its text may not use.
    stems = {(h.type, h.id): relevance.content_stems(f"{h.text} {_key_words(h.key)}") for h in hits}
    by_id = {h.id: h for h in hits if h.type == "message"}
    missing = [n for h in hits if h.type == "message" and (n := h.previous_id) and n not in by_id]
    previous_text = dict(_texts(db, missing))
    previous_text.update({h.id: h.text for h in by_id.values()})
    cosines = {typ: _cosines(q, typ, [h.id for h in hits if h.type == typ]) for typ in ("memory", "message")}
    window = sorted(by_id.values(), key=lambda h: -h.fused)[: relevance.SESSION_WINDOW]
    session_best: dict[int | None, float] = {}
    session_hits: dict[int | None, int] = {}
    for h in window:
        session_best[h.session_id] = max(session_best.get(h.session_id, 0.0), h.fused)
        session_hits[h.session_id] = session_hits.get(h.session_id, 0) + 1
    query_names = {s for s in terms.stems if s in names}
    for h in hits:
        cos = cosines[h.type].get(h.id, h.cosine or 0.0)
        h.cosine = round(cos, 4) if cos else h.cosine
        values = {
            "cosine": cos,
            "coverage": terms.coverage(stems[(h.type, h.id)], ignore=names),
            "bm25": 1.0 / (1 + h.bm25_rank) if h.bm25_rank else 0.0,
            "in_period": 1.0 if q.period is not None and q.period.contains(h.when) else 0.0,
            **relevance.length_features(h.text),
        }
        if h.type == "message":
            before = previous_text.get(h.previous_id or -1, "")
            values["prev_coverage"] = terms.coverage(relevance.content_stems(before), ignore=names) if before else 0.0
            values["name"] = 1.0 if relevance.speaker_stems([h.name]) & query_names else 0.0
            values["session_best"] = session_best.get(h.session_id, 0.0)
            values["session_hits"] = session_hits.get(h.session_id, 0) / relevance.SESSION_WINDOW
            values["neighbour"] = max((by_id[n].fused for n in (h.previous_id, h.next_id) if n in by_id), default=0.0)
        else:
            # A memory is distilled: it carries its own context. The model learnt from messages, whose
            # context (the turn before, the session around) backs them up; a memory stands in for it.
            values["prev_coverage"] = values["coverage"]
            values["session_best"] = values["neighbour"] = h.fused
            values["session_hits"] = 1 / relevance.SESSION_WINDOW
        h.features = values
        h.score = relevance.probability(values, lexical=q.vector is None)
        if h.type == "memory" and q.vector is not None:
            h.score = max(h.score, relevance.semantic(cos))


def _key_words(key: str | None) -> str:
    return key.rpartition(".")[2].replace("_", " ") if key else ""


def _texts(db: Database, ids: list[int]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        out += [
            (i, window(text))
            for i, text in db.conn.execute(
                f"SELECT id, substr(content, 1, {TEXT_WINDOW + 1}) FROM messages WHERE id IN ({', '.join('?' * len(part))})",
                part,
            )
        ]
    return out


def _boost(hit: Hit, t: Tuning, now: datetime) -> float:
    boost = 1.0
    if t.recency_weight and hit.when:
        try:
            when = datetime.fromisoformat(hit.when.replace("Z", "+00:00"))
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            age_days = max(0.0, (now - when).total_seconds() / 86400)
            boost += t.recency_weight * 0.5 ** (age_days / t.half_life_days)
        except ValueError:
            pass
    memory = hit.memory
    if memory is not None:
        boost += t.importance_weight * (memory.importance - 0.5) * 2
        boost += t.pin_weight * memory.pinned
        boost += t.use_weight * min(1.0, math.log1p(memory.use_count) / math.log1p(20))
    return boost


def _details(db: Database, chosen: dict[tuple[str, int], dict[str, Any]]) -> list[Hit]:
    hits: list[Hit] = []
    memories = MemoryStore(db).get_many([i for typ, i in chosen if typ == "memory"])
    for m in memories.values():
        origin = f"memory #{m.id} · {m.origin}"
        if m.source_message_ids:
            origin += f" · from message {m.source_message_ids[0]}"
        if m.private:
            origin += " · private"
        hits.append(
            Hit(
                "memory",
                m.id,
                m.kind,
                window(m.text),
                0.0,
                m.created_at,
                origin,
                status=m.status,
                pinned=m.pinned,
                key=m.key,
                memory=m,
            )
        )
    ids = [i for typ, i in chosen if typ == "message"]
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        for mid, sid, role, name, content, created, before, after in db.conn.execute(
            f"SELECT m.id, m.session_id, m.role, m.name, substr(m.content, 1, {TEXT_WINDOW + 1}), m.created_at, "
            "(SELECT max(p.id) FROM messages p WHERE p.session_id = m.session_id AND p.id < m.id "
            "AND p.status != 'undone'), "
            "(SELECT min(n.id) FROM messages n WHERE n.session_id = m.session_id AND n.id > m.id "
            f"AND n.status != 'undone') FROM messages m WHERE m.id IN ({', '.join('?' * len(part))})",
            part,
        ):
            hits.append(
                Hit(
                    "message",
                    mid,
                    "message",
                    window(content),
                    0.0,
                    created,
                    f"session {sid} · message {mid}",
                    session_id=sid,
                    message_id=mid,
                    role=role,
                    name=name,
                    previous_id=before,
                    next_id=after,
                )
            )
    for h in hits:
        entry = chosen[(h.type, h.id)]
        h.fused, h.bm25_rank, h.vector_rank = entry["fused"], entry["bm25"], entry["vector"]
        h.cosine = None if entry["cosine"] is None else round(entry["cosine"], 4)
    return hits


def hit_brief(hit: Hit) -> dict[str, Any]:
    """A hit as another tool's model needs it (MCP recall): what it says, what it is, when, where
    from, how relevant; `weak` only when it is, and who spoke for a message. `hit_json` has the rest."""
    brief: dict[str, Any] = {
        "id": hit.id,
        "kind": hit.kind,
        "text": hit.text,
        "when": hit.when,
        "source": hit.source,
        "score": round(hit.score, 3),
    }
    if hit.type == "message":
        brief["role"] = hit.name or hit.role
    if hit.weak:
        brief["weak"] = True
    return brief


def hit_json(hit: Hit) -> dict[str, Any]:
    """A hit as JSON (`recall --json`, the MCP server): its own fields, not its memory's."""
    data = asdict(hit)
    data.pop("memory", None)  # the memory's own fields: `memchat memories show ID --json`
    data.pop("features", None)
    return data
