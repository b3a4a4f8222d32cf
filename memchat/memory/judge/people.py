"""The people a request means by their role, read from memory: "my father-in-law" is Rui.

A person asks about "my brother", "the kids" or "my mother-in-law"; memory says "My younger
brother Owen is a paramedic", "Owen collects 1970s soul records", "Ines's mum Graça only speaks
Portuguese". Neither search nor topic finds "Owen collects ..." for "a birthday present for my
brother": they share no word, and a record collection is no family topic. This module reads who
is who from the memories that say it ("my partner Ines", "Ines's dad Rui", "I'm mentoring
Oskar"), follows a role path ("father-in-law": the partner's father), and returns the memories
that name the people found, for memchat.memory.judge.need to rank by meaning.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memchat.memory.store.memories import LONGEST_SENT, MemoryStore
from memchat.memory.text import STOPWORDS
from memchat.patterns import pattern

if TYPE_CHECKING:
    from memchat.db import Database

# A role, and the words memory and people use for it.
ROLE_WORDS: dict[str, tuple[str, ...]] = {
    "partner": ("partner", "wife", "husband", "spouse", "girlfriend", "boyfriend", "fiancé", "fiancée", "fiance"),
    "mother": ("mum", "mom", "mother", "mam", "mummy"),
    "father": ("dad", "father", "papa", "daddy"),
    "parents": ("parents", "folks"),
    "sister": ("sister",),
    "brother": ("brother",),
    "son": ("son", "stepson"),
    "daughter": ("daughter", "stepdaughter"),
    "child": ("child", "kid", "children", "kids"),  # "our kids are Maya and Felix": no son or daughter said
    "grandmother": ("grandmother", "grandma", "gran", "granny", "nan", "nana", "nanna"),
    "grandfather": ("grandfather", "grandad", "granddad", "grandpa"),
    "grandson": ("grandson",),
    "granddaughter": ("granddaughter",),
    "grandchild": ("grandchild", "grandchildren", "grandkid"),  # "our grandkids are Zosia and Kuba"
    "aunt": ("aunt", "auntie", "aunty"),
    "uncle": ("uncle",),
    "cousin": ("cousin",),
    "friend": ("friend", "mate", "pal"),
    "colleague": ("colleague", "coworker", "co-worker", "teammate"),
    "neighbour": ("neighbour", "neighbor"),
    "flatmate": ("flatmate", "roommate", "housemate"),
    "manager": ("manager", "boss"),
    "mentee": ("mentee",),
    "godchild": ("godson", "goddaughter", "godchild"),
    "dog": ("dog", "puppy"),
    "cat": ("cat", "kitten"),
}
_WORD_ROLE = {w: role for role, ws in ROLE_WORDS.items() for w in ws}
_ANY_ROLE = "|".join(sorted(_WORD_ROLE, key=len, reverse=True))
ANY_ROLE = _ANY_ROLE  # any role word, for a pattern elsewhere (memchat.memory.judge.need)
# What a request says, as a path of roles from the user (the first match wins for its words).
_PATHS: list[tuple[re.Pattern[str], tuple[tuple[str, ...], ...]]] = [
    (pattern(r"\b(father|dad)[- ]in[- ]law\b", re.I), (("partner", "father"),)),
    (pattern(r"\b(mother|mum|mom)[- ]in[- ]law\b", re.I), (("partner", "mother"),)),
    (pattern(r"\bsister[- ]in[- ]law\b", re.I), (("partner", "sister"),)),
    (pattern(r"\bbrother[- ]in[- ]law\b", re.I), (("partner", "brother"),)),
    (pattern(r"\b(in[- ]laws|parents[- ]in[- ]law)\b", re.I), (("partner", "parents"), ("partner", "mother"))),
    (pattern(r"\b(nephews?|nieces?)\b", re.I), (("sister",), ("brother",))),
    (pattern(r"\b(my|our) (siblings?)\b", re.I), (("sister",), ("brother",))),
    (pattern(r"\b(my|our) grandparents\b", re.I), (("grandmother",), ("grandfather",))),
    (pattern(r"\b(my|our) parents\b(?![-\s]in[-\s]law)", re.I), (("parents",), ("mother",), ("father",))),
    (
        pattern(
            r"\b(?:(?:the|my|our)\s+(?:(?:two|three|four|five|both)\s+)?|both\s+)(grandkids|grandchildren)\b", re.I
        ),
        (("grandson",), ("granddaughter",), ("grandchild",)),
    ),
    # "the two kids", "both kids", "our three children"
    (
        pattern(
            r"\b(?:(?:the|my|our)\s+(?:(?:two|three|four|five|both)\s+)?|both\s+)(kids|children|little\s+ones)\b", re.I
        ),
        (("son",), ("daughter",), ("child",)),
    ),
    # not a group of friends or colleagues: "the lads at work", "the girls from uni", "the boys on the team"
    (pattern(r"\b(the|my|our) (boys|lads)\b(?!\s+(?:at|from|on|in|down)\b)", re.I), (("son",),)),
    (pattern(r"\b(the|my|our) girls\b(?!\s+(?:at|from|on|in|down)\b)", re.I), (("daughter",),)),
    # one child called what parents call them ("Christmas ideas for my boy", "my little girl's party");
    # not "my girl" alone, which may be a partner
    (
        pattern(
            r"\b(?:my|our)\s+(?:(?:little|baby|eldest|oldest|youngest|middle|big)\s+)?(?:boy|lad)\b(?!\s+band)", re.I
        ),
        (("son",),),
    ),
    (
        pattern(r"\b(?:(?:my|our)\s+(?:little|baby|eldest|oldest|youngest|middle|big)\s+girl|our\s+girl)\b", re.I),
        (("daughter",),),
    ),
    (
        pattern(r"\b(everyone at home|(my|our) (whole )?(family|household)|the whole family)\b", re.I),
        (("partner",), ("son",), ("daughter",), ("child",)),
    ),
    # what people call a partner or a pet when they do not say the word
    (pattern(r"\b(my|our) (other half|better half|significant other|hubby|missus|missis)\b", re.I), (("partner",),)),
    # "so the wife doesn't end up poorly", "the other half's birthday" (not "the wife of Henry VIII")
    (
        pattern(
            r"\bthe (wife|husband|missus|missis|hubby|other half|better half)\b(?!\s+(?:of|and|who|in\s+the)\b)", re.I
        ),
        (("partner",),),
    ),
    # and, in Ireland, "himself" and "herself" said of a spouse ("what can himself manage to eat", "a
    # present for herself"): as the subject of a verb or after a preposition, not as a reflexive
    # ("he hurt himself", "by herself", "she did it herself")
    (
        pattern(
            r"(?:^|\b(?:that|so|and|but|for|with|tell|told|get|got|make|help|when|if|because|cos)\s+)"
            r"(?:himself|herself)\b(?=\s+(?:is|was|has|had|can|can['’]t|cannot|could|couldn['’]t|won['’]t|will|would|wants|"
            r"says|said|likes|loves|hates|doesn['’]t|didn['’]t|isn['’]t|wasn['’]t|keeps|needs|gets|got|went|goes|"
            r"manage|actually|[?.!,]|$)|['’]s\b)"
            # ... or what the user does for them ("what'll I get herself for her birthday")
            r"|\b(?:I|we)(?:['’]ll)?\s+(?:[\w'’]+\s+){0,2}?(?:get|buy|make|cook|tell|ask|take|bring)\s+(?:for\s+)?(?:himself|herself)\b"
            r"(?!\s+(?:to|into|out|up|together|ready|dressed|sorted)\b)",
            re.I,
        ),
        (("partner",),),
    ),
    (pattern(r"\bthe (dogs?|hounds?|pups?|pooch|doggo|mutt)\b", re.I), (("dog",),)),
    (pattern(r"\bthe (cats?|kitty|kitties|moggy|moggie|moggies)\b", re.I), (("cat",),)),
    (pattern(r"\b(the|my|our) (pets|animals)\b", re.I), (("dog",), ("cat",))),
]
# People typing in a hurry drop the "my" ("dog's scratching himself raw again", "wife wants to go to
# Crete", "kids are off school next week"): a household role word that opens the request, with what
# it is doing or has after it, is the user's own. Only at the start, and only the household's (a
# "boss" or a "friend" there may be anyone's); not "Dog training tips" (no verb after it).
_BARE_ROLE = pattern(
    r"^\W*(?:(?:so|ugh|hey|ok|okay|right|and|also|btw|oh|argh|um|hmm)\W+){0,2}"
    r"(wife|husband|partner|girlfriend|boyfriend|fianc[ée]e?|hubby|missus|son|daughter|kid|kids|dog|cat|puppy|kitten)"
    r"(?:['’]s\b|\s+(?:is|are|was|were|has|have|had|keeps|kept|wants|needs|says|said|won['’]t|can['’]t|isn['’]t|"
    r"aren['’]t|hasn['’]t|doesn['’]t|didn['’]t|just|got|been|started|threw|thrown|ate|hates|loves|asked|reckons|"
    r"thinks|seems|feels|refuses)\b)"
    r"(?!\s*(?:life|dinner|breakfast|body|bollocks|out\s+of\s+the\s+bag|pyjamas|whiskers|cradle)\b)",
    re.I,
)
_BARE_WORD_ROLE = {"hubby": "partner", "missus": "partner"}
_ADJ = r"(?:(?:best|closest|oldest|old|younger|older|little|big|uni|new|late)\s+)?"
_OWN_ROLE = pattern(rf"\b(?:my|our)\s+{_ADJ}({_ANY_ROLE})s?(?:['’]s\s+{_ADJ}({_ANY_ROLE})s?)?\b", re.I)
_NAME = r"(\p{Lu}[\w’'-]*[\w](?:\s+\p{Lu}[\w’'-]*[\w])?)"
_A_NAME = pattern(_NAME)
# Who is who, as memory says it: owner (my / our / the user's / a name's), role, name.
_TRIPLES = [
    pattern(rf"\b((?i:my|our|the user's)|{_NAME[1:-1]}['’]s)\s+(?:[a-z]+\s+)?({_ANY_ROLE}),?\s+{_NAME}"),
    pattern(rf"\b((?i:my|our))\s+(?:[a-z]+\s+)?({_ANY_ROLE})(?:\s+from\s+\w+)?\s+is\s+(?:now\s+)?{_NAME}"),
    pattern(rf"\b{_NAME},\s+((?i:my|our))\s+(?:[a-z]+\s+)?({_ANY_ROLE})\b"),
]
# Several children named at once: "Our kids are Maya (7) and Felix (4)", "my daughters, Ana and Bea",
# "We have three kids: Zain 12, Hana 9 and Musa 4".
_BROOD = {
    "kids": "child",
    "children": "child",
    "sons": "son",
    "boys": "son",
    "daughters": "daughter",
    "girls": "daughter",
    "cats": "cat",  # "We have two cats, Fritz (14) and Luna (4)": pets are named in a brood too
    "dogs": "dog",
}
_NAMED_BROOD = pattern(
    rf"\b(?i:my|our|(?:we|I)\s+have(?:\s+got)?|(?:we|I)['’]ve\s+got)\s+(?:[a-z]+\s+)?"
    rf"((?i:kids|children|sons|boys|daughters|girls|cats|dogs))(?:,|:|\s+are|\s+called|\s+named)?\s+"
    # each name may have its age and a clause about it: "Maya (9), who is obsessed with horses, and Theo (5)"
    # or a phrase about it: "Biltong, a six-year-old ginger, and Rooibos"
    rf"((?:{_NAME[1:-1]}(?:\s*\(\d+\)|,?\s+\d{{1,2}}\b)?(?:,\s+(?i:who|whose|an?)\s+[^,;.()]{{1,60}})?"
    rf"(?:,\s*(?i:and\s+)?|\s+(?i:and)\s+|\s*&\s*))+{_NAME[1:-1]})"
)
_ABOUT_ONE = pattern(r",\s+(?:who|whose|an?)\s+[^,;.()]{1,60}", re.IGNORECASE)
# A pet told by its breed, not as a dog or a cat: "Our border collie Meg", "my old lab, Rufus", "our
# Maine Coon Tigger" (breeds that are also people's words, a boxer or a pointer, are left out)
_BREEDS = {
    "dog": (
        "collie|labrador|lab|retriever|spaniel|cocker|springer|terrier|beagle|poodle|cockapoo|cavapoo|"
        "labradoodle|goldendoodle|greyhound|whippet|lurcher|dachshund|sausage dog|pug|bulldog|frenchie|husky|"
        "alsatian|german shepherd|sheepdog|schnauzer|corgi|chihuahua|shih tzu|staffie|staffy|rottweiler|"
        "dobermann|doberman|dalmatian|vizsla|weimaraner|westie|yorkie|bichon|jack russell|border collie"
    ),
    "cat": "tabby|siamese|persian|maine coon|ragdoll|bengal|sphynx|british shorthair|burmese|moggy|moggie",
}
_BY_BREED = {
    role: pattern(
        rf"\b(?i:my|our)\s+(?:[a-z]+\s+){{0,2}}?(?i:{breeds})s?,?\s+{_NAME}"
        rf"|{_NAME}\s+is\s+(?i:my|our)\s+(?:[a-z-]+\s+){{0,2}}?(?i:{breeds})\b"  # "Biscuit is our retired greyhound"
    )
    for role, breeds in _BREEDS.items()
}


# A pet told as one the household has: "We also have a black cat, Púca, who's 13", "We have a
# 6-year-old ginger tom called Pindakaas", "I adopted a rescue greyhound named Toby". A breed with
# "the", "my" or "our" in a request is that pet ("can i let the greyhound off lead"; not "the lab").
_PET_BREED_ASKED = {
    # (several with "the" are others' dogs, "the collies at the park"; a skirt, twins, a breed are no pet)
    role: pattern(
        rf"\b(?:(?:my|our)\s+(?:{breeds})s?|the\s+(?:{breeds}))\b"
        r"(?!\s+(?:race|racing|track|stadium|skirt|twins|has\s+landed|breed|breeds)\b)",
        re.IGNORECASE,
    )
    for role, breeds in {
        "dog": _BREEDS["dog"].replace("labrador|lab|", "labrador|"),
        "cat": _BREEDS["cat"]
        .replace("persian|", "")
        .replace("bengal|", "")
        .replace("burmese|", "")
        .replace("siamese|", ""),
    }.items()
}
_PET_HAD = {
    role: pattern(
        # ("We're fostering a greyhound called Biscuit" until he finds a home: theirs meanwhile)
        r"\b(?i:we|I)(?i:['’]re|['’]m|\s+are|\s+am)?\s+(?i:also\s+|now\s+|still\s+)?"
        r"(?i:have\s+got|['’]ve\s+got|have|has|got|own|adopted|rescued|took\s+in|fostering|adopting)\s+"
        rf"(?i:a|an)\s+(?:[\w-]+\s+){{0,3}}?(?i:{words})(?:\s*,\s*|\s+(?i:called|named)\s+){_NAME}"
    )
    for role, words in {
        "cat": "cat|kitten|tom|tomcat|" + _BREEDS["cat"],
        "dog": "dog|puppy|pup|bitch|" + _BREEDS["dog"],
    }.items()
}


def _by_breed(role: str, text: str) -> list[str]:
    """The names of the user's pets of this role told by their breed in `text` (cased)."""
    return [n for pair in _BY_BREED[role].findall(text) for n in pair if n]


