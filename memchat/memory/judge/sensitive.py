"""Sensitive categories: which private subjects a text touches, so they travel only when needed.

The categories are the review queue's (memchat.memory.capture.extract.SENSITIVE): health, religion,
politics, sexual orientation and gender identity, finances, legal status, workplace
conflicts, precise location, identity documents, children. A memory or past message that
touches one goes into a call only when the message at hand is about the same category, and
clears a stricter relevance bar (memchat.memory.judge.inject). Detection is by words and by the
shapes of numbers (card, IBAN, social security, passport); it errs towards "sensitive".
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from memchat.patterns import pattern

# The word lists are data (sensitive_words.json, with what an entry means); their precision is
# measured on labelled examples by tests/test_word_lists.py.
WORD_LISTS = Path(__file__).with_name("sensitive_words.json")
_LISTS = json.loads(WORD_LISTS.read_text(encoding="utf-8"))
_WORDS: dict[str, list[str]] = _LISTS["memory_words"]
_ABOUT: dict[str, list[str]] = _LISTS["message_cues"]
_STREET = (
    r"(?:Street|St|Road|Rd|Lane|Ln|Avenue|Ave|Close|Drive|Way|Crescent|Place|Terrace|Court|Gardens|Grove|"
    r"Square|Row|Mews|Boulevard|Blvd|Parade|Walk)\b"
)
_PATTERNS: dict[str, re.Pattern[str]] = {
    "health": pattern(r"\b\d+(?:\.\d+)?\s?(?:mg|mcg|µg|ml)\b", re.IGNORECASE),  # a dose
    "finances": pattern(r"\b(?:\d[ -]?){13,19}\b|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}\b"),  # card, IBAN
    "identity_document": pattern(r"\b\d{3}-\d{2}-\d{4}\b|\b[A-Z]{1,2}\d{6,8}\b"),  # US SSN, passport-like
    # A street address ("22 Mill Street", "14a Elm Rd", "we live on Beech Lane"), a UK postcode, or the
    # code of a door, gate or alarm ("the code for the side gate is 7788"): never on the card. By shape,
    # not by meaning: "I live in Leith, Edinburgh" is as near an address's examples as "93 Leith Walk".
    "precise_location": pattern(
        rf"\b\d{{1,4}}[A-Za-z]?,?\s+(?:\p{{Lu}}[\w'’-]*\s+){{1,3}}{_STREET}"
        rf"|\b(?i:(?:live[sd]?|living|flat|house|home|apartment)\b[^.,\n]{{0,30}}?\bon)\s+(?:\p{{Lu}}[\w'’-]*\s+){{1,3}}{_STREET}"
        r"|\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b"
        r"|\b(?i:(?:door|gate|alarm|entry|entrance|building|keypad|garage|intercom|opener)\s+(?:code|combination|pin)\b"
        r"[^.\n]{0,20}\d)"
        r"|\b(?i:code\s+(?:to|for)\s+get(?:ting)?\s+in)"
        r"|\b(?i:code\s+(?:for|to|of)\s+(?:the\s+|our\s+|my\s+)?(?:[\w-]+\s+)?(?:door|gate|building|garage|alarm)\b[^.\d\n]{0,15}\d)"
    ),
}
# A whole word ends there, and is not the start of a model's name: "ID" is a document, "a VW ID.3" a car,
# "my staff ID-20417" a document again (a model has one digit, a number more).
_WHOLE = r"\b(?![.-]\d(?!\d))"


def _any_of(words: list[str]) -> re.Pattern[str]:
    return pattern(
        r"(?<![a-z])(?:" + "|".join(re.escape(w.strip()) + (_WHOLE if w.endswith(" ") else "") for w in words) + ")",
        re.IGNORECASE,
    )


_COMPILED = {category: _any_of(words) for category, words in _WORDS.items()}
_ABOUT_COMPILED = {category: _any_of(words) for category, words in _ABOUT.items()}
CATEGORIES = tuple(_WORDS)


def _alternatives(words: list[str]) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"[\s-]+") for w in sorted(words, key=len, reverse=True))


# Someone's job or workplace in health care is their work, not anyone's health: "I'm a nurse on night
# shifts at St James's hospital", "Owen works as a paramedic", "Priya is a GP at the health centre".
# A statement of one is a role after "I'm a", "works as a", "is a"..., or a workplace after "work at",
# "shifts at", "a placement on"...; the health words inside it do not count ("I'm a nurse and I have
# asthma" still touches health; so do "my doctor says" and "she's in hospital"). Nor do those of the
# study of it ("Aisha studies medicine in Sheffield"). Measured on labelled examples in tests/word_lists.py.
_CARE = _LISTS["care_work"]
_WORKPLACE = rf"(?:an?\s+|the\s+)?(?:[\w'’&.-]+\s+){{0,3}}?(?:{_alternatives(_CARE['workplaces'])})\b"
CARE_WORK = pattern(
    r"\b(?:i'm|i\s+am|i've\s+been|he's|she's|they're|is|was|are|were|became|as|be|"
    r"(?:work(?:s|ed|ing)?|job|trained|training|qualified|retrained|employed)\s+as)\s+"
    rf"(?:an?\s+|the\s+)(?:[\w-]+\s+){{0,2}}?(?:{_alternatives(_CARE['roles'])})s?\b"
    rf"(?:\s+(?:at|in|for|on)\s+{_WORKPLACE})?"
    r"|\b(?:work(?:s|ed|ing)?|job|jobs|shifts?|placement|rotation|volunteer(?:s|ed|ing)?|employed|based)\s+"
    r"(?:(?:nights|days|weekends|evenings|part[\s-]time|full[\s-]time)\s+)?"
    rf"(?:at|in|for|on)\s+{_WORKPLACE}"
    # the study or teaching of it: "Aisha studies medicine", "a degree in nursing", "a nursing student"
    r"|\b(?:stud(?:y|ies|ying|ied)|read(?:s|ing)?|teach(?:es|ing)?|lectur(?:es|ing|er)\s+in|"
    r"(?:degree|phd|masters|doctorate|diploma|course|bsc|msc|ba|ma)\s+in)\s+"
    rf"(?:{_alternatives(_CARE['subjects'])})\b"
    rf"|\b(?:{_alternatives(_CARE['subjects'])}|medical|dental|nursing|pharmacy|physio|vet)\s+(?:students?|school|degree)\b"
    r"|\bstudent\s+(?:nurse|midwife|paramedic|doctor)s?\b",
    re.IGNORECASE,
)


# A number that identifies an account, a card or a person: a card or IBAN, a passport-like or
# social security number, a UK National Insurance number or sort code, any run of six digits or
# more but an amount ("£425000"). What holds one is sent when a request asks for it (search finds
# it by its words: "what's my sort code?"), never because a request is about the same subject
# ("should I pay off my credit card first?" needs the debt, not the account number).
_IDENTIFIER = pattern(
    r"\b\d{2}-\d{2}-\d{2}\b|\b[A-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D]\b|(?<![£$€])\b\d(?: ?\d){5,}\b"
    # a car's plate ("reg YK19 ABC", "plate 7ABC123"; a UK one as it is written), and a code that
    # opens something ("the gate code is 4471", "PIN 0913"): they go when asked for, never on the card
    r"|\b(?i:reg(?:istration)?|(?:number|licen[cs]e)\s+plate|plate)(?i:\s+(?:number|no\.?))?(?:\s+is)?[:\s]+"
    r"(?=[A-Z0-9 -]*\d)[A-Z0-9]{2,4}[\s-]?[A-Z0-9]{2,4}\b"
    r"|\b[A-Z]{2}\d{2}\s?[A-Z]{3}\b"
    r"|\b(?i:code|pin|passcode|password|combination|combo)(?:\s+(?:is|was|=))?[:\s]+\d{3,}\b"
    # a policy's, a membership's or an account's number said as one ("policy number 41-8827-3305",
    # "bond reference 41/8827/3305", "Booking reference XKP4471", "Airpoints number is AP77314")
    r"|\b(?i:policy|membership|member|customer|account|reference|ref|booking|airpoints|loyalty|frequent\s+flyer)"
    r"(?i:\s+(?:number|no\.?|#))?(?i:\s+is)?[:\s]+(?=[A-Za-z0-9/–-]*\d[A-Za-z0-9/–-]*\d)[A-Za-z0-9][A-Za-z0-9/–-]{4,}"
    # a car's VIN or rego ("VIN WVWZZZAUZJW123456", "rego is KJH 442", "The Golf's rego is KJH442")
    r"|\b(?i:vin)\b(?i:\s+(?:number|no\.?))?(?i:\s+is)?[:\s]+[A-HJ-NPR-Za-hj-npr-z0-9]{11,17}\b"
    r"|\b(?i:rego|plate)(?i:\s+(?:number|no\.?))?(?i:\s+is)?[:\s]+(?!(?i:due|paid|up|out|on|in|for|until|expires?)\b)"
    r"(?=[A-Za-z0-9]{0,4}\s?[A-Za-z0-9]{0,3}\d)[A-Za-z0-9]{2,4}\s?[A-Za-z0-9]{1,4}\b"
    # a password said ("wifi password is kereru2024")
    r"|\b(?i:password|passcode|passphrase)(?i:\s+(?:is|was|=))?[:\s]+(?=\S*\d)\S{4,}"
)


def holds_identifier(text: str) -> bool:
    """Whether the text holds a number that identifies an account, a card or a person."""
    return bool(
        _IDENTIFIER.search(text) or _PATTERNS["finances"].search(text) or _PATTERNS["identity_document"].search(text)
    )


# the user in someone's care: seeing them, sessions with them, "my counsellor"
_SEES_A_CARER = pattern(
    r"\b(?:I['’]m\s+seeing|I\s+see|I['’]ve\s+been\s+seeing|I\s+go\s+to|I\s+talk\s+to|sessions?\s+with|"
    r"(?:my|our)\s+(?:counsell?or|therapist|psychologist|psychiatrist|psychotherapist))\b",
    re.IGNORECASE,
)
# a place of worship's hall is a venue any group hires (Cubs, a choir, a yoga class)
_A_HALL = pattern(
    r"\b(?:[\w'’-]+\s+){0,2}?(?:church|chapel|temple|synagogue|mosque|parish)\s+(?:hall|rooms?)\b", re.IGNORECASE
)


def categories(text: str) -> frozenset[str]:
    """The sensitive categories a text touches (empty: none)."""
    found = {c for c, rule in _COMPILED.items() if rule.search(text)}
    found |= {c for c, rule in _PATTERNS.items() if rule.search(text)}
    if "religion" in found and _A_HALL.search(text):
        rest = _A_HALL.sub(" ", text)  # "Cubs meet in the Parish Church hall": a room to hire, not a faith
        if not any(rule.search(rest) for rule in (_COMPILED["religion"], _PATTERNS.get("religion")) if rule):
            found.discard("religion")
    # (but the user seeing one is their care: "I'm seeing Anne about my marriage; she's a counsellor")
    if "health" in found and CARE_WORK.search(text) and not _SEES_A_CARER.search(text):
        rest = CARE_WORK.sub(" ", text)  # the job said, is anything left of health?
        if not (_COMPILED["health"].search(rest) or _PATTERNS["health"].search(rest)):
            found.discard("health")
    return frozenset(found)


# A faith's practices and festivals, as a request names them ("what should I cook for iftar?"), and the
# words of a memory of someone's own faith ("I'm Muslim"): a request about practising one faith needs
# what memory says of that faith, never of another (memchat.memory.judge.need.by_faith).
_FAITHS: dict[str, dict[str, list[str]]] = _LISTS["faiths"]
_PRACTICES = _any_of([w for lists in _FAITHS.values() for w in lists["practices"]])  # any faith's, first


@functools.cache
def _faith_patterns() -> tuple[dict[str, re.Pattern[str]], dict[str, re.Pattern[str]]]:
    """Each faith's practices, and its words and practices (compiled when a request names one)."""
    return (
        {faith: _any_of(lists["practices"]) for faith, lists in _FAITHS.items()},
        {faith: _any_of(lists["words"] + lists["practices"]) for faith, lists in _FAITHS.items()},
    )


