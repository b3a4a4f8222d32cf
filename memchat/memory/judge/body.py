"""Which of the user's own conditions something physical they plan must respect.

A request to plan a walk, a training block, a drive or a trip ("heading up a hill on Sunday, what
should I pack food-wise?", "give me a 16 week training plan", "driving up to Aberdeen, anything to
do before I set off?", "packing list for my week away") needs what the user's body brings to it:
the diabetes and the hypo kit for the hill or the drive, the old knee injury for the training plan,
the hearing aid and the daily tablets for the packing list, seasickness for the ferry. The encoder
does not see these as alike (a hill and glucose tablets are far apart by meaning), so, as in
medicines.py, this is general knowledge written down as data: the kinds of activity a request plans,
by their words, and the kinds of condition a memory states, by theirs, with the activities each
matters to. Each list's precision is measured on labelled examples (tests/word_lists.py); a list is
allowed to miss, not to fire on the wrong text.
"""

from __future__ import annotations

import re

from memchat.patterns import pattern

EXERTION, DRIVING, AWAY, WATER, FUEL, COLD = "exertion", "driving", "away", "water", "fuel", "cold"

# What one trains for as a sport: a race, a walk, a season ("training for the Three Peaks", "train for
# my first half"; not "training for a new job", "training for my driving test")
_A_SPORTING_GOAL = (
    r"(?:(?:a|an|my|the|our|this|next|her|his)\s+)?(?:[\w'’-]+\s+){0,2}?"
    r"(?:marathons?|half(?:[\s-]marathon)?|races?|\d+\s*k|5k|10k|triathlons?|ironman|sportives?|rides?|walks?|hikes?|treks?|"
    r"climbs?|season|event|match|fight|swims?|challenge|ultra|peaks|munros?|(?-i:\p{Lu})\w+)\b"
)
# Exercise and sport the user does: a training block, a run, a ride, a climb, a hill walk, the slopes
# (not "run a script", "walk me through", "the climbing gym I go to" asked as a fact: see need.by_body)
_EXERTION = pattern(
    r"\b(?:training\s+(?:plan|block|programme|program)(?!\s+for\s+(?:\w+\s+){0,3}?"
    r"(?:staff|employees|team|hires|starters|reps|interns|juniors|volunteers|students|pupils|class|puppy|dog))|"
    rf"train(?:ing)?\s+for\s+{_A_SPORTING_GOAL}|work\s*-?outs?|"
    r"exercis(?:e|es|ing)(?!\s+(?:my|the|your|our|their|his|her|some|an?)\s+(?:\w+\s+)?(?:options?|rights?|judgement|caution|"
    r"discretion|authority|power|vote))|"
    r"(?:long|easy|tempo|trail|morning|evening|first|recovery|5k|10k)\s+runs?|go(?:ing)?\s+for\s+a\s+(?:run|ride|swim)|"
    r"(?:go|going|went|start|started|starting|get\s+back\s+into|back\s+to)\s+running|running\s+(?:plan|again|club)|"
    r"race\s+day|marathons?|parkrun|triathlons?|sportives?|(?:bike|long|big|hilly)\s+rides?|cycling|"
    r"climb(?:s|ing|ed)?(?!\s+(?:the\s+)?(?:\w+\s+)?(?:stairs|ladder|ranks|charts))|boulder(?:s|ing)?|hik(?:e|es|ing)|"
    r"hill\s*-?walk(?:s|ing)?|(?:up|down)\s+(?:a|the)\s+(?:hill|mountain|munro)|munros?|"
    r"(?:long|hill|gentle|coastal)\s+walks?|walking\s+(?:group|holiday|trip|route)|trek(?:s|king)?|"
    r"swim(?:s|ming)?(?!\s+lanes?)|ski(?:ing)?|slopes|snowboard(?:ing)?|yoga|pilates|(?:the|a)\s+gym|gym\s+sessions?|rest\s+days?|"
    r"(?:go|going|went)\s+walking|"
    r"football|netball|rugby|tennis|squash|padel|five-a-side|5-a-side|match\s+day)\b",
    re.IGNORECASE,
)
# Exercise planned, begun again or asked whether it may be done ("give me a 16 week training plan",
# "should I give the slopes another go?"; not "what pace should my tempo runs be?", "a playlist for my run")
_TO_DO_IT = pattern(
    r"\b(?:plan|planning|training|train|programme|program|schedule|prepare|get\s+(?:ready|back)|take\s+up|"
    r"start(?:ing)?|give\s+(?:\w+\s+){1,4}a\s+go|go\s+back|come\s+back|should\s+i|can\s+i|could\s+i|"
    r"is\s+it\s+(?:ok|okay|safe|wise)|safe(?:ly)?|worry|ideas?|rest\s+days?|recover\w*|fuel\w*|pack\w*|bring\w*|"
    r"bear\s+in\s+mind|watch\s+out\s+for|be\s+careful|"
    r"heading|going|off\s+to)\b",
    re.IGNORECASE,
)
# A drive the user makes ("driving up to Aberdeen", "a long drive", "the drive home", "a road trip";
# not "a hard drive", "what car do we drive?")
_DRIVING = pattern(
    r"\b(?:(?<!hard\s)(?<!usb\s)(?<!thumb\s)(?<!disk\s)driv(?:e|es|ing)\s+(?:(?:up|down|over|back|out|across)\s+)?to\s+"
    r"(?:the\s+)?(?:(?-i:\p{Lu})|my\b|our\b|mum|mom|dad|work\b|the\s+(?:airport|coast|beach|station|hospital|lakes|hills|highlands)|"
    r"(?:see|visit|pick|drop|collect)\b)|(?<!hard\s)(?<!usb\s)(?<!disk\s)driv(?:e|es|ing)\s+(?:up|down|over|back)\s+to\s+"
    r"(?!(?:the\s+)?(?:new|an?|another)\s+(?:ssd|drive|disk|laptop|machine|server))\w+|driv(?:e|ing)\s+home\b(?!\s+the)|"
    r"long\s+drives?|road\s+trips?|(?:the|a)\s+drive\s+(?:to|up|down|home|back)\b|behind\s+the\s+wheel)",
    re.IGNORECASE,
)
# Time away from home the user gets ready for: a trip, a week away, a camp, a flight
_AWAY = pattern(
    r"\b(?:trips?(?!\s+(?:switch|hazard|wire))|holidays?|vacations?|(?:week|weekend|days?|nights?)\s+away|camp(?:s|ing)?|under\s+canvas|"
    r"festivals?|flights?(?!\s+of\s+(?:stairs|steps))|flying|abroad|cruises?|expeditions?|retreats?|residentials?|set\s+off)\b",
    re.IGNORECASE,
)
# Getting ready: packing, what to bring, what to do before setting off (not a lunchbox packed for a child)
_GETTING_READY = pattern(
    r"\b(?:pack(?:ing)?(?!\s+(?:a\s+|the\s+|my\s+\w+['’]s\s+|\w+['’]s\s+)?lunch(?:box)?)|bring|take\s+(?:with|along)|"
    r"(?:anything|what)\s+(?:\w+\s+){0,3}?(?:to\s+)?(?:do|sort|check|remember|know|bear\s+in\s+mind)\s+(?:out\s+)?before|"
    r"before\s+i\s+(?:set\s+off|go|leave|head\s+off)|what\s+(?:do\s+i|should\s+i|will\s+i)\s+need|"
    r"risk\s+assessment|check\s*-?lists?|prepare|get\s+ready)\b",
    re.IGNORECASE,
)
# Time on or in water: a swim, the beach, a boat
_WATER = pattern(
    r"\b(?:swim(?:s|ming)?(?!\s+lanes?)|beach|(?<!car\s)(?<!car-)pool(?!\s+(?:table|cue|party|car|of))|boats?|"
    r"(?-i:ferr(?:y|ies))|(?:the|a)\s+ferry|cruises?|sailing|kayak(?:ing)?|snorkel(?:l?ing)?|"
    r"(?:scuba|night|wreck|shore|boat|reef|cave|sea|dry\s*suit|saturday['’]?s?|sunday['’]?s?|the|a|my)\s+div(?:e|es|ing)|"
    r"(?:go|going|went)\s+(?:scuba\s+)?diving|diving\b(?!\s+(?:into|in\s+to|deep))|paddle\s*board(?:ing)?)\b",
    re.IGNORECASE,
)