# A child told by age or stage, not by role: "We have a three-year-old called Noor", "our 6-year-old,
# Sam", "my baby Rosa", "our toddler Ben"
_AGED_CHILD = pattern(
    r"\b(?i:my|our|we\s+have\s+an?|i\s+have\s+an?)\s+(?:[a-z]+\s+)?"
    r"(?i:(?:[a-z]+|\d+)[- ](?:year|month)s?[- ]old|baby|toddler|newborn|little\s+one|eldest|youngest|oldest)"
    rf"(?:,\s*|\s+(?i:called|named)\s+|\s+){_NAME}"
)
# ... or the other way round, or by the school year they are in: "Isla, our eldest, is 9", "Rohan is 5
# and in Year 1 at Brudenell Primary"
_CHILD_SAID = pattern(
    rf"{_NAME},\s+(?i:my|our)\s+(?i:eldest|youngest|oldest|middle\s+one|little\s+one)\b"
    rf"|{_NAME}\s+is\s+(?:1[0-8]|[1-9])(?:\s+and)?\s+(?i:in|at|starts)\s+(?i:year\s+\d{{1,2}}|reception|nursery|"
    r"(?:primary|secondary|high)\s+school|grade\s+\d{1,2}|kindergarten|pre-?school)\b"
)
_MENTORING = pattern(rf"\bI'?m mentoring {_NAME}")
_GODPARENT = pattern(rf"\bgod(?:father|mother|parent) (?:to|of) {_NAME}")
_CUES = {  # said of the user
    "mentee": ("mentoring",),
    "godchild": ("godfather", "godmother", "godparent"),
    # "a three-year-old called Noor", "Isla, our eldest", "Rohan is 5 and in Year 1 at Brudenell Primary"
    "child": ("old", "baby", "toddler", "newborn", "eldest", "youngest", "oldest", "year", "reception", "nursery"),
    "cat": ("tom", "tomcat"),  # "a ginger tom called Pindakaas"
    "dog": ("pup",),
}
CANDIDATES = 200  # memories read per name, the newest (60 cut a partner with 25 memories short)


