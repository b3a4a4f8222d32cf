"""Need-to-know by meaning: the profile block, and the memories a request's topic calls for.

Retrieval finds what shares words or meaning with a message; a person's request often shares
neither with what it needs ("what should I get at the coffee shop?" needs an intolerance; "plan
a barbecue" needs the vegetarian partner). Two things close that gap, by the topic model of
memchat.memory.judge.topics:

- **The profile**: the few stable facts most calls benefit from, one or more per slot of
  topics.json's "profile" (home, diet and allergies, family, pets, work, main tools, current
  project, getting around, devices), chosen by meaning, never a sensitive or private memory nor
  a former fact, capped at PROFILE_TOKENS, sent with every call but a general question about no one.
- **Topic need**: for a request about someone's own world, the memories whose topic is the
  request's (a diet request and the diet memories, a car question and the car), best first by
  meaning, at most TOPIC_ITEMS; a sensitive one only for a health or money request about its
  own topic. A general question (about no one, or like the general examples) gets none.
- **Person need**: a request that names someone by role ("a present for my brother", "my
  father-in-law") gets what memory says of that person (memchat.memory.judge.people), best first
  by meaning, at most PERSON_ITEMS, their health or money too unless the request asks for a
  suggestion or code, or the memory is marked sensitive (SUBJECT); a request for a
  suggestion (_SUGGESTION: a gift, an idea, something to do) gets what they like first (_TASTE).
- **Household diet**: a meal request (MEAL_REQUEST) gets what the people it is for cannot or
  will not eat, at most HOUSEHOLD_ITEMS (`household_diet`).
- **Plans ahead**: a request that names a period ahead ("next month", "my February trip", "over
  the holidays") gets the plans memory holds for it (a trip, a deadline, a gig), at most PLAN_ITEMS
  (`plans_ahead`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from memchat.db import db_file
from memchat.memory.judge import body, card_store, medicines, people, sensitive
from memchat.memory.judge.personal import (
    asks_about_the_world,
    asks_for_code,
    asks_for_own_fact,
    asks_in_general,
    names_in,
    names_its_language,
    says_its_own,
)
from memchat.memory.judge.topics import TopicModel, model_for
from memchat.memory.recall import index, scan, vector_file
from memchat.memory.recall.dates import (
    MONTHS,
    Period,
    coming_period,
    event_day,
    names_a_day_of_the_month,
    one_off_day,
    planned_day,
    span_start,
)
from memchat.memory.recall.vectors import VectorSet, kind_status_code
from memchat.memory.store.memories import LONGEST_SENT, Memory, MemoryStore
from memchat.memory.text import STOPWORDS
from memchat.patterns import pattern

if TYPE_CHECKING:
    import numpy as np

    from memchat.db import Database
    from memchat.memory.recall.embed import Embedder

PROFILE_TOKENS = 150
PROFILE_ROWS = 20  # nearest memories to each profile slot that the profile reads
SLOT_FLOOR = 0.3  # a memory less like a slot's examples than this is not the kind of fact it holds
TOPIC_ITEMS = 2  # memories a request's topic adds, at most
PERSON_ITEMS = 2  # memories about the people a request names by role ("my brother"), at most
# SUBJECT: what memory says of the person a request is about (by role or he/she) goes whatever its
# topic, a condition or a medicine too ("Dad's coming to stay, how should I set up the spare room?" and
# his Parkinson's): a carer's every request about them turns on it. Not for a suggestion ("birthday
# present ideas for my dad": what he likes), nor code, nor a memory marked sensitive, nor one unlike
# the request (SUBJECT_FLOOR: "Draft this week's status update for my boss" and a blood test at 0.15;
# on the helper sets 10 of the 11 it let through at 0.3 or more were needed, 1 of the 4 below).
# Helper sets 634 -> 645 of 1,078, junk 0.64 -> 0.63, no leak on own-large's 18 sensitive cases.
SUBJECT_FLOOR = 0.3
# Their health is what a carer's request turns on; their debts, a lawsuit or a conviction are not
# ("How do I set up my dad's new iPhone?" and his bankruptcy), nor is a greeting for them ("a funny
# message for my dad's 70th birthday card" and his HIV).
_CARE_CATEGORIES = frozenset({"health", "children"})
_GREETING = pattern(r"\b(?:cards?|toast|speech|poem|eulogy|greeting|wishes)\b", re.IGNORECASE)
# A text to write for others ("Write a note inviting the neighbours to a barbecue", "Draft an email
# to the school about the picnic"): what it says is the sender's to choose, not the household's diet;
# but one that carries the food itself ("a note for our cook with this week's menu") is about it.
_MESSAGE_TO_WRITE = pattern(
    r"\b(?:write|draft|compose|word)\b[^.?!]{0,40}?\b(?:note|invite|invitation|message|e-?mail|letter|text|post|"
    r"cards?|announcement|reply|whatsapp|toast|speech|poem|eulogy|greeting|wishes)\b",
    re.IGNORECASE,
)
_FOOD_IN_IT = pattern(
    r"\b(?:menu|recipes?|ingredients?|dishes|shopping|meal\s+plan|what\s+(?:to|we)\s+(?:eat|cook))\b", re.I
)
# A request that says he or she and names no one (people.pronoun_paths) may mean someone else than the
# household: what memory says of them goes when it is this like the request. On the helper sets, of
# the household's memories at 0.30 or more 15 in 24 were needed, below it 3 in 38.
PRONOUN_FLOOR = 0.3
# ... and only when nobody else is there for "he" or "she" to mean: a person named ("In Breaking Bad,
# why does she stay with Walt?"; a day or a month is no one) or called by what they are ("The Uber
# driver said he couldn't take the motorway", "When a toddler bites, should you tell him off?").
# Measured in tests/word_lists.py.
_ANTECEDENT = pattern(
    r"\b(?:a|an|the|this|that|my|our|your|his|her|their|some|one)\s+(?:[\w'’-]+\s+){0,2}?"
    r"(?:driver|friend|girl|boy|man|woman|guy|lady|kid|child|toddler|baby|teen\w*|student|pupil|teacher|"
    r"doctor|gp|nurse|consultant|surgeon|oncologist|dentist|vet|colleague|co-?worker|boss|manager|plumber|"
    r"builder|electrician|mechanic|client|customer|patient|character|actor|actress|singer|author|writer|"
    r"player|neighbou?r|landlord|landlady|tenant|date|ex|stranger|person|guest|host|waiter|waitress|cashier|"
    r"agent|officer|receptionist|coach|tutor|therapist|cleaner|nanny|babysitter|carer|partner|husband|wife|"
    r"boyfriend|girlfriend|son|daughter|mum|mom|dad|father|mother|brother|sister)s?\b"
    r"|\b(?:someone|somebody|anyone|anybody|everyone|everybody|nobody)\b",
    re.IGNORECASE,
)
_NO_ONE = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july "
    "august september october november december christmas easter".split()
)


def _someone_else(text: str) -> bool:
    """Whether a request names or describes someone its he or she may mean (_ANTECEDENT)."""
    return _ANTECEDENT.search(text) is not None or bool(names_in(text) - _NO_ONE)


CLOSE = 0.08  # topics within this of the best one count as the text's topics too
# Within the request's topics, memories rank by their likeness to the request alone (adding how typical
# of the topic a memory is sent the topic's stock facts over the one that helps: own-large 58 of 150
# needed memories sent with it, 62 without; dev and own-small unchanged), and one under TOPIC_FLOOR is
# not sent for its topic alone (a diet request and "I batch-cook my lunches"): on the development
# sets 1 in 10 of the topic items under it was needed (dev junk 0.53 -> 0.37 a call, own-small
# 1.07 -> 0.70, no needed memory lost; at 0.2 own-small lost two).
TOPIC_FLOOR = 0.15
# A health memory reaches a request whose main topic is not health (a child's rash read as family, a
# pill before breakfast read as diet) when health is one of its topics and the memory is this like it:
# twice the topic floor (own-large +2 needed memories, eczema and levothyroxine; hay fever and tinnitus
# at 0.29 and 0.26 stay out; dev and own-small unchanged).
HEALTH_ASIDE = 2 * TOPIC_FLOOR
# A question about the world ("is it legal to ride in the bed of a pickup in Texas?") is sent a memory
# for its topic only when the memory is plainly on it: own and helper sets, 4 of 18 topic items such
# questions got were needed, all at 0.26 or more; 8 of the 14 others were under 0.25.
WORLD_TOPIC_FLOOR = 0.25
SENSITIVE_LIKE = 0.6  # a memory this like a sensitive category's examples is sensitive
# What a profile is for, not a secret: an allergy or an intolerance (a diet fact the word lists file
# under health), and the family's children (their names, ages, tastes; not their school or health).
_DIET_HEALTH = pattern(r"\b(allerg\w*|intoleran\w*)\b", re.IGNORECASE)
# The conditions, and the medicines, that set what someone may eat or drink: kidney disease (potassium,
# salt), phenylketonuria, a pregnancy (soft cheese, alcohol), warfarin (vitamin K: greens), an MAOI (aged
# cheese, cured meat), a diet prescribed by name. Not high blood pressure or cholesterol: said of a past pregnancy or a parent as
# often as of the household's diet now.
_SETS_THE_DIET = (
    r"coeliac|celiac|diabet\w*|ibs|irritable bowel|fodmap|gout|kidney disease|ckd|dialysis|pku|phenylketonuria|"
    r"warfarin|coumadin|phenelzine|tranylcypromine|maois?|crohn['’]?s|colitis|acid reflux|gerd|"
    # a diet a doctor or a vet sets ("on a low-salt diet" for heart failure, "a renal diet")
    r"low[- ](?:salt|sodium|potassium|protein|phosphorus|fibre|fiber|residue)\s+diet|renal\s+diet|"
    # a pregnancy now, not one spoken of ("we've been trying to get pregnant", "during my pregnancy")
    r"(?:(?:i|she|we|[\w-]+)['’](?:m|s|re)|am|is|are)\s+(?:(?!not\b|no\b)[\w-]+\s+){0,3}pregnant|"
    r"(?:first|second|third)\s+trimester|expecting\s+(?:a\s+baby|twins|our\s+\w+)"
)
# a meal request may reach: an allergy or intolerance, and the conditions that set what someone eats
_DIET_CONDITION = pattern(rf"\b(allerg\w*|intoleran\w*|{_SETS_THE_DIET})\b", re.IGNORECASE)
# a faith's law of what to eat: a meal must respect it as it does an allergy, though it names a
# religion ("I'm Muslim, so I only eat halal meat", "Amir keeps kosher"); the faith alone is not one
_DIET_LAW = pattern(r"\b(halal|kosher|no pork|(?:doesn't|don't|won't|never|can't) (?:eat|touch) (?:pork|beef))\b", re.I)
# What the household must or will not eat comes before what it likes: a constraint is what a meal
# plan, a café order or a dinner for guests gets wrong without it.
_CONSTRAINT = pattern(
    rf"\b(allerg\w*|intoleran\w*|vegan|vegetarian|pescatarian|{_SETS_THE_DIET}|halal|kosher|"
    r"(can't|cannot|can not|doesn't|don't|won't|will not|never) (eat|drink|handle|have|stand|touch)|"
    r"(gluten|dairy|wheat|nut|egg|meat|alcohol|sugar)[- ]free|teetotal|"
    r"refuses to (eat|drink|try|touch)|avoids?|"
    # what the user keeps off for now or at some hours ("nothing with caffeine after 11", "I'm not
    # drinking any alcohol until after the marathon", "off the booze for January")
    r"nothing\s+with\s+(caffeine|alcohol|sugar|dairy|gluten)|no\s+(caffeine|alcohol|coffee|booze|sugar)\s+(after|before|until|till|on)|"
    r"not\s+(drinking|eating)\s+(any\s+)?(alcohol|booze|sugar|meat|caffeine|coffee)|off\s+(the\s+)?(booze|alcohol|caffeine|sugar)|"
    # a diet the user keeps to ("eating lower-carb these days", "meant to keep salt down", "trying to
    # lose six kilos", "cutting down on red meat")
    r"(?:low|lower|no)[- ]carbs?|keto|calorie[- ]counting|counting\s+calories|slimming\s+world|weight\s+watchers|"
    r"(?:keep|keeping|cut|cutting)\s+(?:my\s+|the\s+)?(?:salt|sugar|carbs?|fat|sodium)\s+(?:down|low)|"
    r"cutting\s+(?:down\s+on|back\s+on|out)\s+(?:the\s+)?(?:salt|sugar|carbs?|meat|red\s+meat|dairy|fat|booze|alcohol|bread)|"
    r"watching\s+(?:my|his|her|our|their)\s+(?:salt|sugar|carbs?|weight|cholesterol|fat)|"
    r"(?:trying|want|wants|need|needs|meant)\s+to\s+lose\s+(?:\w+\s+){0,2}(?:weight|kilos?|kg|pounds|lbs|stone)|"
    r"on\s+a\s+(?:diet|low[- ]\w+\s+diet)|"
    # what a food or drink does to someone ("more than one coffee on top of my meds makes me jittery")
    r"(?:coffee|caffeine|dairy|milk|gluten|bread|wheat|alcohol|wine|beer|sugar|spicy\s+food|garlic|onions?)\b[^.;]{0,40}?\b"
    r"(?:makes?|made|gives?|leaves?)\s+(?:me|him|her|them)\s+(?:jittery|shaky|sick|ill|bloated|anxious|wired|queasy|nauseous|"
    r"a\s+(?:migraine|headache|rash))\b)\b",
    re.IGNORECASE,
)
_ANIMAL_ALLERGY = pattern(
    r"\b(?:allerg\w*|asthma)\s+(?:to\s+|of\s+|from\s+)?(?:(?:all|both|our|the|my|their|his|her)\s+)?"
    r"(?:cats?|dogs?|kittens?|pupp(?:y|ies)|horses?|rabbits?|guinea\s+pigs?|hamsters?|"
    r"birds?|feathers?|pets?|animals?|animal\s+(?:fur|hair)|fur|pet\s+hair|dander)\b"
    r"|\b(?:cat|dog|pet|animal|horse|rabbit)[- ]allerg\w*",
    re.IGNORECASE,
)
# A constraint that is over ("I used to be vegetarian") is not one now.
_PAST = pattern(
    r"\b(used to|no longer|any ?more|gave up being|stopped being|cleared up|went away|gestational|"
    r"for a few (?:weeks|months)|charity|when I was pregnant)\b",
    re.IGNORECASE,
)
# A fact about the person's past ("I grew up in Swansea", "my old car", "I worked at Halcyon") is not
# who they are now: never in the profile. Measured on labelled examples (tests/word_lists.py).
_FORMER = pattern(
    r"\b(used to|no longer|any ?more|grew up|was born|originally from|previously|formerly|former|back when|"
    r"(my|our|the user's) (old|last|previous)|before (moving|retraining)|until \d{4}|studied|"
    r"(?<!'ve )(?<!have )(?<!has )(lived|worked) (in|at|as|for)|"
    # "we moved off Heroku", not "I switched from GoLand to Neovim" (the Neovim is now)
    r"(?:switched (?:away )?from|moved (?:off|away from))(?![^.;]*\bto\b)|"
    r"dropped(?!\s+(?:\w+\s+)?off\b)|ditched|stopped using|gave up on|^(?:I|we) used (?!to\b))\b",
    re.IGNORECASE,
)
# Where a child spends the day ("Felix attends Little Acorns nursery") is where to find them: not on
# a card sent with every call (the children's names, ages and tastes are). What the user says of
# their own school ("I teach at a primary school") is their work. Measured in tests/word_lists.py.
_CARES_FOR_KIN = pattern(r"\bcarer\s+(?:for|to)\s+(?:my|our)\b", re.IGNORECASE)
# "he teaches physics at a secondary school": where someone works, not where a child spends the day
_WORKS_THERE = pattern(r"\b(?:teach(?:es|ing)?|works?\s+(?:at|in)|working\s+(?:at|in)|job\s+at)\b", re.I)
_CHILD_PLACE = pattern(r"\b(school|nursery|daycare|day care|kindergarten|childminder|pre-?school|cr[eè]che)\b", re.I)
SENSITIVE_TOPICS = {"health": "health", "money": "money"}  # a request's topic -> the category it may reach
PETS = ("dog", "cat")  # the roles of people.ROLE_WORDS that are animals
CANDIDATES = 100  # nearest memories by meaning that topic need reads
PER_TOPIC = 40  # nearest memories to each topic's examples


# A food request this plainly the user's own ("cooking for everyone tonight", "pack my daughter's
# lunchbox") is a meal for the household: what each of them cannot or will not eat goes with it.
# On the development sets every diet request under it needed those constraints, and none over it
# ("my loaf came out flat", "a recipe for my next homebrew").
MEAL_REQUEST = -0.3
# A request that names a meal is one though its best topic is who it is for ("Sunday brunch ideas for
# the whole family": family 0.56, diet 0.47), when food is near its best topic.
_MEAL = pattern(
    r"\b(breakfasts?|brunch(?:es)?|lunch(?:es|box(?:es)?)?|dinners?|suppers?|meals?|snacks?|picnics?|barbecues?|"
    r"bbqs?|potlucks?|buffets?|menus?|recipes?|desserts?|puddings?|takeaways?|party food|finger food|"
    r"main\s+courses?|sunday\s+roast|roast\s+(?:dinners?|lunch|chicken|beef|lamb|pork|potatoes)|"
    r"(?:a|the)\s+roast\s+(?=(?:on|this|tonight|tomorrow|for\s+(?:the\s+)?(?:family|us|everyone|all|lunch|dinner))\b)|"
    r"(?:ring(?:ing)?|call(?:ing)?|order(?:ing)?\s+from|get(?:ting)?\s+(?:a\s+)?|from)\s+the\s+(?:chippy|chipper)|"
    r"chippy\s+(?:tea|tonight|supper|dinner|night)|chip\s+shop|fish\s+and\s+chips|"
    r"bring[- ]and[- ]share|packed\s+lunch(?:es)?|for\s+(?:the\s+)?mains?(?=\s*(?:[,.?!]|$|so|and|then|on|for|tonight|today|tomorrow)\b)|"
    r"restaurants?|caf[eé]s?|(?:somewhere|a\s+place|places)\s+(?:\w+\s+)?to\s+eat|eat(?:ing)?\s+out)\b",
    re.IGNORECASE,
)
MEAL_NEAR = 0.1
_MEAL_AS_A_TIME = pattern(r"\b(?:before|after|until|till|since|by)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_EATING_PLACE = pattern(r"restaurant|caf|somewhere|a\s+place|places|eat", re.IGNORECASE)


def _names_a_meal(text: str, request: Request, model: TopicModel) -> bool:
    diet = float(request.topics[model.names.index("diet")])
    return diet >= float(request.topics.max()) - MEAL_NEAR and _MEAL.search(text) is not None


HOUSEHOLD: tuple[tuple[str, ...], ...] = (("partner",), ("son",), ("daughter",), ("child",))
HOUSEHOLD_ITEMS = 3  # household food constraints sent with a meal request, at most...
HOUSEHOLD_CONDITIONS = 5  # ... but every allergy, intolerance and condition, up to this many

GENERAL = 0.0  # a request more like the general examples than its best topic by this is about no one
# One this far on the other side is the user's own though it names no one ("is it safe to let the
# hound run free in the park?", "the radiators are cold upstairs"): at -0.15 own-small got one more
# needed memory than at -0.2 and no set more junk; at -0.1 a general question got a memory.
PLAIN_REQUEST = -0.15


@dataclass
class Request:
    """What a message asks about, by meaning."""

    vector: np.ndarray
    topics: np.ndarray  # its score for each topic
    topic: str  # the best one
    general: float  # how much more it is like a general question than like its best topic
    code: bool = False  # it asks for a program (memchat.memory.judge.personal.asks_for_code)
    # it asks for a present ("secret santa idea for jussi, 20 euro limit"): what it costs is the
    # present's price, and the money it reaches is what is set aside for presents, not the rest
    present: bool = False

    @property
    def about_no_one(self) -> bool:
        return self.general > GENERAL


def read(query: str, embedder: Embedder) -> Request:
    import numpy as np

    model = model_for(embedder)
    # as search encodes a query (it is handed this vector): any text, lone surrogates as "?"
    vector = np.asarray(embedder.encode([query.encode("utf-8", "replace").decode("utf-8")])[0], dtype=np.float32)
    topics = model.of_prompt(vector)
    general = model.generality(vector) - float(topics.max())
    return Request(
        vector,
        topics,
        model.names[int(topics.argmax())],
        general,
        asks_for_code(query),
        _A_PRESENT.search(query) is not None,
    )


@dataclass
class Needed:
    memory: Memory
    score: float
    topic: str


def _active_rows(vs: object) -> np.ndarray:
    import numpy as np

    codes = [kind_status_code(k, "active") for k in ("fact", "event")]
    return np.isin(vs.group, codes)  # type: ignore[attr-defined]


def _nearest(sims: np.ndarray, allowed: np.ndarray, n: int) -> np.ndarray:
    """The rows of the n best scores among the allowed ones."""
    import numpy as np

    sims = np.where(allowed, sims, -np.inf)
    n = min(n, int(allowed.sum()))
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    top = np.argpartition(-sims, n - 1)[:n]
    return top[np.isfinite(sims[top])]


def nearest_the_topic(db: Database, embedder: Embedder, topic: str, n: int = PER_TOPIC) -> list[int]:
    """Ids of the n active facts and events nearest a topic's examples by meaning ("transport")."""
    model = model_for(embedder)
    vs = index.vector_set(db, "memories", embedder.model_name)
    if vs.matrix.shape[0] == 0 or vs.matrix.shape[1] != model.general.shape[1]:
        return []
    rows = _topic_rows(db, vs, model, [model.names.index(topic)], n)[0]
    return [int(i) for i in vs.ids[rows[_active_rows(vs)[rows]]]]


def _topic_rows(db: Database, vs: VectorSet, model: TopicModel, topics: list[int], n: int) -> list[np.ndarray]:
    """For each topic, the rows of the n active facts and events nearest its centroid, best first."""
    return _nearest_rows(db, vs, "topics", model.memory_examples, topics, n)


def _nearest_rows(
    db: Database, vs: VectorSet, side: str, groups: list[np.ndarray], topics: list[int], n: int
) -> list[np.ndarray]:
    """For each group of examples asked (a topic's, a profile slot's), the rows of the n active facts
    and events nearest its centroid, best first.

    They depend on the memories alone, not on the request: computed for the groups asked, in one
    pass over the vectors, and kept beside the vector copy until a memory changes (a fresh `ask`
    at 1,000,000 memories then reads the profile's candidates instead of scanning 1.5 GB for them).
    """
    import numpy as np

    centroids = np.stack([_centroid(examples) for examples in groups]).astype(np.float32)
    key = f"{hashlib.sha1(centroids.tobytes()).hexdigest()[:16]}-{TOPIC_ROWS}"
    kept = vector_file.read_side(db, side, vs, key) or {}
    missing = [t for t in topics if str(t) not in kept]
    if missing:
        allowed = _active_rows(vs)
        scores = scan.similarities_many(vs.matrix, np.ascontiguousarray(centroids[missing].T))
        for j, t in enumerate(missing):
            rows = _nearest(scores[:, j], allowed, TOPIC_ROWS)
            rows = rows[np.argsort(-scores[rows, j], kind="stable")]
            kept[str(t)] = [int(i) for i in vs.ids[rows]]
        vector_file.write_side(db, side, vs, key, kept)
    return [np.searchsorted(vs.ids, np.asarray(kept[str(t)][:n], dtype=np.int64)) for t in topics]


TOPIC_ROWS = 40  # nearest memories kept per topic: the profile reads 20, a request's topic PER_TOPIC


def _centroid(examples: np.ndarray) -> np.ndarray:
    import numpy as np

    c = examples.mean(axis=0)
    return c / max(float(np.linalg.norm(c)), 1e-9)


def _is_sensitive(m: Memory, like: float, topic: str) -> bool:
    """Flagged, very like a sensitive category's examples, or named by the word lists (but see
    _DIET_HEALTH, and a pet's own health: _PETS_OWN)."""
    if m.sensitive or like >= SENSITIVE_LIKE:
        return True
    categories = set(sensitive.categories(m.text)) - {"children"}
    if (topic == "diet" and _DIET_HEALTH.search(m.text)) or (topic == "pets" and _pets_own(m.text)):
        categories.discard("health")
    return bool(categories)


# A pet as the sentence's subject, with no one else in it ("Our border collie Bramble is 3 and gets very
# anxious with fireworks"): its health is its care, not the user's private health, and it may be on the
# card with the pet (not "My dog helps my anxiety"). Measured in tests/word_lists.py.
_PET_SUBJECT = pattern(r"\s*(?:our|my)\s+(?:[\w-]+\s+){0,3}?(?-i:\p{Lu})[\w-]+\b", re.IGNORECASE)
_SOMEONE_IN_IT = pattern(r"\b(?:I|me|my|mine|I['’]m|I['’]ve|we|us|our|he|she|him|her)\b", re.IGNORECASE)


_ANIMAL = pattern(
    r"\b(?:dog|pup|puppy|cat|kitten|collie|spaniel|lab|labrador|retriever|terrier|poodle|whippet|lurcher|"
    r"greyhound|beagle|dachshund|sausage\s+dog|staffie|staffy|husky|shepherd|alsatian|pug|bulldog|boxer|"
    r"corgi|schnauzer|cockapoo|labradoodle|cavapoo|rescue|mutt|mongrel|tabby|moggy|rabbit|bunny|hamster|"
    r"guinea\s+pig|gerbil|rat|ferret|tortoise|turtle|parrot|budgie|cockatiel|horse|pony|gecko|snake|lizard|"
    r"chickens?|hens?|goat|fish)s?\b",
    re.IGNORECASE,
)


def _pets_own(text: str) -> bool:
    found = _PET_SUBJECT.match(text)
    if found is None or _SOMEONE_IN_IT.search(text, found.end()):
        return False
    subject = text[: found.end()]
    # a pet said to be one ("our dog Rufus", "my old lab Toby"), not a person ("Our Sophie", "My PTSD")
    return _ANIMAL.search(subject) is not None and all(path[-1] in PETS for path in people.role_paths(subject))


@dataclass
class CardLine:
    """A memory on the profile's card, and the slot it fills ("home", "tools" ...)."""

    memory: Memory
    slot: str
    whole: bool = True  # False: the card holds part of it (need._without_the_cost), a search may send the rest


@dataclass
class Card:
    """The profile: its lines, and the memories a later change of home, job or car replaced (kept and
    found by search, but no longer what the user's topic calls for)."""

    lines: list[CardLine] = field(default_factory=list)
    replaced: frozenset[int] = frozenset()


_PROFILES: dict[tuple[str, str], Card] = {}  # (database, card_store.key) -> the profile


def profile(db: Database, embedder: Embedder, count: Callable[[str], int], exclude: set[int]) -> Card:
    """The profile block's memories, within PROFILE_TOKENS: kept in this process and in the database
    (memchat.memory.judge.card_store) until a memory changes, and never a memory made private or
    forgotten since (neither moves a vector, and the REPL keeps one process for a whole chat)."""
    vs = index.vector_set(db, "memories", embedder.model_name)
    key = card_store.key(vs.generation, embedder.model_name, exclude)
    card = _PROFILES.get((str(db_file(db)), key)) or _stored_card(db, embedder, key)
    if card is None or not _still_sendable(db, card):
        card = _profile(db, embedder, vs, count, exclude)
        card_store.save(db, key, _as_stored(card))
    _PROFILES.clear()  # one profile per process, in practice
    _PROFILES[(str(db_file(db)), key)] = card
    return card


def _as_stored(card: Card) -> dict[str, list]:
    return {
        "lines": [[line.memory.id, line.slot, line.whole] for line in card.lines],
        "replaced": sorted(card.replaced),
    }