# Bitter cold the user has to go out in ("-15 with windchill tomorrow and I have to get to campus",
# "it's snowing and I'm cycling in"): asthma set off by cold air, feeling the cold
_BITTER_COLD = pattern(
    r"\b(?:wind\s*-?chill|minus\s+\d+|sub-?zero|below\s+(?:zero|freezing)|freezing\s+(?:cold|out|outside|fog)|"
    r"snow(?:ing|storm|ed\s+in)?|blizzard|cold\s+snap|icy\s+(?:roads|pavements|out)|bitter(?:ly)?\s+cold)\b"
    r"|(?<![\w.])[-−]\d{1,2}\s*(?:°\s*c?|c\b|degrees|with|out|tomorrow|today|tonight|this)",
    re.IGNORECASE,
)
_GOING_OUT = pattern(
    r"\b(?:have\s+to|got\s+to|need\s+to|going|heading|walk(?:ing)?|cycl(?:e|ing)|commut\w*|get\s+to|out\s+in|run(?:ning)?|"
    r"should\s+i|can\s+i|what\s+(?:should|do)\s+i\s+wear|tips)\b",
    re.IGNORECASE,
)


# What to eat for it: the food for a walk, the fuel for a ride ("what should I pack food-wise?")
_FUEL = pattern(
    r"\b(?:fuel(?:l?ing)?|snacks?|food(?:-wise)?|eat|eating|carbs|gels?|energy\s+bars?|drinks?|lunch|picnic)\b",
    re.IGNORECASE,
)


