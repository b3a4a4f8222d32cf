"""The household's car, when a request is about it: what memory says of it, by its name.

"when's the warrant due on the car" needs "The Sorento's WoF is due in February 2027", and "the
car's making a grinding noise" needs "The Kia has studded tyres, put on in October": memory calls
the car by its make or model, the request calls it "the car", and the encoder does not see the two
as alike. The names come from what memory says the household drives ("Since June 2026 we've had a
2019 Kia Sorento", "Mikko drives our 2015 Toyota Auris", "our car is a Skoda Octavia"); a request
about a car or a van of the household's ("the car", "my husband's car", "our van") gets the
memories that name one of them, or call one "the car", most like the request first, VEHICLE_ITEMS
at most. Never one it no longer has ("the Jazz died on the Bruce Highway", "my old Corolla"), a
sensitive one (the car's finance is money), nor for a question about cars in general.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memchat.memory.judge import need, people, sensitive
from memchat.memory.judge.personal import asks_in_general
from memchat.memory.judge.topics import model_for
from memchat.memory.store.memories import MemoryStore
from memchat.patterns import pattern

if TYPE_CHECKING:
    from memchat.db import Database
    from memchat.memory.recall.embed import Embedder

VEHICLE_ITEMS = 2  # at 3, the development sets got 2 more needed memories and about 15 more unneeded
VEHICLE_FLOOR = 0.1  # likeness to the request a memory of the car needs
VEHICLE_ROWS = 300  # newest memories with a vehicle's word that are read

_KINDS = r"cars?|vans?|utes?|trucks?|motorbikes?|motorcycles?|motor|campervans?|camper|caravans?|evs?"
# a vehicle of the household's, as a request says it ("the car", "my husband's car", "our van"), not
# one to hire, a seat, a park or a ferry for cars
_ASKED = pattern(
    rf"(?<![\w-])(?:my|our|the|his|her|their|[\w-]+['’]s)\s+(?:new\s+|old\s+|other\s+|second\s+|little\s+)?(?:{_KINDS})\b"
    r"(?![\s-]+(?:seats?|parks?|parking|boot\s+sales?|ferry|ferries|hire|rental|share|sharing|pool|chases?|industry|"
    r"insurance\s+in\s+general|keys?\s+to\s+the\s+city|neurone|skills?|der|gogh|shoes)\b)(?!\s+of\s+the\s+\d)"
    # said first, with no "the" ("car won't start at uni"), or one of its parts or papers
    rf"|(?:^|[.!?]\s+)(?:{_KINDS})\b(?!['’]s|\s+(?:seats?|parks?|ferry|hire|rental|shoes|gogh|der|den|dyke|halen|morrison)\b)"
    r"|\b(?:my|our|the|front|back|rear|winter|summer)\s+(?:tyres?|tires?|brakes?|windscreen|windshield|wipers?|clutch|"
    r"gearbox|exhaust|engine|mot|wof|rego)\b(?!\s+(?:of|on\s+(?:my|our|the|his|her)\s+(?:bike|bicycle|scooter))\b)|\b(?:mot|wof|warrant\s+of\s+fitness|rego)\s+(?:is\s+)?due\b",
    re.IGNORECASE,
)
# what memory says the household drives: "we've had a 2019 Kia Sorento", "I drive a 2017 Mazda 2",
# "our car is a Skoda Octavia", "Mikko drives our 2015 Toyota Auris hybrid"
_NAME = r"((?-i:\p{Lu})[\w-]+(?:\s+(?:(?-i:\p{Lu})[\w-]*|\d{1,3})\b)?)"
_DRIVES = pattern(
    r"\b(?:(?:drive|drives|driving|drove|have|has|had|own|owns|got|bought|lease|leasing|run|runs)\s+"
    r"(?:a|an|our|the|my|his|her)|(?:car|van|ute|motorbike)\s+is\s+an?)\s+"
    r"(?:(?:new|used|second-hand|secondhand|white|black|red|blue|silver|grey|gray|green)\s+)?"
    rf"(?:(?:19|20)\d\d\s+)?{_NAME}",
    re.IGNORECASE,
)
# what makes a make and model a vehicle's, where the verb does not ("I have a Prusa MK4 3D printer",
# "we have a Blue Cross plan" are no cars): its year, or a word of what it is
_A_VEHICLE = pattern(
    r"\b(?:19|20)\d\d\s+(?-i:\p{Lu})|\b(?:car|van|ute|truck|motorbike|motorcycle|suv|hatchback|estate|saloon|"
    r"(?:\w+-)?seater|diesel|petrol|hybrid|electric|plug-in|4x4|pick-?up|campervan|caravan|drives?|driving)\b",
    re.IGNORECASE,
)
# someone outside the household said before what they drive ("My brother Sione just bought a Ford
# Ranger", "Tui's dad has a Hilux"); the user, their partner and children are the household
_SOMEONE_ELSE = pattern(
    r"\b(?:my|our|her|his|their)\s+(?:[\w-]+\s+)?(?:brother|sister|mum|mom|mother|dad|father|parents|uncle|aunt|auntie|"
    r"cousin|friend|mate|neighbour|neighbor|colleague|boss|nan|gran|grandad|grandpa|grandma|in-laws?|\w+-in-law)\b"
    r"|\b(?-i:\p{Lu})[\w-]+['’]s\s+(?:brother|sister|mum|mom|dad|father|mother|parents|friend|boss)\b",
    re.IGNORECASE,
)
_MONEY = pattern(
    r"\b(?:cash|money|savings|finance|financed|loan|owe|owed|owing|repayments?|instal?ments?|hire\s+purchase|pcp|"
    r"lease\s+payments?|paid\s+off)\b",
    re.IGNORECASE,
)
_BECAUSE_OF_MY = pattern(r"\b(?:because\s+of|due\s+to)\s+(?:my|his|her|their|our)\b", re.IGNORECASE)
_GONE = pattern(
    r"\b(?:died|sold|scrapped|stolen|written\s+off|wrote\s+(?:it\s+)?off|traded\s+in|got\s+rid\s+of)\b", re.I
)
_CALLED_THE_CAR = pattern(rf"\b(?:the|our|my)\s+(?:{_KINDS})\b", re.IGNORECASE)  # a memory's "the car"
_NOT_A_NAME = frozenset("I We My Our The A An Since In On At For It This That".split())
_WORDS = '"car" OR "cars" OR "van" OR "ute" OR "drive"* OR "motorbike" OR "tyres" OR "tires"'


_A_PART = pattern(
    r"\b(?:tyres?|tires?|brakes?|windscreen|windshield|wipers?|clutch|gearbox|exhaust|engine|mot|wof|rego|"
    r"warrant|service|serviced|servicing|inspection|cambelt|oil|battery|won['’]?t\s+start|breakdown|charge|range|"
    r"book(?:ing|ed)?\s+(?:it\s+)?in|garage|mechanic|repairs?|fix|fixed|noise|insurance|insured|parking|park\s+it|fuel|"
    r"petrol|diesel|tow|towing|ferry|fit|drive|driving|make\s+it|doing|due|ready|check|checked)\b",
    re.IGNORECASE,
)
# a car called someone's by name ("Tui's car"), not a role's ("my husband's car": _whose)
_NAMED_OWNER = pattern(rf"(?<![\w-])([\w-]+)['’]s\s+(?:{_KINDS})\b", re.IGNORECASE)
_ROLE_OWNERS = frozenset(w for words in people.ROLE_WORDS.values() for w in words) | {
    "it",
    "that",
    "what",
    "who",
    "here",
    "there",
}
GETTING_ABOUT_NEAR = 0.05  # a request about the car reads as about getting about, within this of its best topic


def _near_getting_about(request: need.Request, embedder: Embedder) -> bool:
    model = model_for(embedder)
    return float(request.topics[model.names.index("transport")]) >= float(request.topics.max()) - GETTING_ABOUT_NEAR


def asks_about_a_vehicle(text: str) -> bool:
    """Whether a request is about a car or a van of the household's (_ASKED)."""
    return _ASKED.search(text) is not None