# "here's mum's list", "who's mum bringing?": "is" contracted, not someone's mum
_CONTRACTED_IS = frozenset(
    "let's it's that's what's here's there's who's where's how's when's he's she's one's everyone's".split()
)


def role_paths(text: str) -> list[tuple[str, ...]]:
    """The people a request names by role, as paths from the user: "my brother" -> [("brother",)]."""
    paths: list[tuple[str, ...]] = []
    rest = text
    for said, found in _PATHS:
        if said.search(rest):
            paths += [p for p in found if p not in paths]
            rest = said.sub(" ", rest)
    for m in _OWN_ROLE.finditer(rest):
        path = tuple(_WORD_ROLE[w.lower()] for w in m.groups() if w)
        rest = rest[: m.start()] + " " * (m.end() - m.start()) + rest[m.end() :]
        if path not in paths:
            paths.append(path)
    paths += [(role,) for role, said in _PET_BREED_ASKED.items() if said.search(rest) and (role,) not in paths]
    if bare := _BARE_ROLE.search(rest):
        word = bare.group(1).lower()
        found = (
            (("son",), ("daughter",), ("child",))
            if word == "kids"
            else ((_BARE_WORD_ROLE.get(word) or _WORD_ROLE.get(word) or _WORD_ROLE[word.replace("é", "e")],),)
        )
        paths += [p for p in found if p not in paths]
    for m in _FAMILY_NAME.finditer(rest):
        before = rest[: m.start()].split()
        if before and before[-1].lower().strip("\"'“‘(") in _SOMEONE_ELSES:
            continue  # "their mum's", "a new mum": someone else's
        if before and re.search(r"\w['’]s$", before[-1]) and before[-1].lower().replace("’", "'") not in _CONTRACTED_IS:
            continue  # "mikko's mum", "Jess's dad": theirs (a name memory knows is read by names_known)
        path = (_WORD_ROLE[m.group(1).lower()],)
        if path not in paths:
            paths.append(path)
    return paths