def _stored_card(db: Database, embedder: Embedder, key: str) -> Card | None:
    """The card stored under this key, its memories read again; None when it does not read as a card,
    or when one of its memories is gone or could not be on any card (a card stored by hand included)."""
    stored = card_store.load(db, key)
    try:
        lines = [(i, slot, whole) for i, slot, whole in stored["lines"]] if isinstance(stored, dict) else None
        replaced = stored["replaced"] if isinstance(stored, dict) else None
    except (KeyError, TypeError, ValueError):
        return None
    slots = set(model_for(embedder).slots)
    if (
        lines is None
        or not isinstance(replaced, list)
        or not all(
            type(i) is int and isinstance(slot, str) and slot in slots and type(whole) is bool
            for i, slot, whole in lines
        )
        or not all(type(i) is int for i in replaced)
    ):
        return None
    found = MemoryStore(db).get_many([i for i, _slot, _whole in lines], longest=LONGEST_SENT)
    read = _read_by_meaning(db, embedder, list(found))
    card = []
    for i, slot, whole in lines:
        m = found.get(i)
        part = m if m is None or whole else _on_the_card(m, slot)
        if part is None or i not in read or not _may_be_on_a_card(part, *read[i]):
            return None
        card.append(CardLine(part, slot, whole=whole))
    return Card(card, frozenset(replaced))


def _still_sendable(db: Database, card: Card) -> bool:
    """Whether every memory on the card is still active and not private."""
    ids = [line.memory.id for line in card.lines]
    if not ids:
        return True
    live = {
        int(i)
        for (i,) in db.conn.execute(
            "SELECT id FROM memories WHERE id IN (SELECT value FROM json_each(?)) AND status = 'active' AND private = 0",
            (json.dumps(ids),),
        )
    }
    return live == set(ids)


def _profile(db: Database, embedder: Embedder, vs: VectorSet, count: Callable[[str], int], exclude: set[int]) -> Card:
    import numpy as np

    if vs.matrix.shape[0] == 0:
        return Card()
    model = model_for(embedder)
    if vs.matrix.shape[1] != model.general.shape[1]:
        return Card()
    slots = list(range(len(model.slots)))
    held = [slot for slot in slots if model.slot_items[slot]]  # the rest hold nothing (see below)
    rows = scan.distinct(np.concatenate(_nearest_rows(db, vs, "slots", model.slot_examples, held, PROFILE_ROWS)))
    if rows.size == 0:
        return Card()
    vectors = np.asarray(vs.matrix[rows])
    fits = model.of_slots(vectors)
    topics = model.of_memories(vectors)
    like = model.sensitivity(vectors).max(axis=1)
    found = MemoryStore(db).get_many([int(vs.ids[r]) for r in rows], longest=LONGEST_SENT)
    names = people.people_and_memories(db, list(HOUSEHOLD))[0]
    roles = {w for path in HOUSEHOLD for w in people.ROLE_WORDS[path[-1]]}
    queues: list[list[tuple[float, Memory]]] = [[] for _ in slots]
    home = model.slots.index("home")
    for j, r in enumerate(rows):
        m = found.get(int(vs.ids[r]))
        if m is None or m.private or m.kind != "fact" or m.id in exclude:
            continue
        slot = _slot_of(m, fits[j], model)
        if slot is None:
            continue
        topic = model.names[int(np.argmax(topics[j]))]
        if _fits_the_profile(m, topic, float(like[j]), names, roles):
            queues[slot].append((float(fits[j, slot]), m))
        elif (clipped := _on_the_card(m, model.slots[slot])) is not None and _fits_the_profile(
            clipped, "home" if slot == home else topic, float(like[j]), names, roles
        ):
            queues[slot].append((float(fits[j, slot]), clipped))
    latest = _changes(db, vs, model)
    replaced: set[int] = set()
    for name in ONE_AT_A_TIME:
        slot = model.slots.index(name)
        current = _since_the_change(queues[slot], name, latest.get(slot))
        replaced |= {m.id for _fit, m in queues[slot]} - {m.id for _fit, m in current}
        queues[slot] = current
    for slot, queue in enumerate(queues):
        where = slot == home
        queue.sort(
            key=lambda pair: (
                not _CONSTRAINT.search(pair[1].text),
                where and not says_where_we_live(pair[1].text),
                -pair[0],
                pair[1].id,
            )
        )
    lines = [
        CardLine(m, model.slots[slot], whole=m.text == found[m.id].text)
        for slot, m in _fill(queues, held, model.slot_items, count)
    ]
    return Card(lines, frozenset(replaced))


def _slot_of(m: Memory, fits: np.ndarray, model: TopicModel) -> int | None:
    """The profile slot a memory goes in (`fits`: its likeness to each slot's examples), or None."""
    import numpy as np

    hours = model.slots.index("hours")
    if int(np.argmax(fits)) == hours and not _works_then(m.text):
        # not when the user works ("I play netball on Tuesdays", "I cycle to work, 9 km each way"): the
        # slot it was before there was one for working time
        fits = np.where(np.arange(len(fits)) == hours, -1.0, fits)
    slot = int(np.argmax(fits))
    # Who the user lives with is family whatever the sentence says of them: "My girlfriend Sanne is
    # a vet" reads like "my friend's husband is a chef", "My boyfriend Kwame is doing a PhD" like work
    if model.slots[slot] in NOT_THEIRS and _of_the_household(m.text):
        return model.slots.index("family")
    others = model.slots.index("others")
    if slot == others and _BARE_USER.match(m.text) and not people.role_paths(m.text):
        # the user's own is not someone else's: "I have a Labrador called Bramble" reads like
        # "our neighbours have a labrador called Max"; it is the next slot it fits
        slot = int(np.argmax(np.where(np.arange(len(fits)) == others, -1.0, fits)))
    if fits[slot] < SLOT_FLOOR or (slot == hours and not _works_then(m.text)):
        return None
    return slot


# A statement that the user's own home, job or car changed, as something done ("We moved to Glasgow
# last month", "Last month I started a new job at Monzo", "We sold the Golf and bought a Kia"): its
# verb's subject is I or we ("I helped Sam when he moved to Leeds" and "We bought Ines a new car" are
# not the user's), and a home moves to a place ("I moved teams at work", "we moved here in 2015" and
# "we've moved the office into the loft" do not). A plan, a wish, a refusal or a second home is no
# change (_NOT_DONE).
# Measured on labelled examples in tests/word_lists.py.
_BY_US = (
    r"(?:\b(?:I|we)(?:['’]ve|\s+have|\s+had)?(?:\s+(?:just|finally|recently|now|eventually|then|also|since|both))*\s+"
    # or the same subject going on ("We sold the house in Bath and moved to Frome")
    r"|^\s*(?:I|we)\b[^.;]*?\band\s+(?:then\s+)?(?=(?:moved|relocated|emigrated)\b)"
    # or no subject, as people jot: "Just moved to Didsbury", "Swapped the Yaris for an ID.3"
    r"|^\s*(?:(?:just|recently|finally)\s+)?(?=(?:moved|relocated|emigrated|swapped|traded|sold|started|began|joined|left|got|"
    r"retired|quit)\b))"
)
_NAMED = r"(?-i:\p{Lu}[\w&'’.-]*(?:\s+\p{Lu}[\w&'’.-]*)*)"  # a name, capitalised whatever the flags
# what one joins a club or a union as ("I joined Unite as a union rep"), not an employer
_NOT_A_JOB = r"(?:member|volunteer|mentor|union\s+rep|shop\s+steward|trustee|governor|player|fan|supporter|guest)s?\b"
_CHANGE = {  # each slot's changes: done by us (_BY_US, once per pattern), or said as how things are now
    "home": pattern(
        rf"{_BY_US}(?:"
        r"(?:moved|relocated|emigrated)(?:\s+(?:back|down|up|over|out|across|house|abroad|again|home)){0,2},?\s+"
        r"(?:to|into)\s+"
        r"(?!(?:the|a|an|our|my)\s+(?:new\s+|bigger\s+|smaller\s+)?(?:loft|attic|garage|spare|office|shed|basement|back|"
        r"front|other|desk|team|department|building|ward|school|class|site|server|account|bank))"
        r"|moved\s+house\b|emigrated\b"
        r"|(?:bought|got|found|rented)\s+(?:a|our|my)\s+(?:new\s+)?(?:house|flat|home|place|apartment)\b(?!\s+for)"
        r"|moved\s+in\b(?!\s+(?:with\s+(?:my|our|her|his|their)|to\s+the)))"
        r"|\bkeys\s+to\s+(?:our|my)\s+new\s+(?:house|flat|home|place|apartment)"
        r"|\b(?:I|we)\s+now\s+live\s+in\b|\b(?:I|we)\s+live\s+in\s+[^.,;]+?\s+now\b",
        re.IGNORECASE,
    ),
    "work": pattern(
        rf"{_BY_US}(?:"
        r"(?:started|began|took|accepted|got|landed)\s+(?:a|my|the)\s+new\s+(?:"
        r"job\b(?!\s+offer)"
        # a role or position with an employer ("a new role as design lead at Arup"; not "a new role as a
        # school governor", "a new position on the school board")
        r"|(?:role|position|post)\b[^.;]*?\b(?:at|with)\s+(?:the\s+|a\s+)?\w)"
        r"|accepted\s+(?:a|the)\s+job\s+offer\b"
        r"|(?:retired|quit\s+my\s+job|(?:was|got)\s+made\s+redundant|took\s+(?:voluntary\s+)?redundancy)\b"
        r"|(?:got|was)\s+promoted\s+to\b"
        r"|(?:started|began)\s+(?:(?:a|my)\s+)?(?:job|role|position|post|work)\s+(?:at|with|as)\b"
        r"|(?:started|began)\s+(?:at|with)\s+(?-i:\p{Lu})"
        rf"|joined\s+{_NAMED}\s+(?:as|in)\b(?!\s+an?\s+(?:[\w-]+\s+)?{_NOT_A_JOB})"
        rf"|moved\s+to\s+{_NAMED}\s+as\b"
        rf"|left\s+{_NAMED}\s+(?:and|to)\b)"
        r"|\b(?:I['’]m|I\s+am)\s+now\s+(?:(?:at|with)\s+(?:the\s+)?(?-i:\p{Lu})|working\s+(?:at|for|as)\b)"
        r"|\bI\s+now\s+work\s+(?:at|for|as)\b",
        re.IGNORECASE,
    ),
    "transport": pattern(
        rf"{_BY_US}(?:"
        r"(?:traded\s+in|part[\s-]exchanged)\s+(?:the|our|my)\b"
        r"|traded\s+(?:the|our|my)\s+[\w.-]+(?:\s+[\w.-]+)?\s+in\b"
        r"|swapped\s+(?:the|our|my)\s+(?:old\s+)?[\w.-]+(?:\s+[\w.-]+)?\s+for\s+(?:an?|the|our|my|(?-i:\p{Lu}))"
        r"|(?:gave\s+up|sold|got\s+rid\s+of)\s+(?:the|our|my)\s+(?:car|van)\b"
        r"|sold\s+(?:the|our|my)\s+[\w-]+(?:\s+[\w-]+)?\s+and\s+(?:bought|got|now)"
        r"|(?:got|bought|have|picked\s+up)\s+(?:a|our|my)\s+new\s+(?:company\s+|electric\s+)?(?:car|van)\b"
        rf"(?!\s+(?:seat|charger|insurance|for\s+(?:my|our|his|her|their)\s+(?:[\w-]+\s+)?(?:{people.ANY_ROLE})\b))"
        r"|replaced\s+(?:the|our|my)\s+(?:car|van)\b)"
        r"|\b(?:I|we)\s+now\s+drive\s+an?\b",
        re.IGNORECASE,
    ),
}
# Said before the change, a plan, a wish or a refusal ("I'm looking for a new job", "We haven't moved
# yet", "I turned down a new role"); said anywhere, a second home or a stay ("as a holiday home", "for the summer")
_NOT_DONE = pattern(
    r"\b(?:looking|thinking|considering|hoping|hope|planning|plan|want|wants|wanted|would|might|could|"
    r"going\s+to|about\s+to|will|if|haven['’]t|hasn['’]t|didn['’]t|not|never|nearly|almost|turned\s+down)\b"
    r"|\b(?:I|we)['’]ll\b",
    re.IGNORECASE,
)
# said anywhere: undone ("I got a new job offer but didn't take it"), or long ago ("when I was ten")
_UNDONE = pattern(
    r"\bbut\s+(?:I\s+|we\s+)?(?:didn['’]t|did\s+not|never|won['’]t|turned|decided\s+not)|didn['’]t\s+work\s+out|"
    r"not\s+taking\s+it|not\s+sure\s+(?:I|we)['’]ll\s+keep|\bwhen\s+(?:I|we)\s+(?:was|were)\b|growing\s+up|"
    r"\bas\s+an?\s+(?:child|kid|teenager|student)\b",
    re.IGNORECASE,
)
_NOT_A_HOME = pattern(
    r"\b(?:holiday\s+(?:home|let)|second\s+home|buy[\s-]to[\s-]let|half\s+the\s+year|fell\s+through|"
    r"for\s+the\s+(?:summer|winter|holidays)|for\s+a\s+(?:few|couple\s+of)\s+(?:weeks|months)|temporarily)\b",
    re.IGNORECASE,
)
# What a slot's older memories must state to be what a change replaces: where home is ("I live in Leith";
# not "my flat is on the fourth floor"), a job
# with its employer ("I'm a UX designer at Deloitte"; not "I'm a registered nurse"), a car ("I drive a Golf")
_STATES = {
    "home": pattern(
        r"\b(?:live|lives|living|based|moved|relocated)\b|\bhome\s+is\b"
        r"|\b(?:flat|house|home|apartment|place|cottage|terrace)\s+(?:is\s+)?in\s+(?-i:\p{Lu})",
        re.IGNORECASE,
    ),
    "work": pattern(
        r"\b(?:work(?:s|ed|ing)?\s+(?:as|at|for|in)|job|employ\w*|role|position)\b"
        r"|\b(?:at|for|with)\s+(?-i:\p{Lu})[^.;]*?\bas\s+an?\b"
        r"|\b(?:I['’]m|I\s+am)\s+an?\s+[^.,;]*?\b(?:at|for|with)\s+(?-i:\p{Lu})",
        re.IGNORECASE,
    ),
    "transport": pattern(
        r"\b(?:drive|drives|driving|car|van|motorbike|motorcycle|scooter|campervan|motorhome)\b", re.I
    ),
}
CHANGE_ROWS = 100  # newest memories with a change's phrases that are read for one (any profile size)
_YEAR = pattern(r"\b(?:19|20)\d\d\b")


def changed(text: str, slot: str, told: str) -> bool:
    """Whether `text`, told at `told` (ISO), states that the user's own `slot` (home, work,
    transport) changed, lately: a year it names more than a year before it was told is history
    ("we moved to Leeds for university in 2012")."""
    found = _CHANGE[slot].search(text)
    if found is None or _NOT_DONE.search(text[: found.start()]) or _UNDONE.search(text):
        return False
    if slot == "home" and _NOT_A_HOME.search(text):
        return False
    if slot == "transport":
        return True  # a year said of a car is its model's ("bought a 2021 Tesla")
    years = [int(y) for y in _YEAR.findall(text)]
    return not years or max(years) >= int(told[:4]) - 1


def _changes(db: Database, vs: VectorSet, model: TopicModel) -> dict[int, tuple[str, int]]:
    """Per one-at-a-time slot (by index), when the latest change of it was told, and its memory:
    read from the newest memories with a change's words, whichever slot or section they are in (a
    change pinned, private or about a bank still changes what is current), and held by the slot
    they read as (by meaning; "I started a new role as a school governor" is not the job)."""
    import numpy as np

    # the words of a change, as phrases where one word alone is common ("new", "now", "left", "started")
    words = (
        "moved OR relocated OR emigrated OR traded OR swapped OR retired OR redundant OR redundancy OR promoted OR keys OR "
        '"started a" OR "started my" OR "started at" OR "started with" OR "started work" OR "began a" OR "began at" OR '
        'joined OR "quit my" OR "gave up the" OR "got rid" OR "accepted a" OR "accepted the" OR "sold the" OR '
        '"sold our" OR "sold my" OR "replaced the" OR "replaced our" OR "replaced my" OR NEAR(left and, 4) OR '
        '"new job" OR "new role" OR "new position" OR "new post" OR "new car" OR "new van" OR "new house" OR '
        '"new flat" OR "new home" OR "new place" OR "new company car" OR "new electric car" OR "now live" OR '
        '"now at" OR "now working" OR "now work" OR "now drive" OR NEAR(live now, 8)'
    )
    found = MemoryStore(db).newest_matching(words, CHANGE_ROWS, with_private=True, longest=LONGEST_SENT)
    said = [(i, text, told, slot) for i, text, told in found for slot in ONE_AT_A_TIME if changed(text, slot, told)]
    if not said:
        return {}
    ids = np.asarray(vs.ids)
    at = np.searchsorted(ids, [i for i, *_ in said])
    latest: dict[int, tuple[str, int]] = {}
    for (i, _text, told, name), r in zip(said, at, strict=True):
        if r >= ids.shape[0] or int(ids[r]) != i:
            continue  # not embedded yet: found by its words only, its slot unknown
        slot = model.slots.index(name)
        # held by the slot it changes ("I started a new role as a school governor" is not the job)
        if int(np.argmax(model.of_slots(np.asarray(vs.matrix[r])[None, :])[0])) != slot:
            continue
        if slot not in latest or told > latest[slot][0]:
            latest[slot] = (told, i)
    return latest


def _since_the_change(
    queue: list[tuple[float, Memory]], name: str, change: tuple[str, int] | None
) -> list[tuple[float, Memory]]:
    """A one-at-a-time slot's memories without those told before the latest change of it that state
    what it replaces (kept as they are, and found by search: only the card, sent with every call,
    leaves them out)."""
    if change is None:
        return queue
    told, memory_id = change
    return [
        (fit, m)
        for fit, m in queue
        if m.id == memory_id
        or m.created_at >= told
        or not (_STATES[name].search(m.text) and (_OURS.search(m.text) or _OUR_THING.match(m.text)))
    ]


# the user's own home, job or car said as a thing ("Our flat is in Leith", "My car is a Golf")
_OUR_THING = pattern(
    r"\s*(?:our|my)\s+(?:[\w-]+\s+)?(?:flat|house|home|apartment|place|cottage|terrace|job|car|van)\b", re.IGNORECASE
)
# the user among a sentence's people ("My partner and I live in Clifton"; not "My sister lives in Inverness")
_OURS = pattern(r"\b(?:I|we|I['’]m|we['’]re|our\s+(?:family|household))\b|\bthe user\b(?!['’]s)", re.IGNORECASE)


# The user as a sentence's bare subject ("I have a Labrador", "We keep bees"; not "The user's neighbour")
_BARE_USER = pattern(r"^\s*(?:I|I'm|I've|we|we're|we've)\b(?!['’]s)", re.IGNORECASE)
# Slots of the user's own doing, or nobody's: a memory about the user's partner or child is not one
NOT_THEIRS = ("others", "routines", "work", "hours", "project", "tools")
_HOUSEHOLD_FIRST = pattern(r"^\s*(?:my|our|the user's)\s+[\w-]+(?![\w-]*['’]s)", re.IGNORECASE)


def _of_the_household(text: str) -> bool:
    """Whether a memory's subject is someone of the household by role ("My girlfriend Sanne...",
    "Our son..."; not "My friend's husband...")."""
    first = _HOUSEHOLD_FIRST.match(text)
    if first is None:
        return False
    said = re.sub(r"^\s*the user's", "my", first.group(0), flags=re.IGNORECASE)
    return bool(set(people.role_paths(said)) & set(HOUSEHOLD))


# What says where the user lives ("I live in Leith", "We own a 1930s semi in Headingley", "Home is a
# flat in Kreuzberg"), which the home slot takes before what only names the town ("I'm a Leeds United
# season-ticket holder", "I'm a paramedic based at the Norwich hub"). Measured in tests/word_lists.py.
_WHERE_WE_LIVE = pattern(
    r"\b(?:live|lives|living|moved|relocated)\s+(?:\w+\s+)?(?:in|to|near|outside)\b|\bhome\s+is\b"
    r"|\b(?:flat|house|home|apartment|bungalow|cottage|terrace|semi|semi-detached|condo|townhouse|2BHK|3BHK)\s+"
    r"(?:is\s+(?:in|near)\b|(?:in|on|near|outside|just\s+outside)\s+(?:the\s+)?(?-i:\p{Lu}))",
    re.IGNORECASE,
)


def says_where_we_live(text: str) -> bool:
    """Whether a memory says where the user lives ("My partner and I live near Utrecht"; not "My
    sister Nell lives in Cambridge": people.role_paths)."""
    return _WHERE_WE_LIVE.search(text) is not None and (_OURS.search(text) is not None or not people.role_paths(text))


# Words of working time, which a memory in the hours slot must say ("I work nights", "on call every
# fourth weekend", "in the office Tuesday to Thursday"; not "I play netball on Tuesday evenings").
# Measured in tests/word_lists.py.
_AT_WORK = pattern(
    r"\b(?:work|works|working|shifts?|on[\s-]call|office|rota|job|(?<!day\s)nights|lates|earlies|wfh|remotely|clock\s+(?:in|off))\b",
    re.IGNORECASE,
)


# A sum of money ("£1,150", "$560", "₹28,000", "AUD 850"): never on the card. Measured in tests/word_lists.py.
_AN_AMOUNT = pattern(
    r"[£$€₹]\s?\d|\b(?:AUD|CAD|USD|EUR|GBP|INR|CHF|Rs\.?)\s?\d"
    # the currency after the sum ("1 200 € per month", "900 euros"), a sum in thousands a period ("1.9k a
    # month"), a rate ("11.44 an hour")
    r"|\d\s?(?:[£$€₹]|(?:AUD|CAD|USD|EUR|GBP|INR|CHF)\b|(?:euros?|pounds?|dollars?|rupees?|quid|francs?)\b)"
    r"|\b(?:for|at|on|earn\w*|pay\w*|costs?|rent\w*)\s+(?:about\s+|around\s+)?\d+(?:[.,]\d+)?\s?k\s+(?:a|per|each)\s+(?:week|month|year)\b"
    r"|\b\d+(?:[.,]\d+)?\s+(?:an|per)\s+hour\b",
    re.IGNORECASE,
)
# What a home costs, said beside where it is ("I rent a 2BHK in Baner, Pune for ₹28,000 a month"): the
# rent is money, never on the card, but where the user lives is what most requests need ("dinner near
# home", "the drive to the airport"). The card holds the memory without it; a money request still
# gets the whole memory by its topic or a search. Measured in tests/word_lists.py.
_WHAT_IT_COSTS = pattern(
    r",?\s+(?:for|at|paying)\s+(?:about\s+|around\s+|roughly\s+|just\s+(?:over|under)\s+)?"
    r"(?:(?:[£$€₹]|(?:AUD|CAD|USD|EUR|GBP|INR|Rs\.?)\s?)\s?[\d][\d,.]*(?:\s?k\b)?"
    r"|[\d][\d,. ]*(?:\s?k\b)?\s?(?:[£$€₹]|(?:euros?|pounds?|dollars?|rupees?)\b)|\d+(?:[.,]\d+)?\s?k\b)"
    r"(?:\s+(?:a|per|each|every)\s+(?:month|week|year|fortnight)|\s*(?:pcm|pw|pa|/\s?(?:month|mo|week|wk)))?",
    re.IGNORECASE,
)


def _delicate(m: Memory, like: float, topic: str, *, animal: bool, pets: bool, their_care: bool) -> bool:
    """Whether a memory goes only to a request about its own topic (health or money). A pet's
    illness is its care, not the user's private health ("Juniper has kidney disease")."""
    if pets:
        return m.sensitive or bool(sensitive.categories(m.text) - {"health", "children"})
    if their_care and topic != "money" and sensitive.categories(m.text) <= _CARE_CATEGORIES:
        return False
    return not animal and (topic in SENSITIVE_TOPICS.values() or _is_sensitive(m, like, topic))


_CLAUSE = pattern(r",\s+(?:and\s+)?|;\s+|\s+and\s+(?=(?:has|is|was|had|takes|uses|lives|works|can|can't|gets)\b)")


def _without_the_sensitive(m: Memory) -> Memory | None:
    """The memory without its clauses that touch a sensitive category, when what is left still says
    something of its subject ("My dad is 78, lives in Pune" of "My dad is 78, lives in Pune and has
    Parkinson's"), or None. A memory marked sensitive or private is never cut: it stays whole, and home."""
    cut = _without_clauses(m, lambda clause: bool(sensitive.categories(clause)))
    return cut if cut is None or not sensitive.categories(cut.text) else None


def _on_the_card(m: Memory, slot: str) -> Memory | None:
    """What of a memory that may not be on the card whole may be: a home without its rent ("We rent a
    flat in Leith"), anyone without their condition ("We have an old greyhound, Pipa" of "...; she's
    on meloxicam for arthritis"), a car without the day its MOT is due."""
    if slot == "home" and (clipped := _without_the_cost(m)) is not None:
        return clipped
    return _without_the_sensitive(m) or _without_the_date(m)


def _without_the_date(m: Memory) -> Memory | None:
    """The memory without its clauses that name the day of a one-off plan or event, when what is
    left still says something standing ("Our car is a 2019 Dacia Sandero, petrol/LPG" of "...; its
    MOT is due in February 2027"), or None."""
    return _without_clauses(m, lambda clause: one_off_day(clause, m.created_at) is not None)


def _without_clauses(m: Memory, drop: Callable[[str], bool]) -> Memory | None:
    """The memory without the clauses `drop` picks, when its first clause stays and what is left
    still says something (four words or more); None when nothing is dropped, or the memory is
    marked sensitive or private (it is never cut: it stays whole, and home)."""
    if m.sensitive or m.private:
        return None
    clauses = _CLAUSE.split(m.text.strip().rstrip("."))
    kept = [c for c in clauses if not drop(c)]
    if len(kept) == len(clauses) or not kept or kept[0] != clauses[0] or len(" ".join(kept).split()) < 4:
        return None
    return replace(m, text=", ".join(kept))


DELICATE_LIKE = 0.5  # a text this like a sensitive category's examples is about it


AN_AMOUNT = _AN_AMOUNT  # a sum of money said (memchat.memory.judge.vehicles)


def delicate(texts: list[str], embedder: Embedder | None, *, by_topic: bool = False) -> list[bool]:
    """Whether each text says something of health, money or another sensitive category: by its
    words (sensitive.categories, a medicine taken), and by meaning when the encoder is there (very
    like a category's examples, or with `by_topic` read as about health or money: "I have a heart
    arrhythmia" names no category's word; an instruction, "Give money in euros", is not read so)."""
    said = [bool(sensitive.categories(t) - {"children"}) or _TAKES.search(t) is not None for t in texts]
    if embedder is None or all(said):
        return said
    model = model_for(embedder)
    vectors = embedder.encode(texts)
    like = model.sensitivity(vectors).max(axis=1)
    topics = model.of_memories(vectors).argmax(axis=1)
    delicate_topics = {model.names.index(t) for t in SENSITIVE_TOPICS}
    return [
        s or float(like[k]) >= DELICATE_LIKE or (by_topic and int(topics[k]) in delicate_topics)
        for k, s in enumerate(said)
    ]


def _without_the_cost(m: Memory) -> Memory | None:
    """The memory as the card may hold it when it says where the user lives and what that costs:
    without the cost ("I rent a 2BHK in Baner, Pune"), or None."""
    cut = _WHAT_IT_COSTS.sub("", m.text, count=1).strip(" ,")
    if cut == m.text or not says_where_we_live(cut) or _PAY.search(cut) or sensitive.categories(cut):
        return None
    return replace(m, text=cut)