def _fts(words: set[str]) -> str:
    return " OR ".join(f'"{w}"' for w in sorted(words))


def names_driven(texts: list[str], by: set[str] | None = None) -> set[str]:
    """The makes and models memory says the household drives now, as words ("Kia", "Sorento"); with
    `by`, only those one of these names drives ("Mikko drives our 2015 Toyota Auris")."""
    names: set[str] = set()
    for text in texts:
        if need.is_former(text):
            continue
        if not _A_VEHICLE.search(text):
            continue
        for m in _DRIVES.finditer(text):
            if _SOMEONE_ELSE.search(text[: m.start()]):
                continue  # "My brother Sione just bought a Ford Ranger": his
            if by is not None and not any(re.search(rf"\b{re.escape(n)}\b", text[: m.start()]) for n in by):
                continue
            names.update(w for w in m.group(1).split() if w not in _NOT_A_NAME and not w.isdigit())
    return names


_CLAUSE = pattern(r"\s*(?:[—–;.]|,\s+(?:and|but)\b|\s-\s)\s*")


def _gone_parts(text: str) -> list[str]:
    """The clauses of a memory that say a car is gone ("the Jazz died on the Bruce Highway")."""
    return [part for part in _CLAUSE.split(text) if _GONE.search(part)]


def _without_gone(text: str) -> str:
    """A memory without its clauses that say a car is gone ("Since June I drive a 2017 Mazda 2 — the
    Jazz died": the Mazda)."""
    return " ".join(part for part in _CLAUSE.split(text) if not _GONE.search(part))