def practices_named(text: str) -> frozenset[str]:
    """The faiths whose practices or festivals a message names."""
    if not _PRACTICES.search(text):  # every request asks this: one pattern, the rest when one is named
        return frozenset()
    return frozenset(faith for faith, rule in _faith_patterns()[0].items() if rule.search(text))


def faiths_of(text: str) -> frozenset[str]:
    """The faiths a text speaks of, by their words and practices."""
    return frozenset(faith for faith, rule in _faith_patterns()[1].items() if rule.search(text))


def faith_terms(faiths: frozenset[str]) -> str:
    """An FTS5 query for the texts that may speak of `faiths` (faiths_of confirms)."""
    return _fts([w for faith in sorted(faiths) for w in _FAITHS[faith]["words"] + _FAITHS[faith]["practices"]])


# What a memory of someone's need to get about says ("I use a wheelchair", "Mum can't manage stairs"), and
# the places and journeys a request plans ("a hotel", "a day out", "somewhere to eat"): such a request of
# the user's own needs that memory, which search does not find by meaning (to the encoder "which seat
# should I book?" is not like "I use a manual wheelchair"). memchat.memory.judge.need.by_access.
_ACCESS: dict[str, list[str]] = _LISTS["access_needs"]


@functools.cache
def _access_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    return _any_of(_ACCESS["needs"]), _any_of(_ACCESS["places"])


