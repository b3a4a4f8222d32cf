"""Dates and periods named in a message: "in December 2023", "on May 23, 2023", "last week".

Absolute dates and months are read as they are; relative ones ("yesterday", "last month",
"3 days ago") from the message's own date. Recall ranks what happened in the period first
(memchat.memory.recall.relevance); nothing outside it is excluded, since people misremember dates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from memchat.patterns import pattern

MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        1,
    )
    for name in names
}
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_YEAR = r"((?:19|20)\d\d)"
_ISO = pattern(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b")
_DAY_MONTH_YEAR = pattern(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?,?\s+{_YEAR}\b", re.I)
_MONTH_DAY_YEAR = pattern(rf"\b{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}\b", re.I)
_MONTH_YEAR = pattern(rf"\b{_MONTH}\.?,?\s+(?:of\s+)?{_YEAR}\b", re.I)
_IN_MONTH = pattern(rf"\b(?:in|during|since|last|this)\s+{_MONTH}\b", re.I)
_YEAR_ONLY = pattern(rf"\b(?:in|during|since|of)\s+{_YEAR}\b", re.I)
_AGO = pattern(r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(day|week|month|year)s?\s+ago\b", re.I)
_RELATIVE = pattern(r"\b(yesterday|today|last\s+(?:week|weekend|month|year)|this\s+(?:week|month|year))\b", re.I)
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}


@dataclass(frozen=True)
class Period:
    start: date
    end: date  # inclusive

    def bounds(self) -> tuple[str, str]:
        """As stored timestamps (ISO-8601, sortable as text): the first and last moment of the period."""
        return f"{self.start.isoformat()}T00:00:00", f"{self.end.isoformat()}T23:59:59.999999Z"

    def contains(self, timestamp: str | None) -> bool:
        if not timestamp:
            return False
        day = timestamp[:10]
        return self.start.isoformat() <= day <= self.end.isoformat()


def _month_end(year: int, month: int) -> date:
    first_next = date(year + (month == 12), month % 12 + 1, 1)
    return first_next - timedelta(days=1)


def _safe(fn: object, *args: int) -> date | None:
    try:
        return fn(*args)  # type: ignore[operator]
    except (ValueError, OverflowError):
        return None


def period_in(text: str, today: date | None = None) -> Period | None:
    """The first date or period the text names, or None. `today` anchors relative expressions."""
    today = today or datetime.now(UTC).date()
    if m := _ISO.search(text):
        if day := _safe(date, int(m.group(1)), int(m.group(2)), int(m.group(3))):
            return Period(day, day)
    if m := _DAY_MONTH_YEAR.search(text):
        if day := _safe(date, int(m.group(3)), _month(m.group(2)), int(m.group(1))):
            return Period(day, day)
    if m := _MONTH_DAY_YEAR.search(text):
        if day := _safe(date, int(m.group(3)), _month(m.group(1)), int(m.group(2))):
            return Period(day, day)
    if m := _MONTH_YEAR.search(text):
        year, month = int(m.group(2)), _month(m.group(1))
        return Period(date(year, month, 1), _month_end(year, month))
    if m := _RELATIVE.search(text):
        return _relative(" ".join(m.group(1).lower().split()), today)
    if m := _AGO.search(text):
        n = int(m.group(1)) if m.group(1).isdigit() else _NUMBERS[m.group(1).lower()]
        days = {"day": 1, "week": 7, "month": 30, "year": 365}[m.group(2).lower()] * n
        centre = today - timedelta(days=days)
        slack = max(1, days // 7)  # "a year ago" is roughly, "3 days ago" nearly exactly
        return Period(centre - timedelta(days=slack), centre + timedelta(days=slack))
    if m := _IN_MONTH.search(text):
        month = _month(m.group(1))
        year = today.year if month <= today.month else today.year - 1  # the most recent such month
        return Period(date(year, month, 1), _month_end(year, month))
    if m := _YEAR_ONLY.search(text):
        year = int(m.group(1))
        return Period(date(year, 1, 1), date(year, 12, 31))
    return None


_DAY_MONTH = pattern(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?!\.?,?\s+(?:19|20)\d\d)", re.I)
_MONTH_DAY = pattern(rf"\b{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!,?\s+(?:19|20)\d\d)(?!\s*:)", re.I)


# Days of one month told as a span: "from 18 to 28 December 2026", "3rd-7th May", "between 1 and 4 June"
_DAY_RANGE = pattern(
    rf"\b(?:from\s+|between\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s*(?:to|until|till|and|[–-])\s*\d{{1,2}}(?:st|nd|rd|th)?"
    rf"\s+(?:of\s+)?{_MONTH}\b\.?(?:,?\s+((?:19|20)\d\d)\b)?",
    re.IGNORECASE,
)


# ... or across two months: "on annual leave from 21 December to 3 January", "Dec 28 - Jan 4"
_SPAN_ACROSS = pattern(
    rf"\b(?:from\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?\s*(?:to|until|till|[–-])\s*"
    rf"(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b\.?(?:,?\s+((?:19|20)\d\d)\b)?"
    rf"|\b(?:from\s+)?{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\s*(?:to|until|till|[–-])\s*"
    rf"{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+((?:19|20)\d\d)\b)?",
    re.IGNORECASE,
)


def _span_across(text: str, kept: date) -> tuple[date, date] | None:
    """The first and last day of a span over two months (_SPAN_ACROSS): the next such span from the
    day the memory was kept on (or in the year it names, its last day's)."""
    m = _SPAN_ACROSS.search(text)
    if m is None:
        return None
    if m.group(1):
        d1, m1, d2, m2, year = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)
    else:
        m1, d1, m2, d2, year = m.group(6), m.group(7), m.group(8), m.group(9), m.group(10)
    first_month, last_month = _month(m1), _month(m2)
    for end_year in (int(year),) if year else (kept.year, kept.year + 1):
        start_year = end_year - 1 if last_month < first_month else end_year
        start, end = _safe(date, start_year, first_month, int(d1)), _safe(date, end_year, last_month, int(d2))
        if start is not None and end is not None and start <= end and (year or end >= kept):
            return start, end
    return None