def _whose(db: Database, text: str) -> set[str] | None:
    """The names of the people whose vehicle a request asks about by role ("my husband's car"), or
    None for the household's."""
    names = {n for path in people.role_paths(text) if len(path) == 1 for n in people.names_for(db, "user", path[0])}
    return names or None


def by_vehicle(
    db: Database, request: need.Request, embedder: Embedder, text: str, exclude: set[int]
) -> list[need.Needed]:
    """The memories of the household's vehicles, for a request about one of them (see the module)."""
    if not asks_about_a_vehicle(text) or request.about_no_one or request.code or asks_in_general(text):
        return []
    if not (_A_PART.search(text) or _near_getting_about(request, embedder)):
        return []  # "the car chase in Bullitt", "Cars 3 is on TV tonight": a car, not the household's
    owner = _NAMED_OWNER.search(text)
    household = {name.lower() for name, path in people.names_known(db, text) if path in need.HOUSEHOLD}
    if owner and owner.group(1).lower() not in _ROLE_OWNERS | household:
        return []  # "Tui's car won't start": Tui's (a neighbour, or someone memory does not know)
    store = MemoryStore(db)
    told = store.newest_matching(_WORDS, VEHICLE_ROWS, ("fact", "event"), longest=need.LONGEST_SENT)
    # what the household drives is told with a car's words or without ("we've had a 2019 Kia Sorento"):
    # the memories nearest getting about by meaning too
    near = store.get_many(need.nearest_the_topic(db, embedder, "transport"), longest=need.LONGEST_SENT)
    told += [(m.id, m.text, m.created_at) for m in near.values()]
    texts = [said for _i, said, _t in told]
    whose = _whose(db, text)
    names = (names_driven(texts, whose) if whose else set()) or names_driven(texts)
    # a car memory says is gone ("The Jazz died on the Bruce Highway") is no longer the household's,
    # by either of its names ("We bought a 2009 Honda Jazz": the Honda too)
    gone = {w for said in texts for part in _gone_parts(said) for w in names if re.search(rf"\b{re.escape(w)}\b", part)}
    names -= {
        w
        for said in texts
        for m in _DRIVES.finditer(said)
        if gone & set(m.group(1).split())
        for w in m.group(1).split()
    }
    alternatives = "|".join(re.escape(n) for n in sorted(names))
    # a name said as a vehicle's ("the Golf", "the Golf's rego", "a 2018 Volkswagen Golf"), not as a
    # word ("Golf lessons with Pete", "Leaf mould in the gutters")
    named = (
        pattern(
            rf"(?i:\b(?:the|our|my|his|her|their)\s+)(?:{alternatives})\b|\b(?:{alternatives})['’]s\b|\b(?:{alternatives})\b(?=.*\b(?i:car|van|ute|drives?|driving|diesel|petrol|hybrid|electric)\b)|\b(?:19|20)\d\d\s+(?:\w+\s+)?(?:{alternatives})\b"
        )
        if names
        else None
    )
    rows = told + (
        store.newest_matching(_fts(names), VEHICLE_ROWS, ("fact", "event"), longest=need.LONGEST_SENT) if names else []
    )
    ids = list(
        dict.fromkeys(
            i
            for i, said, _t in rows
            if i not in exclude
            and (
                (named is not None and named.search(_without_gone(said))) or _CALLED_THE_CAR.search(_without_gone(said))
            )
            and not _BECAUSE_OF_MY.search(said)  # "a disabled parking badge because of my MS": health
            and not _MONEY.search(said)  # "I hid 5,000 cash in the spare wheel well": the money route's
            and not need.is_former(said)
            and not sensitive.categories(said)
            and not sensitive.holds_identifier(said)  # "insured with If, policy number 41-8827-3305"
        )
    )
    memories = store.get_many(ids, longest=need.LONGEST_SENT)
    kept = [i for i in ids if i in memories and not (memories[i].private or memories[i].sensitive)]
    # nothing about health or money by meaning either ("a disabled badge because of my MS", "I hid
    # 5,000 cash in the spare wheel well", "the finance is 420 a month": no word list marks them)
    delicate = need.delicate([memories[i].text for i in kept], embedder, by_topic=True) if kept else []
    kept = [i for i, d in zip(kept, delicate, strict=True) if not d and not need.AN_AMOUNT.search(memories[i].text)]
    scored = [(score, i) for score, i in need.most_like(db, embedder, request, kept) if score >= VEHICLE_FLOOR]
    return [need.Needed(memories[i], score, "vehicle") for score, i in scored[:VEHICLE_ITEMS]]