# a figure that climbs is no climb ("inflation keeps climbing", "prices climbed again")
_FIGURES_CLIMB = pattern(
    r"\b(?:inflation|prices?|rates?|costs?|numbers?|temperatures?|figures?|sales|bills?|it|they|keeps?|kept)\s+"
    r"(?:\w+\s+)?climb\w*",
    re.IGNORECASE,
)


def only_a_dose(memory: str) -> bool:
    """Whether what makes a memory matter is a medicine's dose alone (packed for nights away only)."""
    return conditions_of(memory) == frozenset({_DOSE_AT})


def goes_away(text: str) -> bool:
    """Whether a request gets ready for nights away (a trip, a camp, a packing list), not a drive or a move."""
    trip = any(not m.group(0).lower().startswith("set") for m in _AWAY.finditer(text))  # not "set off" alone
    return bool(trip or _PACKING.search(text)) and not _A_MOVE.search(text)


def activities(text: str) -> frozenset[str]:
    """The kinds of physical undertaking a request plans: exertion, a drive, getting ready to go
    away (or to go out for the exertion or the drive), time on water; and, for exertion, what to eat
    for it (then only what food is a matter of counts: an old knee injury is not)."""
    found = set()
    text = _FIGURES_CLIMB.sub(" ", text)
    if _EXERTION.search(text) and _TO_DO_IT.search(text):
        found.add(EXERTION)
    if _DRIVING.search(text):
        found.add(DRIVING)
    if (
        _GETTING_READY.search(text)
        and (_AWAY.search(text) or found or _PACKING.search(text))
        and not _A_MOVE.search(text)
    ):
        found.add(AWAY)
    if _WATER.search(text) and _TO_DO_IT.search(text):  # not "what time does the pool close?"
        found.add(WATER)
    if _BITTER_COLD.search(text) and _GOING_OUT.search(text):
        found.add(COLD)
    if EXERTION in found and _FUEL.search(text):
        return frozenset({FUEL})
    return frozenset(found)


