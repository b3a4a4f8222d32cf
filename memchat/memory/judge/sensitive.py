"""Sensitive categories: which private subjects a text touches, so they travel only when needed.

The categories are the review queue's (memchat.memory.capture.extract.SENSITIVE): health, religion,
politics, sexual orientation and gender identity, finances, legal status, workplace
conflicts, precise location, identity documents, children. A memory or past message that
touches one goes into a call only when the message at hand is about the same category, and
clears a stricter relevance bar (memchat.memory.judge.inject). Detection is by words and by the
shapes of numbers (card, IBAN, social security, passport); it errs towards "sensitive".
"""

from __future__ import annotations

import re


def _words(listed: str) -> tuple[str, ...]:
    """Stems and phrases separated by "|"; a trailing space means a whole word ("ill ", "pay ")."""
    return tuple(listed.split("|"))


# Word stems (matched at the start of a word, case-insensitively) and phrases, per category.
_WORDS: dict[str, tuple[str, ...]] = {
    "health": _words(
        "health|illness|ill |sick|disease|diagnos|symptom|medicat|medicine|prescri|pill |pills|dose |"
        "doses|therapy|therapist|psychiatr|psychologist|depress|anxiety|anxious|panic|stress|burnout|"
        "insomnia|can't sleep|cannot sleep|can not sleep|sleepless|cancer|tumou|tumor|chemo|diabet|"
        "insulin|blood pressure|heart attack|a stroke|asthma|allerg|pregnan|miscarr|surgery|hospital|"
        "clinic|doctor|gp appointment|dentist|injur|broken leg|broken arm|migraine|chronic|adhd|autis|"
        "bipolar|schizo|eating disorder|anorexi|bulimi|addict|rehab|alcohol|sober |sobriety|relapse|"
        "antidepress|ssri |sertraline|fluoxetine|prozac|zoloft|lexapro|xanax|adderall|ritalin|metformin|"
        "ivf |fertility|hiv|vaccin|covid|mental health|mentally|mental illness|suicid|self-harm|disabilit|"
        "wheelchair|blood test|biopsy|pain |painful|painkiller"
    ),
    "religion": _words(
        "religio|church|mosque|synagogue|temple|pray|faith|god |jesus|allah|christian|catholic|protestant|"
        "muslim|islam|jewish|judais|hindu|buddhis|sikh|atheis|agnostic|bible|quran|koran|torah|ramadan|"
        "sabbath|baptis|spiritual"
    ),
    "politics": _words(
        "politic|vote|voting|voted|election|ballot|democrat|republican|labour party|tory|"
        "conservative party|liberal party|socialist|communis|fascis|left-wing|right-wing|protest|activis|"
        "campaign for|party member"
    ),
    "sexual_orientation": _words(
        "gay|lesbian|bisexual|queer|lgbt|transgender|trans woman|trans man|nonbinary|non-binary|"
        "sexual orientation|coming out|came out|homosexual|pansexual|asexual|gender identity|pride parade"
    ),
    "finances": _words(
        "salary|income|earn |paycheck|payslip|debt|i owe |we owe |credit line|line of credit|repossess|"
        "loan|mortgage|bank account|account number|credit card|debit card|iban|sort code|routing number|"
        "savings|bankrupt|tax return|taxes|investment|investing|invested|portfolio|net worth|overdraft|"
        "credit score|pension|inheritance|bitcoin|crypto wallet"
    ),
    "legal_status": _words(
        "lawsuit|sued|suing|arrest|convict|criminal record|probation|parole|court case|lawyer|attorney|"
        "immigration|asylum|deport|undocumented|visa status|green card|divorce|custody|restraining order|"
        "police record|jail|prison"
    ),
    "workplace_conflict": _words(
        "fired|harass|hr complaint|grievance|disciplinary|performance improvement plan|toxic boss|"
        "toxic manager|my boss yelled|bullied at work|laid off|layoff|dismissed|conflict with my manager|"
        "conflict with my boss|discriminat"
    ),
    "precise_location": _words(
        "home address|my address|i live at|i live on|street address|apartment number|flat number|postcode|"
        "post code|zip code|gps|coordinates|gate code|door code"
    ),
    "identity_document": _words(
        "passport|driver's licen|drivers licen|driving licen|national id|id card|identity card|"
        "social security|ssn|national insurance|visa|residence permit|work permit|travel document|"
        "documents|id |embassy|consulate|border control|birth certificate|tax id|tax number"
    ),
    "children": _words(
        "son |sons |daughter|kid |kids|child|toddler|baby|babies|newborn|kindergarten|nursery school|my boy|my girl"
    ),
}
# Broader cues that a *message* is about a category, on top of the words above: "what did we do as a
# family?" is about the children, "how do I unwind?" about health.
_ABOUT: dict[str, tuple[str, ...]] = {
    "health": _words(
        "wellbeing|well-being|destress|de-stress|unwind|relax|mood |feel better|body |sleep|exercise|"
        "fitness|diet |medical"
    ),
    "sexual_orientation": _words("identity |gender|partner|dating |relationship"),
    "children": _words("family|families|parent|mom |mum |dad |adopt|school "),
    "finances": _words("money |budget|afford|bank |pay |paid |earn|spend |owe "),
    "identity_document": _words("trip |trips |travel|abroad |flight|border |customs |id "),
    "precise_location": _words("address|where do i live|where i live|deliver|my home |my place "),
    "legal_status": _words("legal |law |laws |court "),
    "religion": _words("church|holiday|belief|believe"),
    "politics": _words("government|news |policy |policies "),
    # "work" alone is every "how does X work?": only the people and places of a job
    "workplace_conflict": _words(
        "job |jobs |boss|manager|colleague|coworker|co-worker|at work |my work |workplace|my team "
    ),
}
_PATTERNS: dict[str, re.Pattern[str]] = {
    "health": re.compile(r"\b\d+(?:\.\d+)?\s?(?:mg|mcg|µg|ml)\b", re.IGNORECASE),  # a dose
    "finances": re.compile(r"\b(?:\d[ -]?){13,19}\b|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}\b"),  # card, IBAN
    "identity_document": re.compile(r"\b\d{3}-\d{2}-\d{4}\b|\b[A-Z]{1,2}\d{6,8}\b"),  # US SSN, passport-like
}
_COMPILED = {
    category: re.compile(
        r"(?<![a-z])(?:" + "|".join(re.escape(w.strip()) + (r"\b" if w.endswith(" ") else "") for w in words) + ")",
        re.IGNORECASE,
    )
    for category, words in _WORDS.items()
}
_ABOUT_COMPILED = {
    category: re.compile(
        r"(?<![a-z])(?:" + "|".join(re.escape(w.strip()) + (r"\b" if w.endswith(" ") else "") for w in words) + ")",
        re.IGNORECASE,
    )
    for category, words in _ABOUT.items()
}
CATEGORIES = tuple(_WORDS)


def categories(text: str) -> frozenset[str]:
    """The sensitive categories a text touches (empty: none)."""
    found = {c for c, pattern in _COMPILED.items() if pattern.search(text)}
    found |= {c for c, pattern in _PATTERNS.items() if pattern.search(text)}
    return frozenset(found)


def topics(message: str) -> frozenset[str]:
    """The categories a message is about: the words above, and broader cues ("family", "my trip")."""
    return categories(message) | {c for c, pattern in _ABOUT_COMPILED.items() if pattern.search(message)}


def describe() -> str:
    """The categories in words, for the README and `memchat config`."""
    return ", ".join(c.replace("_", " ") for c in CATEGORIES)