# What says a thing is done around work, not the work itself ("five-a-side after work", "I work on my
# novel every morning", "the office gym at 7am")
_AROUND_WORK = pattern(
    r"\b(?:after|before|from|to|at)\s+work\b|\bwork(?:s|ing)?\s+on\s+(?:my|a|an|the|our|his|her)\b|\bgym\b",
    re.IGNORECASE,
)


_MY_WORK = pattern(
    r"\s*my\s+(?:usual\s+|normal\s+|regular\s+|working\s+)?(?:shifts?|hours|nights|days|job|rota|work|week|schedule)\b",
    re.IGNORECASE,
)
# "I work 9:30 to 5:30 and climb after work": said as the user's working time first
_I_WORK = pattern(
    r"^\s*(?:I|we)\s+(?:work|do\s+(?:nights|shifts|earlies|lates))\b(?!\s+on\s+(?:my|a|an|the|our)\b)", re.IGNORECASE
)


def _works_then(text: str) -> bool:
    """Whether a memory says when the user works: the user's own (not "I drive my husband to his night
    shifts"), in working words (_AT_WORK), not something done around work (_AROUND_WORK)."""
    return (
        (_USER.match(text) is not None or _MY_WORK.match(text) is not None)
        and _AT_WORK.search(text) is not None
        and (_I_WORK.match(text) is not None or _AROUND_WORK.search(text) is None)
        and not people.role_paths(text)
    )


# Profile slots a person has one of at a time: a new home, job or car replaces the old one.
ONE_AT_A_TIME = ("home", "work", "transport")


def stating_the_same(
    db: Database, embedder: Embedder, memory: Memory, vector: np.ndarray | None = None
) -> list[Memory]:
    """When `memory` states a fact a person has one of at a time (ONE_AT_A_TIME: "I moved to York
    last month" is a home), the active memories of its kind that state the same kind of fact ("I
    live in Leeds"), most like it first: what it may replace, whatever words they share (0.16
    between "We moved down to Norwich" and "Home is a flat in Leith"). Those the profile calls
    former ("we used to live in Hull") change nothing, nor do another person's ("my brother lives
    in Norwich": memchat.memory.judge.people)."""
    import numpy as np

    if people.role_paths(memory.text):
        return []
    model = model_for(embedder)
    if vector is None:
        vector = np.asarray(embedder.encode([memory.text])[0])
    own = model.of_slots(np.asarray(vector)[None, :])[0]
    slot = int(np.argmax(own))
    if model.slots[slot] not in ONE_AT_A_TIME or float(own[slot]) < SLOT_FLOOR:
        return []
    vs = index.vector_set(db, "memories", embedder.model_name)
    if vs.matrix.shape[0] == 0 or vs.matrix.shape[1] != model.general.shape[1]:
        return []
    (rows,) = _nearest_rows(db, vs, "slots", model.slot_examples, [slot], PROFILE_ROWS)
    if rows.size == 0:
        return []
    fits = model.of_slots(np.asarray(vs.matrix[rows]))
    found = MemoryStore(db).get_many([int(vs.ids[r]) for r in rows], longest=LONGEST_SENT)
    out = []
    for j, r in enumerate(rows):
        m = found.get(int(vs.ids[r]))
        if m is None or m.id == memory.id or m.kind != memory.kind or m.status != "active":
            continue
        if _FORMER.search(m.text) or people.role_paths(m.text):
            continue
        if int(np.argmax(fits[j])) == slot and float(fits[j, slot]) >= SLOT_FLOOR:
            out.append(m)
    return out


# what a job pays is money, not work ("My job pays 42k a year", "my role comes with a 10% bonus")
_PAY = pattern(
    r"\b(?:pays?|paid|salary|bonus|earn\w*|income|wages?|raise|pay\s+rise|per\s+(?:hour|year|annum|month)|an\s+hour)\b"
    r"|[£$€]\s?\d|\b\d+(?:\.\d+)?\s?k\b|\d+\s?%",
    re.IGNORECASE,
)


def _fits_the_profile(m: Memory, topic: str, like: float, names: set[str], roles: set[str]) -> bool:
    """Whether a memory may be on the card: not a former fact, nor a dated plan, nor where a child
    spends the day, nor a friend's diet ("Ines's best friend Lucy can't eat gluten" is not the
    household's), nor sensitive, nor about health or money though no word list marks it ("rent is £925"),
    nor holding an account, card or phone number (sent when asked for, never with every call)."""
    if not _may_be_on_a_card(m, topic, like):
        return False
    constraint = _CONSTRAINT.search(m.text)
    return not (
        constraint and not _of_them(m.text[: constraint.start()] or constraint.group(0), names, roles, with_user=True)
    )


def _may_be_on_a_card(m: Memory, topic: str, like: float) -> bool:
    """What any card must keep off, whoever the household is (a stored card is checked by this too)."""
    # a job with a bank or an insurer reads as about money ("I started a new job at Monzo"): it is work
    a_job = _STATES["work"].search(m.text) is not None and not sensitive.categories(m.text) and not _PAY.search(m.text)
    if (
        _FORMER.search(m.text)
        or (topic in SENSITIVE_TOPICS.values() and not a_job)
        or sensitive.holds_identifier(m.text)
        or _AN_AMOUNT.search(m.text)  # what something costs, whatever the topic reads ("a flat in Leith for £1,150")
    ):
        return False
    if one_off_day(m.text, m.created_at) is not None and not any(
        changed(m.text, s, m.created_at) for s in ONE_AT_A_TIME
    ):
        return False  # a dated plan or event is coming up before its day and past after it, never a standing fact
        # (but "We moved to Didsbury on 14 March" is where the user lives now)
    if _CHILD_PLACE.search(m.text) and not _USER.match(m.text) and not _WORKS_THERE.search(m.text):
        return False
    return not _is_sensitive(m, like, topic)


def _fill(
    queues: list[list[tuple[float, Memory]]], held: list[int], items: list[int], count: Callable[[str], int]
) -> list[tuple[int, Memory]]:
    """Each slot's best, then the second of those that hold two ...; then, while tokens are left, the
    rest of the slots' memories in turn. A slot that holds none (a former job, a friend's dog, a
    routine) is there to draw off what only looks like a slot's kind of fact."""
    chosen: list[tuple[int, Memory]] = []
    used = 0
    turn = 0
    while any(queues[slot] for slot in held):
        turn += 1
        for slot in held:
            if (turn <= items[slot] or turn > max(items)) and queues[slot]:
                m = queues[slot].pop(0)[1]
                cost = count(m.text) + 2
                if used + cost <= PROFILE_TOKENS:
                    chosen.append((slot, m))
                    used += cost
    return chosen


# A request is plainly about health when the model reads it so ahead of its next topic by this much
# ("Can I have a donut before my long run?" 0.026, "Can I still ride my bike at 30 weeks?" 0.045; not
# "Will my commute be miserable tomorrow?", 0.006 ahead of transport, which got the antidepressant)
HEALTH_LEAD = 0.02


def plainly_health(asked: np.ndarray, model: TopicModel) -> bool:
    """Whether a request's topics (`asked`) put health first, plainly ahead of the next."""
    ranked = sorted(asked.tolist(), reverse=True)
    return model.names[int(asked.argmax())] == "health" and (len(ranked) < 2 or ranked[0] - ranked[1] >= HEALTH_LEAD)


def by_topic(
    db: Database,
    request: Request,
    embedder: Embedder,
    exclude: set[int],
    personal: bool,
    delicate_only: bool = False,
    in_general: bool = False,
    about_the_world: bool = False,
    lookup: bool = False,
) -> list[Needed]:
    """The memories the request's topic calls for, best first: none for a general question, nor
    for one that names no one unless it is plainly the user's own ("write the deploy script"), nor
    for one that asks what is usual for people at large (`in_general`: "what antibiotics are usually
    given for strep throat?"); `delicate_only`: only those about health or money, for a request about
    that; `about_the_world`: none of those, for a question that says nothing of the user's own."""
    import numpy as np

    if request.about_no_one or in_general or not (personal or request.general < PLAIN_REQUEST):
        return []
    model = model_for(embedder)
    vs = index.vector_set(db, "memories", embedder.model_name)
    if vs.matrix.shape[0] == 0 or vs.matrix.shape[1] != model.general.shape[1]:
        return []
    vector, asked = request.vector, request.topics
    wanted = {i for i in range(len(model.names)) if asked[i] >= asked.max() - CLOSE}
    allowed = _active_rows(vs)
    parts = [_nearest(scan.similarities(vs.matrix, vector), allowed, CANDIDATES)]  # the search's scores, kept
    parts += _topic_rows(db, vs, model, sorted(wanted), PER_TOPIC)
    rows = scan.distinct(np.concatenate(parts))
    if rows.size == 0:
        return []
    vectors = np.asarray(vs.matrix[rows])
    return _ranked(
        db,
        model,
        vs.ids[rows],
        vectors,
        vector,
        asked,
        wanted,
        exclude,
        floor=WORLD_TOPIC_FLOOR if about_the_world else TOPIC_FLOOR,
        # nor for a lookup of one fact ("What is my tax reference number?" is not asking for the debts)
        no_delicate=request.code or about_the_world or lookup,
        delicate_only=delicate_only,
        present=request.present,
    )


_I_FIRST = pattern(r"\s*I(?:['’](?:m|ve|d|ll))?\b", re.IGNORECASE)
# what the user says they keep from someone ("haven't told Janet", "hiding it from Declan")
_KEPT_FROM = pattern(
    r"\b(?:haven['’]t|have\s+not|not|never)\s+(?:yet\s+)?(?:told|said\s+anything\s+to|mentioned\s+(?:it\s+)?to)\b"
    r"|\b(?:hiding|keeping)\s+(?:it|this|that)\s+from\b|\b(?:doesn['’]t|don['’]t)\s+know\s+(?:that\s+)?I\b",
    re.IGNORECASE,
)


def _ranked(
    db: Database,
    model: TopicModel,
    ids: np.ndarray,
    vectors: np.ndarray,
    vector: np.ndarray,
    asked: np.ndarray,
    wanted: set[int],
    exclude: set[int],
    limit: int | None = None,
    floor: float = TOPIC_FLOOR,
    pets: bool = False,
    no_delicate: bool = False,
    delicate_only: bool = False,
    subject: bool = False,
    symptom: bool = False,
    present: bool = False,
) -> list[Needed]:
    limit = TOPIC_ITEMS if limit is None else limit
    topics = model.of_memories(vectors)
    like = model.sensitivity(vectors).max(axis=1)
    scores = vectors @ vector
    found = MemoryStore(db).get_many([int(i) for i in ids], longest=LONGEST_SENT)
    # The categories the request may reach: its main topic's; and health when health is one of its
    # topics at all ("the toddler's skin is angry again", "how long after my pill before breakfast?"),
    # for a memory that close to it in meaning (HEALTH_ASIDE: not tinnitus for mould in the shower).
    main = SENSITIVE_TOPICS.get(model.names[int(asked.argmax())])
    if main == "health" and not plainly_health(asked, model):
        main = None  # read as health by a hair ("Will my commute be miserable tomorrow?"): health aside only
    aside = main != "health" and asked[model.names.index("health")] >= asked.max() - CLOSE
    pet_request = model.names[int(asked.argmax())] == "pets"
    tech_request = model.names[int(asked.argmax())] == "tech"
    out: list[Needed] = []
    for j in sorted(range(len(ids)), key=lambda j: -scores[j]):
        if scores[j] < floor:
            break
        m = found.get(int(ids[j]))
        if m is None or m.private or m.id in exclude or sensitive.holds_identifier(m.text):
            continue  # an account or passport number goes when asked for (search), not with its topic
        own = {i for i in range(len(model.names)) if topics[j, i] >= topics[j].max() - CLOSE}
        if tech_request and int(topics[j].argmax()) not in wanted:
            continue  # a hobby or a home gadget with a computer in it is not the work a technical task is done in
        # An allergy to an animal is what a pet decision must not get wrong, as a food allergy is a
        # meal's ("should we get a kitten?" and "the girls are allergic to cats")
        animal = pet_request and _ANIMAL_ALLERGY.search(m.text) is not None
        if not (own & wanted or animal):
            continue
        topic = model.names[int(topics[j].argmax())]
        # A memory about health or money goes only to a request about that, even when no word
        # list or example marks it sensitive ("My mum has Parkinson's" is not for a gift idea).
        their_care = (  # the person the request is about: their condition is what it turns on (SUBJECT)
            subject
            and not (m.sensitive or no_delicate)
            # not the user's own, that names them ("I've been feeling low and haven't told Janet")
            and not _I_FIRST.match(m.text)
            and (scores[j] >= SUBJECT_FLOOR or symptom and states_a_condition(m.text))
        )
        delicate = _delicate(m, float(like[j]), topic, animal=animal, pets=pets, their_care=their_care)
        if delicate and (
            # a program's subject is not the user's ("an app that logs my insulin doses"), nor is a
            # question about the world ("how many hours of sleep does an adult need?" and the lithium)
            no_delicate or (topic != main and not (aside and topic == "health" and scores[j] >= HEALTH_ASIDE))
        ):
            # what it says of the person besides ("My dad is 78, lives in Pune" of "... and has
            # Parkinson's"), for the person a request is about: where he is, not what he has
            if (m := _without_the_sensitive(m) if subject and not no_delicate else None) is None:
                continue
        if delicate_only and not (delicate and topic == main):
            continue
        if delicate and topic == "money" and present and not _A_PRESENT.search(m.text):
            continue  # a present's price reaches what is set aside for presents, not the savings
        out.append(Needed(m, float(scores[j]), topic))
        if len(out) >= limit:
            break
    return out


def by_person(db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int]) -> list[Needed]:
    """The memories about the people the request names by role ("a present for my brother": what
    memory says of Owen), best first by meaning (memchat.memory.judge.people)."""
    import numpy as np

    paths = people.role_paths(text)
    named: list[int] | None = None
    if not paths and not (request.about_no_one or request.code):
        read: dict[str, list[tuple[int, str]]] = {}
        known = people.names_known(db, text, read)  # "Present ideas for Josh": my partner Josh, and no other
        if known:
            paths, named = [path for _name, path in known], people.memories_naming(db, [n for n, _p in known], read)
    floor = 0.0
    if not paths and not (request.about_no_one or request.code or asks_in_general(text) or _someone_else(text)):
        paths = people.pronoun_paths(db, text)  # "His meds are wearing off by 4pm": the son memory knows
        floor = PRONOUN_FLOOR
    if not paths:
        return []
    ids = [i for i in (people.memories_about(db, paths) if named is None else named) if i not in exclude]
    vs = index.vector_set(db, "memories", embedder.model_name)
    if not ids or vs.matrix.shape[0] == 0:
        return []
    rows = np.flatnonzero(np.isin(vs.ids, ids))
    if rows.size == 0:
        return []
    model = model_for(embedder)
    if vs.matrix.shape[1] != model.general.shape[1]:
        return []
    vectors = np.asarray(vs.matrix[rows])
    every = set(range(len(model.names)))
    pets = all(path[-1] in PETS for path in paths)
    # (a meal's conditions are the household route's: here they would push out what the kids will eat)
    symptom = (
        describes_symptom(text)
        or _HELPING_THEM.search(text) is not None  # "help my daughter with her reading homework": the dyslexia
        or (_THEIR_FOOD.search(text) is not None and _MEAL.search(text) is None)
    )
    # "what should we do?" about a symptom asks what to do for them, not for an idea they would like
    suggestion = _SUGGESTION.search(text) is not None and not symptom
    # a technical task that names someone ("fix this KeyError in my wife's script") is no request
    # about them: nothing of their health goes with it, as with code
    tech_near = reads_as_tech(request, model)
    technical = request.code or tech_near or _CODE_WORD.search(text) is not None  # "code for a game Tomas can play"
    # help with a task of theirs that is not their learning or their day ("help my wife with her CV",
    # "help my son with his Minecraft server"), or something for someone of theirs ("a present for
    # his teacher"): what they live with is no part of it
    not_about_them = helps_with_their_task(text)
    ranked = _ranked(
        db,
        model,
        vs.ids[rows],
        vectors,
        request.vector,
        request.topics,
        every,
        exclude,
        len(ids),
        -1.0,
        pets,
        no_delicate=technical or not_about_them,
        subject=not suggestion and _GREETING.search(text) is None,
        symptom=symptom,
    )
    ranked = _in_order(db, text, ranked, exclude, floor, pets=pets, symptom=symptom, suggestion=suggestion)
    # what the user keeps from someone is never sent about them ("I've been bummed out and haven't told Declan")
    ranked = [n for n in ranked if not (_I_FIRST.match(n.memory.text) and _KEPT_FROM.search(n.memory.text))]
    out = [Needed(n.memory, n.score, "person") for n in ranked[: PET_ITEMS if pets else PERSON_ITEMS]]
    for_them = not (pets or technical or names_its_language(text) or not_about_them)
    if for_them and (shaping := _shaping_condition(db, vs.ids[rows], vectors, request.vector)):
        out = [shaping, *(n for n in out if n.memory.id != shaping.memory.id)]
    return out


def _in_order(
    db: Database,
    text: str,
    ranked: list[Needed],
    exclude: set[int],
    floor: float,
    *,
    pets: bool,
    symptom: bool,
    suggestion: bool,
) -> list[Needed]:
    """by_person's memories about the people named, in the order the request needs them."""
    if symptom:  # their conditions first, by likeness within (a stable sort)
        ranked.sort(key=lambda n: not states_a_condition(n.memory.text))
    if suggestion:
        # What they like first, by likeness within (a stable sort); a taste need not be like the
        # request at all ("a book for my partner" and "Dev is mad about Formula 1").
        ranked.sort(key=lambda n: _TASTE.search(n.memory.text) is None)
        ranked = [n for n in ranked if n.score >= floor or _TASTE.search(n.memory.text)]
    elif not pets:  # a pet's memories are few and all its care, like the request or not ("the cat sitter")
        ranked = [n for n in ranked if n.score >= floor]
    return _for_the_pet(db, text, ranked, exclude, symptom=symptom) if pets else ranked


PET_ITEMS = 3  # a pet's memories a request about it gets, at most
# A pet that is gone is no care of today's ("Our old dog Scamp died in 2016")
_GONE = pattern(
    r"\b(?:died|passed\s+away|put\s+(?:down|to\s+sleep)|was\s+put\s+down|rip)\b|\bour\s+old\s+(?:dog|cat)\b", re.I
)
# What the pet may eat ("can the dog have some of the turkey skin?", "is cheese ok for the cat")
_PET_MAY_HAVE = pattern(
    r"\b(?:can|could|may|should)\s+(?:the\s+)?(?:dog|cat|puppy|kitten|he|she|it|\w+)\s+(?:have|eat|get)\b"
    r"|\b(?:ok|okay|safe|alright|bad)\s+for\s+(?:the\s+)?(?:dog|cat|puppy|kitten|him|her)\b|\bfeed\b|\btreats?\b|\bscraps\b",
    re.IGNORECASE,
)
# ... turns on its diet: what it must not have, the food it is on
_PET_DIET = pattern(
    r"\b(?:allerg\w*|intoleran\w*|can['’]t\s+(?:have|eat)|(?:gets|have|has)\s+no\s+|no\s+(?:[\w-]+\s+)?(?:scraps|treats|bones)\b|"
    r"low-fat|special\s+(?:food|diet)|prescription\s+(?:food|diet)|nothing\s+else|only\s+eats?|urinary|renal|"
    r"hypoallergenic|sensitive\s+stomach|upset\s+stomach|pancreatitis|diabet\w*)",
    re.IGNORECASE,
)
# Who minds the pet while the household is away ("who'll have the dog while we're in ireland", "what
# does the cat sitter need to know", "kennels for that week"): the arrangement memory holds, then the
# care it needs every day. Measured in tests/word_lists.py.
_MINDING_THE_PET = pattern(
    r"\b(?:pet|dog|cat|house|tortoise|rabbit|bunny|bird|hamster|horse)[- ]?sit(?:ter|ters|ting)?\b|\b(?:kennels?|cattery|catteries|boarding)\b"
    r"|\b(?:while|when|whilst)\s+(?:I['’]m|I\s+am|we['’]re|we\s+are|I['’]ll\s+be|we['’]ll\s+be|I\s+go|we\s+go)\s+"
    r"(?:away|gone|abroad|off|travell?ing|on\s+(?:holiday|vacation|hols)|in|visiting|over\s+in)\b(?!\s+(?:bed|work|the\s+(?:garden|office|shower)))",
    re.IGNORECASE,
)
# ... a memory of that arrangement ("When we go away Tyson stays with Janet's sister Linda", "When I
# travel, Bela feeds Mingau") ...
_MINDS_IT = pattern(
    r"\bwhen\s+(?:I|we)(?:\s+(?:travel|go\s+away|go\s+on\s+holiday|are\s+away|am\s+away)|['’](?:re|m)\s+away)\b"
    r"|\b(?:sitters?|kennels?|cattery|boarding|stays?\s+with|looks?\s+after|minds?|pops?\s+in)\b",
    re.IGNORECASE,
)
# ... and the care a minder must give ("subcutaneous fluids every second evening", "his inhaler twice a day")
_DAILY_CARE = pattern(
    r"\b(?:inhalers?|fluids|tablets?|pills?|insulin|injections?|medication|meds|drops|twice\s+a\s+day|once\s+a\s+day|"
    r"every\s+(?:second\s+|other\s+)?(?:day|evening|morning|night))\b",
    re.IGNORECASE,
)
_A_PET = pattern(
    r"\b(?:dogs?|cats?|pupp(?:y|ies)|kittens?|pets?|hamsters?|rabbits?|guinea\s+pigs?|tortoises?|parrots?|kennels?|cattery)\b",
    re.IGNORECASE,
)


# a plan that keeps the household away overnight
_OVERNIGHT = pattern(
    r"\b(?:fly|flying|flights?|abroad|weeks?|nights?|holidays?|staying|stay|hotel|airbnb|lodge|caravan|cottage|"
    r"back\s+(?:on|to|home)|until|till)\b",
    re.IGNORECASE,
)


def minds_a_pet_away(text: str) -> bool:
    """Whether a request asks who minds a pet while the household is away (_MINDING_THE_PET): the
    next trip is when ("who'll have the dog while we're in ireland")."""
    return _MINDING_THE_PET.search(text) is not None and _A_PET.search(text) is not None


_VET = pattern(r"\b(?:vets?|veterinary|veterinarian)\b", re.IGNORECASE)
VET_ROWS = 50  # newest memories naming a vet that are read


def _for_the_pet(db: Database, text: str, ranked: list[Needed], exclude: set[int], *, symptom: bool) -> list[Needed]:
    """A pet's memories for a request about it: not a pet that is gone; for what it may eat, its diet
    first; for a symptom, its conditions first and then the household's vet, whom memory may name
    without the pet ("Our vet is Aoife at the clinic in Clifden")."""
    ranked = [n for n in ranked if not _GONE.search(n.memory.text)]
    if _PET_MAY_HAVE.search(text):
        ranked.sort(key=lambda n: _PET_DIET.search(n.memory.text) is None)
    elif _MINDING_THE_PET.search(text):
        ranked.sort(key=lambda n: (_MINDS_IT.search(n.memory.text) is None, _DAILY_CARE.search(n.memory.text) is None))
    if not symptom:
        return ranked
    # (a vet memory that names the pet is among its memories, maybe below the first few: it goes too)
    taken = {n.memory.id for n in ranked[: PET_ITEMS - 1]} | exclude
    store = MemoryStore(db)
    found = store.newest_matching('"vet" OR "vets" OR "veterinary" OR "veterinarian"', VET_ROWS, longest=LONGEST_SENT)
    vets = [i for i, said, _told in found if i not in taken and _VET.search(said) and _OURS_OR_MINE.search(said)]
    vet = store.get_many(vets[:1], longest=LONGEST_SENT)
    if not vet:
        return ranked
    ours = [Needed(m, 0.0, "person") for m in vet.values() if not (m.private or m.sensitive)]
    return [*ranked[: PET_ITEMS - 1], *ours, *(n for n in ranked[PET_ITEMS - 1 :] if n.memory.id not in vet)]


_OURS_OR_MINE = pattern(
    r"\b(?:our|my)\s+vets?\b|\b(?:our|my)\s+(?:[\w-]+\s+){0,2}(?:go|goes)\s+to\b|\bvet\s+is\b", re.I
)


def helps_with_their_task(text: str) -> bool:
    """Whether a request asks help with a task of someone's that is not their learning or their day
    ("help my wife with her CV", "help Ingrid with her CV"), or for something for someone of theirs
    ("a present for his teacher"): what they live with is no part of it."""
    return _FOR_THEIR_OWN.search(text) is not None or (
        _HELPING_WITH.search(text) is not None
        and _HELPING_THEM.search(text) is None
        # help with their body or their money is help with what they live with ("with her tremor")
        and not (describes_symptom(text) or sensitive.categories(text) - {"children"})
    )


# "help my son", "help Ingrid", "help her": someone of the user's a request asks help for
_SOMEONE_HELPED = r"\bhelp(?:ing)?\s+(?:(?:my|our)\s+(?:[\w-]+\s+){0,2}?[\w-]+|him|her|them|(?-i:(?!(?:Me|Us|It|This|That|Them)\b)\p{Lu}(?:\p{Ll}|['’-])+))\s+"
_HELPING_WITH = pattern(
    _SOMEONE_HELPED + r"(?:with|to|pick|choose|fix|set|make|build|write)\b",
    re.IGNORECASE,
)
_CODE_WORD = pattern(r"\b(?:code|coding|script|program|programme|function|regex|sql|api)\b", re.IGNORECASE)
# a request for someone of theirs, not for them ("a present for his friend", "a card for her teacher")
_FOR_THEIR_OWN = pattern(
    rf"\b(?:for|to)\s+(?:his|her|their)\s+(?:(?:best|new|old|class|form)\s+)?(?:{people.ANY_ROLE}|teachers?|coach|"
    r"classmates?|tutor|carers?|nurse|doctor|mates?|pals?|buddy|buddies|team|godparents?)\b",
    re.IGNORECASE,
)


def _shaping_condition(db: Database, ids: np.ndarray, vectors: np.ndarray, vector: np.ndarray) -> Needed | None:
    """Of the memories about the people a request is about, the one that says they live with a
    condition that shapes all life with them (_SHAPING: dementia, ADHD, autism, deafness…), most like
    the request: what to say to him, a day out, a present, a week at the care home all turn on it,
    though its topic is health and the request's is not. None when memory says no such thing."""
    found = MemoryStore(db).get_many([int(i) for i in ids], longest=LONGEST_SENT)
    scores = vectors @ vector
    for j in sorted(range(len(ids)), key=lambda j: -scores[j]):
        m = found.get(int(ids[j]))
        if (
            m is not None
            and not m.private
            and states_a_shaping_condition(m.text)
            and not sensitive.holds_identifier(m.text)
        ):
            return Needed(m, float(scores[j]), "person")
    return None


def states_a_shaping_condition(text: str) -> bool:
    """Whether a memory says its subject lives with a condition that shapes all life with them
    (_SHAPING); not someone of theirs ("Mum's friend Jean has dementia" is Jean's, "My son's teacher
    is deaf" the teacher's)."""
    shaping = _SHAPING.search(text)
    return shaping is not None and _SOMEONE_OF_THEIRS.search(text[: shaping.start()]) is None