_A_MOVE = pattern(r"\b(?:the\s+move|moving\s+(?:house|flat|home|out|in)|removals?|new\s+(?:flat|house|place))\b", re.I)
_PACKING = pattern(
    r"\bpacking\s+(?:lists?|for)\b|\bwhat\s+(?:should|do|shall)\s+i\s+pack\b|\bpack\s+for\s+(?:the|my|a|this|next)\b",
    re.IGNORECASE,
)

# An injury or a joint that limits what the body does, now or since ("I had my knee replaced in 2021")
_INJURY = (
    r"(?:knee|back|disc|hip|ankle|shoulder|wrist|elbow|neck|achilles|hamstring|calf|finger|pulley|ligament|"
    r"acl|meniscus|tendon|foot|feet)\b[^.;]{0,40}?\b(?:injur\w*|sprain\w*|strain\w*|tear|torn|broke|broken|"
    r"fractur\w*|replace\w*|surgery|operation|op|problem|problems|trouble|pain|physio|stiff|"
    r"can['’]?t\s+kneel|gives\s+way)|"
    r"(?:injur\w*|sprain\w*|strain\w*|tore|torn|broke|fractur\w*|replaced|bad|dodgy)\s+(?:my\s+)?"
    r"(?:\w+\s+){0,3}?(?:knee|back|disc|hip|ankle|shoulder|wrist|elbow|neck|achilles|hamstring|calf|finger|"
    r"pulley|ligament|acl|meniscus|tendon|foot)|"
    r"tendin\w*|herniated|slipped\s+disc|sciatica|arthritis|plantar\s+fasci\w*|shin\s+splints|osteo\w*"
)
# A medicine taken by its dose, whatever its name ("I take Elvanse 50 mg", "I'm on 18 units of Tresiba"):
# packed for a trip (need.by_body reads a medicine's name as well: need.takes_a_medicine)
_A_DOSE = r"\d+(?:\.\d+)?\s*(?:mg|mcg|µg|micrograms?|milligrams?|iu)|\d+\s+units\s+(?:every|each|a\s+day|at|with)"
# (a kind of condition or aid, by its words; the activities it matters to)
_CONDITIONS: tuple[tuple[str, frozenset[str]], ...] = (
    (  # diabetes and what comes with it
        r"diabet\w*|t1d|t2d|hypos?|glucose|dextrose|glucagon|(?:my|blood)\s+sugars?|insulin|cgm|dexcom|freestyle\s+libre|"
        r"omnipod|metformin|novorapid|tresiba|lantus|humalog",
        frozenset({EXERTION, DRIVING, AWAY, FUEL}),
    ),
    (r"asthma\w*|inhalers?|wheez\w*", frozenset({EXERTION, AWAY, COLD})),
    (r"epilep\w*|seizures?", frozenset({DRIVING, WATER, AWAY})),
    (r"anaphyla\w*|epipens?|epi-pens?|adrenaline\s+pens?|auto-?injectors?", frozenset({AWAY})),
    (
        r"heart\s+(?:condition|problem|disease|failure)|angina|pacemaker|arrhythmia|atrial\s+fibrillation|"
        r"(?:high|raised)\s+blood\s+pressure|blood\s+pressure\s+(?:is|was)\s+(?:high|borderline)",
        frozenset({EXERTION}),
    ),
    (_INJURY, frozenset({EXERTION})),
    (r"pregnan\w*|weeks\s+along", frozenset({EXERTION, AWAY})),
    (  # what the user wears or uses to see, hear, breathe or get about
        r"hearing\s+aids?|contact\s+lenses|lenses|glasses|specs|cpap|orthotics|knee\s+brace|walking\s+stick|"
        r"crutches|wheelchair|mobility\s+scooter",
        frozenset({AWAY}),
    ),
    (r"contact\s+lenses|lenses", frozenset({WATER})),
    (_A_DOSE, frozenset({AWAY})),
    (r"seasick\w*|sea\s+sick\w*|motion\s+sick\w*|travel\s+sick\w*", frozenset({WATER})),
    (r"feel\s+the\s+cold|hate\s+the\s+cold|raynaud['’]?s|chilblains|cold\s+(?:hands|feet)", frozenset({COLD})),
)
_DOSE_AT = [words for words, _kinds in _CONDITIONS].index(_A_DOSE)
_AN_INJURY = pattern(rf"\b(?:{_INJURY})\b", re.IGNORECASE)
_COMPILED = [(pattern(rf"\b(?:{words})\b", re.IGNORECASE), kinds) for words, kinds in _CONDITIONS]