# A parent or grandparent called by what the family calls them, as a name ("Mum keeps forgetting to
# eat", "the drive to Mum's", "call dad tonight"): the user's own, unless a word before says whose
# or which ("their mum's", "a new mum", "every dad"). Not "Mother's Day" (not such a name), not a
# name of something else ("Gran Torino", "Mam Tor"), not NaN, nor a kind of joke or look.
_FAMILY_NAME = pattern(
    r"\b([Mm]um|[Mm]om|[Mm]am|[Mm]ummy|[Mm]ommy|[Dd]ad|[Dd]addy|Nan|[Nn]ana|[Nn]anna|[Gg]ran|[Gg]ranny|[Gg]randma"
    r"|[Gg]randad|[Gg]randdad|[Gg]randpa)\b"
    r"(?!\s+\p{Lu}\w)(?!['’]?s?\s+(?:jokes?|bod|rock|hats?|shoes|jeans|vibes?|guilt|brain|life|groups?|blogs?|friends?)\b)"
)
_SOMEONE_ELSES = frozenset(
    "a an the your his her their its whose every each any some no one another other new single young working "
    "first-time busy stay-at-home proud good great bad cool tired".split()
)


# Not a name, after a role word in a note typed in lowercase ("my partner works in...", "our dog is...")
_NOT_A_NAME = frozenset(
    "is are was were has had have and or but who which that lives lived works worked loves likes hates does did "
    "can can't cannot won't will would is's called named the a an of in at to for with from on by as "
    "just also now still always never really very too so".split()
)