# someone of theirs before what they have ("Mum's friend Jean", "my wife's brother", "my son's
# teacher"): not "my husband's dementia", the condition itself
_SOMEONE_OF_THEIRS = pattern(r"\w['’]s\s+[\w-]+")
# A condition that shapes everything done with someone, not one a request must touch on to need it
# (a diabetes, an eczema, a dyslexia go by the request's words: _CONDITION, _SYMPTOM). Measured in
# tests/word_lists.py.
_SHAPING = pattern(
    r"(?<!about )(?<!on )(?<!for )\b(?:dementia|alzheimer\S*|adhd|autis\w+|asperger\S*|learning\s+disabilit\w+|"
    r"down(?:'s|s)?\s+syndrome|cerebral\s+palsy|non-?verbal|deaf(?!\s+to\b)|(?:is|registered|went|going|partially)\s+blind|"
    r"(?:uses|in)\s+a\s+wheelchair|wheelchair\s+user|motor\s+neurone\s+disease|brain\s+injury|"
    r"global\s+developmental\s+delay)\b",
    re.IGNORECASE,
)


# A worry about someone's body ("The cat has been drinking loads of water", "My mum keeps falling
# over lately", "Biscuit has been sick three times") turns on what memory knows of their health: the
# cat's kidney disease, Mum's Parkinson's, though neither is like the request by meaning. Their
# conditions go first, whatever their likeness. Measured in tests/word_lists.py.
_SYMPTOM = pattern(
    r"\b(?:(?:keeps?|kept)\s+(?:falling|being\s+sick|coughing|scratching|limping|fainting|wetting)|"
    r"(?:fell|falls|fallen|falling)\s+(?:over|down)|dizzy|dizziness|faint(?:ed|ing)?|vomit\w*|"
    r"(?:been|being|was)\s+sick|throwing\s+up|diarrho?ea|runny\s+poo|(?:got|has|had|with)\s+the\s+(?:runs|trots)|rash|fever|(?:running\s+)?a\s+(?:high\s+)?temperature|"
    r"cough(?:ing)?|wheez\w*|breathless|short\s+of\s+breath|limp(?:ing|s)?|lump(?!\s+sum)|swollen|swelling|bleeding|"
    r"itch(?:y|ing)|scratching|off\s+(?:his|her|their|its)\s+food|not\s+eating|won['’]t\s+eat|"
    r"drinking\s+(?:a\s+lot|loads|lots|more)(?:\s+of\s+water)?|pee(?:ing)?\s+(?:a\s+lot|loads|more)|"
    r"weeing|thirsty|lethargic|letharg\w+|confused|forgetful|forgetting|seizures?|"
    r"tremor|shaking|in\s+pain|hurts|aching|sore|headaches?|losing\s+weight|lost\s+weight|"
    r"symptoms?|(?:should|do)\s+(?:i|we)\s+(?:be\s+)?(?:worry|worried)|is\s+(?:that|this)\s+(?:normal|serious))\b",
    re.IGNORECASE,
)
# a memory that says what someone has ("has early kidney disease", "was diagnosed with Parkinson's",
# "is diabetic", "has eczema"): a condition, not a care routine or a like
_CONDITION = pattern(
    r"\b(?:diagnosed|disease|disorder|syndrome|condition|allerg\w+|intoleran\w+|diabet\w+|asthma|arthritis|"
    r"dementia|alzheimer\S*|parkinson\S*|epilep\w+|cancer|eczema|dyslexi\w+|autis\w+|adhd|anxiety|depression|"
    r"deaf|blind|heart\s+(?:murmur|condition|disease|failure)|kidneys?|renal|thyroid|coeliac|crohn\S*|ibs|"
    r"migraines?|copd|blood\s+pressure|mobility|wheelchair|stroke|hip\s+(?:dysplasia|replacement)|"
    r"osteoporosis|incontinen\w+|cataracts?|glaucoma|sclerosis|lupus|psoriasis|hypertension|cushing\S*|pregnan\w*|"
    r"addison\S*|pancreatitis|colitis|hernia)\b",
    re.IGNORECASE,
)


# Helping someone of yours with their learning or their day ("How do I help my daughter with her
# reading homework?", "help our son settle at bedtime") turns on what they live with (dyslexia,
# ADHD, autism), as a worry about their body does; not help with a CV or a present, which their
# condition is no part of. Measured in tests/word_lists.py.
_HELPING_THEM = pattern(
    _SOMEONE_HELPED + r"(?:with|to|get|learn|cope|manage|focus|deal|settle)\b[^.?!]*?"
    r"\b(?:homework|reading|read|spelling|spell|writing|handwriting|maths|math|school|exams?|revision|revise|"
    r"focus|concentrat\w*|sleep|settle|bedtime|cope|coping|routine|behaviour|behavior|tantrums?|meltdowns?|"
    r"friends|anxiety|worries|stress)\b",
    re.IGNORECASE,
)


def describes_symptom(text: str) -> bool:
    """Whether a request tells of a symptom or a worry about someone's body (_SYMPTOM)."""
    return _SYMPTOM.search(text) is not None


# What someone may eat or drink turns on their conditions as a symptom does ("what should my wife
# avoid eating at the moment?" and her pregnancy)
_THEIR_FOOD = pattern(r"\b(?:eat|eating|eats|food|foods|diet|drink|drinks|drinking)\b", re.IGNORECASE)


def states_a_condition(text: str) -> bool:
    """Whether a memory says what condition someone has (_CONDITION)."""
    return _CONDITION.search(text) is not None


# A request for a suggestion for someone ("gift ideas for my partner", "what could we do with the
# nephews?") needs what they like before what memory says of them otherwise (their job, their birthday).
# Both lists are data with a measured precision (tests/word_lists.py).
_SUGGESTION = pattern(
    r"\b(ideas?|suggest\w*|recommend\w*|gifts?|presents?|treats?|surprise|stocking fillers?|"
    r"what (?:should|could|can) (?:i|we) (?:get|buy|give|do|make|plan))\b",
    re.IGNORECASE,
)
_TASTE = pattern(
    r"\b(loves?|likes?|into|obsessed|collects?|fan of|favourite|enjoys?|keen|mad about|passionate|hobby|hobbies)\b",
    re.IGNORECASE,
)


# A request that names a period ahead gets the plan memory holds for it that is most like the request.
# One: on the development sets the second was needed for none of 15 requests (the flight back beside
# the flight out, the offsite beside the talk). A season or a year is too wide to single one out ("this
# winter" and a trip to Tromsø in February): 1 of 9 such plans was needed, so the period must be a
# month or so at most.
PLAN_ITEMS = 1
PLAN_PERIOD_DAYS = 45
# And it must be near the request in meaning: a plan in the period that is not what the request is about
# ("a function that returns next month's first Monday" and a work trip in November at 0.16; Christmas
# presents for a son and a visit to the in-laws at 0.02). The plans needed on the development sets
# were at 0.22-0.35.
PLAN_FLOOR = 0.2
# "What should I pack for my trip?" names no period, but "my trip" is the next one memory holds: a
# trip, holiday or flight of the user's (my, our, the) with nothing to say which is the soonest
# planned one in NEXT_TRIP_DAYS that is near the request in meaning.
_NEXT_TRIP = pattern(
    r"\b(?:my|our|the)\s+(?:upcoming\s+|next\s+|coming\s+)?"
    r"(?:trip|holiday|holidays|vacation|flight|flights|journey|getaway|break|travels?)\b(?!\s+(?:to|from|in)\b)",
    re.IGNORECASE,
)
NEXT_TRIP_DAYS = 365
# ... and so does a request that gets ready for a trip without calling it one ("before I go to the
# States", "what should I pack for the 2 weeks away", "how early should I be at the airport?"; not
# "what should I pack for a weekend away?", any weekend).
# Measured in tests/word_lists.py.
_TRIP_AHEAD = pattern(
    r"\bbefore\s+(?:I|we)\s+(?:go|head(?:\s+off)?|fly|travel|set\s+off)\s+(?:to\s+(?!bed|sleep|work|school|the\s+(?:gym|shops?|office|doctor|dentist|pub)\b)|abroad|away|over)"
    r"|\bbefore\s+(?:I|we)\s+fly\b"
    r"|\b(?:what|how)\s+(?:should|do|can|shall)\s+(?:I|we)\s+pack\b(?!\s+for\s+an?\b)"
    r"|\bpacking\s+list\b(?!\s+for\s+an?\b)|\bpack\s+for\s+(?:the|my|our)\b"
    r"|\b(?:the|our|my)\s+(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|few)\s+(?:weeks?|days?|nights?)\s+away\b"
    r"|\bat\s+the\s+airport\b",
    re.IGNORECASE,
)
# the user's own trip with a word or two before it, as a period names it ("our summer holiday", "my
# Easter break", "the August trip")
_TRIP_IN_A_PERIOD = pattern(
    r"\b(?:my|our|the)\s+(?:[\w-]+\s+){1,2}?(?:trip|holiday|holidays|vacation|getaway|break)\b", re.IGNORECASE
)
# The user's own absence ("Who could look after the dog while I'm away?", "instructions for the cat
# sitter while we're away in April") is a trip of theirs: the soonest one ahead (or the one in the
# period named), whatever its words; a trip, not the dentist. Measured in tests/word_lists.py.
_AWAY = pattern(
    r"\b(?:while|when|whilst|for\s+when|as)\s+(?:I['’]m|I\s+am|we['’]re|we\s+are|I['’]ll\s+be|we['’]ll\s+be)\s+"
    r"(?:away(?!\s+from\s+(?:my|the)\s+(?:desk|computer|keyboard|laptop|phone|screen|pc|machine))|gone|travell?ing|abroad|on\s+(?:holiday|vacation|leave)|out\s+of\s+(?:town|the\s+country))\b",
    re.IGNORECASE,
)
# And "how was our last holiday?" is the latest trip of the past year that memory dates, told as past.
_LAST_TRIP = pattern(
    r"\b(?:my|our|the)\s+(?:last|previous|latest|most\s+recent)\s+"
    r"(?:trip|holiday|holidays|vacation|flight|journey|getaway|break|travels?)\b(?!\s+(?:to|from|in)\b)",
    re.IGNORECASE,
)
LAST_TRIP_DAYS = 365
# A request about the diary itself for a period ("what's on this week?", "am I free next weekend?",
# "what have I got coming up this month?") gets every plan in it, soonest first, AGENDA_ITEMS at most.
_AGENDA = pattern(
    r"\b(?:(?:what['’]?s|what\s+is)\s+(?:on|happening|going\s+on)(?=\s*(?:for\s+(?:me|us)\s+)?(?:for\s+|on\s+|over\s+|in\s+)?"
    r"(?:this|next|today|tonight|tomorrow|the\s+weekend|the\s+day\s+after|a\s+week|a\s+fortnight|two\s+weeks|"
    # a day of a month ("what's on the 4th of jan", "what's happening on the 9th"), a festive period
    r"(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\b|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d|"
    r"christmas|xmas|easter|new\s+year|half[- ]term|the\s+holidays|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|[?.!]|$))|on\s+my\s+plate|what\s+(?:have|do)\s+(?:i|we)\s+(?:got|have)(?!\s+to\b)|"
    r"what\s+am\s+i\s+(?:doing|up\s+to)|what\s+are\s+we\s+doing|(?:am\s+i|are\s+we)\s+(?:busy|free)(?!\s+to\b)|"
    # "am i working christmas", "are we off over new year" (not "working too hard", "off the hook")
    r"(?:am\s+i|are\s+we)\s+(?:working|off)(?=\s+(?:on\s+|over\s+|at\s+)?(?:this|next|today|tonight|tomorrow|christmas|xmas|"
    r"new\s+year|boxing\s+day|easter|the\s+\d|\d|(?:mon|tues|wednes|thurs|fri|satur|sun)day))|"
    r"my\s+(?:schedule|diary|calendar|agenda|plans)|our\s+(?:schedule|diary|calendar|plans)|"
    r"anything\s+(?:on(?!\s+(?:offer|sale))|planned|booked|coming\s+up|clashing)|any\s+clash(?:es)?\b|what'?s\s+coming\s+up(?!\s+in\b)|"
    # a day asked about for clashes: "is the weekend of the 19th going to be a problem?", "is the 3rd free?"
    r"(?:is|are|will)\s+(?:the\s+)?(?:weekend\s+of\s+)?(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\s+(?:(?:going\s+to\s+be|be)\s+)?"
    r"(?:a\s+problem|free|busy|ok|okay|clear|a\s+clash))\b",
    re.IGNORECASE,
)
AGENDA_ITEMS = 5
# Whether the user can do something at a time ("can i squeeze in a small job the first week of
# december", "friends want a camping weekend in july, can i go", "pete wants a pint thursday night,
# can i") turns on what the diary holds then, as "what's on?" does: asked of the diary too. Going,
# coming, making it, fitting in or taking on, not "can I eat X in December"; or "can I?" said last.
# Measured in tests/word_lists.py.
_CAN_I_MAKE_IT = pattern(
    r"\b(?:(?:can|could)\s+(?:i|we)|(?:i|we)\s+(?:can|could))\s+(?:still\s+|even\s+|actually\s+|realistically\s+)?"
    r"(?:go\b(?!\s+(?:vegan|vegetarian|veggie|over|through|back|wrong|gluten|dairy|keto|sugar|without))|come|"
    r"make\s+(?:it|that|this|the)|fit|squeeze|manage|take\s+on|get\s+to|join|be\s+there|say\s+yes|"
    r"book\s+(?:(?:it|them|him|her|the\s+[\w-]+)\s+)?(?:in\s+)?for\b|"
    r"still\s+do\s+(?:my|our|the)|"
    r"head\s+(?:off|out|over|up|down)|get\s+away|commit)\b"
    r"|,\s*(?:can|could)\s+(?:i|we)(?:\s+(?:go|come|make\s+it|do\s+it|manage\s+it))?\s*\??\s*$"
    r"|\b(?:am\s+i|are\s+we)\s+(?:around|available|about)\b(?!\s+to\b)"
    r"|\bwhat['’]?s\s+(?:booked|pencilled|penciled)\s+in\b|\bwhat\s+(?:have|do)\s+(?:i|we)\s+(?:got\s+)?booked\b"
    r"|\bany\s+plans\b(?!\s+(?:to|for\s+an?)\b)",
    re.IGNORECASE,
)


_WH_BEFORE = pattern(r"\b(?:where|what|which|how|who)\b(?![^,.;!?]*[,.;!?])", re.IGNORECASE)


def asks_if_i_can_make_it(text: str) -> bool:
    """Whether a request asks if the user can make something at a time (_CAN_I_MAKE_IT); not where,
    what or how they can ("where can we go for dinner saturday", "which museums can we go to")."""
    found = _CAN_I_MAKE_IT.search(text)
    return found is not None and _WH_BEFORE.search(text[: found.start()]) is None


def asks_after_the_diary(text: str) -> bool:
    """Whether a request asks what the user's diary holds ("What's on this week?", "is the 19th
    free?", "can I make a pint on Thursday?")."""
    return _AGENDA.search(text) is not None or asks_if_i_can_make_it(text)


def plans_ahead(
    db: Database, request: Request, embedder: Embedder, text: str, today: date, exclude: set[int]
) -> list[Needed]:
    """For a request that names a period ahead (memchat.memory.recall.dates.coming_period), or the
    user's next or last trip (_NEXT_TRIP, _LAST_TRIP), the one-off plans memory holds for it ("I'm
    going to Tromsø from 2027-02-08" for "what should I pack for my February trip?"), best first by
    meaning: among the CANDIDATES memories nearest the request (a plan the request is about is near
    it; the search's scores are reused)."""
    import numpy as np

    period = coming_period(text, today)
    # "what should I pack for our summer holiday?": the trip in that season, though a season is too
    # long a period for every plan in it to be what the request is about
    trip_then = (
        period is not None
        and (period.end - period.start).days > PLAN_PERIOD_DAYS
        and _TRIP_IN_A_PERIOD.search(text) is not None
    )
    # (a pet minded while away is the household's next stay away, when the request is the user's own)
    away = _AWAY.search(text) is not None or trip_then or (minds_a_pet_away(text) and says_its_own(text))
    soonest = period is None and (away or _NEXT_TRIP.search(text) is not None or _TRIP_AHEAD.search(text) is not None)
    latest = period is None and not soonest and _LAST_TRIP.search(text) is not None
    if soonest:
        period = Period(today, today + timedelta(days=NEXT_TRIP_DAYS))
    elif latest:
        period = Period(today - timedelta(days=LAST_TRIP_DAYS), today - timedelta(days=1))
    # "is the 19th free?" asks after the user's own diary, though it names no one, and "write me a
    # running order for the 20th" is for what the user has on that day
    one_day = period is not None and period.start == period.end and names_a_day_of_the_month(text)
    if period is None or (
        request.about_no_one and not (asks_after_the_diary(text) or (one_day and not asks_about_the_world(text)))
    ):
        return []
    if not (soonest or latest or trip_then) and (period.end - period.start).days > PLAN_PERIOD_DAYS:
        return []
    day_of = event_day if latest else planned_day  # a past trip was stated after it: no plan
    model = model_for(embedder)
    vs = index.vector_set(db, "memories", embedder.model_name)
    if vs.matrix.shape[0] == 0 or vs.matrix.shape[1] != model.general.shape[1]:
        return []
    rows = _nearest(scan.similarities(vs.matrix, request.vector), _active_rows(vs), CANDIDATES)
    found = MemoryStore(db).get_many([int(i) for i in vs.ids[rows]], longest=LONGEST_SENT)
    days = {
        r: day
        for r in rows
        if (m := found.get(int(vs.ids[r]))) is not None
        and (day := day_of(m.text, m.created_at)) is not None
        # in the period, or a span of days that overlaps it ("staying with us from 18 to 28 December")
        and (
            period.start <= day <= period.end
            or period.start <= day
            and (span_start(m.text, m.created_at) or day) <= period.end
        )
    }
    planned = list(days)
    if away or soonest or latest:  # a trip of theirs (not the night rota), however unlike the request its words are
        travel = model.names.index("travel")
        trips = model.of_memories(np.asarray(vs.matrix[planned])) if planned else np.zeros((0, len(model.names)))
        planned = [
            r
            for r, t in zip(planned, trips, strict=True)
            if _plainly_travel(t, travel) or tells_a_journey(found[int(vs.ids[r])].text)
        ]
        if minds_a_pet_away(text):
            # someone minds the dog for a stay away, not for a day out ("York Christmas market on Saturday")
            stays = [
                r
                for r in planned
                if (span_start((m := found[int(vs.ids[r])]).text, m.created_at) or _OVERNIGHT.search(m.text))
                and _OURS.search(m.text)  # the household's stay away, not a sister's visit here
            ]
            # (said away, the trip need not say its nights: "a conference in Vienna on 12 January")
            planned = stays if stays or _AWAY.search(text) is None else planned
    if asks_after_the_diary(text) and not (soonest or latest or request.code):
        # "What's on this week?" asks for every plan in the period, the dentist's too: the user's own
        # diary, whatever each plan is about (a request about the diary reaches what it holds)
        diary = sorted(planned, key=days.__getitem__)[:AGENDA_ITEMS]
        return [
            Needed(m, float(vs.matrix[r] @ request.vector), "plan")
            for r in diary
            if (m := found.get(int(vs.ids[r]))) is not None and not m.private and m.id not in exclude
        ]
    if soonest or latest:  # the next trip (or the last) that is like the request, not another one
        near = [r for r in planned if away or float(vs.matrix[r] @ request.vector) >= PLAN_FLOOR]
        planned = sorted(near, key=days.__getitem__, reverse=latest)[:1]
    if not planned:
        return []
    chosen = np.asarray(planned, dtype=np.int64)
    every = set(range(len(model.names)))
    vectors = np.asarray(vs.matrix[chosen])
    ranked = _ranked(
        db,
        model,
        vs.ids[chosen],
        vectors,
        request.vector,
        request.topics,
        every,
        exclude,
        PLAN_ITEMS,
        -1.0 if away or one_day else PLAN_FLOOR,  # (on a day named, the plan is that day's, like or not)
        no_delicate=request.code,
    )
    return [Needed(n.memory, n.score, "plan") for n in ranked]


# A request about practising a faith ("what should I cook for iftar?", "how do we keep Shabbat on a ski
# trip?") needs what memory says of the user's own faith, which search does not find by meaning (to the
# encoder "suhoor" is not like "I fast during Ramadan"). The practices and festivals are data, each of one
# faith (sensitive_words.json "faiths"; measured on labelled examples in tests/word_lists.py): a request
# about iftar never gets "I'm Jewish".
FAITH_ITEMS = 1
FAITH_ROWS = 300  # newest memories with a word of the faith that are read
FAITH_FLOOR = 0.0  # the memory must be at least this like the request


def by_faith(db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int]) -> list[Needed]:
    """What memory says of the user's own faith (one memory, the most like the request), for a request
    about practising it that is the user's own (it says I, my, we... or names the household): never
    for a question about no one ("What is Diwali?"), nor for a program ("a Diwali theme for my app")."""
    faiths = sensitive.practices_named(text)
    if not faiths or request.about_no_one or request.code:
        return []
    if not (says_its_own(text) or people.role_paths(text)):
        return []
    store = MemoryStore(db)
    found = store.newest_matching(sensitive.faith_terms(faiths), FAITH_ROWS, longest=LONGEST_SENT)
    memories = store.get_many([i for i, _text, _told in found if i not in exclude], longest=LONGEST_SENT)
    # the user's own ("As a Muslim, I fast during Ramadan", "Our family is Sikh"; not "Ines is Catholic")
    own = sorted(
        i
        for i, m in memories.items()
        if sensitive.faiths_of(m.text) & faiths
        and (_OURS.search(m.text) or _of_the_household(m.text))  # "My husband Dan is Jewish"
        # a memory that touches anything else sensitive is not sent for a faith ("I go to a gambling
        # addiction group at the church", "I'm a convert, my family don't know yet" is private enough)
        and not (sensitive.categories(m.text) - {"religion", "children"})
        and not m.sensitive
        and not (_PAST.search(m.text) or _FORMER.search(m.text))  # "I used to be Catholic"
    )
    kept = [(score, i) for score, i in most_like(db, embedder, request, own) if score >= FAITH_FLOOR]
    return [Needed(memories[i], score, "faith") for score, i in kept[:FAITH_ITEMS]]


# A private matter the request says is the user's own ("Being epileptic, which jobs should I avoid?",
# "Ruth and I are both epileptic, tips for travelling?", "With my ADHD, how do I...?") is asked with it:
# what memory says of that very matter, the user's own, goes though the request's topic is another
# (travel, work) and its meaning is far from the memory's.
MATTER_ITEMS = 1
MATTER_ROWS = 200  # newest memories with a word of the matter that are read
MATTER_FLOOR = 0.2  # and as like the request as this: "How do I depress the clutch?" is no depression (0.08)
_MATTERS = ("health", "religion", "politics", "sexual_orientation", "finances", "legal_status")
_SAID_OF_ME = pattern(
    r"\b(?:I|me|myself|we|(?-i:us)|I['’]m|I['’]ve|I['’]d|we['’]re|we['’]ve)\b"
    r"|^\W*(?:being|as\s+(?:an?|someone|somebody|one)|since\s+I|with\s+(?:my|our))\b",
    re.IGNORECASE,
)
# "my credit card debt", "our mortgage": not "my sister has", "my son's"
_MY_OWN = pattern(
    r"\b(?:my|our)\s+(?:(?!(?:is|are|has|have|had|was|got|gets|takes|with)\b)[\w-]+\s+){0,2}$", re.IGNORECASE
)
_CLAUSES = pattern(r"[.;:!?]+\s+|,\s+|\s+[—–-]\s+")
_THEIRS_BEFORE = pattern(r"\w['’]s?\s+(?:[\w-]+\s+)?$")


def matters_of_my_own(text: str) -> dict[str, str]:
    """The private matters the text says are the user's own ("Being epileptic", "my sister and I both
    have epilepsy", "my credit card debt"), not another's ("My sister has epilepsy")."""
    found: dict[str, str] = {}
    for clause in _CLAUSES.split(text):
        for word, category in sensitive.matters(clause, _MATTERS).items():
            before = clause[: clause.lower().find(word)]
            if _THEIRS_BEFORE.search(before):
                continue  # "my friend's depression", "Ruth's epilepsy"
            if _SAID_OF_ME.search(clause) or _MY_OWN.search(before):
                found[word] = category
    return found


# A request about the user's own career ("prep bullet points for my review", "talking points for my 1:1
# about promotion", "write my LinkedIn summary", "a short about-me for my site") turns on what they do,
# what they lead now and where they want to go ("I'm a senior backend engineer at Paywise", "I'm
# leading the rewrite of our reconciliation service", "I want to get promoted to staff engineer"): the
# encoder finds one of them at best. Both lists are measured in tests/word_lists.py.
CAREER_ITEMS = 3
CAREER_ROWS = 200  # newest memories with a word of work that are read
_CAREER = pattern(
    r"\b(?:(?:my|for|about|get(?:ting)?|going\s+for|case\s+for|up\s+for)\s+(?:a\s+)?promotion|(?:get|got|be|getting|being)\s+promoted|"
    r"(?:move|moving|step|stepping)\s+up\s+(?:a\s+)?(?:level|grade)|performance\s+review|"
    r"appraisal|annual\s+review|my\s+(?:mid-?year\s+|end[- ]of[- ]year\s+|yearly\s+)?review\b(?!\s+of)|"
    r"(?:my|our|next)\s+1:1|"
    r"one[- ]to[- ]one(?!\s+(?:function|mapping|correspondence|relationship))|one[- ]on[- ]one|linkedin|(?:my|a)\s+cv|(?:my|a)\s+r[ée]sum[ée]|cover\s+letter|"
    r"(?:my|a)\s+(?:short\s+)?bio|about[- ]me|elevator\s+pitch|job\s+interview|pay\s+rise)\b",
    re.IGNORECASE,
)
_CAREER_TERMS = (
    '"work"* OR "job" OR "lead"* OR "project"* OR "promot"* OR "engineer"* OR "manager" OR "head" OR "freelance"* OR '
    '"shipped" OR "role" OR "team" OR "company" OR "agency" OR "senior" OR "department"'
)
_CAREER_FACT = pattern(
    r"\b(?:I['’]m\s+(?:an?|the)\s+(?:[\w-]+\s+){0,3}?(?:engineer|developer|manager|teacher|nurse|designer|illustrator|"
    r"editor|analyst|consultant|lead|head|director|officer|scientist|researcher|lecturer|electrician|surveyor|architect|"
    r"accountant|lawyer|solicitor|chef|writer|producer|programmer|administrator|coordinator|specialist)s?\b|"
    r"I\s+work\s+(?:as|at|for)\b|I['’]m\s+head\s+of\b|I\s+(?:lead|manage|run)\s+(?:the|a|our)\s+(?!(?:to-?dos?|list|house|home|kids?|diary|calendar|errands?)\b)|I['’]m\s+leading\b|"
    r"my\s+current\s+project\b|I['’]m\s+working\s+on\b|promot\w+|I\s+shipped\b|I['’]ve\s+been\s+(?:an?\s+)?freelance|"
    r"I\s+(?:spent|worked)\s+(?:\w+\s+){0,3}?(?:years?\s+)?(?:as|at)\b)",
    re.IGNORECASE,
)


# ... but moving the meeting is the diary's ("can we move my 1:1 to friday")
_MOVES_A_MEETING = pattern(
    r"\b(?:move|moving|reschedul\w*|cancel\w*|push|shift|book|set\s+up)\s+(?:my|the|our|a)\s+"
    r"(?:1:1|one[- ]to[- ]one|one[- ]on[- ]one|review|appraisal)",
    re.IGNORECASE,
)


def asks_about_my_career(text: str) -> bool:
    """Whether a request is about the user's own career (_CAREER), not the diary's (_MOVES_A_MEETING)."""
    return _CAREER.search(text) is not None and _MOVES_A_MEETING.search(text) is None