def conditions_of(memory: str) -> frozenset[int]:
    """The kinds of condition or aid a memory states, by their place in _CONDITIONS."""
    found = {i for i, (words, _kinds) in enumerate(_COMPILED) if words.search(memory)}
    # a dose is how a condition is treated, not another condition ("I'm on Tresiba 18 units" is the diabetes)
    return frozenset(found - {_DOSE_AT} if found - {_DOSE_AT} else found)


def matters_to(memory: str) -> frozenset[str]:
    """The activities a memory's condition or aid matters to (none: it states none of them)."""
    found: set[str] = set()
    for words, kinds in _COMPILED:
        if words.search(memory):
            found |= kinds
    return frozenset(found)


def turns_on(request: str, memory: str) -> bool:
    """Whether a memory holds a condition or aid that something physical the request plans must respect."""
    return bool(activities(request) & matters_to(memory))


# The words that start those conditions and aids, for finding the memories that may hold one (FTS5
# prefixes, and whole words where a prefix would match many others: "back" and "backend"; the lists
# above then decide)
_SEARCH_PREFIXES = (
    "diabet hypo glucose insulin dexcom libre metformin novorapid tresiba lantus humalog asthma inhaler wheez "
    "epilep seizure anaphyla epipen injector angina pacemaker arrhythmia fibrillation tendin herniated sciatica "
    "arthritis plantar osteo injur sprain strain pregnan lenses glasses orthotics crutches "
    "wheelchair seasick"
)
_SEARCH_WORDS = (
    "sugar sugars cgm t1d t2d dextrose glucagon omnipod mg mcg iu units tablets pills medication meds warfarin "
    "levothyroxine thyroxine adrenaline heart pressure knee knees back disc hip hips ankle ankles shoulder wrist elbow neck "
    "achilles hamstring calf finger pulley ligament acl meniscus tendon foot feet shin hearing specs cpap brace "
    "stick scooter sick cold raynaud chilblains"
)
SEARCH_TERMS = " OR ".join([f'"{w}"*' for w in _SEARCH_PREFIXES.split()] + [f'"{w}"' for w in _SEARCH_WORDS.split()])

# What a memory says of activity in general, by its kind ("Exercise drops my sugar fast", "I have to
# check my glucose before driving", "I get seasick on boats")
_ANY_OF_IT = {
    # (exercise as such, not "physio exercises" for a back)
    EXERTION: pattern(r"\b(?:exercise|exercising|physical\s+activity|working\s+out)\b", re.IGNORECASE),
    FUEL: pattern(r"\b(?:exercise|exercising|physical\s+activity|working\s+out)\b", re.IGNORECASE),
    DRIVING: pattern(r"\b(?:driv(?:e|es|ing)|long\s+drives?)\b", re.IGNORECASE),
    WATER: pattern(r"\b(?:boats?|ferr(?:y|ies)|sailing|water)\b", re.IGNORECASE),
    # what the user carries ("I keep them in the car and my bag"): what getting ready to go is about
    AWAY: pattern(
        r"\b(?:carry|carries|keep\s+(?:\w+\s+){0,2}?(?:in|with)|always\s+(?:have|take|bring))\b", re.IGNORECASE
    ),
}
_ACTIVITY_WORD = pattern(
    r"\b(?:walk|run|ride|riding|cycl|climb|hik|hill|swim|ski|skiing|slopes|football|netball|rugby|tennis|yoga|"
    r"gym|train|marathon|race)\w*",
    re.IGNORECASE,
)