def span_start(text: str, stated: str | None) -> date | None:
    """The first day of a span of days a memory names in one month ("staying with us from 18 to 28
    December 2026": the 18th) or over two (_SPAN_ACROSS), or None. The memory's day (event_day) is
    the span's last: a plan until it is over."""
    kept = message_date(stated)
    if kept is not None and (across := _span_across(text, kept)) is not None:
        return across[0]
    if kept is None or (m := _DAY_RANGE.search(text)) is None:
        return None
    month, day = _month(m.group(2)), int(m.group(1))
    for year in (int(m.group(3)),) if m.group(3) else (kept.year, kept.year + 1):
        when = _safe(date, year, month, day)
        if when is not None and (m.group(3) or when >= kept):
            return when
    return None


def day_named(text: str, stated: date) -> date | None:
    """The one day a memory names ("on May 9", "2027-03-12", "12th of March 2027"), or None.

    A day without a year is the next one on or after `stated` (the day the memory was kept: a
    plan is told before it happens), and so are the days ahead told by their distance from it
    ("I'm flying to Lisbon tomorrow", "the op is in 3 days", "tonight"). A month or a year alone
    names no day.
    """
    if (feast := _HOLIDAY_IN_A_YEAR.search(text)) is not None:
        return _holiday(feast.group("name"), feast.group("eve"), int(feast.group("year")))
    if (across := _span_across(text, stated)) is not None:
        return across[1]  # a span's last day, as for one within a month
    if (period := period_in(text, stated)) is not None:
        return period.start if period.start == period.end and not _RELATIVE.search(text) else None
    # of several days named without a year, the soonest to come ("complained on 28 November; a
    # meeting about it on Thursday 10 December", told on 1 December: the meeting)
    ahead = [
        when
        for form, day_group, month_group in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1))
        for m in form.finditer(text)
        for year in (stated.year, stated.year + 1)
        if (when := _safe(date, year, _month(m.group(month_group)), int(m.group(day_group)))) is not None
        and when >= stated
    ]
    if ahead:
        return min(ahead)
    if m := _NEAR_DAY.search(text):  # after a day named outright: "on May 9, back in two weeks" is May 9
        return stated + timedelta(days=_days_from_then(m))
    if m := _WEEKDAY.search(text):
        # "On Tuesday I had my first driving lesson": the Tuesday before it was told (or that day);
        # "on Friday I'm flying to Rome", "next Monday": the one after.
        weekday = _WEEKDAYS.index(m.group(2).lower())
        if m.group(1).lower() == "last" or _ASKS_BACK.search(text):
            return stated - timedelta(days=(stated.weekday() - weekday) % 7)
        if m.group(1).lower() == "this":
            return stated + timedelta(days=(weekday - stated.weekday()) % 7)
        return stated + timedelta(days=(weekday - stated.weekday() - 1) % 7 + 1)
    return None