def by_career(db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int]) -> list[Needed]:
    """What the user does, leads and aims for at work (CAREER_ITEMS memories at most, the most like the
    request first), for a request about their own career: never code, nor a question in general."""
    if request.about_no_one or request.code or asks_in_general(text) or not asks_about_my_career(text):
        return []
    store = MemoryStore(db)
    found = store.newest_matching(_CAREER_TERMS, CAREER_ROWS, longest=LONGEST_SENT)
    kept = [
        i
        for i, said, _told in found
        if i not in exclude
        and _CAREER_FACT.search(said)
        and (_BARE_USER.match(said) or said.lower().startswith(("my current", "last ", "before ", "since ")))
        and not (sensitive.categories(said) - {"children"})
    ]
    memories = store.get_many(kept, longest=LONGEST_SENT)
    kept = [i for i in kept if i in memories and not (memories[i].private or memories[i].sensitive)]
    return [Needed(memories[i], score, "career") for score, i in most_like(db, embedder, request, kept)[:CAREER_ITEMS]]


def by_own_matter(db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int]) -> list[Needed]:
    """What memory says of a private matter the request says is the user's own (matters_of_my_own):
    the user's own memory naming the same matter, the most like the request; never for code."""
    mine = matters_of_my_own(text)
    if not mine or request.code:
        return []
    store = MemoryStore(db)
    found = store.newest_matching(sensitive.matter_terms(list(mine)), MATTER_ROWS, longest=LONGEST_SENT)
    memories = store.get_many([i for i, _text, _told in found if i not in exclude], longest=LONGEST_SENT)
    own = []
    for i, m in memories.items():
        named = sensitive.matters(m.text)
        if (
            m.private
            or not set(named) & set(mine)
            # the user's own ("I have epilepsy", "We're Muslim"), as it is now ("I used to smoke" is not)
            or not (_BARE_USER.match(m.text) or _OURS.search(m.text) and not _someone_else_first(m.text))
            or _PAST.search(m.text)
            or _FORMER.search(m.text)
            # nothing private besides ("I have epilepsy and my NHS number is ...")
            or sensitive.categories(m.text) - {mine[w] for w in set(named) & set(mine)} - {"children"}
            or sensitive.holds_identifier(m.text)
        ):
            continue
        own.append(i)
    kept = [(score, i) for score, i in most_like(db, embedder, request, own) if score >= MATTER_FLOOR]
    return [Needed(memories[i], score, "matter") for score, i in kept[:MATTER_ITEMS]]


def _someone_else_first(text: str) -> bool:
    """Whether the text opens on someone else ("My daughter Nia has epilepsy", "Ruth is diabetic")."""
    return bool(_HOUSEHOLD_FIRST.match(text) or _NAME_FIRST.match(text))


_NAME_FIRST = pattern(r"^\s*\p{Lu}[\w'’-]+\s+(?:is|has|was|takes|gets)\b")


def _rows_of(vs: VectorSet, ids: list[int]) -> list[tuple[int, int]]:
    """(id, row) of the memories `ids` that have a vector in `vs`, by id."""
    import numpy as np

    ordered = sorted(ids)
    rows = np.searchsorted(vs.ids, ordered) if ordered else np.zeros(0, dtype=np.int64)
    return [(i, int(r)) for i, r in zip(ordered, rows, strict=True) if r < vs.ids.shape[0] and int(vs.ids[r]) == i]


def _read_by_meaning(db: Database, embedder: Embedder, ids: list[int]) -> dict[int, tuple[str, float]]:
    """(topic, likeness to a sensitive category's examples) of the memories `ids` that have a vector."""
    import numpy as np

    model = model_for(embedder)
    vs = index.vector_set(db, "memories", embedder.model_name)
    have = _rows_of(vs, ids)
    if not have or vs.matrix.shape[1] != model.general.shape[1]:
        return {}
    vectors = np.asarray(vs.matrix[[r for _i, r in have]])
    topics, like = model.of_memories(vectors), model.sensitivity(vectors).max(axis=1)
    return {i: (model.names[int(np.argmax(topics[k]))], float(like[k])) for k, (i, _r) in enumerate(have)}


def is_former(text: str) -> bool:
    """Whether a memory tells of what is over or gone by (_PAST, _FORMER: "my old car", "I used to")."""
    return _PAST.search(text) is not None or _FORMER.search(text) is not None


def most_like(db: Database, embedder: Embedder, request: Request, ids: list[int]) -> list[tuple[float, int]]:
    """(likeness to the request, id) of the memories `ids` that have a vector, most like it first."""
    import numpy as np

    vs = index.vector_set(db, "memories", embedder.model_name)
    return sorted(((float(np.asarray(vs.matrix[r]) @ request.vector), i) for i, r in _rows_of(vs, ids)), reverse=True)


# A request that plans a place to go or a journey of the user's own ("Which seat should I book for the
# long flight?", "Find me somewhere nice to eat in Edinburgh", "Plan a day out with my mum") needs what
# memory says of getting about, for the user, the household or the people it names ("I use a manual
# wheelchair", "Mum can't manage stairs"): health, so search's gate keeps it back, and the encoder does
# not find it. The words are data (sensitive_words.json "access_needs", measured in tests/word_lists.py).
ACCESS_ITEMS = 1
ACCESS_ROWS = 200  # newest memories with a word of an access need that are read
_ASKS_TO_PLAN = pattern(
    r"^\W*(?:please\s+)?(?:plan|find|book|suggest|recommend|organi[sz]e|arrange|pick|choose)\b", re.I
)
# what asks to choose, plan or book a place or a journey, not to tell of one ("my flight was delayed")
_PLANNING = pattern(
    r"\b(?:plan|planning|book|booking|find|recommend|suggest|choose|pick|organi[sz]e|arrange|ideas?|"
    r"where\s+(?:should|can|could|shall|to|would)|go(?:ing)?\s+to|visit(?:ing)?|check\s+(?:about|before)|"
    r"accessible|access|which\s+(?:[\w-]+\s+){0,2}(?:hotels?|restaurants?|venues?|airlines?|seats?|flights?|"
    r"campsites?|cottages?|museums?|beach(?:es)?|trains?|ferr(?:y|ies)|cruises?|tours?))\b",
    re.IGNORECASE,
)
# a request for someone else's journey ("book a flight to Berlin for my colleague Tom") is not the user's
_FOR_SOMEONE = pattern(r"\bfor\s+(?:my|our)\s", re.IGNORECASE)
_USER_GOES = pattern(r"\b(?:me|us|we|I|I['’]m|we['’]re|myself|ourselves)\b|\b(?:with|and)\s+(?:my|our)\s", re.I)


# A plan that says the user goes somewhere ("We're off to Montreal on 2026-06-18 for my niece's
# graduation", "I'm flying to Boston", "our Crete holiday"): a trip, whatever else it is about (to the
# topic model the graduation is a date, and "the night rota at the depot" is nearly travel).
# Measured in tests/word_lists.py.
_JOURNEY = pattern(
    r"\b(?:fly|flying|off|going|go|heading|head|travel(?:l?ing)?|driving|drive|sailing|taking\s+the\s+\w+)"
    r"\s+(?:back\s+|over\s+|out\s+|down\s+|up\s+)?to\s+(?:the\s+)?(?-i:\p{Lu})"
    r"|\b(?:visiting|trip|holiday|holidays|vacation|getaway|cruise|flights?|city\s+break|road\s+trip)\b"
    r"|\bbooked\s+(?:us|me|ourselves|myself)\s+(?:(?:a|two|three|four|\d+)\s+\w+\s+(?:in|at)\s+)?(?-i:\p{Lu})",
    re.IGNORECASE,
)


# travel's lead over a plan's next topic that makes it a trip ("covering the night rota at the depot": 0.04)
TRIP_LEAD = 0.05


def _plainly_travel(topics: np.ndarray, travel: int) -> bool:
    """Whether a plan's topics (TopicModel.of_memories) read it as travel by a clear lead (TRIP_LEAD)."""
    import numpy as np

    others = np.delete(topics, travel)
    return float(topics[travel]) >= float(others.max()) + TRIP_LEAD


def tells_a_journey(text: str) -> bool:
    """Whether a memory says the user goes somewhere (_JOURNEY)."""
    return _JOURNEY.search(text) is not None


def plans_a_journey(text: str) -> bool:
    """Whether a request asks to choose, plan or book a place to go or a journey."""
    return sensitive.plans_a_place(text) and _PLANNING.search(text) is not None


_WAS_ONCE = pattern(
    r"\b(?:was|were|had\s+been)\s+(?:on|in|using)\b|\bafter\s+(?:my|his|her|the)\s+\w*\s*(?:op|operation|surgery)\b"
    r"|\b(?:spent|during)\s+(?:19|20)\d\d\b",
    re.I,
)


def by_access(db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int]) -> list[Needed]:
    """What memory says of someone's need to get about (one memory, the most like the request), for a
    request of the user's own that plans a place to go or a journey: never for a question about no one
    ("Which hotels in Rome have step-free rooms?"), nor for a program."""
    if not plans_a_journey(text) or request.about_no_one or request.code or asks_in_general(text):
        return []
    named = people.role_paths(text)
    if not (says_its_own(text) or named or _ASKS_TO_PLAN.search(text)):
        return []
    store = MemoryStore(db)
    found = store.newest_matching(sensitive.access_terms(), ACCESS_ROWS, longest=LONGEST_SENT)
    if not found:
        return []
    theirs = set(people.people_and_memories(db, named)[1]) if named else set()
    names = {w for w in _NAME_WORD.findall(text[1:]) if w not in _NOT_NAMES}  # "a day out with Marcus"
    # the user's own need and the household's, unless the journey is someone else's alone
    ours = not (_FOR_SOMEONE.search(text) and not _USER_GOES.search(text))
    memories = store.get_many([i for i, _text, _told in found if i not in exclude], longest=LONGEST_SENT)
    kept = []
    for i, m in memories.items():
        subject = sensitive.access_need_subject(m.text)  # not "I play wheelchair basketball"
        if subject is None:
            continue
        whose = (
            (ours and (_BARE_USER.match(subject) is not None or _of_the_household(subject)))
            or (i in theirs and not _BARE_USER.match(subject))  # "Mum can't manage stairs", not mine beside her
            or bool(names & set(_NAME_WORD.findall(subject)))  # said of the person the request names
        )
        if (
            whose
            # health and a child's, no more ("I use a wheelchair since the crash I was sued over" is not sent)
            and not (sensitive.categories(m.text) - {"health", "children"})
            and not (_PAST.search(m.text) or _FORMER.search(m.text) or _WAS_ONCE.search(m.text))
        ):
            kept.append(i)
    scored = most_like(db, embedder, request, kept)
    return [Needed(memories[i], score, "access") for score, i in scored[:ACCESS_ITEMS]]


# A request of the user's own to do something physical (a hill walk, a training plan, a drive, a trip
# to pack for) needs what their body brings to it: the diabetes and the hypo kit, the old knee injury,
# the hearing aid (memchat.memory.judge.body). Health, so search's gate keeps it back, and the encoder
# does not see a hill as like glucose tablets. Two at most: one that says what it does to that very
# activity first ("check my glucose before driving"), then the most like the request.
BODY_ITEMS = 2
BODY_ROWS = 200  # newest memories with a word of a condition or an aid that are read
# Someone else as the subject ("Sam has epilepsy and I drive him to school", "Jess wants to start
# running"): theirs, not the user's
_SOMEONE_ELSE_FIRST = pattern(
    r"^\s*(?-i:\p{Lu})[\w'’-]+\s+(?:(?-i:\p{Lu})[\w'’-]+\s+)?"
    r"(?:has|had|is|was|gets|got|takes|took|uses|wears|can['’]?t|cannot|wants|needs|would\s+like|asked)\b",
    re.IGNORECASE,
)
# A condition the user once had, or works with, and does not have ("I had asthma when I was younger",
# "I grew out of it", "I was pregnant with Leo in 2022", "I write firmware for insulin pumps")
_OVER_OR_WORK = pattern(
    r"\b(?:grew\s+out\s+of|when\s+I\s+was\s+(?:younger|little|small|a\s+(?:kid|child|teenager|baby))|"
    r"as\s+a\s+(?:kid|child|teenager|baby|toddler)|was\s+pregnant|stopped\s+taking|came\s+off|"
    r"haven['’]?t\s+(?:needed|used|had)|fully\s+(?:healed|recovered)|in\s+remission|"
    r"carer|care\s+for|look\s+after|(?:for|with)\s+(?:someone|people|patients|kids|children|clients)\s+with|"
    r"firmware|software|research(?:ing)?|study(?:ing)?|studies|design(?:ing)?|sell(?:ing)?|work(?:s|ed|ing)?\s+(?:on|for|at|in))\b",
    re.IGNORECASE,
)


def _health_memories(db: Database, embedder: Embedder) -> list[int]:
    """The ids of the active memories nearest the health topic's examples (PER_TOPIC)."""
    import numpy as np

    model = model_for(embedder)
    vs = index.vector_set(db, "memories", embedder.model_name)
    if vs.matrix.shape[0] == 0 or vs.matrix.shape[1] != model.general.shape[1]:
        return []
    rows = scan.distinct(np.concatenate(_topic_rows(db, vs, model, [model.names.index("health")], PER_TOPIC)))
    return [int(vs.ids[r]) for r in rows]


def _it_matters(memory: str, planned: frozenset[str], *, away: bool) -> bool:
    """Whether a memory's condition or aid matters to what a request plans; a daily medicine to
    nights away alone (packed), not to a drive ("anything to do before I set off?")."""
    kinds = set(body.matters_to(memory))
    dose = body.only_a_dose(memory)
    if dose:
        kinds.discard(body.AWAY)
    if away and (dose or takes_a_medicine(memory)):
        kinds.add(body.AWAY)
    return bool(kinds & planned)


def _not_the_users_to_do(request: Request, text: str) -> bool:
    """A request about no one, for a program, asked in general or about the world, or for someone
    else alone ("my dad wants to start hill walking", "Jess wants a training block"; "a hike with my
    dad" is the user's too): what the user's body or sport brings is no part of it."""
    if request.about_no_one or request.code or asks_in_general(text) or asks_about_the_world(text):
        return True
    return bool((people.role_paths(text) or _SOMEONE_ELSE_FIRST.search(text)) and not _USER_GOES.search(text))


def _the_users_own_condition(text: str) -> bool:
    """Whether a memory holds a condition of the user's own, now: not someone else's ("Mum has asthma",
    "Sam has epilepsy and I drive him"), not over, not a job or a care ("I'm a carer for someone with
    epilepsy"), nothing sensitive but health; a note with no one in it is the user's ("type 2 diabetic,
    on metformin 500mg"). An injury that stopped something still holds ("I used to hillwalk but
    stopped after my knee op")."""
    if people.role_paths(text) or _SOMEONE_ELSE_FIRST.search(text) or sensitive.CARE_WORK.search(text):
        return False
    if _OVER_OR_WORK.search(text) or (_PAST.search(text) and not body.an_injury(text)):
        return False
    if sensitive.categories(text) - {"health"}:
        return False
    return bool(_MINE.search(text)) or not _SOMEONE.search(text)


_SOMEONE = pattern(r"\b(?:he|she|his|her|they|their|him)\b|(?<!^)(?<![.!?]\s)(?-i:\b\p{Lu}[\w'’-]+)", re.IGNORECASE)
_CHECK_UP = pattern(
    r"\b(?:appointments?|screening|check-?ups?|reviews?|referrals?|results?|due\s+(?:in|on|for))\b", re.I
)


def by_body(db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int]) -> list[Needed]:
    """The user's own conditions and aids something physical the request plans must respect: never
    for a question about no one, nor a program, nor a fact looked up ("Which climbing gym do I go
    to?"), nor what someone else does alone ("Appa gets breathless climbing stairs")."""
    planned = body.activities(text)
    if not planned or asks_for_own_fact(text) or _not_the_users_to_do(request, text):
        return []
    if request.general >= PLAIN_REQUEST and not says_its_own(text):
        return []  # not plainly the user's own: "what's the difference between a munro and a corbett?"
    away = body.goes_away(text)
    store = MemoryStore(db)
    found = [i for i, _text, _told in store.newest_matching(body.SEARCH_TERMS, BODY_ROWS, longest=LONGEST_SENT)]
    # and those nearest health by meaning: a medicine's name has no word to search by ("50mg sertraline")
    found += _health_memories(db, embedder)
    memories = store.get_many([i for i in dict.fromkeys(found) if i not in exclude], longest=LONGEST_SENT)
    # what the user marked sensitive is health they keep to themselves, but a hill walk needs the diabetes:
    # the route sends it as the medicine route does; never what they keep private
    kept = [
        i
        for i, m in memories.items()
        if not m.private
        # a daily medicine is packed for nights away, not for a drive ("before I set off")
        and _it_matters(m.text, planned, away=away)
        and _the_users_own_condition(m.text)
        and planned_day(m.text, m.created_at) is None  # an appointment is a plan, not a condition
        and not _CHECK_UP.search(m.text)  # "My diabetic eye screening is due in March"
    ]
    # (no floor on likeness: a packing list is nothing like "I wear daily contact lenses", -0.01)
    scored = sorted(
        most_like(db, embedder, request, kept),
        key=lambda p: not body.names_the_activity(text, memories[p[1]].text, planned),
    )
    # one of each condition before a second of any: a packing list needs the hearing aid as well as the insulin
    chosen: list[tuple[float, int]] = []
    covered: set[int] = set()
    for pair in scored:
        if not (conditions := body.conditions_of(memories[pair[1]].text)) <= covered:
            chosen.append(pair)
            covered |= conditions
    chosen += [pair for pair in scored if pair not in chosen]
    return [Needed(memories[i], score, "body") for score, i in chosen[:BODY_ITEMS]]


# What the user says they feel ("Head's pounding and I'm on tonight, what can I do?", "so wiped out on
# climbing days lately") needs the standing conditions of theirs it may come from: the migraines and
# the sumatriptan, the low iron (memchat.memory.judge.body). Health, and the encoder does not see them
# as alike; two at most, the most like the request first.
SYMPTOM_ITEMS = 2
SYMPTOM_ROWS = 200  # newest memories with a word of a condition that are read


def by_symptom(db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int]) -> list[Needed]:
    """The user's own conditions a symptom they say they feel may come from: never for a question
    in general ("what causes headaches?"), nor someone else's symptom, nor a program."""
    if not body.names_a_symptom(text) or _not_the_users_to_do(request, text):
        return []  # ("Mum's been so tired lately" is hers: the person route reads her)
    store = MemoryStore(db)
    found = store.newest_matching(body.SYMPTOM_TERMS, SYMPTOM_ROWS, longest=LONGEST_SENT)
    memories = store.get_many([i for i, _text, _told in found if i not in exclude], longest=LONGEST_SENT)
    kept = [
        i
        for i, m in memories.items()
        if not m.private
        and body.may_explain(text, m.text)
        and _the_users_own_condition(m.text)  # not "Dad has high blood pressure"
        and planned_day(m.text, m.created_at) is None
        and not _CHECK_UP.search(m.text)
    ]
    return [
        Needed(memories[i], score, "symptom") for score, i in most_like(db, embedder, request, kept)[:SYMPTOM_ITEMS]
    ]


# A plan to train for or get better at a sport of the user's own ("Build me a 16-week training
# block") needs the goal it is for (the marathon in October), the level they are at (a 5k PB of 21:40)
# and when they train (long runs with the club on Sundays): memories of that sport, which the request
# need not name (then the sport of the user's next race, or of most of their sport memories). The most
# like the request, three at most.
TRAINING_ITEMS = 3
TRAINING_ROWS = 200  # newest memories with a word of a sport that are read
TRAINING_FLOOR = 0.1  # "my laptop is running Fedora" is no run: it is nothing like a training plan


def by_training(
    db: Database, request: Request, embedder: Embedder, text: str, today: date, exclude: set[int]
) -> list[Needed]:
    """The user's own memories of the sport a request plans training for (body.asks_to_train): never
    for a question about no one, nor a program, nor someone else's training."""
    if not body.asks_to_train(text) or _not_the_users_to_do(request, text):
        return []  # ("a training plan for my daughter's netball" is hers)
    if request.general >= PLAIN_REQUEST and not says_its_own(text):
        return []  # "What does a typical Couch to 5k training plan look like?"
    store = MemoryStore(db)
    found = store.newest_matching(body.TRAINING_TERMS, TRAINING_ROWS, longest=LONGEST_SENT)
    memories = store.get_many([i for i, _text, _told in found if i not in exclude], longest=LONGEST_SENT)
    own = {
        i: m
        for i, m in memories.items()
        if not (m.private or m.sensitive)
        and (_BARE_USER.match(m.text) or _MINE.search(m.text))
        and not (people.role_paths(m.text) and not _BARE_USER.match(m.text))  # "my son runs" is his
        and not (_FORMER.search(m.text) or _PAST.search(m.text))
        and not ((day := planned_day(m.text, m.created_at)) is not None and day < today)  # a race that is over
        and not (sensitive.categories(m.text) - {"children"})
        and body.pursuits(m.text)
    }
    sport = body.pursuits(text) or _the_sport_in_training(own, today)
    kept = [i for i, m in own.items() if body.pursuits(m.text) & sport]
    scored = [(score, i) for score, i in most_like(db, embedder, request, kept) if score >= TRAINING_FLOOR]
    return [Needed(own[i], score, "training") for score, i in scored[:TRAINING_ITEMS]]


def _the_sport_in_training(own: dict[int, Memory], today: date) -> frozenset[str]:
    """The sport a training request that names none is for: that of the user's next dated plan of
    one (the marathon ahead), or the one most of their sport memories speak of."""
    ahead = sorted(
        (day, m) for m in own.values() if (day := planned_day(m.text, m.created_at)) is not None and day >= today
    )
    if ahead:
        return body.pursuits(ahead[0][1].text)
    counts: dict[str, int] = {}
    for m in own.values():
        for name in body.pursuits(m.text):
            counts[name] = counts.get(name, 0) + 1
    return frozenset({max(counts, key=lambda k: (counts[k], k))}) if counts else frozenset()


# A request to choose or buy what the user will wear ("Find me some trail runners", "Outfit for a
# December wedding", "I need a warm waterproof jacket for the trip") needs their sizes and what they will
# and won't wear ("I'm a UK size 10 shoe", "I buy mostly secondhand and avoid leather"): no topic holds
# clothes, and to the encoder a jacket is not like "I wear medium tops". Two at most, and a shoe size
# only for footwear. Both word lists are measured in tests/word_lists.py.
WEAR_ITEMS = 2
WEAR_ROWS = 200  # newest memories with a word of clothes or sizes that are read
_FOOTWEAR = (
    r"(?:shoes?(?!\s+(?:racks?|polish|storage|cabinets?|horns?))|boots(?!\s+(?:up|slowly|into|from|fast|quickly|in|to))|"
    r"(?<!personal\s)(?<!dog\s)trainers|sneakers?|runners|sandals?|heels|footwear|loafers|brogues|slippers|socks(?!5))"
)
_GARMENT = (
    r"(?:clothes|clothing|outfits?|jeans|trousers|chinos|skirts?|"
    r"dress(?:es)?(?!\s+(?:rehearsals?|codes?|an?|the|up|it|my|your|him|her|them|wounds?|salads?))|"
    r"t-?shirts?|shirts?|blouses?|jumpers?(?!\s+(?:cables?|leads?))|sweaters?|hoodies?|cardigans?|"
    r"jackets?(?!\s+potato)|(?<!(?:irst|cond|hird|inal|base|lear| top|nder)\s)(?:rain|over)?coats?(?!\s+of\b)|parkas?|"
    r"fleeces?|blazers?|waterproofs|swimsuits?|swimwear|bikinis?|leggings|base\s*layers?|thermals|"
    r"gloves|mittens|scarf|scarves|beanies?|hats?|"
    rf"{_FOOTWEAR}|(?:something|what)\s+to\s+wear)"
)
# asks to choose or buy it: "find me some jeans", "I need a dress for...", "what should I wear to...",
# or a garment and what it is for ("Outfit for a December wedding", "a suit for the interview")
_WEAR_REQUEST = pattern(
    r"\b(?:find(?!\s+out)|buy|get\s+(?:me|myself|us|some|a|an|new)|recommend|suggest|(?:need|want)(?!\s+to\b)|"
    r"looking\s+for|shopping\s+for|pick|choose|order)\b"
    rf"\s+(?:[\w'’-]+\s+){{0,5}}?(?:{_GARMENT}|suit(?!\s+(?:me|you|us|him|her|them|my|our|your|the|a|all|every)\b))\b"
    r"|\bwhat\s+(?:should|shall|could|can|do)\s+I\s+wear\b|\bwhat\s+to\s+wear\b|\b(?:to|I)\s+wear\s+(?:to|for)\b"
    r"|\bhow\s+(?:should|do)\s+I\s+dress\s+for\b"
    r"|\bsomething\s+(?:smart|formal|dressy|casual|warm|comfy|comfortable)\b(?:\s+[\w-]+){0,3}?\s+(?:for|to)\s+(?:an?|the|my|our)\s+"
    r"(?:[\w-]+\s+)?(?:funeral|wedding|interview|party|christening|reception|ceremony|gala|ball|graduation|do)\b"
    rf"|^\W*(?:an?\s+|some\s+|new\s+)?(?:[\w'’-]+\s+){{0,2}}?(?:{_GARMENT}|suit)\s+(?:for|to)\b",
    re.IGNORECASE,
)
# worn by someone else: a gift, or "for my husband" (not "for my sister's wedding"); or words to write
# ("something formal for the wedding speech")
_WORN_BY_OTHERS = pattern(
    r"\b(?:gifts?|presents?|birthday|for\s+(?:him|her|them)\b|write|draft|compose|speech|toast|poem|cards?|message|email|"
    r"letter)|\b(?:for|to)\s+(?:my|our)\s+(?:[\w-]+\s+)?(?:"
    + "|".join(w for words in people.ROLE_WORDS.values() for w in words)
    + r"|nephew|niece|grandson|granddaughter|boy|girl|baby)\b(?!['’]s\s+(?:[\w-]+\s+)?(?:wedding|funeral|christening|"
    r"graduation|party|hen|stag|engagement|anniversary|ceremony|reception|do)\b)"
    r"|\b(?:my|our)\s+(?:[\w-]+\s+)?(?:son|daughter|kids?|children|husband|wife|partner)\s+needs?\b",
    re.IGNORECASE,
)
_WEAR_TERMS = (
    '"size"* OR "wear"* OR "cloth"* OR "jeans" OR "trouser"* OR "shoe"* OR "dress"* OR "tops" OR "secondhand" '
    'OR "second hand" OR "thrift"* OR "vintage" OR "leather" OR "wool" OR "silk" OR "fitting" OR "waist" OR "own"'
)
# the user's size, or what they will or won't wear ("I take a size 6 shoe in a wide fitting", "I wear
# medium tops and 32/32 jeans", "I like Finisterre and Patagonia clothes", "I avoid leather, wool and silk")
_SIZE = r"(?:\d+(?:\.\d)?|XXS|XS|S|M|L|XL|XXL|small|medium|large|extra\s+large|petite|plus)"
_WEARS = pattern(
    rf"\bsizes?\s*:?\s+(?:(?:is|UK|US|EU|AU)\s+)*{_SIZE}\b|\b(?:UK|US|EU|AU)\s+{_SIZE}\b|\b{_SIZE}\s+(?:tops|shirts|t-shirts|dresses|jumpers)\b"
    r"|\b\d{2}\s*/\s*\d{2}\s+(?:jeans|trousers|chinos)|\b(?:waist|inside\s+leg|wide\s+fitting)\b"
    rf"|\b(?:wear|wears|wearing|prefer|like|love|buy|avoid|hate|own|have)\b.{{0,40}}?\b(?:{_GARMENT}|suits?)\b"
    rf"|\ban?\s+{_SIZE}\s+in\s+(?:\w+\s+){{0,2}}?(?:tops|{_GARMENT})\b"
    r"|\b(?:buy|shop|wear)\b.{0,30}?\b(?:secondhand|second-hand|thrift\w*|vintage|charity\s+shops?)\b"
    r"|\b(?:avoid|never\s+wear|don['’]t\s+wear|won['’]t\s+wear|no)\s+(?:\w+\s+){0,2}?(?:leather|wool|silk|fur|polyester)\b",
    re.IGNORECASE,
)
_FOOTWEAR_WORD = pattern(rf"\b{_FOOTWEAR}\b|\bfoot\b", re.IGNORECASE)
_CLOTHES_WORD = pattern(
    rf"(?!{_FOOTWEAR}\b)\b{_GARMENT}\b|\bsizes?\s+{_SIZE}\b(?!\W+(?:\w+\W+){{0,2}}?{_FOOTWEAR}\b)"
    r"|\b(?:tops|waist|inside\s+leg|XXS|XS|XL|XXL|small|medium|large)\b",
    re.I,
)