# a place word that names a thing, not a place to go ("a restaurant job", "the hotel booking system", "a
# trip switch", "a cottage pie", "pub/sub"), or one the user owns ("my restaurant", "a home cinema")
_PLACE_AS_A_THING = pattern(
    r"/|[\s-]*(?:grade|jobs?|reviews?|names?|logos?|websites?|apps?|pos|software|systems?|designs?|managers?|owners?|"
    r"controllers?|control|switch(?:es)?|calls?|pie|gifts?|exercises?|routines?|models?|booking\s+(?:system|service|api)|"
    r"towels?|simulators?|sim|chords|songs?|lyrics|playlists?|stoves?|heads?|california)\b",
    re.IGNORECASE,
)
_PLACE_OWNED = pattern(r"\b(?:my|our|home)\s+$", re.IGNORECASE)
_ESTABLISHMENT = pattern(r"restaurant|caf|hotel|pub|venue|galler|museum|theatre|cinema|campsite|cottage", re.I)


def plans_a_place(text: str) -> bool:
    """Whether a message names a place to go or a journey ("book a hotel", "a day out", "the flight")."""
    return any(
        not (_ESTABLISHMENT.match(m.group(0)) and _PLACE_OWNED.search(text[max(0, m.start() - 8) : m.start()]))
        and not _PLACE_AS_A_THING.match(text, m.end())
        for m in _access_patterns()[1].finditer(text)
    )