# A holiday of a year named ("Madeira for the Easter holidays in 2027", "Christmas 2026 at Mum's", "New
# Year's Eve 2026"): that day. Without a year it may be every year's ("I love Christmas"): no day.
_HOLIDAY_IN_A_YEAR = pattern(
    r"\b(?P<name>easter|christmas|xmas|new\s+year)(?:['’]s)?(?:\s+(?P<eve>eve|day))?"
    r"(?:\s+(?:holidays?|break|weekend|hols))?(?:\s+(?:in|of))?\s+(?P<year>20\d\d)\b",
    re.IGNORECASE,
)


def _holiday(name: str, eve: str | None, year: int) -> date:
    """The day of a holiday in a year: Easter Sunday, Christmas Day (or Eve), New Year's Day (or Eve)."""
    name = name.lower()
    if name == "easter":
        return _easter(year)
    if name.startswith("new"):
        return date(year, 12, 31) if eve and eve.lower() == "eve" else date(year, 1, 1)
    return date(year, 12, 24) if eve and eve.lower() == "eve" else date(year, 12, 25)


# A day ahead told by its distance from the day it was said: "tomorrow", "the day after tomorrow",
# "in 3 days", "in two weeks' time", "tonight" (not "in the morning": a time of day, any day). Not
# "today" nor "yesterday": what they tell often holds from then on ("I got a puppy today, she's
# called Luna", "I found out yesterday I'm allergic to kiwi") and stays a fact.
_NEAR_DAY = pattern(
    r"\b(?:(?P<after>the\s+day\s+after\s+tomorrow)|(?P<tomorrow>tomorrow)|(?P<today>tonight)|"
    r"in\s+(?P<n>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?P<unit>day|week)s?(?:['’]?\s+time)?)\b",
    re.IGNORECASE,
)


def _days_from_then(m: re.Match[str]) -> int:
    if m.group("after"):
        return 2
    if m.group("tomorrow"):
        return 1
    if m.group("today"):
        return 0
    n = int(m.group("n")) if m.group("n").isdigit() else _NUMBERS[m.group("n").lower()]
    return n * (7 if m.group("unit").lower() == "week" else 1)


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# One weekday named as a day: "on Tuesday", "this Friday", "next Monday", "last Saturday"; not a
# habit ("on Tuesdays", "on Tuesday evenings", "on the first Thursday of the month").
_WEEKDAY = pattern(
    rf"\b(on|this|next|last|coming)\s+({'|'.join(_WEEKDAYS)})\b(?!s\b)(?!\s+(?:mornings|afternoons|evenings|nights)\b)",
    re.IGNORECASE,
)


# A date that comes round again, a birthday's too: "My date of birth is 1990-04-02" is no event of 1990.
_RECURRING = pattern(
    r"\b(every|each|annual(?:ly)?(?!\s+leave)|yearly|weekly|monthly|daily|"
    r"date\s+of\s+birth|birth\s*date|dob|(?<!be\s)born|"
    r"turned\s+(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[a-z]+teen|[a-z]+ty))\b",
    # not "due to be born on 2027-03-01": a plan; "Lucía turned two on 9 September" tells her birthday
    re.I,
)
# A birthday or an anniversary comes round every year ("Babcia's birthday is 2 December"), but one
# with its year is that year's ("flying to Malaga from 9 to 16 January 2027 for my dad's birthday",
# "Mum turns 60 on 17 April 2027"): a plan like any other.
_CELEBRATION = pattern(r"\b(?:birthdays?|anniversar(?:y|ies))\b", re.I)
_A_YEAR = pattern(r"\b((?:19|20)\d\d)\b")