def names_the_activity(request: str, memory: str, planned: frozenset[str] | None = None) -> bool:
    """Whether a memory speaks of the very activity the request plans, or of any of its kind ("check my
    glucose before driving" and "driving up to Aberdeen", "Exercise drops my sugar fast" and a hill
    walk, "I stopped skiing after the disc problem" and the slopes; not the skiing and a bike ride).
    `planned`: the request's activities, when the caller has read them already."""
    kinds = activities(request) if planned is None else planned
    if any(kind in _ANY_OF_IT and _ANY_OF_IT[kind].search(memory) for kind in kinds):
        return True
    said = {w.lower()[:4] for w in _ACTIVITY_WORD.findall(request)}
    return bool(said & {w.lower()[:4] for w in _ACTIVITY_WORD.findall(memory)})


def an_injury(memory: str) -> bool:
    """Whether a memory states an injury or a joint that limits the body: one that stopped something
    ("I used to hillwalk but stopped after my knee operation") still holds."""
    return _AN_INJURY.search(memory) is not None


# A plan to train for or get better at a sport of the user's own ("Build me a 16-week training block",
# "a six-week plan to knock time off my 5k", "what pace should my tempo runs be?", "a training plan to
# send my first V6"): it needs the goal the training is for, the level the user is at and when they
# train, which the request does not name (need.by_training).
_TRAINING = pattern(
    r"\b(?:training\s+(?:plan|block|programme|program|schedule|cycle)"
    r"(?!\s+for\s+(?:\w+\s+){0,3}?(?:staff|employees|team|hires|starters|reps|interns|juniors|volunteers|students|"
    r"pupils|class|puppy|dog))|"
    rf"train(?:ing)?\s+for\s+{_A_SPORTING_GOAL}|"
    r"(?:\d+|four|six|eight|ten|twelve|sixteen|eighteen)[\s-]+weeks?\s+(?:training\s+)?(?:plan|block|programme|program)|"
    r"plan\s+to\s+(?:knock|take)\s+\w+\s+off|knock\s+(?:time|\w+\s+minutes?|\w+\s+seconds?)\s+off|"
    r"get\s+(?:faster|quicker|stronger)\s+(?:at|on|for)|what\s+pace\s+should|(?:tempo|interval|threshold)\s+(?:runs?|sessions?)|"
    r"send\s+my\s+first\s+(?:V\d+|[5-9][abc]\+?|route|boulder|lead|project)|taper(?:ing)?\s+for|(?:peak|build)\s+for\s+(?:the|my)\s+race)\b",
    re.IGNORECASE,
)
# Each sport, by the words its memories use ("I do parkrun most Saturdays; my 5k PB is 21:40")
PURSUITS: dict[str, str] = {
    # (not "runs the book club", "the school run", "run a script")
    "running": r"(?:been|go|goes|went|started|took\s+up|love|enjoy|trail|fell|cross[\s-]country|road)\s+running|"
    r"running\s+(?:club|shoes|group|coach|buddy|watch|since|is|\d)|runners?(?!\s+beans)|"
    r"(?:long|easy|short|morning|evening|tempo|trail|club|recovery|weekend|\d+\s*k)\s+runs?|"
    r"go(?:es|ing)?\s+for\s+a\s+run|(?:I|we|to)\s+(?:\w+\s+)?run\s+(?:before|after|with|every|most|\d+\s*(?:k|km|miles)|\w+\s+times)|"
    r"marathons?|half[\s-]marathons?|(?:first|a|my|the|next)\s+half\b(?!\s+(?:of|term|hour|price|day|an?))|parkrun|5k|10k|"
    r"jog\w*|(?:\d+\s*k|5k|10k|half|marathon|parkrun|mile)\s+PB|PB\s+(?:is|of|was|for|at)\s+\d|race\s+day|"
    r"(?:\d+\s*k|road|trail|fun|charity|park)\s+races?|triathlons?",
    "climbing": r"climb\w*|boulder\w*|V\d{1,2}|crags?|lead\s+climb\w*|sport\s+climb\w*|top[\s-]?rope\w*",
    "cycling": r"cycl\w*|(?:bike|long|road|gravel|hilly|club|sunday|weekend)\s+rides?|rid(?:e|es|ing)\s+(?:about\s+|my\s+)?"
    r"(?:\d|bike|road\s+bike)|bikes?|sportives?|gran\s+fondo|km\s+a\s+(?:week|year)|triathlons?",
    "swimming": r"swim\w*|lengths|open[\s-]water|triathlons?",
    "walking": r"walk\w*|hike|hikes|hiking|munros?|treks?|trekking|(?-i:[A-Z]\w+\s+(?:[A-Z]\w+\s+)?Way)",
    "strength": r"gym|(?:weight\s*)?lifting|lift\s+weights|squats?|deadlifts?|kettlebells?|strength|powerlifting",
}
_PURSUIT = {name: pattern(rf"\b(?:{words})\b", re.IGNORECASE) for name, words in PURSUITS.items()}
TRAINING_TERMS = " OR ".join(
    f'"{w}"*'
    for w in (
        "run marathon parkrun 5k 10k jog tempo race climb boulder crag lead cycl ride bike sportive swim "
        "triathlon walk hike hiking munro trek trail gym lifting weightlifting squat deadlift kettlebell strength PB"
    ).split()
)