# the words before an aid that say someone has or uses it ("I use a manual wheelchair", "Mum is
# registered blind"), not only that it is named ("I play wheelchair basketball")
_HAS_IT = pattern(
    r"(?:\b(?:use|uses|using|in|need|needs|have|has|got|get|gets|getting|with|am|is|are|have\s+used|been\s+using)"
    r"|['’](?:m|s|re|ve\s+used))\s+"
    r"(?:an?\s+|my\s+|his\s+|her\s+|their\s+)?(?:(?!(?:on|about|of|for|into|to|at|in)\s)[\w-]+\s+)?$"
    r"|\b(?:my|our|his|her|their)\s+$",
    re.IGNORECASE,
)
# an aid or a need phrase that says it by itself ("can't manage stairs", "I'm deaf", "on crutches")
_SAYS_IT = pattern(r"(?:can|need|use|walks?\s|on\s|i['’]m|i\s+am|is\s|are\s|profoundly|partially|deaf\s)", re.I)
# an aid's name as a thing's ("a wheelchair lift", "wheelchair basketball", "a guide dog charity", "deaf to
# criticism", "a walking stick collection", "a Blue Badge guide", "wheelchair-accessible")
_AN_AIDS_THING = pattern(
    r"[\s-]*(?:lifts?|ramps?|access|accessible|friendly|spaces?|spots?|basketball|rugby|tennis|racing|races?|training|"
    r"charit(?:y|ies)|fraud|design|company|firm|shop|care\s+(?:home|worker|assistant|sector)|research|awareness|"
    r"services?|ward|unit|clinic|nurse|patients?|collections?|collector|guides?|to|children|people|pupils|students|"
    r"customers|school|club|team|community|users'|engineer\w*)\b",
    re.IGNORECASE,
)
_CLAUSE = pattern(r"[.;!?,]\s*")
SUBJECT_WORDS = 6  # an aid further than this from the start of its clause is not said of its subject