def event_day(text: str, stated: str | None) -> date | None:
    """The day of a one-off event or plan a memory states ("we went to Rome on 2026-06-10", "flying
    to Oslo on May 9"), before or after the day the memory was kept; None for a recurring one
    (birthdays, "every Monday")."""
    kept = message_date(stated)
    if kept is None or _RECURRING.search(text):
        return None
    if _CELEBRATION.search(text) and not any(int(y) >= kept.year for y in _A_YEAR.findall(text)):
        return None
    return day_named(text, kept)


_SINCE = pattern(r"\bsince\b", re.IGNORECASE)


def one_off_day(text: str, stated: str | None) -> date | None:
    """The day of a one-off event or plan a memory states (event_day), told before or after it;
    None for what holds since a day ("I've been vegetarian since 2019-01-01" is true now)."""
    return None if _SINCE.search(text) else event_day(text, stated)


def planned_day(text: str, stated: str | None) -> date | None:
    """The day of a one-off plan a memory states ("flying to Oslo on May 9"), or None: a day named
    on or after the day the memory was kept, not a recurring one (birthdays, "every Monday")."""
    day = event_day(text, stated)
    kept = message_date(stated)
    return day if day is not None and kept is not None and day >= kept else None


def message_date(timestamp: str | None) -> date | None:
    """The day a stored timestamp falls on (relative periods in a message count from it)."""
    try:
        return date.fromisoformat((timestamp or "")[:10])
    except ValueError:
        return None


def _month(name: str) -> int:
    key = name.lower().rstrip(".")
    return MONTHS.get(key) or MONTHS[key[:3]]


def _relative(phrase: str, today: date) -> Period:
    if phrase == "today":
        return Period(today, today)
    if phrase == "yesterday":
        return Period(today - timedelta(days=1), today - timedelta(days=1))
    if phrase in ("last week", "last weekend"):
        return Period(today - timedelta(days=today.weekday() + 7), today - timedelta(days=today.weekday() + 1))
    if phrase == "this week":
        return Period(today - timedelta(days=today.weekday()), today)
    if phrase == "last month":
        year, month = (today.year, today.month - 1) if today.month > 1 else (today.year - 1, 12)
        return Period(date(year, month, 1), _month_end(year, month))
    if phrase == "this month":
        return Period(date(today.year, today.month, 1), today)
    if phrase == "last year":
        return Period(date(today.year - 1, 1, 1), date(today.year - 1, 12, 31))
    return Period(date(today.year, 1, 1), today)  # this year


# --- the period a request looks ahead to ---------------------------------------------------------

_COMING = pattern(
    r"\b(the\s+day\s+after\s+tomorrow|(?:a|one)\s+week\s+from\s+tomorrow|(?<!from\s)tomorrow|(?:this|next)\s+(?:week|weekend|month|year)|(?:the\s+)?end\s+of\s+(?:this|next)\s+month|"
    # a week or a fortnight on ("what's on a week from today", "in a fortnight"), and the weekend said alone
    r"(?:a|one)\s+week\s+(?:from\s+)?(?:today|now)|in\s+a\s+week(?:['’]s\s+time)?|this\s+time\s+next\s+week|"
    r"(?:in\s+)?a\s+fortnight(?:['’]s\s+time|\s+(?:today|from\s+(?:today|now)))?|in\s+two\s+weeks(?:['’]\s+time)?|"
    r"the\s+weekend(?!\s+(?:of|after|before)\b))\b",
    re.I,
)
_SEASON = pattern(r"\b(?:this|next|coming)?\s*(winter|spring|summer|autumn|fall)\b", re.I)
_FESTIVE = pattern(r"\b(christmas|xmas|festive|the\s+holidays|new\s+year(?:'s)?)\b", re.I)
_EASTER = pattern(r"\beaster\b", re.I)
# A month named as ahead ("my February trip", "in March", "next June"): capitalised as a name is, not
# after "last", nor possessive ("June's party" is a person's); "May" only where the verb cannot be
# ("in May", "next May"). A person called April or June is still read as the month. People type in
# lowercase too ("what's booked in for december"): a month's whole name, or a short one that is no
# word ("dec", "sept"), in any case; "march", "may", "jan" and the like only after a word that makes
# them a month ("in march", "by jan"), as "march on" or "I may" are not.
_AHEAD_MONTH = pattern(
    r"(?<!\blast )(?<!\bLast )\b(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b(?!['’]s)"
    r"|(?<!\blast )(?<!\bLast )\b((?i:january|february|april|june|july|august|september|october|november|december|"
    r"feb|sept|oct|nov|dec))\b(?!['’]s)"
    r"|\b(?:in|this|next|early|late|mid-?|by|until|till|of|for|from|before|after)\s+(May|(?i:may|march|jan|mar|apr|jun|jul|aug|sep))\b"
)
# A day of a month ("13th jan", "the 13th of January", "January 13"), the next to come
_DAY_OF_A_MONTH = pattern(
    r"(?P<weekend>\bweekend\s+of\s+(?:the\s+)?)?(?:\b(?P<d1>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b"
    r"|\b(?P<m2>jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(?P<d2>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?\b(?![\d:]))"
    r"(?:,?\s+(?P<y>(?:19|20)\d\d)\b)?",
    re.IGNORECASE,
)