def asks_to_train(text: str) -> bool:
    """Whether a request plans training for, or getting better at, a sport (_TRAINING)."""
    return _TRAINING.search(text) is not None


def pursuits(text: str) -> frozenset[str]:
    """The sports a text speaks of (PURSUITS)."""
    return frozenset(name for name, words in _PURSUIT.items() if words.search(text))


# What the user says they feel ("head's pounding", "I've been so tired lately", "breathless on easy runs",
# "my stomach's been off") and the standing conditions of theirs it may come from, as a GP would ask
# first: a migraine for a pounding head, low iron or an underactive thyroid for tiredness. The encoder
# does not see "wiped out" as like "my ferritin runs low"; general knowledge, kept as data
# (need.by_symptom). (symptom words; condition words)
_SYMPTOMS: tuple[tuple[str, str], ...] = (
    (  # a headache
        r"head(?:['’]s|\s+is|\s+has)?(?:\s+been)?\s+(?:(?:starting|started|beginning)\s+to\s+)?"
        r"(?:pound\w*|throb\w*|splitting|killing|bang\w*|sore|hurts?)|"
        r"headaches?|migraines?|pounding\s+head|(?:my\s+)?head\s+(?:still\s+)?feels\s+(?:foggy|fuzzy|heavy)",
        r"migraines?|\w*triptan|blood\s+pressure|hypertension|concussion",
    ),
    (  # tiredness
        r"(?:so|really|always|very|constantly|permanently)\s+(?:tired|exhausted|knackered|drained|shattered|wiped)|"
        r"wiped\s+out|no\s+energy|I['’]m\s+fading|run\s+down|worn\s+out|fatigue[d]?|feeling\s+flat|can['’]?t\s+stay\s+awake",
        r"iron|ferritin|anaemi\w*|anemi\w*|vitamin\s+d|thyroid\w*|levothyroxine|diabet\w*|sleep\s+apno?ea|coeliac|celiac",
    ),
    (  # breathlessness
        r"breathless|short\s+of\s+breath|out\s+of\s+breath|wheez\w*|can['’]?t\s+catch\s+my\s+breath|tight\s+chest|"
        r"chest(?:['’]s|\s+is|\s+feels|\s+has)?(?:\s+been)?\s+(?:(?:really|a\s+bit|so|all)\s+)?(?:tight|tightening|wheezy)",
        r"asthma\w*|inhalers?|iron|ferritin|anaemi\w*|anemi\w*|heart|copd",
    ),
    (  # the gut
        r"stomach(?:['’]s|\s+is|\s+has)?(?:\s+been)?\s+(?:off|upset|bad|dodgy|cramping|churning)|upset\s+stomach|"
        r"bloat\w*|diarrho?ea|the\s+runs|gut\s+(?:is|has\s+been)\s+(?:off|bad)|tummy\s+(?:ache|trouble|upset)",
        r"coeliac|celiac|gluten|lactose|ibs|irritable\s+bowel|crohn['’]?s|colitis",
    ),
    (  # a hot, swollen joint
        r"(?:toe|joint|ankle|knee|foot|wrist|thumb|finger)(?:['’]s|\s+is|\s+has\s+been)?\s+(?:\w+\s+){0,2}?"
        r"(?:red|hot|swollen|throbbing|inflamed)",
        r"gout|allopurinol|colchicine|febuxostat|arthritis|uric\s+acid",
    ),
    (  # aching muscles
        r"(?:muscles?|thighs?|calves|legs?)\s+(?:have\s+been\s+|are\s+|been\s+)?(?:aching|achy|sore|cramping)|aching\s+(?:muscles|legs)",
        r"\w*statin|cholesterol",
    ),
    (  # dizziness
        r"dizzy|dizziness|light[\s-]?headed|faint(?:ing|ed)?|woozy|shaky",
        r"blood\s+pressure|diabet\w*|hypos?|insulin|anaemi\w*|anemi\w*|iron",
    ),
    (  # hay fever and skin
        r"sneez\w*|eyes\s+(?:are\s+)?(?:streaming|itchy|watering)|pollen|itchy\s+(?:eyes|skin)|rash",
        r"hay\s*fever|allerg\w*|eczema|cetirizine|loratadine|antihistamines?",
    ),
)
_SYMPTOM_PATTERNS = [
    (pattern(rf"\b(?:{said})\b", re.IGNORECASE), pattern(rf"\b(?:{causes})\b", re.IGNORECASE))
    for said, causes in _SYMPTOMS
]
# A joint that hurts, and an injury of that joint ("knee's twinging again" and "tendinopathy in my knee")
_JOINTS = r"knee|back|hip|ankle|shoulder|wrist|elbow|neck|achilles|hamstring|calf|finger|foot|heel"
_JOINT_HURTS = pattern(
    rf"\b({_JOINTS})s?(?:['’]s|\s+is|\s+has\s+been|\s+keeps)?\s+(?:been\s+|still\s+|started\s+|starting\s+)?"
    r"(?:twing\w*|hurt\w*|aching|achy|sore|killing|playing\s+up|gone|clicking|swollen|stiff|wobbly|giving\s+way)\b",
    re.IGNORECASE,
)
SYMPTOM_TERMS = " OR ".join(
    f'"{w}"*'
    for w in (
        "migraine triptan pressure hypertension concussion iron ferritin anaemi anemi vitamin thyroid levothyroxine "
        "diabet apnoea apnea coeliac celiac gluten lactose ibs irritable crohn colitis statin cholesterol hypo "
        "insulin asthma inhaler heart copd hay allerg eczema cetirizine loratadine antihistamine knee back hip ankle "
        "shoulder wrist elbow neck achilles hamstring calf finger foot heel tendin injur sprain strain disc gout "
        "allopurinol colchicine febuxostat arthritis uric"
    ).split()
)


def names_a_symptom(text: str) -> bool:
    """Whether a request says the user feels something a standing condition may explain (_SYMPTOMS)."""
    return any(said.search(text) for said, _causes in _SYMPTOM_PATTERNS) or _JOINT_HURTS.search(text) is not None


def may_explain(request: str, memory: str) -> bool:
    """Whether a memory holds a condition the symptom the request names may come from, or an injury
    of the joint it says hurts."""
    if any(said.search(request) and causes.search(memory) for said, causes in _SYMPTOM_PATTERNS):
        return True
    hurts = _JOINT_HURTS.search(request)
    if hurts is None:
        return False
    return an_injury(memory) and re.search(rf"\b{hurts.group(1)}", memory, re.IGNORECASE) is not None