def _cased(text: str) -> str:
    """A note typed all in lowercase ("our daughter fien is 18 months old", "a dog called rex") with the
    word after a role word, or after "called" or "named", capitalised as a name is: people who type in
    lowercase name people too. Any other text as it is."""
    if not text.islower():
        return text

    def name(m: re.Match[str]) -> str:
        word = m.group(3)
        return m.group(1) + m.group(2) + (word if word in _NOT_A_NAME else word.capitalize())

    text = re.sub(r"\b(called|named)(\s+)([a-z][\w'’-]*)", name, text)
    return re.sub(rf"\b({_ANY_ROLE}s?)(,?\s+)([a-z][\w'’-]*)", name, text)


def _fts(words: list[str]) -> str:
    return " OR ".join('"' + w.replace('"', "") + '"' for w in words)


def _texts(db: Database, words: list[str]) -> list[tuple[int, str]]:
    """Active, not private facts and events that hold any of `words`, the newest first (what memory
    says now of someone). Not ranked by BM25: that scores every row a word is in, and a role word
    ("partner", "mum") is in many (0.75 s at 1,000,000 memories); newest first reads only CANDIDATES."""
    if not words:
        return []
    found = MemoryStore(db).newest_matching(_fts(words), CANDIDATES, ("fact", "event"), longest=LONGEST_SENT)
    return [(i, text) for i, text, _told in found]


def _owner(word: str) -> str:
    return "user" if word.lower() in ("my", "our", "the user's") else word.removesuffix("'s").removesuffix("’s")


def names_for(db: Database, owner: str, role: str, read: dict | None = None) -> list[str]:
    """The names memory gives the owner's `role` ("user", "partner" -> ["Ines"]). A son or daughter memory
    never named is any of the kids it named ("We have two kids: Ava 9 and Leo 6"), but one it calls
    the other ("My daughter Ava..." is not a son). `read` keeps what one reading of who is who found."""
    read = {} if read is None else read

    def named(role: str) -> list[str]:
        if (owner, role) not in read:
            read[owner, role] = _named_as(db, owner, role)
        return read[owner, role]

    names = named(role)
    if not names and owner == "user" and role in ("son", "daughter"):
        other = named("daughter" if role == "son" else "son")
        return [n for n in named("child") if n not in other]
    return names