def _day_of_a_month(m: re.Match[str], today: date) -> date | None:
    """The day _DAY_OF_A_MONTH found, the next to come (or in the year it says), if it is ahead."""
    month, day = _month(m.group("m1") or m.group("m2")), int(m.group("d1") or m.group("d2"))
    for year in (int(m.group("y")),) if m.group("y") else (today.year, today.year + 1):
        if day <= _month_end(year, month).day and date(year, month, day) >= today:
            return date(year, month, day)
    return None


_SEASONS = {"winter": 12, "spring": 3, "summer": 6, "autumn": 9, "fall": 9}  # first month; three months each
_ASKS_BACK = pattern(r"\b(did|was|were|went|had|ago)\b", re.I)  # "what did I do in May?" looks back


def coming_period(text: str, today: date) -> Period | None:
    """The period ahead a request names ("next month", "my February trip", "this winter", "over the
    holidays", "at Easter"), from `today` on; None when it names none (or only the past: "last June").
    What memory holds for that period (a trip, a deadline) is what such a request needs. A part of it
    said ("at the end of next month", "early December", "mid-winter") is that third of it: the gig on
    the 28th, not the on-call week that starts on the 9th."""
    period = _whole_period(text, today)
    week = _WEEK_OF.search(text) if period is not None else None
    if period is not None and week is not None and (period.end - period.start).days >= PART_FROM_DAYS:
        # "the first week of december": its days 1-7 (or the month's last seven), from today on
        nth = _NTH_WEEK[week.group(1).lower()]
        first = period.end.replace(day=1) if period.end.day > 7 else period.start
        start = first + timedelta(days=7 * nth) if nth >= 0 else period.end - timedelta(days=6)
        end = min(start + timedelta(days=6), period.end)
        return Period(max(start, today), end) if end >= today else period
    part = _PART_OF.search(text) if period is not None else None
    if period is None or part is None or (period.end - period.start).days < PART_FROM_DAYS:
        return period
    third = (period.end - period.start) / 3
    which = (part.group(1) or part.group(2)).lower()
    if which in ("end", "late"):
        return Period(period.end - third, period.end)
    if which in ("middle", "mid"):
        return Period(period.start + third, period.end - third)
    return Period(period.start, period.start + third)


_WEEK_OF = pattern(r"\b(first|second|third|fourth|last|1st|2nd|3rd|4th)\s+week\s+(?:of|in)\b", re.IGNORECASE)
_NTH_WEEK = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3, "last": -1}
PART_FROM_DAYS = 20  # a period this long or longer has a start, a middle and an end worth telling apart
# a part of the period a request names: "at the end of next month", "early December", "mid-winter"
_PART_OF = pattern(
    r"\b(?:the\s+)?(end|start|beginning|middle)\s+of\s+(?:the\s+)?(?:next|this|coming|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|"
    r"spring|summer|autumn|fall|winter|month|year)|\b(early|late|mid)[-\s]+(?:next\s+|this\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
    r"oct|nov|dec|spring|summer|autumn|fall|winter|month)",
    re.IGNORECASE,
)