# a size the user had or hopes for ("I was a size 10 before...", "I'll be a size 12 once I lose weight")
_NOT_NOW = pattern(r"\b(?:I\s+was|we\s+were|I['’]ll\s+be|I\s+will\s+be|once\s+I|until\s+I|before\s+(?:my|I))\b", re.I)
# the user's size said without "I" ("My shoe size is EU 42", "Shoe size: US 10.5")
_MY_SIZE = pattern(
    r"\s*(?:my\s+)?(?:shoe|dress|clothes|clothing|jeans|trousers?|waist|top|shirt|t-shirt)\s+size\b", re.I
)


def asks_what_to_wear(text: str) -> bool:
    """Whether a request asks to choose or buy what the user will wear (not a gift, nor for someone else)."""
    return _WEAR_REQUEST.search(text) is not None and _WORN_BY_OTHERS.search(text) is None


def states_what_i_wear(text: str) -> bool:
    """Whether a memory states the user's own size or what they will or won't wear."""
    return (
        (_BARE_USER.match(text) is not None or _MY_SIZE.match(text) is not None)
        and _WEARS.search(text) is not None
        and not (_PAST.search(text) or _FORMER.search(text) or _NOT_NOW.search(text))  # "I used to be a size 12"
    )


def _fits_what_is_asked(request: str, memory: str) -> bool:
    """Whether a memory of what the user wears is of the kind the request asks for: a shoe size for
    shoes, a dress size for a dress; what the user will and won't wear for either ("I avoid leather")."""
    foot, clothes = _FOOTWEAR_WORD.search(request) is not None, _CLOTHES_WORD.search(request) is not None
    its_foot, its_clothes = _FOOTWEAR_WORD.search(memory) is not None, _CLOTHES_WORD.search(memory) is not None
    if foot == clothes or its_foot == its_clothes:  # asks for both or neither; says both or neither
        return True
    return foot == its_foot


def by_wear(db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int]) -> list[Needed]:
    """The user's sizes and what they will and won't wear (two memories at most), for a request of
    their own to choose or buy something to wear: never a question about no one, nor a program."""
    if request.about_no_one or request.code or asks_in_general(text) or not asks_what_to_wear(text):
        return []
    store = MemoryStore(db)
    found = store.newest_matching(_WEAR_TERMS, WEAR_ROWS, longest=LONGEST_SENT)
    memories = store.get_many([i for i, _text, _told in found if i not in exclude], longest=LONGEST_SENT)
    kept = [
        i
        for i, m in memories.items()
        if states_what_i_wear(m.text)
        and _fits_what_is_asked(text, m.text)
        and not m.sensitive
        and not sensitive.categories(m.text)  # "I wear compression socks since the clot" is health
    ]
    # nor health by meaning though no word marks it ("I can't wear tight shoes because of my bunions")
    read = _read_by_meaning(db, embedder, kept)
    kept = [
        i
        for i in kept
        if i in read and read[i][0] != "health" and not _is_sensitive(memories[i], read[i][1], read[i][0])
    ]
    scored = most_like(db, embedder, request, kept)
    return [Needed(memories[i], score, "wear") for score, i in scored[:WEAR_ITEMS]]


# A request when in the user's own day to do something ("Best time for me to book a dentist?", "When
# do I fit my long runs in?", "The agent wants to come at 11am, can I push back?") turns on when
# they sleep, work and are out: "I sleep from about 8:30am to 3pm", "I work 6:30am to 3pm Monday to
# Friday". Neither is like the request in meaning, and the card holds the working hours at most.
# Both lists are data with a measured precision (tests/word_lists.py).
DAY_ITEMS = 2
DAY_ROWS = 200  # newest memories with a word of a day's time that are read
# what is done at a time of the user's day ("take my iron", "book a dentist", "stop having coffee")
_A_DAYS_DOING = (
    r"(?:eat|have|drink|stop|sleep|nap|go\s+to\s+bed|get\s+up|exercise|run|train|work\s+out|take|book|schedule|"
    r"study|revise|call|ring|meditate|shower|cook|shop)"
)
_WHEN_IN_MY_DAY = pattern(
    r"\b(?:when|what\s+time)\s+(?:should|do|can|could|would|shall|is\s+it\s+best\s+to)\s+(?:i|we)\s+(?:[\w'’-]+\s+){0,2}?"
    rf"{_A_DAYS_DOING}\b"
    # "best time for me to book a dentist", not "best time for me to plant garlic / visit Japan"
    rf"|\bbest\s+time\s+(?:(?:for\s+(?:me|us)|in\s+my\s+(?:day|week)|of\s+(?:the\s+)?day\s+for\s+me)\s+to\s+"
    rf"(?:[\w'’-]+\s+){{0,3}}?{_A_DAYS_DOING}\b|in\s+my\s+(?:day|week)\b)"
    # "fit a swim in", "fit in a museum" (time), not "fit a tap in the bathroom", "will it fit in the lift"
    r"|\b(?:i|we)\s+(?:[\w'’-]+\s+){0,2}?fit\s+(?:in\b(?!\s+(?:the|my|our|with)\b)|(?:[\w'’-]+\s+){1,4}?in\b"
    r"(?=\s*(?:[?.!,]|$|before|after|around|between|on\b|this|next|today|tomorrow|during|too|as\s+well)))"
    r"|\bam\s+i\s+free\b|\bcan\s+i\s+(?:push\s+(?:it\s+|this\s+|that\s+)?back|make\s+(?:it|that)\s+(?:on|at|by))\b"
    r"|\b(?:before|after|around|between)\s+my\s+(?:shifts?|sleep|work|nights?|day\s+shift|school\s+run)\b"
    # "what time should my alarm be on tuesday": when the day starts
    r"|\bwhat\s+time\s+(?:should|do|shall)\s+(?:i\s+set\s+)?(?:my|the)\s+alarm\b|\b(?:set|setting)\s+my\s+alarm\s+for\b",
    re.IGNORECASE,
)
# a day of the user's week as theirs ("my thursday evenings are mental", "what's my tuesday like")
_MY_WEEKDAY = pattern(
    r"\bmy\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?(?:\s+(?:mornings?|afternoons?|evenings?|nights?))?\b",
    re.IGNORECASE,
)
_DAY_TERMS = (
    '"sleep"* OR "slept" OR "bed" OR "bedtime" OR "wake"* OR "woke" OR "shift"* OR "night"* OR "work"* OR '
    '"office" OR "weekday"* OR "weekend"* OR "morning"* OR "evening"* OR "call" OR "up" OR "school" OR '
    '"monday"* OR "tuesday"* OR "wednesday"* OR "thursday"* OR "friday"* OR "saturday"* OR "sunday"*'
)
# a memory that says when the user's day holds something, again and again: a clock time or a span of
# days ("from 8:30am to 3pm", "at 5:45 on weekdays", "Monday to Friday", "night shifts", "every
# Tuesday"); not a one-off ("on 14 March")
_TIME_OF_MY_DAY = pattern(
    r"\b\d{1,2}(?::\d\d)?\s*(?:am|pm)\b|\b\d{1,2}[:.]\d\d\b|\bnoon\b|\bmidnight\b"
    r"|\b(?:night|day|early|late|twelve-hour|12-hour|long)\s+shifts?\b|\bon\s+nights\b|\bon\s+call\b"
    r"|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\s+(?:to|-|through|till)\s+"
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
    r"|\b(?:every|each)\s+(?:other\s+|second\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|morning|evening|night)\b"
    r"|\b(?:on\s+)?(?:weekdays|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b"
    r"|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+(?:mornings|afternoons|evenings|nights)\b",
    re.IGNORECASE,
)
# "Friday nights I play at the trad session": the user's own, said after when
_WHEN_THEN_I = pattern(
    r"^\s*(?:on\s+)?(?:most\s+)?\w+\s+(?:mornings?|afternoons?|evenings?|nights?)\s*,?\s+(?:I|we)\b", re.IGNORECASE
)
_WEEKDAY = pattern(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b", re.IGNORECASE)


def asks_when_in_my_day(text: str) -> bool:
    """Whether a request asks when in the user's own day to do something (_WHEN_IN_MY_DAY), or
    whether they can make something on a day of the week ("pete wants a pint thursday night, can i"),
    or what their diary holds that day ("what's on thursday?": the French class every Thursday too)."""
    return (
        _WHEN_IN_MY_DAY.search(text) is not None
        or _MY_WEEKDAY.search(text) is not None
        or (
            asks_after_the_diary(text)
            and (_WEEKDAY.search(text) is not None or _A_DAY_FROM_TODAY.search(text) is not None)
        )
    )


# a day named from today ("can i go to the session tonight", "can I do the school run tomorrow?")
_A_DAY_FROM_TODAY = pattern(
    r"\b(?:(tonight|today|this\s+(?:morning|afternoon|evening))|(tomorrow)(?:\s+(?:morning|afternoon|evening|night))?)\b",
    re.IGNORECASE,
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def days_named(text: str, today: date) -> set[str]:
    """The days of the week a request names, by name or from today ("tonight", "tomorrow")."""
    named = {d.lower() for d in _WEEKDAY.findall(text)}
    for m in _A_DAY_FROM_TODAY.finditer(text):
        named.add(_WEEKDAYS[(today.weekday() + (1 if m.group(2) else 0)) % 7])
    return named


# "Choir practice is Thursdays 7:30 to 9pm": the week's standing commitments, whoever's words they
# are in, are what a day of the week asked about holds
_DAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_EVERY_WEEKDAY = pattern(
    rf"\b(?:every|each)\s+(?:other\s+)?{_DAY}\b"
    r"|\b(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b"
    # "on Tuesday and Friday mornings", "the Monday night session"
    rf"|\b{_DAY}(?:(?:,\s*|\s+and\s+|\s+or\s+){_DAY})*\s+(?:mornings?|afternoons?|evenings?|nights?)\b",
    re.IGNORECASE,
)


def _weekly_on(text: str, days: set[str]) -> bool:
    """Whether a memory says something happens every week on one of `days` ("Thursdays 7:30 to 9pm",
    "on Tuesday and Friday mornings")."""
    return any(d.lower() in days for m in _EVERY_WEEKDAY.finditer(text) for d in _WEEKDAY.findall(m.group(0)))


def states_my_day(text: str) -> bool:
    """Whether a memory says, in the user's own words, when their day holds something again and
    again (_TIME_OF_MY_DAY)."""
    own = _BARE_USER.match(text) is not None or _WHEN_THEN_I.match(text) is not None
    return own and _TIME_OF_MY_DAY.search(text) is not None and not (_PAST.search(text) or _FORMER.search(text))


def by_day(
    db: Database, request: Request, embedder: Embedder, text: str, today: date, exclude: set[int]
) -> list[Needed]:
    """When the user sleeps, works and is out (two memories at most, most like the request first),
    for a request when in their own day to do something: never a question about no one, nor code."""
    if request.about_no_one or request.code or asks_in_general(text) or not asks_when_in_my_day(text):
        return []
    store = MemoryStore(db)
    found = store.newest_matching(_DAY_TERMS, DAY_ROWS, longest=LONGEST_SENT)
    named = days_named(text, today)
    kept = [
        i
        for i, said, _told in found
        if i not in exclude
        and (states_my_day(said) or (_weekly_on(said, named) and not (_PAST.search(said) or _FORMER.search(said))))
    ]
    memories = store.get_many(kept, longest=LONGEST_SENT)
    kept = [i for i in kept if i in memories and not (memories[i].sensitive or memories[i].private)]
    kept = [i for i in kept if not sensitive.categories(memories[i].text) - {"children"}]
    # a day the request names first ("plan my Saturday" and the Saturday pottery class), then by likeness
    scored = sorted(
        most_like(db, embedder, request, kept),
        key=lambda pair: not named & {d.lower() for d in _WEEKDAY.findall(memories[pair[1]].text)},
    )
    if _WHEN_IN_MY_DAY.search(text) is None:  # can they make it that day: what that day holds, no more
        scored = [(score, i) for score, i in scored if _weekly_on(memories[i].text, named)]
    elif named:  # and a day named is not another day's ("my alarm on thursday" and Monday's swim, the
        # club's first Friday of the month)
        scored = [
            (score, i)
            for score, i in scored
            if _weekly_on(memories[i].text, named)
            or not {d.lower() for d in _WEEKDAY.findall(memories[i].text)} - named
        ]
    return [Needed(memories[i], score, "day") for score, i in scored[:DAY_ITEMS]]


# A request to plan the user's own money ("Make me a monthly budget", "Should I clear what I owe or
# keep building the pot for our first home?", "Would it make sense to refinance?") turns on their
# whole picture: what comes in, what goes out, what is saved and owed ("My salary is $78,000", "Our
# mortgage is about $1,420 a month at 3.1%", "I owe around £3,400 on my Barclaycard"), which a search
# for the request's words finds one piece of at best. Up to MONEY_ITEMS of the user's own money
# memories, nearest the request in meaning, for a request plainly about money and plainly the user's.
MONEY_ITEMS = 3
MONEY_FLOOR = 0.15  # the memory must be at least this like the request
# money must lead the request's other topics by this much: "could I rent a car out there?" and
# "compare part-time stats programmes" read as money by a hair (swept on the judgement sets: 0.02,
# 0.05, 0.08, 0.11; from 0.08 own-large's junk stayed where it was)
MONEY_LEAD = 0.08
# what says a money fact: a sum, or what one has, earns, pays or owes ("I bank with ING", "My salary
# is $78,000"; not "I'm leading the rewrite of our payment service"). Measured in tests/word_lists.py.
_STATES_MONEY = pattern(
    r"[$£€₹¥]\s?\d|\d\s?(?:k|lakh|crore)\b|\b(?:AUD|CAD|USD|EUR|GBP|NZD|INR)\b|\b(?:salary|income|earn|paid|wage|rent|mortgage|"
    r"savings?|saved|saving|save|owe|debt|loans?|credit\s+card|bank(?:s|ed)?\s+with|account|pension|super(?:annuation)?|ISA|TFSA|"
    r"RRSP|401k|IRA|SIPs?|FD|ETF|index\s+funds?|shares|invest\w*|emergency\s+fund|budget|tax(?:es)?|take-home|payslip|repay\w*|paying\s+(?:off|down)|"
    r"spare|allowance|bills?)\b",
    re.IGNORECASE,
)
# said of the user's own money ("I", "we", "my", "our"; not "Brianna pays", "Mum's pension")
_MY_MONEY = pattern(
    r"\s*(?:(?:I|I['’]m|I['’]ve|I['’]d|we|we['’]re|we['’]ve|the\s+user)\b(?!['’]s)|(?:my|our)\b(?!\s+[\w-]+['’]s\b)"
    r"(?!\s+(?:[\w-]+\s+)?(?:"
    + "|".join(w for words in people.ROLE_WORDS.values() for w in words)
    + r"|ex|ex-\w+|flatmate|housemate|roommate|lodger|friend|boss|colleague|landlord|landlady|tenant)\b))"
    # the household's own pot, named as one ("The flat fund is at €41,500", "The holiday pot has £900 in it")
    r"|the\s+(?:[\w-]+\s+){0,2}?(?:fund|pot|savings|kitty|nest\s+egg)\b(?!\s+(?:manager|management)\b)",
    re.IGNORECASE,
)
# a card or account told by its last digits ("My card ending 4417 has a £3,000 limit"): an identifier
_LAST_DIGITS = pattern(r"\b(?:ending|ends)\s+(?:in\s+|with\s+)?\d{3,}|\blast\s+(?:four|4)\s+digits\b", re.I)


# A trip of the user's to get ready for ("what do i need to sort before we fly in february",
# "paperwork i need sorted for the states trip", "do I need a visa for the honeymoon?") turns on the
# household's travel documents: a passport that runs out, a visa or an ESTA still to get. They are
# identity documents, so no topic sends them; this route does, never with a number. Both lists are
# measured in tests/word_lists.py.
_A_TRIP = pattern(
    r"\b(?:trip|holiday|holidays|vacation|getaway|honeymoon|fly|flying|flight|travel|travelling|traveling|abroad|"
    r"overseas|the\s+states|cruise|ferry|go\s+to\s+\p{Lu}\w+|going\s+to\s+\p{Lu}\w+|heading\s+to\s+\p{Lu}\w+|"
    # a visa is only ever for a journey ("documents for the portugal visa"), a Visa card is not
    r"visas?(?!\s+(?:card|debit|credit|gift|platinum|gold|signature|sponsor\w*))|e-?visa|entry\s+requirements?)\b",
    re.IGNORECASE,
)
_PAPERWORK = pattern(
    r"\b(?:paperwork|documents?|docs|visas?|passports?|estas?|etas?|evisa|e-visa|entry\s+requirements?|renew\w*|"
    r"(?:need|have|got)\s+to\s+(?:sort|do|get|organi[sz]e|arrange)|sort(?:ed)?(?:\s+out)?\s+(?:before|first|for)|"
    r"needs?\s+sorting|anything\s+(?:i|we)\s+(?:need|should|must)\s+(?:to\s+)?(?:sort|do|get|check))\b",
    re.IGNORECASE,
)
_TRAVEL_DOCUMENT_TERMS = (
    '"passport"* OR "visa" OR "visas" OR "esta" OR "estas" OR "eta" OR "etas" OR "trv" OR "evisa" OR "ghic" OR "ehic" OR '
    '"residence" OR "permit"'
)
_TRAVEL_DOCUMENT = pattern(
    r"\b(?:passports?|visas?\b(?!\s+(?:card|debit|credit))|estas?|etas?|trv|e-?visa|ghic|ehic|residence\s+(?:permit|card)|green\s+card)\b",
    re.IGNORECASE,
)
# ... what it says of one: when it runs out, that it has, that it must still be got
_DOCUMENT_STATUS = pattern(
    r"\b(?:expir\w*|valid|runs?\s+out|ran\s+out|run\s+out|renew\w*|apply|applied|need|needs|haven['’]t|hasn['’]t|"
    r"interview|appointment|got|have|has|none|no)\b",
    re.IGNORECASE,
)
DOCUMENT_ITEMS = 3
DOCUMENT_ROWS = 100
GOOD_FOR_DAYS = 730  # a document valid two years more needs nothing before a trip (six months past it is asked)
# something else to sort before the trip, said instead ("anything medical i should sort before the flight")
_SOMETHING_ELSE = pattern(
    r"\b(?:medical|medicines?|meds|health|jabs?|vaccin\w*|insurance|money|currency|cash|pets?|dog|cat|car|house|"
    r"packing|pack|work|emails?)\b",
    re.IGNORECASE,
)
_NAMES_A_DOCUMENT = pattern(
    r"\b(?:paperwork|documents?|docs|visas?|passports?|estas?|etas?|e-?visa|entry\s+requirements?)\b", re.I
)


_MONTH_YEAR = pattern(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s+((?:19|20)\d\d)\b|\b((?:19|20)\d\d)-(\d\d)",
    re.IGNORECASE,
)


def _someone_elses(text: str) -> bool:
    """Whether a memory opens on someone outside the household ("My sister needs a visa")."""
    return any(path not in HOUSEHOLD for path in people.role_paths(" ".join(text.split()[:4])))


def _good_until(text: str) -> date | None:
    """The first month a document memory names ("expires in June 2029", "on 30 June 2027; Noor's
    until 2030": June 2027), its first day; None when it names no month."""
    found = [
        date(int(m.group(2)), MONTHS[m.group(1).lower()], 1)
        if m.group(1)
        else date(int(m.group(3)), int(m.group(4)), 1)
        for m in _MONTH_YEAR.finditer(text)
        if m.group(1) or 1 <= int(m.group(4)) <= 12
    ]
    # "valid until 2031": a year alone, from its first day
    found += [date(int(y), 1, 1) for y in _UNTIL_A_YEAR.findall(text)] if not found else []
    return min(found) if found else None


_UNTIL_A_YEAR = pattern(r"\b(?:until|till|to|expires?|expiring|runs?\s+out|valid)\s+(?:in\s+)?((?:19|20)\d\d)\b", re.I)


def readies_a_trip(text: str) -> bool:
    """Whether a request gets ready for a trip of the user's own on paper (_A_TRIP, _PAPERWORK):
    it says so ("our trip") or asks nothing of the world ("honduras trip in may, anything paperwork wise")."""
    return (
        _A_TRIP.search(text) is not None
        and _PAPERWORK.search(text) is not None
        and (says_its_own(text) or not asks_about_the_world(text))
        and (_NAMES_A_DOCUMENT.search(text) is not None or _SOMETHING_ELSE.search(text) is None)
    )


def by_documents(
    db: Database, request: Request, embedder: Embedder, text: str, today: date, exclude: set[int]
) -> list[Needed]:
    """The household's travel documents (three memories at most: what must still be done first, then
    the most like the request) for a request that gets ready for a trip of the user's: never one
    that holds a document's number, nor a private one, nor one of another sensitive kind."""
    if request.about_no_one or request.code or asks_in_general(text) or not readies_a_trip(text):
        return []
    store = MemoryStore(db)
    found = store.newest_matching(_TRAVEL_DOCUMENT_TERMS, DOCUMENT_ROWS, longest=LONGEST_SENT)
    kept = [
        i
        for i, said, _told in found
        if i not in exclude
        and _TRAVEL_DOCUMENT.search(said)
        and not _A_PAYMENT_CARD.search(said)  # "I have a Scotia Scene+ Visa with a $3,000 limit"
        and _DOCUMENT_STATUS.search(said)
        and not sensitive.holds_identifier(said)
        and not sensitive.categories(said) - {"identity_document", "children"}
        and not _someone_elses(said)  # "My sister needs a visa for India": hers
    ]
    memories = store.get_many(kept, longest=LONGEST_SENT)
    # (a passport good for years is nothing to sort: "My passport expires in June 2029")
    later = today + timedelta(days=GOOD_FOR_DAYS)
    kept = [
        i
        for i in kept
        if i in memories
        and not memories[i].private
        and not ((day := _good_until(memories[i].text)) is not None and day > later)
    ]
    scored = most_like(db, embedder, request, kept)
    # what must still be done before what is in order ("I still need an ESTA", "expired in 2025"),
    # the user's own before the household's
    scored.sort(
        key=lambda pair: (
            _STILL_TO_DO.search(memories[pair[1]].text) is None,
            not _BARE_USER_OR_MY.match(memories[pair[1]].text),
        )
    )
    return [Needed(memories[i], score, "documents") for score, i in scored[:DOCUMENT_ITEMS]]


_A_PAYMENT_CARD = pattern(r"\b(?:limit|cashback|credit|debit|apr|pay\s+it\s+off|contactless|points)\b", re.I)
_BARE_USER_OR_MY = pattern(r"\s*(?:I|I['’]m|I['’]ve|my|we|we['’]re|we['’]ve|our)\b", re.IGNORECASE)
_STILL_TO_DO = pattern(
    r"\b(?:expired|ran\s+out|has\s+run\s+out|need\s+(?:a|to)|still\s+(?:have|need)\s+to|haven['’]t|hasn['’]t|not\s+yet|none\s+of)\b",
    re.IGNORECASE,
)


def by_money(db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int]) -> list[Needed]:
    """The user's own money picture (MONEY_ITEMS memories at most) for a request to plan their money."""
    import numpy as np

    if not _plans_my_money(request, text, embedder):
        return []
    model = model_for(embedder)
    vs = index.vector_set(db, "memories", embedder.model_name)
    if vs.matrix.shape[0] == 0 or vs.matrix.shape[1] != model.general.shape[1]:
        return []
    money = model.names.index("money")
    parts = [_nearest(scan.similarities(vs.matrix, request.vector), _active_rows(vs), CANDIDATES)]
    rows = scan.distinct(np.concatenate(parts + _topic_rows(db, vs, model, [money], PER_TOPIC)))
    if rows.size == 0:
        return []
    vectors = np.asarray(vs.matrix[rows])
    topics = model.of_memories(vectors)
    scores = vectors @ request.vector
    found = MemoryStore(db).get_many([int(i) for i in vs.ids[rows]], longest=LONGEST_SENT)
    out: list[Needed] = []
    # a present with its price ("secret santa idea for jussi, 20 euro limit") asks what to buy: the
    # budget set for presents goes with it, the rest of the money picture does not
    gift = request.present
    # what can be afforded, saved or owed turns on what comes in and what is put by, however unlike
    # the request their words ("what can we afford if we move next year?" and "I earn €86,000")
    basics = _money_basics(found, exclude) if _ASKS_WHAT_IT_ALLOWS.search(text) and not gift else []
    out += [
        Needed(m, float(scores[j]), "money") for j in range(len(rows)) for m in basics if m.id == int(vs.ids[rows[j]])
    ]
    for j in sorted(range(len(rows)), key=lambda j: -scores[j]):
        if scores[j] < MONEY_FLOOR or len(out) >= MONEY_ITEMS:
            break
        m = found.get(int(vs.ids[rows[j]]))
        if m is not None and m.id in {n.memory.id for n in out}:
            continue
        # money by meaning, or a sum said in it ("We pay £1,250 rent for the flat" reads as home)
        if (
            m is not None
            and (int(np.argmax(topics[j])) == money or _AN_AMOUNT.search(m.text))
            and _my_money_fact(m, exclude)
            and (not gift or _A_PRESENT.search(m.text))
        ):
            out.append(Needed(m, float(scores[j]), "money"))
        if len(out) >= MONEY_ITEMS:
            break
    return out


# (not the present as now: "at present", "the present day")
_A_PRESENT = pattern(
    r"\b(?:gifts?|(?<!\bat\s)presents?(?!\s+(?:day|moment|time|tense|value))|secret\s+santa|stocking\s+fillers?|"
    r"kris\s+kringle)\b",
    re.IGNORECASE,
)
# Measured in tests/word_lists.py.
_ASKS_WHAT_IT_ALLOWS = pattern(
    r"\b(?:afford|left\s+(?:over|each|every|at\s+the\s+end)|have\s+left|(?:a|my|our|the|monthly|weekly)\s+budget|budgeting|how\s+much\s+(?:can|should|could)\s+(?:i|we)\s+"
    r"(?:spend|save|put|borrow|give|afford)|retire|early\s+retirement|stop\s+(?:work|full[-\s]time)|overpay\w*|emergency\s+fund|"
    r"(?:do|will|would)\s+(?:i|we)\s+owe|tax\s+(?:bill|return))\b",
    re.IGNORECASE,
)
_INCOME = pattern(
    r"\b(?:I|we|my|our)\b[^.;]{0,40}\b(?:earn|earns|salary|take[-\s]home|income|wages?|pension\s+is|gross|after\s+tax)\b",
    re.IGNORECASE,
)
_SAVINGS = pattern(
    r"\b(?:saved|savings|saver|isa|index\s+fund|investments?|invested|emergency\s+fund|in\s+the\s+bank)\b",
    re.IGNORECASE,
)


def _money_basics(found: dict[int, Memory], exclude: set[int]) -> list[Memory]:
    """The newest of the user's memories that say what comes in, and the newest that says what is
    saved, among those found (one of each at most)."""
    out = []
    for kind in (_INCOME, _SAVINGS):
        said = [
            m
            for m in found.values()
            if kind.search(m.text)
            and _AN_AMOUNT.search(m.text)
            and _my_money_fact(m, exclude)
            and not (_PAST.search(m.text) or _FORMER.search(m.text))  # "I used to earn €61,000"
            and m not in out
        ]
        if said:
            out.append(max(said, key=lambda m: (m.created_at, m.id)))
    return out


def _plans_my_money(request: Request, text: str, embedder: Embedder) -> bool:
    """A request about the user's own money, plainly (not a program, nor a question in general)."""
    if request.topic != "money" or request.about_no_one or request.code or asks_in_general(text):
        return False
    if asks_for_own_fact(text) and _A_NUMBER.search(text):
        return False  # "What is my bank account number?" looks up one fact, not the money picture
    if not (says_its_own(text) or request.general < PLAIN_REQUEST):
        return False
    if people.role_paths(text) and not _I_OR_WE.search(text):  # "should my girlfriend consolidate her debt?"
        return False
    return _plainly(request.topics, model_for(embedder), "money", MONEY_LEAD)


_I_OR_WE = pattern(r"\b(?:I|me|we|us|myself|ourselves)\b", re.IGNORECASE)
_A_NUMBER = pattern(r"\b(?:number|no|code|reference|ref|details|iban|pin|password)\b", re.IGNORECASE)


def _my_money_fact(m: Memory, exclude: set[int]) -> bool:
    """A fact of the user's own money that may go unasked: not private, not marked sensitive, no
    account number, nothing sensitive but money ("I pay child support for Jonas")."""
    if m.private or m.sensitive or m.id in exclude or m.kind != "fact" or sensitive.holds_identifier(m.text):
        return False
    if _PAST.search(m.text):
        return False  # "I used to earn €55,000 before I changed jobs": not the money picture now
    if _LAST_DIGITS.search(m.text):
        return False
    return states_my_money(m.text) and not sensitive.categories(m.text) - {"finances"}


def states_my_money(text: str) -> bool:
    """Whether a memory states the user's own money: what they have, earn, pay, save or owe."""
    return _MY_MONEY.match(text) is not None and _STATES_MONEY.search(text) is not None


def _plainly(asked: np.ndarray, model: TopicModel, name: str, lead: float) -> bool:
    ranked = sorted(asked.tolist(), reverse=True)
    return model.names[int(asked.argmax())] == name and (len(ranked) < 2 or ranked[0] - ranked[1] >= lead)


# A request whether the user may drink ("Can I have a glass of wine tonight?", "Is it OK to have a few
# beers at the stag do?") needs the medicines they take, which alcohol may not go with ("I take
# amitriptyline for nerve pain", "I'm on metronidazole this week"): health, and not like the request in
# meaning. Read among the memories nearest the health topic; two at most. Measured in tests/word_lists.py.
MEDICINE_ITEMS = 2
# an alcoholic drink, as what one has (not "wine gums", "a pint of milk", "gin rummy", "a drink of water")
_DRINK = (
    r"(?:alcohol|booze|wines?(?!\s+(?:gums?|bars?|glass(?:es)?|racks?|fridges?|coolers?|lists?))|beers?|"
    r"pints?(?!\s+of\s+(?:milk|water|juice|squash))|lagers?|ales?|ciders?|prosecco|champagne|cava|cocktails?|"
    r"gin(?!\s+rummy)|vodka|whisk(?:e)?y|rum(?!\s+baba)|tequila|spritz|micheladas?|margaritas?|mojitos?|sangria|"
    r"mulled\s+wine|eggnog|coquito|negronis?|aperol|"
    r"drinks?(?!\s+of\s+(?:water|milk|juice|squash|tea|coffee)))\b"
)
_OBJECT = r"(?:[\w'’-]+\s+){0,4}?"  # "a glass of", "a few", "the": bounded, so a long paste reads in linear time
# (not a recipe, nor a drink without its alcohol: "a mojito recipe without alcohol for the kids")
_HAVE = rf"(?:still\s+|safely\s+)?(?:have|drink|skip|risk|handle)\s+(?:(?!recipes?\b|without\b)[\w'’-]+\s+){{0,4}}?{_DRINK}(?!\s+recipes?)"
_MAY_I = pattern(
    rf"\b(?:can|could|may|should|shall)\s+(?:i|we)\s+{_HAVE}|"
    rf"\b(?:can|could|may|should)\s+(?:i|we)\s+(?:still\s+)?drink\b(?!\s+(?:water|milk|juice|tea|coffee|squash))|"
    rf"\bis\s+it\s+(?:ok|okay|safe|fine|alright|all\s+right|bad|risky|wise)\s+(?:for\s+me\s+)?(?:to|if\s+(?:i|we))\s+{_HAVE}|"
    rf"\b(?:am\s+i|are\s+we)\s+allowed\s+(?:to\s+(?:have|drink)\s+)?{_OBJECT}{_DRINK}|"
    rf"\bhow\s+(?:many|much)\s+{_DRINK}\s+{_OBJECT}(?:can|should)\s+(?:i|we)\s+(?:have|drink)\b|"
    # "how many pints is sensible?", and a night of drinking planned ("going to the pub later")
    rf"\bhow\s+(?:many|much)\s+{_DRINK}\s+(?:is|are|would\s+be)\s+(?:sensible|safe|ok|okay|fine|alright|too\s+(?:many|much))\b|"
    r"\b(?:i['’]m|i\s+am|we['’]re|we\s+are|^)\s*(?:going|heading|off)\s+(?:to\s+the\s+pub|out\s+(?:for\s+(?:a\s+)?drinks|drinking)|"
    r"for\s+(?:a\s+few\s+|some\s+)?drinks)\b|"
    # what to order at the pub or a bar ("the lads want me at the pub on Friday, what should I order?")
    r"\b(?:at|to|down|in)\s+the\s+(?:pub|bar|beer\s+garden)\b(?!\s+(?:quiz|job|shift|staff))[^.?!]{0,60}?"
    r"\bwhat\s+(?:should|shall|can|could|do)\s+i\s+(?:order|drink|have)\b|"
    r"\bwhat\s+(?:should|shall|can|could|do)\s+i\s+(?:order|drink|have)\b[^.?!]{0,40}?\b(?:at|in)\s+the\s+(?:pub|bar)\b",
    re.IGNORECASE,
)
# a medicine's name by its ending ("amitriptyline", "propranolol", "methotrexate")
_DRUG_NAME = (
    r"[a-z]{3,}(?:pril|olol|statin|azole|sartan|formin|triptan|profen|azepam|pam|pine|tyline|traline|xetine|"
    r"pram|tidine|cycline|cillin|mycin|adol|codeine|codamol|morphine|pentin|gabalin|done|zide|farin|xaban|gatran|"
    r"lukast|nisone|olone|thyroxine|trexate|amol|oxen|sulosin|izine|atadine|fenadine)"
)
# a medicine's dose, whatever it is called ("50 mg", "100mcg", "18 units every morning")
_DOSE = r"\d+(?:\.\d+)?\s*(?:mg|mcg|µg|micrograms?|milligrams?|iu)|\d+\s+units\s+(?:every|each|a\s+day|at|with)"
_DRUG = pattern(rf"\b(?:{_DRUG_NAME}|{_DOSE})\b", re.IGNORECASE)
# a medicine taken now: a verb of taking, then a medicine's name or the words for medicines (an inhaler is used)
_TAKES = pattern(
    r"\b(?:(?:take|takes|taking|on|prescribed|started)\s+(?:(?:daily|a\s+daily|a\s+course\s+of|low[- ]dose|"
    r"\d+\s*mg(?:\s+of)?|my|some|regular)\s+)*"
    rf"(?:{_DRUG_NAME}|co-codamol|insulin|lithium|hrt|adderall|lexapro|prozac|xanax|"
    r"zoloft|ritalin|antidepressants?|antibiotics?|painkillers?|sleeping\s+pills?|medication|medicines?|meds|"
    r"tablets?|pills?|the\s+pill)|(?:use|uses|using)\s+(?:an?\s+|my\s+)?(?:\w+\s+)?inhalers?"
    # or any name, by its dose ("I take Elvanse 50 mg", "I'm on Tresiba 18 units every morning")
    rf"|(?:take|takes|taking|on|prescribed|started)\s+(?:[\w-]+\s+){{1,2}}?{_DOSE})\b",
    re.IGNORECASE,
)


# a medicine or supplement one might take ("ibuprofen", "a Lemsip", "St John's wort", "something for it")
_REMEDY = (
    rf"(?:{_DRUG_NAME}|paracetamol|acetaminophen|aspirin|ibuprofen|naproxen|tylenol|advil|nurofen|motrin|aleve|"
    r"codeine|co-?codamol|morphine|oxycodone|"
    r"lemsip|sudafed|benadryl|piriton|antihistamines?|decongestants?|painkillers?|cough\s+(?:syrup|medicine)|"
    r"cold\s+(?:and\s+flu\s+)?(?:medicine|tablets|remedy)|sleeping\s+(?:pills?|tablets?)|melatonin|"
    r"st\.?\s+john'?s\s+wort|ginkgo|ginseng|turmeric|echinacea|valerian|supplements?|vitamins?|"
    r"antibiotics?|antacids?|gaviscon|rennie|imodium|laxatives?|hay\s+fever\s+tablets?|"
    r"the\s+morning[- ]after\s+pill|viagra|cbd(?:\s+oil)?|"
    r"night\s+nurse|nyquil|dayquil|beechams|calpol|zyrtec|claritin|pepto(?:-bismol)?|tums|excedrin|"
    r"strepsils|dioralyte|trimethoprim|bactrim|septrin|"
    # a vaccine is taken as a medicine is ("should i get the shingles shot")
    r"vaccines?|vaccinations?|(?:flu|shingles|mmr|covid|chickenpox|yellow\s+fever|typhoid|travel|tetanus|hpv|"
    r"pneumonia)\s+(?:shots?|jabs?|boosters?)|jabs?|booster\s+(?:jabs?|shots?|doses?))"
)
_MAY_I_TAKE = pattern(
    rf"\b(?:can|could|may|should|shall)\s+(?:i|we)\s+(?:still\s+|safely\s+|also\s+)?(?:take|have|try|get)\s+"
    rf"(?:(?!for\b|to\b)[\w'’-]+\s+){{0,4}}?{_REMEDY}\b(?!\s+(?:[a-z]\s+)?(?:results?|levels?|tests?|deficiency|prices?|shop|business))|"
    r"\bwhat\s+(?:can|could|should|shall)\s+(?:i|we)\s+take(?:\s+(?:for|to\s+(?:help|ease|stop|settle|shift|get\s+rid))\b|"
    r"\s*(?:[?.!]|$))|"  # "what can I take for it?", not "what can I take to the party?"
    rf"\bis\s+it\s+(?:ok|okay|safe|fine|alright|all\s+right|bad|risky|wise)\s+(?:for\s+me\s+)?to\s+take\s+"
    rf"{_OBJECT}{_REMEDY}\b|"
    rf"\b(?:am\s+i|are\s+we)\s+allowed\s+(?:to\s+take\s+)?{_OBJECT}{_REMEDY}\b|"
    # "is ibuprofen ok alongside my head pills", "is a lemsip safe with my meds" (not for the dog)
    rf"\b(?:is|are)\s+(?:an?\s+|some\s+)?{_REMEDY}\s+(?:ok|okay|safe|fine|alright|all\s+right)\b"
    r"(?!\s+(?:for\s+(?:dogs?|cats?|pets?|the\s+(?:dog|cat|kids|baby)|kids|children|babies|toddlers)|in\s+general)\b)",
    re.IGNORECASE,
)


# Whether a food or drink is safe for the user, or what or where they may eat ("Is porridge safe for
# me?", "which gels are safe for me?", "what can I eat before yoga?", "where can I eat safely in
# Los Cristianos?"): what they cannot eat decides it, though the request names no meal.
_SAFE_FOR_ME = pattern(
    r"\b(?:is|are)\s+(?!it\b)(?:[\w'’-]+\s+){1,10}?(?:ok|okay|safe|fine|alright|all\s+right)\s+for\s+(?:me|us)\b|"
    r"\bwhich\s+(?:[\w'’-]+\s+){1,3}?(?:is|are)\s+(?:ok|okay|safe|fine)\s+for\s+(?:me|us)\b",
    re.IGNORECASE,
)
_MAY_I_EAT = pattern(
    r"\b(?:can|could|may|should|shall)\s+(?:i|we)\s+(?:still\s+|safely\s+)?eat\b|"
    # a drink or a bite the user may have now ("can i grab a cappuccino on the way home at 4")
    r"\b(?:can|could|may|should|shall)\s+(?:i|we)\s+(?:still\s+)?(?:have|grab|get|order|drink)\s+(?:a|an|some|another|one|the|a\s+quick)\s+"
    r"(?:[\w'’-]+\s+){0,2}?(?:coffee|cappuccino|latte|espresso|flat\s+white|cortado|americano|tea|beer|pint|wine|glass|cake|"
    r"biscuit|slice|pizza|curry|takeaway|chocolate|ice\s+cream|snack|coke|energy\s+drink|croissant|pastry|burger|kebab|"
    r"sandwich|bacon\s+roll|doughnut|donut|muffin|cocktail|gin|whisky|bite)s?\b|"
    # or one of the household may ("Can Lucía have a slice of roscón?", "can my son eat prawns?")
    r"\b(?:can|could|may|should)\s+(?:my\s+[\w-]+|our\s+[\w-]+|the\s+(?:kids|baby|toddler|children|boys|girls)|"
    r"(?-i:\p{Lu})[\w'’-]+)\s+(?:still\s+|safely\s+)?(?:eat\b|have\s+(?:a\s+)?(?:slice|piece|bite|bit|taste|"
    r"spoonful|bowl|portion|scoop|square)\b)|"
    r"\b(?:what|where)\s+(?:can|could|should|shall)\s+(?:i|we)\s+(?:safely\s+)?eat\b|"
    r"\bsafe\s+for\s+(?:me|us)\s+to\s+eat\b|\beat\s+safely\b|"
    # "Is it safe to eat brie?", "Is raw cookie dough OK to eat?": whoever asks is the one who would
    # eat it, and a diet condition (a pregnancy, an allergy) is what the answer turns on
    r"\bis\s+it\s+(?:ok|okay|safe|fine|alright|all\s+right)\s+to\s+eat\b|"
    r"\b(?:is|are)\s+(?!it\b)(?:[\w'’-]+\s+){1,6}?(?:ok|okay|safe|fine|alright)\s+to\s+eat\b",
    re.IGNORECASE,
)


def asks_if_safe_for_me(text: str) -> bool:
    """Whether a request asks whether a particular thing is safe for the user ("Is grapefruit juice
    OK for me?"): about food, their medicines decide it as much as their diet."""
    return _SAFE_FOR_ME.search(text) is not None


def asks_to_eat(text: str) -> bool:
    """Whether a request asks whether, what or where the user may eat (see _MAY_I_EAT), or whether
    something is safe for them (see _SAFE_FOR_ME; a request about food is read so by meaning)."""
    return _MAY_I_EAT.search(text) is not None or asks_if_safe_for_me(text)


def asks_to_drink(text: str) -> bool:
    """Whether a request asks whether, or how much, the user may drink alcohol."""
    return _MAY_I.search(text) is not None


def names_a_remedy(text: str) -> bool:
    """Whether a text names a medicine or supplement ("is ibuprofen safe with lithium?")."""
    return re.search(rf"\b{_REMEDY}\b", text, re.IGNORECASE) is not None


def asks_to_take(text: str) -> bool:
    """Whether a request asks whether the user may take a medicine or supplement, or what they
    can take ("Can I take St John's wort for a low mood?", "what can I take for it?"): what they
    take already decides it, as it does for a drink."""
    return _MAY_I_TAKE.search(text) is not None


# A medicine someone who treats the user offers them ("The GP suggested propranolol", "The dentist
# wants to give me antibiotics", "my doctor has put me on statins"): a question of taking it too.
_OFFERED = pattern(
    r"\b(?:gp|doctor|doc|dr|dentist|pharmacist|nurse|consultant|specialist|psychiatrist|midwife|surgeon|"
    r"urgent\s+care|walk-?in(?:\s+centre|\s+clinic)?|clinic|out[- ]of[- ]hours|a\s*&\s*e|er)\s+(?:(?:says|said)\s+[^.,;!?]{1,40}?\s+and\s+)?"
    r"(?:has\s+|have\s+|just\s+|now\s+)?(?:suggested|prescribed|recommended|offered|mentioned|"
    r"wants\s+(?:me\s+)?to\s+(?:give|put|start|prescribe|try)|is\s+(?:putting|starting)|put|started)\s+"
    rf"(?:me\s+)?(?:on\s+)?{_OBJECT}(?:{_REMEDY}|(?:combined\s+|mini\s+|contraceptive\s+)?pills?|hrt|statins?|"
    r"steroids?|inhalers?|injections?|a\s+course)\b",
    re.IGNORECASE,
)


# The user's own medicines named as theirs ("anything I should sort out with my tablets before we go
# abroad?", "I keep forgetting my meds on nights"): what they take is what it is about. Plural
# "tablets" only: "my tablet" is as often an iPad.
_MY_MEDICINES = pattern(
    r"\b(?:my|our)\s+(?:(?:daily|regular|usual|morning|evening|night|diabetes|blood\s+pressure|heart|asthma|"
    r"thyroid|epilepsy|allergy|hay\s+fever|pain)\s+)?(?:tablets|tabs|meds|medications?|medicines?|pills?|"
    r"prescriptions?|inhalers?|insulin|injections|jabs)\b(?!\s+(?:of\s+cash|cabinet|cupboard|box|drawer))",
    re.IGNORECASE,
)


def names_my_medicines(text: str) -> bool:
    """Whether a request speaks of the user's own medicines as theirs (_MY_MEDICINES)."""
    return _MY_MEDICINES.search(text) is not None


def offered_a_medicine(text: str) -> bool:
    """Whether a request says a doctor, dentist or pharmacist offers the user a medicine (_OFFERED)."""
    return _OFFERED.search(text) is not None


def takes_a_medicine(text: str) -> bool:
    """Whether a text says someone takes a medicine ("I take amitriptyline", "I'm on sertraline")."""
    return _TAKES.search(text) is not None


def by_medicine(db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int]) -> list[Needed]:
    """The medicines the user takes now, for a request whether they may drink (asks_to_drink) or
    take something (asks_to_take): never for a question about no one ("Can you drink alcohol on
    antibiotics?" asked in general), nor code."""
    import numpy as np

    # a food or drink asked about as safe for the user is a medicine's business too ("Is grapefruit
    # juice OK for me?" and the statin)
    food = asks_if_safe_for_me(text) and request.topic == "diet"
    drink = asks_to_drink(text)
    # another coffee ("can i have another flat white, got a deadline") is a stimulant's business
    caffeine = asks_to_eat(text) and _CAFFEINE_ASKED.search(text) is not None
    take = asks_to_take(text) or offered_a_medicine(text)
    refill = asks_for_more_medicine(text)
    asked_otherwise = drink or take or food or refill or names_my_medicines(text)
    if not (asked_otherwise or caffeine):
        return []
    if request.about_no_one or request.code or asks_in_general(text):
        return []
    if people.role_paths(text):
        return []  # "Can my dad have a beer after his op?": his, and the person route reads him
    model = model_for(embedder)
    vs = index.vector_set(db, "memories", embedder.model_name)
    if vs.matrix.shape[0] == 0 or vs.matrix.shape[1] != model.general.shape[1]:
        return []
    rows = scan.distinct(np.concatenate(_topic_rows(db, vs, model, [model.names.index("health")], PER_TOPIC)))
    rows = rows[_active_rows(vs)[rows]]
    found = MemoryStore(db).get_many([int(i) for i in vs.ids[rows]], longest=LONGEST_SENT)
    kept = []
    for r in rows:
        m = found.get(int(vs.ids[r]))
        if (
            m is None
            or m.private
            or m.kind != "fact"
            or m.id in exclude
            or not takes_a_medicine(m.text)
            or "health" not in sensitive.categories(m.text)
            and not _DRUG.search(m.text)  # "I use lithium batteries"
            or not _BARE_USER.match(m.text)  # the user's own: "I take ...", "I'm on ..."
            or _PAST.search(m.text)
            or _FORMER.search(m.text)
            or _NO_LONGER_TAKEN.search(m.text)  # "I stopped taking sertraline 50 mg last year"
            or sensitive.categories(m.text) - {"health"}
        ):
            continue
        kept.append(Needed(m, float(np.asarray(vs.matrix[r]) @ request.vector), "medicine"))
    if not asked_otherwise:  # a caffeine drink alone
        kept = [n for n in kept if _STIMULANT.search(n.memory.text)]  # only what caffeine adds to
    medicines = sorted(kept, key=lambda n: -n.score)[:MEDICINE_ITEMS]
    if take:
        medicines += _conditions_it_turns_on(db, embedder, request, text, exclude | {n.memory.id for n in medicines})
    if refill:  # more of it: who prescribes, and how the user orders it
        medicines += _prescriber(db, exclude | {n.memory.id for n in medicines})
    if not drink:
        return medicines
    return medicines + _not_drinking(db, embedder, request, exclude | {n.memory.id for n in medicines})


