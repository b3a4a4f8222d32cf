"""Times as people type and read them: ages ("90d"), --since values, local time to the minute.

Stored timestamps are UTC ISO-8601 with a Z (memchat.db.utcnow); a person reads them in their
own time zone, to the minute.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from memchat.errors import UsageError
from memchat.patterns import pattern

_AGE = pattern(r"^\s*(\d{1,6})\s*(m|min|h|d|w|y)\s*$", re.IGNORECASE)
_UNITS = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}


def age(text: str) -> timedelta:
    """'90d', '12h', '2w', '30m', '1y' as a timedelta; a UsageError for anything else."""
    m = _AGE.match(text or "")
    if not m:
        raise UsageError(f"not an age: {text!r} (use e.g. 30m, 12h, 90d, 2w or 1y)")
    return timedelta(seconds=int(m.group(1)) * _UNITS[m.group(2).lower()])


def since(text: str, now: datetime | None = None) -> str:
    """A --since value as a stored timestamp: an age ('7d': seven days ago), 'today' (local
    midnight), or a local date or date-time (2026-11-01, 2026-11-01T09:00)."""
    now = now or datetime.now(UTC)
    value = (text or "").strip()
    parsed = None
    if not _AGE.match(value) and value.lower() != "today":
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise UsageError(f"not a time: {text!r} (use e.g. 7d, today, 2026-11-01 or 2026-11-01T09:00)") from None
    try:
        if parsed is not None:
            when = parsed if parsed.tzinfo else _local(parsed)  # a bare date or time is local
        elif value.lower() == "today":
            when = _local(now).replace(hour=0, minute=0, second=0, microsecond=0)
        else:
            when = now - age(value)
        return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    except (OverflowError, ValueError):  # before year 1 or after 9999 once in UTC ("800000d", "0001-01-01" west of it)
        raise UsageError(f"{text!r} is further back or ahead than a date can be (years 1 to 9999)") from None


def local_minute(stamp: str | None) -> str:
    """A stored timestamp in local time, to the minute ('2026-12-01 09:14'); '' for none."""
    if not stamp:
        return ""
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp[:16].replace("T", " ")
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return _local(when).strftime("%Y-%m-%d %H:%M")


def _local(when: datetime) -> datetime:
    """`when` in the local time zone; in UTC when the zone cannot be one (TZ=UTC+24 is a day off
    UTC, which Python's time zones refuse: every listing had ended in an internal error)."""
    try:
        return when.astimezone()
    except ValueError as exc:
        if "offset" not in str(exc):  # a date out of range: the caller says so
            raise
        return when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)