def _holidays(text: str, today: date) -> Period | None:
    """The festive season or Easter a text names, the next to come."""
    if _FESTIVE.search(text):
        year = today.year if today.month >= 2 else today.year - 1  # in early January, the one just gone by
        start, end = date(year, 12, 15), date(year + 1, 1, 6)
        return Period(max(start, today), end) if end >= today else Period(date(year + 1, 12, 15), date(year + 2, 1, 6))
    if _EASTER.search(text):
        for year in (today.year, today.year + 1):
            sunday = _easter(year)
            if sunday + timedelta(days=8) >= today:
                return Period(max(sunday - timedelta(days=9), today), sunday + timedelta(days=8))
    return None


def _whole_period(text: str, today: date) -> Period | None:
    if _ASKS_BACK.search(text):
        return None
    if not names_a_day_of_the_month(text) and (day := _weekday_ahead(text, today)):
        return Period(day, day)  # ("saturday the 19th" is the 19th)
    if m := _COMING.search(text):
        return _coming(" ".join(m.group(1).lower().split()), today)
    if holiday := _holidays(text, today):
        return holiday
    if (m := _DAY_OF_A_MONTH.search(text)) and (day := _day_of_a_month(m, today)):
        if m.group("weekend"):  # "is the weekend of 5 december free?"
            saturday = day - timedelta(days=day.weekday()) + timedelta(days=5)
            return Period(max(today, saturday - timedelta(days=1)), saturday + timedelta(days=1))
        return Period(day, day)  # "what's on wednesday 13th jan": that day, not all January
    if m := _AHEAD_MONTH.search(text):
        month = _month(next(g for g in m.groups() if g))
        year = today.year if month >= today.month else today.year + 1
        return Period(max(date(year, month, 1), today), _month_end(year, month))
    if m := _THE_NTH.search(text):
        return _nth(int(m.group("n")), bool(m.group("weekend")), today)
    if m := _SEASON.search(text):
        first = _SEASONS[m.group(1).lower()]
        for year in (today.year - 1, today.year, today.year + 1):
            start = date(year, first, 1)
            end_month = (first + 1) % 12 + 1
            end = _month_end(year + (end_month < first), end_month)
            if end >= today:
                return Period(max(start, today), end)
    return None


# A day of the month named alone, the next to come ("is the 19th free?", "the weekend of the 19th"),
# not a floor, an anniversary or a birthday ("the 3rd floor", "our 10th", "my 40th")
_THE_NTH = pattern(
    r"\b(?:(?P<weekend>weekend\s+of)\s+)?the\s+(?P<n>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)\b"
    r"(?!\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)"
    r"(?!\s+(?:floor|century|birthday|anniversary|time|place|row|percentile|minute|round|edition|generation|grade|year)\b)",
    re.IGNORECASE,
)


def names_a_day_of_the_month(text: str) -> bool:
    """Whether a request names a day by its date ("the 20th", "13th jan", "January 13"), not by its
    weekday or its distance from today."""
    return _DAY_OF_A_MONTH.search(text) is not None or _THE_NTH.search(text) is not None


def _nth(n: int, weekend: bool, today: date) -> Period | None:
    """The next day numbered `n` from today (this month's, or the next month that has it), or the
    weekend of its week."""
    year, month = today.year, today.month
    for _ in range(3):
        if n <= _month_end(year, month).day and date(year, month, n) >= today:
            day = date(year, month, n)
            if not weekend:
                return Period(day, day)
            saturday = day - timedelta(days=day.weekday()) + timedelta(days=5)
            return Period(max(today, saturday - timedelta(days=1)), saturday + timedelta(days=1))
        year, month = (year, month + 1) if month < 12 else (year + 1, 1)
    return None