def _named_as(db: Database, owner: str, role: str) -> list[str]:
    brood = [w for w, r in _BROOD.items() if r == role]  # "We've got two boys: Sam and Ollie"
    breeds = _BREEDS.get(role, "").split("|") if owner == "user" and role in _BREEDS else []
    words = list(ROLE_WORDS[role]) + brood + list(_CUES.get(role, ())) + breeds + ([] if owner == "user" else [owner])
    names: list[str] = []
    for _id, said in _texts(db, words):
        text = _cased(said)
        for triple in _TRIPLES:
            for m in triple.finditer(text):
                groups = m.groups()
                if triple is _TRIPLES[2]:
                    name, who, word = groups
                else:
                    who, word, name = groups[0], groups[-2], groups[-1]
                if _owner(who) == owner and _WORD_ROLE.get(word.lower()) == role and name not in names:
                    names.append(name)
        if owner == "user" and role in ("child", "son", "daughter", "cat", "dog"):
            for m in _NAMED_BROOD.finditer(text):
                if _BROOD[m.group(1).lower()] in (role, "child" if role not in ("cat", "dog") else role):
                    listed = _ABOUT_ONE.sub("", m.group(2))  # not "Lego" of "who loves Lego"
                    names += [n for n in _A_NAME.findall(listed) if n not in names]
        if owner == "user" and role == "child":
            names += [n for n in _AGED_CHILD.findall(text) if n not in names]
            names += [n for pair in _CHILD_SAID.findall(text) for n in pair if n and n not in names]
        if owner == "user" and role in _BY_BREED:
            names += [n for n in _by_breed(role, text) if n not in names]
            names += [n for n in _PET_HAD[role].findall(text) if n not in names]
        if owner == "user" and role in ("mentee", "godchild"):
            saying = _MENTORING if role == "mentee" else _GODPARENT
            names += [n for n in saying.findall(text) if n not in names]
    return names


_NOT_IN_LAW = r"(?![-\s]in[-\s]law)"  # "my mother-in-law" is not my mother


# A title is not a name: "My boss is Dr Petra Lindner" is Petra, not every "Dr" memory holds ("my GP Dr
# Albrecht wants my HbA1c below 6.5" is not about the boss).
_TITLE = frozenset(
    {"dr", "dr.", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "miss", "prof", "prof.", "sir", "dame", "rev", "rev."}
)


def first_name(name: str) -> str:
    """The name a person is called by: the first word of `name` that is not a title."""
    words = name.split()
    return next((w for w in words if w.lower() not in _TITLE), words[0] if words else name)


def referents(db: Database, path: tuple[str, ...], read: dict | None = None) -> tuple[list[str], list[re.Pattern[str]]]:
    """The names at the end of a role path, and the phrases that point to that person without a
    name ("Mum ...", "Ines's parents ...")."""
    owners = ["user"]
    phrases: list[re.Pattern[str]] = []
    names: list[str] = []
    for role in path:
        words = "|".join(ROLE_WORDS[role])
        phrases = []
        for owner in owners:
            if owner == "user":
                phrases.append(
                    pattern(rf"(\b(my|our|the user's)\s+([a-z]+\s+)?({words})s?\b|^({words})\b){_NOT_IN_LAW}", re.I)
                )
            else:
                phrases.append(pattern(rf"\b{re.escape(owner)}['’]s\s+([a-z]+\s+)?({words})\b{_NOT_IN_LAW}", re.I))
        names = [n for owner in owners for n in names_for(db, owner, role, read)]
        owners = [first_name(n) for n in names]
        if not owners:
            break
    return names, phrases


def memories_about(db: Database, paths: list[tuple[str, ...]]) -> list[int]:
    """Ids of the memories that name the people of `paths`, or point to them by role."""
    return people_and_memories(db, paths)[1]


def people_and_memories(db: Database, paths: list[tuple[str, ...]]) -> tuple[set[str], list[int]]:
    """The first names of the people of `paths`, and the ids of the memories about them (one
    reading of who is who for both)."""
    everyone: set[str] = set()
    found: list[int] = []
    read: dict = {}  # each role's names read once ("my son" reads the kids, as "the kids" does)
    for path in paths:
        names, phrases = referents(db, path, read)
        first = [first_name(n) for n in names]
        everyone.update(first)
        words = first + [w for role in path[-1:] for w in ROLE_WORDS[role]]
        for memory_id, text in _texts(db, words):
            case = re.IGNORECASE if text.islower() else 0  # "fien has a cow's milk allergy" names Fien
            named = any(re.search(rf"\b{re.escape(n)}\b", text, case) for n in first)
            if (named or any(p.search(text) for p in phrases)) and memory_id not in found:
                found.append(memory_id)
    return everyone, found


# He or she with no one named ("He keeps asking to go home when he IS home", "Can I mix his morning
# dose into yogurt?"): someone the user lives with or looks after, whom a caregiver's request calls
# by pronoun. The roles it may mean, by the word a memory uses for them; a partner's is read from the
# memories ("my husband Alasdair"; _PARTNER_IS measured in tests/word_lists.py), a child's either way.
_HE = pattern(r"\b(?:he|him|his|himself|he['’](?:s|d|ll))\b", re.IGNORECASE)
_SHE = pattern(r"\b(?:she|her|hers|herself|she['’](?:s|d|ll))\b", re.IGNORECASE)
_PRONOUN_ROLES = {
    "he": (("son",), ("father",), ("child",)),
    "she": (("daughter",), ("mother",), ("child",)),
}
_PARTNER_IS = {
    "he": pattern(r"\b(?:my|our)\s+(?:husband|boyfriend|fianc[eé])\b(?!e)", re.IGNORECASE),
    "she": pattern(r"\b(?:my|our)\s+(?:wife|girlfriend|fianc[eé]e)\b", re.IGNORECASE),
}