_CAFFEINE_ASKED = pattern(
    r"\b(?<!decaf\s)(?<!decaffeinated\s)(?:coffees?(?!\s+(?:cake|walnut|ice\s+cream|table|shop|machine))|caffeine|espressos?|"
    r"lattes?|cappuccinos?|flat\s+whites?|americanos?|cortados?|energy\s+drinks?|red\s+bull|monster|pre-?workout|cold\s+brew)\b",
    re.IGNORECASE,
)
# medicines caffeine adds to or is slowed by: stimulants for ADHD and narcolepsy, theophylline, lithium
_STIMULANT = pattern(
    r"\b(?:vyvanse|elvanse|lisdexamfetamine|adderall|dexamfetamine|dexedrine|ritalin|concerta|methylphenidate|"
    r"medikinet|equasym|modafinil|armodafinil|theophylline|aminophylline|lithium|clozapine)\b",
    re.IGNORECASE,
)


# A request for more of a medicine ("nearly out of my blood pressure tabs, how do i get more", "need a
# repeat prescription") turns on who prescribes it and how the user orders it ("My GP is Dr Anwar; I
# order repeat prescriptions on the NHS App"), which is not like the request in meaning. Measured in
# tests/word_lists.py.
_REFILL = pattern(
    r"\b(?:(?:nearly|almost|about\s+to\s+run|running|run|ran|going\s+to\s+run)\s+out\s+of|(?:running\s+)?low\s+on|repeat\s+(?:prescription|script)s?|"
    r"refills?|re-?order(?:ing)?|(?:get|order|pick\s+up)\s+(?:some\s+)?more)\b",
    re.IGNORECASE,
)
_A_MEDICINE_WORD = pattern(
    r"\b(?:prescriptions?|scripts?|meds|medications?|medicines?|tablets|tabs|pills|inhalers?|insulin|patches|"
    r"\w+(?:olol|pril|statin|sartan|prazole|oxetine|tyline|pam|done|mab|xine|thyroxine|formin))\b",
    re.IGNORECASE,
)


def asks_for_more_medicine(text: str) -> bool:
    """Whether a request asks how to get more of a medicine (_REFILL, _A_MEDICINE_WORD)."""
    return _REFILL.search(text) is not None and _A_MEDICINE_WORD.search(text) is not None


_PRESCRIBER = pattern(
    r"\b(?:my|our)\s+(?:gp|doctor|pharmacy|pharmacist|chemist|surgery)\b|\bgp\s+(?:is|practice|surgery)\b|"
    r"\brepeat\s+prescriptions?\b|\bprescriptions?\s+(?:on|through|via|from|are|get)\b",
    re.IGNORECASE,
)
_PRESCRIBER_TERMS = '"gp" OR "doctor" OR "pharmacy" OR "pharmacist" OR "chemist" OR "surgery" OR "prescription"*'
PRESCRIBER_ROWS = 100
PRESCRIBER_ITEMS = 2


def _prescriber(db: Database, exclude: set[int]) -> list[Needed]:
    """The newest memories that say who prescribes the user's medicines or how they order them, the
    user's own (_PRESCRIBER), PRESCRIBER_ITEMS at most."""
    store = MemoryStore(db)
    found = store.newest_matching(_PRESCRIBER_TERMS, PRESCRIBER_ROWS, longest=LONGEST_SENT)
    ids = [i for i, said, _told in found if i not in exclude and _PRESCRIBER.search(said) and not _someone_elses(said)]
    memories = store.get_many(ids[:5], longest=LONGEST_SENT)
    kept = [  # newest first, as found: the GP, and where the user collects or how they order
        memories[i]
        for i in ids[:5]
        if i in memories
        and not memories[i].private
        and not sensitive.holds_identifier(memories[i].text)
        and memories[i].kind == "fact"
    ]
    return [Needed(m, 0.0, "medicine") for m in kept[:PRESCRIBER_ITEMS]]


_NO_LONGER_TAKEN = pattern(
    r"\b(?:stopped\s+taking|came\s+off|weaned\s+(?:myself\s+)?off|finished\s+(?:my|the)\s+course)\b", re.I
)


# The user's conditions the medicine asked about is risky with (memchat.memory.judge.medicines: asthma
# and ibuprofen or propranolol, blood pressure and Sudafed, a penicillin allergy and amoxicillin), the
# most like the request first: the encoder does not see them as alike, so search by meaning misses them.
CONDITION_ITEMS = 2
CONDITION_ROWS = 200  # the newest memories naming a condition or medicine that are read for one
_MINE = pattern(r"\b(?:I|I['’]m|I['’]ve|my|me|the\s+user)\b(?!['’]s)", re.IGNORECASE)


def _conditions_it_turns_on(
    db: Database, embedder: Embedder, request: Request, text: str, exclude: set[int]
) -> list[Needed]:
    if not medicines.classes_named(text):
        return []
    store = MemoryStore(db)
    found = store.newest_matching(medicines.SEARCH_TERMS, CONDITION_ROWS, longest=LONGEST_SENT)
    ids = [
        i
        for i, said, told in found
        if i not in exclude
        and medicines.turns_on(text, said)
        and _MINE.search(said)
        and not people.role_paths(said)  # "Mum has asthma" is hers
        and not _PAST.search(said)  # "I used to have asthma" (not _FORMER: "at my last check-up" is now)
        and planned_day(said, told) is None
    ]
    memories = store.get_many(ids, longest=LONGEST_SENT)
    return [
        Needed(memories[i], score, "condition") for score, i in most_like(db, embedder, request, ids)[:CONDITION_ITEMS]
    ]


# Beside a medicine, what makes a drink the user's question: being sober or in recovery, a pregnancy
# ("Can I have a glass of wine at the wedding?" and "I'm a recovering alcoholic, three years sober").
_NOT_DRINKING_TERMS = (
    '"sober"* OR "alcohol"* OR "recovery" OR "recovering" OR "teetotal" OR "drink"* OR "booze" OR "pregnant"'
)
_NOT_DRINKING = pattern(
    r"\b(?:sober(?![- ]curious)|alcoholic|in\s+recovery|alcoholics\s+anonymous|teetotal|pregnant|"
    r"(?:don['’]t|do\s+not|never|can['’]t|cannot|no\s+longer|won['’]t)\s+(?:drink(?!\s+(?:coffee|tea|water|milk|juice|"
    r"squash|fizzy|caffeine|energy|cola|coke))|touch\s+alcohol)|"
    r"(?:stopped|quit|gave\s+up)\s+(?:drinking|alcohol|booze|the\s+booze)|off\s+(?:the\s+)?(?:booze|alcohol|drink))\b",
    re.IGNORECASE,
)