# One day of the week ahead, asked about: "tuesday next week", "next week on thursday", "this friday",
# "on saturday", "what's on thursday?", "am I free tuesday morning?"; not a habit ("on tuesdays", "my
# thursday evenings") nor one gone ("last friday").
_DAY_NAMES = "|".join(_WEEKDAYS)
_WEEKDAY_AHEAD = pattern(
    rf"(?<!\blast\s)\b(?:(this|next|coming|on)\s+)?({_DAY_NAMES})\b(?!s\b|['’]s\b)"
    r"(?!\s+(?:mornings|afternoons|evenings|nights)\b)(?:\s+(?:morning|afternoon|evening|night|lunchtime))?"
    r"(?:,?\s+(next|this)\s+week\b|\s+(week)\b)?"
    rf"|\b(next|this)\s+week\s+on\s+({_DAY_NAMES})\b(?!s\b)"  # ("tuesday week": a week from tuesday)
    rf"|\ba\s+week\s+(?:on|from)\s+({_DAY_NAMES})\b(?!s\b)",  # "a week on friday": as "friday week"
    re.IGNORECASE,
)


def _weekday_ahead(text: str, today: date) -> date | None:
    """The one day of the week a request asks about ahead (_WEEKDAY_AHEAD): in the week it names,
    else the next such day from today on ("next tuesday" as memory reads it: the first after today)."""
    found = list(_WEEKDAY_AHEAD.finditer(text))
    if len(found) != 1:  # "monday or tuesday", "from friday to sunday": no one day
        return None
    m = found[0]
    if m.group(7):  # "a week on friday": the friday a week after the coming one
        return today + timedelta(days=(_WEEKDAYS.index(m.group(7).lower()) - today.weekday() - 1) % 7 + 8)
    lead, name, week = (m.group(1), m.group(2), m.group(3)) if m.group(2) else (None, m.group(6), m.group(5))
    weekday = _WEEKDAYS.index(name.lower())
    if m.group(4):  # "tuesday week": the tuesday a week after the coming one
        return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 8)
    if week:
        monday = today - timedelta(days=today.weekday()) + timedelta(days=7 if week.lower() == "next" else 0)
        day = monday + timedelta(days=weekday)
        return day if day >= today else None
    if lead and lead.lower() == "next":
        return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    return today + timedelta(days=(weekday - today.weekday()) % 7)


def _coming(phrase: str, today: date) -> Period:
    monday = today - timedelta(days=today.weekday())
    if (days := _days_ahead(phrase)) is not None:
        return Period(today + timedelta(days=days), today + timedelta(days=days))
    if phrase == "this week":
        return Period(today, monday + timedelta(days=6))
    if phrase == "next week":
        return Period(monday + timedelta(days=7), monday + timedelta(days=13))
    if phrase in ("this weekend", "the weekend"):
        return Period(max(today, monday + timedelta(days=5)), monday + timedelta(days=6))
    if phrase == "next weekend":
        return Period(monday + timedelta(days=12), monday + timedelta(days=13))
    if phrase.endswith("this month"):
        return Period(today, _month_end(today.year, today.month))
    if phrase.endswith("next month"):
        year, month = (today.year, today.month + 1) if today.month < 12 else (today.year + 1, 1)
        return Period(date(year, month, 1), _month_end(year, month))
    if phrase == "this year":
        return Period(today, date(today.year, 12, 31))
    return Period(date(today.year + 1, 1, 1), date(today.year + 1, 12, 31))  # next year


def _days_ahead(phrase: str) -> int | None:
    """A day _COMING told by its distance from today: tomorrow, the day after, a week, a fortnight."""
    if phrase == "tomorrow":
        return 1
    if phrase.startswith("the day after"):
        return 2
    if phrase.endswith("from tomorrow"):
        return 8  # a week from tomorrow
    if "fortnight" in phrase or "two weeks" in phrase:
        return 14
    if "week" in phrase and phrase not in ("this week", "next week", "this weekend", "next weekend", "the weekend"):
        return 7  # "a week from today", "this time next week"
    return None


def _easter(year: int) -> date:
    """Easter Sunday (the Gregorian computus, Meeus/Jones/Butcher)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    ll = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * ll) // 451
    month, day = divmod(h + ll - 7 * m + 114, 31)
    return date(year, month, day + 1)