def pronoun_paths(db: Database, text: str) -> list[tuple[str, ...]]:
    """The people of the household a request may mean by he or she when it names no one: a
    partner, a child, a parent memory knows (none when it says both, or names a role itself)."""
    he, she = _HE.search(text) is not None, _SHE.search(text) is not None
    if he == she or role_paths(text):
        return []
    word = "he" if he else "she"
    paths: list[tuple[str, ...]] = [p for p in _PRONOUN_ROLES[word] if referents(db, p)[0]]
    if any(_PARTNER_IS[word].search(t) for _id, t in _texts(db, list(ROLE_WORDS["partner"]))):
        paths.insert(0, ("partner",))
    return paths


NAMES_READ = 4  # capitalised words of a request looked up as names, at most (each is one search)
# A capitalised word a request may call someone by ("Present ideas for Josh", "Jonas wants a bigger bike"):
# not one beside another capitalised word ("Michael Jordan", "Florence Nightingale") nor after a word of
# place ("flying to Jordan", "hotels in Florence")
_WORD = pattern(r"[\w'’-]+")
_NAME_SHAPE = pattern(r"\p{Lu}(?:\p{Ll}|['’-])+")
_OF_PLACE = frozenset("in at of from near visit visiting around across via".split())
# "to" is of place after a word of going ("flying to Jordan"), not of writing ("a message to Sam")
_GOING = frozenset(
    "fly flying flew go going went travel travelling traveling trip move moving moved drive driving "
    "holiday holidays vacation relocate relocating emigrate emigrating way route flights flight train".split()
)


def called_by_name(text: str) -> list[str]:
    """The capitalised words of a request that may call someone by name (_NAME_SHAPE, alone)."""
    tokens = _WORD.findall(text)
    out = []
    for k, token in enumerate(tokens):
        before = tokens[k - 1] if k else ""
        going = before.lower() == "to" and k > 1 and tokens[k - 2].lower() in _GOING
        after = tokens[k + 1] if k + 1 < len(tokens) else ""
        if (
            _NAME_SHAPE.fullmatch(token)
            and before.lower() not in _OF_PLACE
            and not going
            and not (before[:1].isupper() and before.lower() not in STOPWORDS)  # "Michael Jordan", not "Is Ana"
            and not (after[:1].isupper() and after.lower() not in STOPWORDS)
            and token not in out
        ):
            out.append(token)
    return out


def names_known(
    db: Database, text: str, read: dict[str, list[tuple[int, str]]] | None = None
) -> list[tuple[str, tuple[str, ...]]]:
    """The people a request calls by the first name memory knows them by, with their role: "Present
    ideas for Josh" and "My partner Josh is a chemistry teacher" -> [("Josh", ("partner",))]. A word is
    a name only where a memory says whose it is, written as a name ("my partner Josh", "Josh, my
    partner", "Josh is my partner"; not "Tom is my wife's brother" for a wife, nor "my dad finally").
    `read` keeps each name's memories for memories_naming, which would search them again."""
    known: list[tuple[str, tuple[str, ...]]] = []
    shapes: dict | None = None
    for word in (called_by_name(text) or _typed_in_lowercase(text))[:NAMES_READ]:
        name = word.removesuffix("'s").removesuffix("’s")
        if len(name) < 3 or name.lower() in _NOT_A_NAME or name.lower() in STOPWORDS:
            continue
        said = pattern(
            rf"(?i:\b(?:my|our)\s+(?:[\w-]+\s+)?({_ANY_ROLE})s?,?\s+){re.escape(name)}\b"
            rf"|\b{re.escape(name)},?(?i:\s+(?:is\s+)?(?:my|our)\s+(?:[\w-]+\s+)?({_ANY_ROLE}))\b(?!['’]s)"
            rf"|(?i:\b(?:my|our)\s+{_BY_PLACE},?\s+){re.escape(name)}\b"  # "Our youngest, Sela, is 8": a child
        )
        texts = _texts(db, [name])
        if read is not None:
            read[name] = texts
        for _id, memory in texts:
            found = said.search(memory)
            if found:
                role = found.group(1) or found.group(2)
                known.append((name, (_WORD_ROLE[role.lower()] if role else "child",)))
                break
            pet = next((role for role in _BY_BREED if name in _by_breed(role, _cased(memory))), None)
            if pet:  # "Our greyhound Luna has a heart murmur": Luna is the dog
                known.append((name, (pet,)))
                break
            brood = next(  # "We have two cats: Biltong, a six-year-old ginger, and Rooibos"
                (
                    _BROOD[m.group(1).lower()]
                    for m in _NAMED_BROOD.finditer(memory)
                    if name in _A_NAME.findall(_ABOUT_ONE.sub("", m.group(2)))
                ),
                None,
            )
            if brood:
                known.append((name, (brood,)))
                break
        else:  # "birthday present for leo": Leonor, my girlfriend, called short
            shapes = {} if shapes is None else shapes
            short = [(full, (role,)) for full, role in _called_short(db, name, shapes) if (full, (role,)) not in known]
            if not short and _a_person_told_of(name, [memory for _id, memory in texts]):
                short = [(name, ("friend",))]  # of no role memory says: one of the user's people all the same
            known += short
    return known