def access_need_subject(text: str) -> str | None:
    """The start of the clause that says someone has or uses an aid to get about, or needs help to,
    up to the aid ("I use a manual wheelchair", "Mum is registered blind", "Dad can't manage stairs"):
    whose need it is. None when the text names an aid without saying anyone needs it ("I play wheelchair
    basketball", "I volunteer pushing wheelchairs", "I'm writing a novel whose heroine uses a wheelchair")."""
    for m in _access_patterns()[0].finditer(text):
        before = text[max(0, m.start() - 120) : m.start()]  # bounded: a long memory is read in linear time
        if not (_HAS_IT.search(before[-60:]) or _SAYS_IT.match(m.group(0))) or _AN_AIDS_THING.match(text, m.end()):
            continue
        clause = before[ends[-1].end() :] if (ends := list(_CLAUSE.finditer(before))) else before
        if len(clause.split()) <= SUBJECT_WORDS:
            return clause + m.group(0)
    return None


def has_an_access_need(text: str) -> bool:
    """Whether a text says someone has or uses an aid to get about, or needs help to (access_need_subject)."""
    return access_need_subject(text) is not None


def access_terms() -> str:
    """An FTS5 query for the texts that may state an access need (has_an_access_need confirms)."""
    return _fts(_ACCESS["needs"])


def fts_terms(category: str) -> str:
    """An FTS5 query for texts that may hold a word of `category` (its stems as prefixes, phrases as
    phrases): what `categories` then confirms, over the few a search of their words returns."""
    return _fts(_WORDS[category])


def _fts(words: list[str]) -> str:
    terms = []
    for word in words:
        parts = re.findall(r"[a-z]+", word.lower())
        if len(parts) == 1:  # a stem ("buddhis") or a word: its first letters, as the stemmer keeps them
            terms.append(f'"{parts[0][:5]}"*' if len(parts[0]) > 5 else f'"{parts[0]}"')
        elif parts:
            terms.append('"' + " ".join(parts) + '"')
    return " OR ".join(dict.fromkeys(terms))


def matters(text: str, kinds: tuple[str, ...] = CATEGORIES) -> dict[str, str]:
    """The private matters a text names by the word lists' own words, each as its list's word
    ("epilep" of "epileptic" and of "epilepsy": the same matter), with its category."""
    return {
        m.group(0).strip().lower(): category
        for category in kinds
        if category in _COMPILED
        for m in _COMPILED[category].finditer(text)
    }


def matter_terms(words: list[str]) -> str:
    """An FTS5 query for the texts that may name these words of the lists."""
    return _fts(words)


def topics(message: str) -> frozenset[str]:
    """The categories a message is about: the words above, and broader cues ("family", "my trip")."""
    return categories(message) | {c for c, rule in _ABOUT_COMPILED.items() if rule.search(message)}


def describe() -> str:
    """The categories in words, for the README and `memchat config`."""
    return ", ".join(c.replace("_", " ") for c in CATEGORIES)


def reads_private(text: str, flagged: bool = False) -> bool:
    """Whether a memory reads as about a private matter by its words (health, money, faith...; not
    merely children), or was marked sensitive: what another tool's weak match, or a search for a
    message about no one, leaves out."""
    return flagged or bool(categories(text) - {"children"})