def says_i_dont_drink(text: str) -> bool:
    """Whether a memory says the user does not drink alcohol, or must not now (see _NOT_DRINKING)."""
    return _BARE_USER.match(text) is not None and _NOT_DRINKING.search(text) is not None


NOT_DRINKING_ROWS = 200  # newest memories with one of its words that are read


def _not_drinking(db: Database, embedder: Embedder, request: Request, exclude: set[int]) -> list[Needed]:
    """The user's own reason not to drink (one at most), for a request whether they may."""
    store = MemoryStore(db)
    found = store.newest_matching(_NOT_DRINKING_TERMS, NOT_DRINKING_ROWS, longest=LONGEST_SENT)
    ids = [i for i, said, _told in found if i not in exclude and says_i_dont_drink(said)]
    memories = store.get_many(ids, longest=LONGEST_SENT)
    return [Needed(memories[i], score, "alcohol") for score, i in most_like(db, embedder, request, ids)[:1]]


_WE = pattern(r"\b(?:we|us|our|we['’](?:re|ll|ve|d))\b", re.IGNORECASE)
STACK_ITEMS = 2  # memories of the user's tools a technical task adds, at most
STACK_FLOOR = 0.2  # a tool memory less like the task than this is about another part of the stack
STACK_PLAIN = 0.4  # a memory this like the tech examples states the stack ("Our stack is Go, Postgres, Kafka...")
STACK_PLAIN_FLOOR = 0.12  # ... and goes to a terse task less like it ("Set up CI for my repo.")
STACK_WEIGHT = 0.5


# What a task says when it is done with a tool memory names, though no word of the tool's is in it
# ("commits offsets" and Kafka, "5xx alerts" and Prometheus): data, tech_terms.json.
TECH_TERMS = Path(__file__).with_name("tech_terms.json")
_TOOLS: list[tuple[str, re.Pattern[str], re.Pattern[str]]] = []  # (tool, its name, what a task about it says)


def _tools() -> list[tuple[str, re.Pattern[str], re.Pattern[str]]]:
    if not _TOOLS:
        for tool, phrases in json.loads(TECH_TERMS.read_text(encoding="utf-8"))["tools"].items():
            said = "|".join(re.escape(p.rstrip("*")) + (r"[\w-]*" if p.endswith("*") else r"\b") for p in phrases)
            _TOOLS.append(
                (tool, re.compile(rf"(?<![\w.-]){re.escape(tool)}(?![\w-])", re.I), re.compile(rf"\b(?:{said})", re.I))
            )
    return _TOOLS


def tools_asked(text: str) -> frozenset[str]:
    """The tools whose work a task says it is ("Write a consumer group handler": kafka)."""
    return frozenset(tool for tool, _name, said in _tools() if said.search(text))


def names_a_tool(text: str, tools: frozenset[str]) -> bool:
    """Whether a memory names one of `tools` ("Tidewater uses Kafka for the meter-reading stream")."""
    return any(name.search(text) for tool, name, _said in _tools() if tool in tools)


TOOL_ROWS = 200  # newest memories with a tool's name that are read
# how far behind its first topic a task that says a tool's work may read as technical: "Add an alert
# for when the 5xx rate spikes" (money first, tech 0.08 behind), not "a dining table" (0.32 behind)
# nor "a dashboard for my savings" (0.19)
TOOL_NEAR = 0.1


def reads_as_tech(request: Request, model: TopicModel) -> bool:
    """Whether a request reads as technical by meaning, first or within TOOL_NEAR of its first topic."""
    return float(request.topics[model.names.index("tech")]) >= float(request.topics.max()) - TOOL_NEAR


def _tool_terms(tools: frozenset[str]) -> str:
    """An FTS5 query for the memories that may name one of `tools`."""
    return " OR ".join('"' + tool.replace('"', "") + '"' for tool in sorted(tools))


_A_QUESTION = pattern(r"^\W*(?:how|what|why|which|when|where|is|are|can|could|does|do|should)\b", re.IGNORECASE)
# a name in code ("the loan_applications table on application_id"): a task in the user's own work
_IDENTIFIER = pattern(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b")


def _task_tools(request: Request, text: str, model: TopicModel, *, named_only: bool) -> frozenset[str] | None:
    """The tools whose work a technical task says it is (none said: an empty set), or None when the
    request is no technical task of the user's (by_stack adds nothing to it). The glossary is read
    (~10 ms to compile, once a process) only for a request that may be one."""
    # a task that says a tool's work and reads as technical a hair behind its first topic ("Add an
    # alert for when the 5xx rate spikes" reads as money), or names a thing in code
    near = reads_as_tech(request, model)
    plainly = request.topic == "tech" or request.code
    if not (plainly or near or _IDENTIFIER.search(text)):
        return None
    asked = tools_asked(text)
    if named_only:
        # a question of how anything is done ("How do I pivot a pandas dataframe?") is no task of the
        # user's; nor does a memory add a tool the task names itself
        asked = frozenset(tool for tool in asked if not names_a_tool(text, frozenset({tool})))
        if _A_QUESTION.match(text) or not asked:
            return None
    if not (plainly or asked) or asks_in_general(text) or asks_about_the_world(text):
        return None
    if names_its_language(text) and not _OUR_WORK.search(text):
        return None
    return asked


def by_stack(
    db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int], *, named_only: bool = False
) -> list[Needed]:
    """The user's own tools and systems a technical task is done with ("Write the IaC for a new
    bucket" and "We manage infrastructure with Terraform"; "This groupby takes forever" and "I use
    pandas"), best first by meaning: the request reads as technical by meaning or asks for code. Not
    a question about the world ("What's the difference between useMemo and useCallback?"), nor an
    exercise set in a language of its own ("Implement a Luhn check in Go") unless it says it is the
    user's own."""
    import numpy as np

    model = model_for(embedder)
    tech = model.names.index("tech")
    asked = _task_tools(request, text, model, named_only=named_only)
    if asked is None:
        return []
    vs = index.vector_set(db, "memories", embedder.model_name)
    if vs.matrix.shape[0] == 0 or vs.matrix.shape[1] != model.general.shape[1]:
        return []
    rows = np.concatenate(_topic_rows(db, vs, model, [tech], PER_TOPIC))
    if asked:  # and those that name a tool the task's work is done with, wherever they rank
        found_named = MemoryStore(db).newest_matching(_tool_terms(asked), TOOL_ROWS, longest=LONGEST_SENT)
        by_name = _rows_of(vs, [i for i, said, _told in found_named if names_a_tool(said, asked)])
        rows = np.concatenate([rows, np.asarray([r for _i, r in by_name], dtype=rows.dtype)])
    rows = scan.distinct(rows)
    rows = rows[_active_rows(vs)[rows]]
    if rows.size == 0:
        return []
    vectors = np.asarray(vs.matrix[rows])
    topics = model.of_memories(vectors)
    scores = vectors @ request.vector
    found = MemoryStore(db).get_many([int(i) for i in vs.ids[rows]], longest=LONGEST_SENT)
    kept = []
    # a tool the task's work is done with first ("commits offsets" and Kafka), whatever its likeness;
    # then best first by likeness to the task, a plain statement of the stack ahead of a passing mention
    named = {
        j for j in range(rows.size) if asked and (m := found.get(int(vs.ids[rows[j]]))) and names_a_tool(m.text, asked)
    }
    for j in sorted(range(rows.size), key=lambda j: (j not in named, -(scores[j] + STACK_WEIGHT * topics[j, tech]))):
        if j not in named and (
            named_only or scores[j] < (STACK_PLAIN_FLOOR if topics[j, tech] >= STACK_PLAIN else STACK_FLOOR)
        ):
            continue
        m = found.get(int(vs.ids[rows[j]]))
        if (
            m is None
            or m.private
            or m.sensitive
            or m.kind != "fact"
            or m.id in exclude
            or (int(topics[j].argmax()) != tech and j not in named)  # a device or a hobby first is not the stack
            or sensitive.categories(m.text) - {"children"}
            or _PAST.search(m.text)
            or _FORMER.search(m.text)
        ):
            continue
        kept.append(Needed(m, float(scores[j]), "stack"))
        if len(kept) >= STACK_ITEMS:
            break
    return kept


# what says a task is the user's own work whatever language it names ("port our billing job to Go")
_OUR_WORK = pattern(r"\b(?:our|my|we|we['’]re|at\s+work)\b", re.IGNORECASE)


# The user says they eat it too: "can I eat", "what should we have", "for me", "with us" (not "what
# can I cook for my mum?", where the user only cooks)
# the people a meal is named for eat beside the household ("an easy dinner that mum can eat too")
_THEM_TOO = pattern(r"\b(?:too|as\s+well|also|everyone|everybody|all\s+of\s+us|the\s+whole\s+family)\b", re.I)
# a constraint on drink alone, and a request that has a drink in it (or a night out, a party)
_A_DRINK = pattern(r"\b(?:caffeine|alcohol|coffee|booze|drinking|drink|teetotal)\b", re.IGNORECASE)
_A_DRINK_ASKED = pattern(
    r"\b(?:drinks?|drinking|beers?|pints?|wine|prosecco|champagne|cocktails?|gin|whisky|vodka|booze|alcohol|"
    r"bar|pub|coffee|cappuccino|latte|espresso|flat\s+white|(?:cup\s+of|a|green|herbal|iced|builder['’]s)\s+tea|caffeine|"
    r"energy\s+drinks?|coke|party|toast|round)\b",
    re.IGNORECASE,
)
# a crowd at a meal (everyone at home is the household: "a weekend dinner everyone at home will eat")
_A_CROWD = (
    r"(?:(?:everybody|everyone)(?!\s+(?:at\s+home|in\s+the\s+house|here|in\s+the\s+family|in\s+the\s+household)\b)|"
    r"the\s+whole\s+(?:team|gang|lot)|the\s+ladies|the\s+lads|the\s+girls|the\s+guests)"
)
_FED = r"(?:eat|eats|feed|dinner|lunch|supper|brunch|food|meal|recipes?|cook|menu|bbq|barbecue|buffet|dessert|pudding)"
# Guests at the user's table eat with the household: "in-laws over for dinner saturday", "niamh and
# tomás coming for sunday lunch", "having the Okafors round on Friday" are the guests' meal and the
# household's. Measured in tests/word_lists.py.
_HOSTING = pattern(
    r"\bhosting\b(?!\s+(?:a\s+|the\s+|my\s+|our\s+)?(?:provider|service|company|plan|site|website|webinar|server|costs?|options?|"
    r"platform|app|podcast|meeting|call|workshop|stream|for\s+(?:my|our|a|the)\s+(?:site|website|app|blog|api)))|\b(?:having|have)\s+[\w\s'’-]{0,30}?\s+(?:over|round)\b"
    r"|\b(?:over|round|coming|here|staying)\s+(?:for|to\s+ours\s+for)\s+(?:(?:a|the|our|sunday|christmas|boxing\s+day|easter|"
    r"friday|saturday|a\s+big)\s+)?(?:dinner|lunch|tea|supper|brunch|breakfast|meal|roast|christmas|bbq|barbecue|food)\b"
    r"|\b(?:at|to)\s+ours\b|\bcoming\s+(?:over|round)\b"
    # a meal for a crowd ("christmas eve dinner that everybody can eat", "feed everybody from work")
    rf"|\b{_A_CROWD}\b.*\b{_FED}\b|\b{_FED}\b.*\b{_A_CROWD}\b",
    re.IGNORECASE,
)
_USER_EATS = pattern(
    r"\b(?:I|we)\s+(?:(?:can|could|should|may|will|want\s+to)\s+)?(?:eat|order)\b"
    r"|\b(?:can|could|should|may)\s+(?:I|we)\s+(?:eat|have|order)\b"
    r"|\b(?:for|with)\s+(?:me|us)\b|\ball\s+of\s+us\b|\b(?:and|&)\s+(?:me|I|myself)\b"
    # a host eats with the guests ("Hosting my best friend Sunday, menu pls", "having the in-laws round for tea")
    r"|\bhosting\b|\b(?:having|have)\s+[\w\s'’-]{0,30}?\s+(?:over|round)\s+(?:for|on|this|next|tonight|tomorrow|at)\b",
    re.IGNORECASE,
)


def writes_a_message(text: str) -> bool:
    """Whether the request is a text to write for others that does not carry the food itself
    (_MESSAGE_TO_WRITE, _FOOD_IN_IT)."""
    return _MESSAGE_TO_WRITE.search(text) is not None and _FOOD_IN_IT.search(text) is None


# A meal for a time ahead is the asker's own, though the question says no "I" ("What's a good breakfast
# before an early turn?", "What's good for tea tonight?"). Measured in tests/word_lists.py.
_MEAL_AHEAD = pattern(
    r"\b(?:breakfast|brunch|lunch|dinner|tea|supper|snacks?|packed\s+lunch|lunchbox)\b[^.?!]{0,40}?"
    r"\b(?:tonight|today|tomorrow|this\s+(?:week|weekend|evening|morning|afternoon)|"
    r"before\s+(?:an?\s+|my\s+|the\s+)?(?:early\s+|late\s+|night\s+|long\s+)?(?:turn|shift|run|walk|ride|race|workout|"
    r"session|gym|swim|flight|drive|exam))\b",
    re.IGNORECASE,
)


def _eaters(db: Database, text: str) -> tuple[list[tuple[str, ...]], bool, list[tuple[str, ...]]]:
    """Whom a meal request is for, as role paths (by role, or by the name memory knows them by:
    "Can Lucía have a slice of roscón?"), whether the user eats too, and the guests among them when
    the household hosts people it names (what the household must not eat goes with the guests'
    meal; what it merely dislikes is for its own)."""
    by_role = named = people.role_paths(text)
    # one of the household by name ("Can Lucía have...?"; a friend named is a guest: see _USER_EATS)
    # (a guest the household hosts by name eats too, whoever they are: "niamh and tomás coming for sunday lunch")
    hosting = _HOSTING.search(text) is not None
    named = named + [
        path for _name, path in people.names_known(db, text) if (hosting or path in HOUSEHOLD) and path not in named
    ]
    # "Is porridge safe for me?" asks for the user alone, not for the household
    alone = not named and asks_to_eat(text) and _WE.search(text) is None
    paths = [] if alone else named or list(HOUSEHOLD)
    guests: list[tuple[str, ...]] = []
    if named and (_THEM_TOO.search(text) or _HOSTING.search(text)):
        paths = named + [p for p in HOUSEHOLD if p not in named]  # "a dinner mum can eat too": ours and hers
        guests = named if not _THEM_TOO.search(text) else []
    # "everyone at home" eats with the user, and so does a meal the user asks what they may eat at
    # ("What can I eat at the Tết lunch? Mum always makes bánh chưng": the user's own coeliac disease)
    with_user = (  # "Cooking for Sabine on Saturday": the cook eats too, whoever Sabine is
        not by_role
        or all(p in named for p in HOUSEHOLD)
        or _USER_EATS.search(text) is not None
        or _THEM_TOO.search(text) is not None
        or _HOSTING.search(text) is not None
    )
    return paths, with_user, guests


def _asks_for_a_meal(request: Request, text: str, model: TopicModel) -> bool:
    """Whether a request asks for a meal the household will eat (household_diet)."""
    # "what wine usually goes with salmon?", "Which dishes are typical at a Diwali feast?": what anyone
    # eats, not what the household may (but "Is it safe to eat brie?" is asked by whoever would eat it,
    # and "What's a good breakfast before an early turn?" by whoever eats it then)
    world = asks_about_the_world(text) and not asks_to_eat(text) and not _MEAL_AHEAD.search(text)
    if asks_in_general(text) or world or writes_a_message(text):
        return False
    # A meal named and asked for oneself ("Find me somewhere nice to eat on Saturday") is one, though
    # it reads less as about anyone than the bar for the rest. Not a meal as a time ("my pill before
    # breakfast"), a recipe (it may be a drink's: "a recipe for my next homebrew"), nor a place to eat
    # the request does not plan going to (plans_a_journey: "a name for my café", "a restaurant job").
    meals = [
        m
        for m in _MEAL.finditer(text)
        if not _MEAL_AS_A_TIME.search(text[max(0, m.start() - 40) : m.start()])
        and not m.group(0).lower().startswith("recipe")
    ]
    meal = any(not _EATING_PLACE.match(m.group(0)) for m in meals) or (bool(meals) and plans_a_journey(text))
    own_meal = (meal and (says_its_own(text) or _ASKS_TO_PLAN.search(text) is not None)) or asks_to_eat(text)
    if request.general > (GENERAL if own_meal else MEAL_REQUEST):
        return False
    # "Race day fuelling: which gels are safe for me?" asks what the user may eat, food a hair behind
    # running ("Is this laptop OK for me?" does not: devices, food far behind)
    diet_near = float(request.topics[model.names.index("diet")]) >= float(request.topics.max()) - MEAL_NEAR
    # a meal named and asked for ("Suggest a takeaway for tonight") is food whatever else the encoder
    # reads in it (a takeaway is travel to it, by a hair)
    return bool(request.topic == "diet" or (asks_to_eat(text) and diet_near) or (meal and own_meal)) or _names_a_meal(
        text, request, model
    )


def household_diet(db: Database, request: Request, embedder: Embedder, text: str, exclude: set[int]) -> list[Needed]:
    """For a meal request (MEAL_REQUEST), what the people it is for cannot or will not eat
    ("Ines is pescatarian", "Maya refuses anything green"), best first by meaning.

    The people are those the request names by role ("my daughter's lunchbox": Maya), or else the
    household: the user, their partner and children (memchat.memory.judge.people). A memory counts
    when it states a constraint (_CONSTRAINT) of one of them, as its subject ("Ines's best friend
    Lucy can't eat gluten" is Lucy's), is not over ("I used to be vegetarian"), and reads as
    about food: never a sensitive one but a condition a meal must respect (_a_diet_condition)."""
    import numpy as np

    model = model_for(embedder)
    if not _asks_for_a_meal(request, text, model):
        return []
    vs = index.vector_set(db, "memories", embedder.model_name)
    if vs.matrix.shape[0] == 0 or vs.matrix.shape[1] != model.general.shape[1]:
        return []
    paths, with_user, guests = _eaters(db, text)
    names, about = people.people_and_memories(db, paths)
    # a guest the request names whom memory knows by no role ("niamh and tomás coming for sunday lunch")
    hosted = {w.casefold() for w in re.findall(r"[^\W\d_]+", text)} if _HOSTING.search(text) else set()
    roles = {w for path in paths for w in people.ROLE_WORDS[path[-1]]}
    guest_names = people.people_and_memories(db, guests)[0] if guests else set()
    guest_roles = {w for path in guests for w in people.ROLE_WORDS[path[-1]]}
    about = [i for i in about if i not in exclude]
    # those nearest food and those nearest health: a condition that sets the diet reads as health ("I
    # was diagnosed with type 2 diabetes"), and a baker's or a home cook's food memories fill the first
    rows = np.concatenate(
        [
            *_topic_rows(db, vs, model, [model.names.index("diet"), model.names.index("health")], PER_TOPIC),
            np.flatnonzero(np.isin(vs.ids, about)),
        ]
    )
    rows = scan.distinct(rows[_active_rows(vs)[rows]])
    if rows.size == 0:
        return []
    vectors = np.asarray(vs.matrix[rows])
    topics = model.of_memories(vectors)
    like = model.sensitivity(vectors).max(axis=1)
    diet, health = model.names.index("diet"), model.names.index("health")
    scores = vectors @ request.vector
    found = MemoryStore(db).get_many([int(i) for i in vs.ids[rows]], longest=LONGEST_SENT)
    memories = [found.get(int(i)) for i in vs.ids[rows]]
    kept: list[Needed] = []
    # what a meal must never get wrong (an allergy, coeliac disease) before what someone will not eat
    condition_last = [m is None or _DIET_CONDITION.search(m.text) is None for m in memories]
    for j in sorted(range(rows.size), key=lambda j: (condition_last[j], -scores[j])):
        m = memories[j]
        if m is None or m.private or m.kind != "fact" or m.id in exclude:
            continue
        if sensitive.CARE_WORK.search(m.text) and not _CARES_FOR_KIN.search(m.text):
            continue  # "I'm a dietitian at a kidney clinic" is a job, not a diet (a carer for my husband is his)
        constraint = _CONSTRAINT.search(m.text)
        subject = _subject_of(m.text, constraint) if constraint else ""
        if (
            constraint is None
            or _PAST.search(m.text)
            or not (_of_them(subject, names, roles, with_user) or _a_guest_named(subject, hosted))
            # "I'm off alcohol until the marathon" is for a drink, not for a dinner
            or (_A_DRINK.search(constraint.group(0)) and not _A_DRINK_ASKED.search(text))
        ):
            continue
        if (
            (guests or hosted)
            and not (_of_them(subject, guest_names, guest_roles, False) or _a_guest_named(subject, hosted))
            and not _DIET_CONDITION.search(m.text)
        ):
            # the hosts' own dislikes and diets are not the guests' meal ("I can't stand coriander", "I'm
            # trying to lose a stone"), whether memory knows the guests or not
            continue
        # "nothing with caffeine after 11" is about drink, however the model reads it
        drink = not m.sensitive and not sensitive.categories(m.text) and bool(_A_DRINK.search(constraint.group(0)))
        sets_the_diet = _DIET_CONDITION.search(m.text) is not None and _DIET_HEALTH.search(m.text) is None
        if topics[j, diet] < topics[j].max() - CLOSE and not (sets_the_diet or drink):
            continue  # "Ines doesn't have a driving licence" (but "I have type 2 diabetes" is about food too)
        if (
            not drink
            and _is_sensitive(m, float(like[j]), "diet")
            and not _a_diet_condition(m, topics[j, diet], topics[j, health])
        ):
            continue  # "I'm allergic to penicillin"
        kept.append(Needed(m, float(scores[j]), "household"))
    # "I'm allergic to ibuprofen": a medicine, though the sentence reads as about food (read last:
    # it encodes, and only what passed the rest needs it)
    not_food = _not_food_allergies([n.memory for n in kept], embedder, model)
    kept = [n for n in kept if n.memory.id not in not_food]
    # every condition a meal must not get wrong (a family of four may have four), then what is
    # not eaten by choice while there is room
    conditions = [n for n in kept if _DIET_CONDITION.search(n.memory.text)][:HOUSEHOLD_CONDITIONS]
    choices = [n for n in kept if not _DIET_CONDITION.search(n.memory.text)]
    return conditions + choices[: max(0, HOUSEHOLD_ITEMS - len(conditions))]


def _subject_of(text: str, constraint: re.Match[str]) -> str:
    """Whose a constraint is, as the words before it say; a note on drink with none before it is the
    user's own ("nothing with caffeine after 11"); else the constraint's own words."""
    before = text[: constraint.start()]
    if before:
        return before
    return "I" if _A_DRINK.search(constraint.group(0)) else constraint.group(0)


# What an allergy or intolerance is to: "allergic to X", "an allergy to X", then "a X allergy", "X-intolerant".
_ALLERGEN_AFTER = pattern(r"\b(?:allergic|allergy|allergies|intolerant|intolerance)\s+(?:to|of)\s+([^.,;!?]+)", re.I)
_ALLERGEN_BEFORE = pattern(r"\b((?:[a-z]{3,}\s+)?[a-z]{3,})[- ](?:allergy|allergies|intolerance|intolerant)\b", re.I)


# Words that say how bad an allergy is, or that it is to food, not what it is to.
_DEGREE = frozenset({"severe", "mild", "serious", "slight", "bad", "nasty", "real", "food", "very"})


def _allergen(text: str) -> str | None:
    if found := _ALLERGEN_AFTER.search(text):
        return found.group(1).strip()
    for phrase in _ALLERGEN_BEFORE.findall(text):  # "a dust mite allergy", "a severe nut allergy"
        words = [w for w in phrase.split() if w.lower() not in STOPWORDS and w.lower() not in _DEGREE]
        if words:
            return " ".join(words)
    return None


def _not_food_allergies(memories: list[Memory], embedder: Embedder, model: TopicModel) -> set[int]:
    """The memories whose allergy is to no food: its allergen alone reads more as health than as diet
    ("ibuprofen", "amoxicillin", "dust mites"), though the whole sentence, about an allergy, reads as
    diet to the encoder. One batch of a few words, only for the allergies among `memories`."""
    allergens: dict[int, str] = {}
    for m in memories:
        if _DIET_HEALTH.search(m.text) and (allergen := _allergen(m.text)):
            allergens[m.id] = allergen
    if not allergens:
        return set()
    topics = model.of_memories(embedder.encode(list(allergens.values())))
    diet, health = model.names.index("diet"), model.names.index("health")
    return {i for i, t in zip(allergens, topics, strict=True) if t[health] >= t[diet]}


def _a_diet_condition(m: Memory, diet: float, health: float) -> bool:
    """A health fact a meal must respect ("Mia has coeliac disease", "Leo is allergic to peanuts"):
    sensitive, so never in the profile, but the topic of a meal request needs it. It names the
    condition a constraint names, touches no sensitive category but health, and reads more as
    about food than as about health (a medicine allergy does not)."""
    if _DIET_LAW.search(m.text) and sensitive.categories(m.text) <= {"religion", "children"}:
        return True
    condition = _DIET_CONDITION.search(m.text) is not None
    # an allergy to a medicine reads as health; diabetes or coeliac disease sets what one eats whatever it reads as
    food = diet >= health or _DIET_HEALTH.search(m.text) is None  # not an allergy: a condition
    return condition and sensitive.categories(m.text) <= {"health", "children"} and food


_NAME_WORD = pattern(r"\b(\p{Lu}\p{Ll}+)\b(?!['’]s)")
# capitalised, not names (a faith is said with a capital: "Amir is Jewish and keeps kosher")
_NOT_NAMES = {"My", "Our", "We", "The", "They", "He", "She", "Both", "Only", "Since", "Now"} | {
    "Muslim",
    "Jewish",
    "Hindu",
    "Sikh",
    "Jain",
    "Buddhist",
    "Christian",
    "Catholic",
    "Orthodox",
    "Rastafarian",
    "Adventist",
}
_USER = pattern(r"^\s*(I|I'm|I've|we|we're|the user|the user's)\b(?!['’]s)", re.IGNORECASE)


def _a_guest_named(subject: str, hosted: set[str]) -> bool:
    """Whether the words before a constraint name, last, someone the hosting request names."""
    found = [w for w in _NAME_WORD.findall(subject) if w not in _NOT_NAMES and w.lower() not in STOPWORDS]
    return bool(found) and found[-1].casefold() in hosted


def _of_them(subject: str, names: set[str], roles: set[str], with_user: bool) -> bool:
    """Whether the words before a constraint make it one of these people's: its last name is
    theirs, or, without a name, a role of theirs ("My daughter is allergic ...") or the user."""
    found = [w for w in _NAME_WORD.findall(subject) if w not in _NOT_NAMES]
    if found and found[-1].lower() not in roles:  # "Mum has type 2 diabetes": a role, said as a name
        return found[-1] in names
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", subject)}
    if subject.islower() and words & {n.lower() for n in names}:
        return True  # typed in lowercase: "fien has a cow's milk allergy"
    whose = people.role_paths(subject)
    if whose and not any(set(people.ROLE_WORDS[path[-1]]) & roles for path in whose):
        return False  # "My friend Chloe's son can't eat eggs": the friend's, though "son" is a role of ours
    return bool(words & roles) or (with_user and _USER.match(subject) is not None)