# a child named by their place among the children ("our youngest, Sela,", "my eldest Tevita")
_BY_PLACE = r"(?:youngest|eldest|oldest|middle\s+(?:one|child|kid)|first-?born)"
# what only a person is said to be or have: an age, a birthday, he or she
_A_PERSON = pattern(
    r"(?:is|was|turns|turned)\s+\d{1,2}\b(?!\s*(?:hours?|hrs?|minutes?|mins?|km|kms|miles?|metres?|meters?|%|percent|"
    r"degrees|stops|kilometres?|kilometers?|days?|weeks?|months?|years?\s+(?:since|ago|from)))|['’]s\s+birthday|\b(?:she|he|her|his|she['’]s|he['’]s)\b",
    re.IGNORECASE,
)


def _a_person_told_of(name: str, memories: list[str]) -> bool:
    """Whether memory tells of `name` as someone of the user's without saying who they are to them
    ("Losana is 14, in Year 10, and plays netball", "Losana turns 15 on 22 March 2027"): two memories
    open on the name, and one says an age, a birthday, he or she of them."""
    opens = pattern(rf"^\s*{re.escape(name)}(?:['’]s)?\s")
    theirs = [m for m in memories if opens.match(m)]
    return len(theirs) >= 2 and any(_A_PERSON.search(m) for m in theirs)


# whom a short name may be: the household, family and friends memory names (each role one reading)
SHORT_ROLES = ("partner", "son", "daughter", "child", "mother", "father", "sister", "brother", "friend", "dog", "cat")


def _called_short(db: Database, name: str, read: dict) -> list[tuple[str, str]]:
    """The people memory names in full whom `name` is the start of ("Leo" and "my girlfriend
    Leonor"), with their role; none when several are."""
    found = {
        (full, role)
        for role in SHORT_ROLES
        for full in names_for(db, "user", role, read)
        if len(full) > len(name) and first_name(full).lower().startswith(name.lower())
    }
    return sorted(found) if len({full for full, _role in found}) == 1 else []


def _typed_in_lowercase(text: str) -> list[str]:
    """In a request typed all in lowercase ("dougie's limping again", "what can i bring to bela's
    thing"), the words that may be a name, capitalised: those said as someone's first, then those
    after a word that names a person next (for, with, to, and, tell, ask), then the rest."""
    if any(c.isupper() for c in text):
        return []
    tokens = _WORD.findall(text)
    ranked: list[tuple[int, int, str]] = []
    for k, token in enumerate(tokens):
        bare = token.removesuffix("'s").removesuffix("’s")
        if len(bare) < 3 or not bare.isalpha() or bare in STOPWORDS or bare in _NOT_A_NAME or bare in _WORD_ROLE:
            continue
        before = tokens[k - 1] if k else ""
        after = tokens[k + 1] if k + 1 < len(tokens) else ""
        if before in THING_BEFORE or (bare == token and after in _A_VERBS_OBJECT):
            continue  # "how much pepper", "split a bill", "mark my words": a thing or a verb, not the cat Pepper
        rank = 0 if bare != token else 1 if before in _BEFORE_A_NAME else 2
        ranked.append((rank, k, bare.capitalize() + token[len(bare) :]))
    return [word for _rank, _k, word in sorted(ranked)]


_BEFORE_A_NAME = frozenset("for with to and tell ask call text see visit meet help".split())
_A_VERBS_OBJECT = frozenset("my your his its our their it them me us up down off out".split())
# words that make the word after them a thing, not someone's name ("a bill", "how much pepper")
THING_BEFORE = frozenset(
    "a an the some any much many more less little few this that these those no each every my our your his her "
    "their its of".split()
)


def memories_naming(db: Database, names: list[str], read: dict[str, list[tuple[int, str]]] | None = None) -> list[int]:
    """Ids of the memories that name one of `names` (as a name: capitalised, a whole word); `read`:
    the memories names_known read for them."""
    said = pattern(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b")
    if read is not None and all(n in read for n in names):
        texts = list(dict.fromkeys(t for n in names for t in read[n]))
    else:
        texts = _texts(db, names)
    return [i for i, text in texts if said.search(text)]
