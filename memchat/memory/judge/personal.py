"""Whether a message is about someone's own world, or a general question.

A message with no person in it ("why is the sky blue?", "can you explain TCP to me?") is not
about the user's past: memchat.memory.judge.inject then sends a memory only when most of the
message's words are in it. A message is about someone when it says I, my, we, she..., or
names someone memory knows: a speaker of the transcript, or a person a memory names ("my
sister Ana", "a cat called Pixel", "Biscuit is my dog") - not a brand ("my car is a Toyota").
The "you" and "me" of a request ("could you tell me ...") are politeness, not the user's world.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memchat.memory.judge import people
from memchat.memory.judge.people import ROLE_WORDS
from memchat.memory.text import STOPWORDS, content_stems, stem, words
from memchat.patterns import pattern

if TYPE_CHECKING:
    from collections.abc import Callable

    from memchat.memory.recall.search import Hit

# What the assistant said before is the user's own conversation ("what did you say about the insulin
# pump?", "your advice about the Barclaycard"); "you" alone is the assistant or anyone ("how long do
# you boil an egg?").
_OUR_TALK = (
    r"you\s+(?:said|told|mentioned|suggested|recommended|gave|showed|wrote|explained|meant)|did\s+you|"
    r"your\s+(?:advice|suggestions?|recommendations?|answer|ideas?|tips?|list|plan|summary|reply)"
)
# (typed in lowercase, "us" is the US too: "the us citizenship test", "us visa")
_THE_US = (
    r"(?!\s+(?:citizen\w*|visas?|passports?|embassy|consulate|elections?|states|dollars?|president|army|navy|"
    r"government|customs|border|military|congress|senate|federal|market|stocks?|east\s+coast|west\s+coast|"
    r"sizes?|spelling|english|open|constitution|supreme\s+court|immigration|green\s+card)\b)"
)
_PERSONAL = pattern(
    r"\b(i|me|my|mine|myself|we|us" + _THE_US + r"|our|ours|ourselves|i'm|i've|i'd|im|ive|"
    rf"i'll|we're|we've|he|she|him|his|her|hers|they|them|their|remember|again|last time|before|{_OUR_TALK})\b",
    re.IGNORECASE,
)
# "can you ...", "could you tell me about ...", "do you know ...", "give me ..." opening a sentence: the
# message asks the assistant for something ("the doctor wants to give me amoxicillin" is the user's own). These words say nothing about what it asks: they are not searched for either.
_REQUEST = pattern(
    r"\b(?:(?:can|could|would|will|won't|wouldn't)\s+you(?:\s+please)?(?:\s+(?:tell|show|give|write|remind)\s+me)?"
    r"|do\s+you\s+know|you\s+know|thank\s+you|if\s+you|let\s+me\s+know|i\s+wonder|please"
    r"|(?:^\s*|(?<=[.!?]\s))(?:tell|show|give|write|teach)\s+me(?:\s+(?:about|of))?|explain\s+to\s+me"
    r"|your\s+(?:opinion|view|take|thoughts)(?:\s+(?:on|of|about))?)\b",
    re.IGNORECASE,
)
# Someone memory knows by name: "my sister Ana", "my brother, Tiago,", "a cat called Pixel", "my
# sister's name is Lena", "Biscuit is my dog", "Ana, my sister, ..." (not "Toyota")
_RELATION = (
    r"(?:sister|brother|mother|father|mum|mom|dad|son|daughter|wife|husband|partner|friend|boss|manager|"
    r"colleague|coworker|co-worker|roommate|flatmate|housemate|landlord|landlady|tenant|mentor|student|"
    r"classmate|girlfriend|boyfriend|fianc[eé]e?|child|kid|baby|aunt|uncle|cousin|grandma|grandpa|"
    r"grandmother|grandfather|niece|nephew|neighbou?r|teacher|doctor|dr\.?|cat|dog|puppy|kitten|pet|"
    r"hamster|rabbit|horse|parrot)"
)
_PERSON = pattern(
    rf"\b{_RELATION},?\s+(\p{{Lu}}[\w-]+)|\b(?:called|named|name\s+is)\s+(\p{{Lu}}[\w-]+)"
    rf"|(?:^|[.!?]\s+)(\p{{Lu}}[\w-]+)(?:'s|’s)?,?\s+(?:is|was)\s+(?:my|our)\b"
    rf"|(?:^|[.!?]\s+)(\p{{Lu}}[\w-]+),\s+(?:my|our)\s+{_RELATION}\b",
    re.MULTILINE,
)
# a name as people write it: capitalised, not the first word of a sentence
_CAPITALISED = pattern(r"(?<![.!?:]\s)(?<=\s)\p{Lu}[\w'’-]+")


# A request for code ("build an ADHD-friendly todo app in React", "write a Flutter app that logs my
# insulin doses"): what it is about is the program's subject, not the user's, so it reaches no
# sensitive memory (memchat.memory.judge.inject), whatever its topic reads as. Either something to
# program is asked for (write, build, debug ... a function, an app, a regex ...), or a language or
# framework is named as the means ("in React", "with pandas", "using SQL"). Measured on labelled
# examples in tests/word_lists.py.
_PROGRAM = (
    r"(?:apps?|applications?|functions?|methods?|class(?:es)?|scripts?|programs?|quer(?:y|ies)|regex(?:es)?|"
    r"regular expressions?|schemas?|endpoints?|apis?|components?|hooks?|cli|command[\s-]line tool|bots?|"
    r"librar(?:y|ies)|modules?|unit tests?|tests? for|migrations?|dockerfile|workflow file|lambdas?|"
    r"micro-?services?|web\s?(?:site|page|app)s?|backend|front-?end|dashboards?|extensions?|plugins?|"
    r"parsers?|scrapers?|spreadsheet formula|sql|json|csv parser|data ?model|database|"
    r"(?:bash|shell|python|sql) (?:one-liner|snippet)|cron\s*jobs?|crontab(?:\s+(?:entry|line))?|"
    r"systemd\s+(?:timers?|units?|services?)|makefiles?|yaml\s+files?)"
)
_LANGUAGE = (
    r"(?:python|javascript|typescript|java|golang|rust|c\+\+|c#|kotlin|swift|ruby|php|sql|bash|powershell|"
    r"react(?: native)?|vue|angular|svelte|django|flask|fastapi|rails|node(?:\.js)?|express|flutter|dart|"
    r"terraform|kubernetes|docker|pandas|numpy|html|css|tailwind|postgres(?:ql)?|mysql|sqlite|"
    r"vba|lua|haskell|scala|elixir|next\.js|spring boot|unity|godot)"
)
_CODE = pattern(
    r"\b(?:write|build|implement|code|create|make|generate|debug|fix|refactor|port|scaffold|set\s+up|design|"
    rf"optimi[sz]e|test)\s+(?:me\s+)?(?:an?\s+|the\s+|my\s+|our\s+|some\s+)?(?:[\w'’-]+\s+){{0,4}}?{_PROGRAM}\b"
    rf"|\b(?:in|with|using|for)\s+{_LANGUAGE}(?![\w+#])|\bin\s+Go\b"
    rf"|\b{_LANGUAGE}\s+(?:apps?|components?|sites?|projects?|pages?|code|animations?|quer(?:y|ies)|scripts?|banners?)\b",
    re.IGNORECASE,
)


_IN_A_LANGUAGE = pattern(rf"\b(?:in|using)\s+(?:{_LANGUAGE}(?![\w+#])|(?-i:Go)\b)", re.IGNORECASE)


def names_its_language(text: str) -> bool:
    """Whether a request names the language or framework to do it in ("reverse a list in Python")."""
    return _IN_A_LANGUAGE.search(text) is not None


def asks_for_code(text: str) -> bool:
    """Whether the message asks for a program, or names the language to write one in."""
    return _CODE.search(text) is not None


# A question about what is usual for people at large ("what antibiotics are usually given for strep
# throat?", "how much do plumbers normally charge?") asks for knowledge, not for the user's facts on
# its topic, when it says no I, my or we. Measured on labelled examples in tests/word_lists.py.
_IN_GENERAL = pattern(
    r"\b(?:usually|typically|generally|commonly|normally|in\s+general|on\s+average|as\s+a\s+rule|"
    r"most\s+people|the\s+average\s+person|the\s+typical|the\s+standard|the\s+normal|"
    r"(?:usual|typical|standard|normal)\s+(?:treatment|dose|dosage|cure|remedy|price|cost|rate|amount|age)|"
    # people at large, by the kind they are ("what happens to people who overstay their visa")
    r"(?:people|someone|somebody|anyone|anybody|those|a\s+person|foreigners|immigrants|tourists|visitors|"
    r"applicants|students|patients|employees|tenants|drivers|kids|children|parents)\s+who)\b",
    re.IGNORECASE,
)


# the user's own words for themselves ("you" in "what do you usually get for strep?" is anyone)
# and someone in particular ("he's 2", "she usually gets a migraine"); not "the US"
_FIRST_PERSON = pattern(
    r"\b(?:i|me|my|mine|myself|we|(?-i:us|Us)" + _THE_US + r"|our|ours|ourselves|i'm|i've|i'd|i'll|we're|we've|"
    r"im|ive|"  # typed without the apostrophe ("im on tablets")
    r"he|she|him|his|her|hers|he's|she's)\b",
    re.I,
)
# someone of the household said without a pronoun ("how much should the baby usually be eating?")
_THE_HOUSEHOLD = pattern(
    r"\bthe\s+(?:baby|babies|little\s+ones?|toddler|kids|children|twins|dog|cat|puppy|kitten)\b"
    r"|\b(?-i:Mum|Mom|Dad|Mam|Mummy|Daddy|Grandma|Grandpa|Gran|Nan|Nana|Granny|Grandad)\b"  # "Mum usually gets confused"
    r"|^\s*(?:mum|mom|dad|mam|grandma|grandpa|gran|nan|granny|grandad)\b",  # typed in lowercase
    re.I,
)


def says_its_own(text: str) -> bool:
    """Whether the message speaks of the user's own: I, my, we... or the household ("the baby")."""
    return bool(_FIRST_PERSON.search(without_request(text)) or _THE_HOUSEHOLD.search(text))


# A question that looks up one of the user's own facts: "what's my reg plate?", "how old am I?",
# "when's my dentist again?", "who's our GP?". What it asks is stored, in whatever words it was
# stored in. Not a request for ideas ("what should I cook tonight?") nor a how-to. Measured on
# labelled examples in tests/word_lists.py.
_LOOKUP = pattern(
    r"^\s*(?:(?:ok|so|and|remind\s+me|quick(?:\s+one)?|sorry)[,:]?\s+)*"
    r"(?:what|when|where|which|who|how\s+(?:old|tall|long|many|much|often))(?:['’]s|\s+(?:is|was|are|were))?\s+"
    r"(?:[\w'’-]+\s+){0,6}?(?:my|our|am\s+i|do\s+i|did\s+i|have\s+i|was\s+i|i\s+was|i\s+am|do\s+we|did\s+we|have\s+we|are\s+we|were\s+we)\b"
    r"[^.!?\n]{0,40}[?]*\s*$",
    re.IGNORECASE,
)
_NOT_A_LOOKUP = pattern(
    r"\b(?:should|could|would|shall|might|can|recommend|suggest|ideas?|best|good|cook|make|buy|get|wear|do\s+with|"
    r"do\s+about|do\s+if|think|mean|means|happens?|if)\b",
    re.IGNORECASE,
)


def asks_for_own_fact(text: str) -> bool:
    """Whether the message is a short question that looks up one of the user's own facts (_LOOKUP)."""
    text = text.strip()
    return len(text) <= 80 and bool(_LOOKUP.match(text)) and not _NOT_A_LOOKUP.search(text)


# the doer of a how-to: anyone who would do it ("How do I reverse a string in Java?"), not the user's
# own things ("how do I get my deposit back?" still says "my"). Measured on labelled examples in
# tests/word_lists.py.
_HOW_DO_I = pattern(r"\bhow\s+(?:do|can|could|should|would|shall|to)\s+(?:i|we)\b", re.IGNORECASE)


def says_more_than_how_to(text: str) -> bool:
    """Whether the message speaks of the user's own beyond the doer of a how-to (see _HOW_DO_I)."""
    return says_its_own(_HOW_DO_I.sub(" ", text))


# "You" as anyone: the doer of a question put to anyone ("How long should you rest a brisket?", "Can you
# claim running shoes on tax?", "how long before you can drive after a concussion?"), not the assistant
# asked to do something ("can you suggest ...", "could you check ...", "do you know ..."). Measured on
# labelled examples in tests/word_lists.py.
_ASKED_OF_THE_ASSISTANT = (
    r"please|tell|show|give|write|remind|help|explain|suggest|recommend|make|find|list|check|summari[sz]e|"
    r"describe|translate|draft|create|generate|plan|compare|fix|review|rewrite|edit|look|walk|send|let|"
    r"think|know|say|recall|remember|have(?!\s+to)|see|read|get\s+(?:me|us)|put|add|keep\s+(?:track|a\s+note|in\s+mind)|save|note|convert|calculate|proofread|"
    r"format|outline|brainstorm|name|pick|choose|teach|clarify|elaborate|expand|break|sort|organi[sz]e|"
    r"turn|come|go|be|do|work|search|fetch|book|order|set|update|correct|improve|shorten|simplify|"
    r"debug|refactor|optimi[sz]e|test|run|build|design|sketch|map|tidy|rank|rate|score|guess|imagine|"
    r"pretend|act|play|answer|respond|reply|repeat|continue|finish|start|stop|mind|spot|double-check|"
    r"proof-read|rephrase|reword|paraphrase|split|merge|combine|count|estimate|predict|recap|quiz|"
    r"advise|assist|prepare|compose|tweak|adjust|fill|complete|identify|point|flag|highlight|define|"
    r"interpret|decode|parse|extract|pull|dig|figure|take\s+a\s+look"
)
_ANYONE_YOU = pattern(
    r"\b(?:should|do|does|can|could|must|would|will|shall|need|have\s+to)\s+you\s+"
    rf"(?!(?:{_ASKED_OF_THE_ASSISTANT})\b)[a-z]"
    r"|\bbefore\s+you\s+(?:can|could|should|may|must)\b",
    re.IGNORECASE,
)


def _questions(text: str) -> list[str]:
    """The sentences of a message that ask (linear: a paste may be long), or the whole of it."""
    return [q for q in re.split(r"(?<=[?.!])", text) if q.rstrip().endswith("?")] or [text]


def only_they(text: str) -> bool:
    """Whether the only person a message speaks of is "they" ("what do they ask on the us citizenship
    test"): in a question about the world, anyone who does it."""
    said = {m.group(0).lower() for m in _PERSONAL.finditer(without_request(text))}
    return bool(said) and said <= {"they", "them", "their"}


def asks_in_general(text: str) -> bool:
    """Whether the message asks what is usual for people at large, or what anyone would do ("how long
    should you rest a brisket?"), saying nothing of anyone's own: the words are in a question ("Quick
    dinner ideas? Usually cooking for four" jots the user's own). Read it as typed: without_request
    drops the "can you" of "can you claim running shoes on tax?"."""
    return any(_IN_GENERAL.search(q) or _ANYONE_YOU.search(q) for q in _questions(text)) and not says_its_own(text)


# (typed at a terminal, a question often has no "?": "what happens to people who overstay their visa
# in nz" is one, on one line)
_WORLD_QUESTION = pattern(
    r"^\s*(?:what|what's|whats|when|when's|where|where's|which|who|who's|whose|why|how|how's|is|are|was|were|"
    r"does|do|did|can|could|should|would|will|has|have|shall)\b[^.!?\n]*\??\s*$",
    re.IGNORECASE,
)


def asks_about_the_world(text: str) -> bool:
    """One question, opened as a question ("how many hours of sleep does an adult need?"), that
    says nothing of the user's own."""
    return (
        bool(_WORLD_QUESTION.match(without_request(text)))
        and not says_its_own(text)
        and not re.search(rf"\b(?:{_OUR_TALK})\b", text, re.IGNORECASE)
    )


# Someone else's case, asked about for them ("A friend of mine is on 20 mg of sertraline; is that a
# low dose?", "My colleague wants to know how to renew a passport", "Hypothetically, if someone
# earned £58,000...", "Write a story about a man with early-stage dementia"): the user's own health,
# money, documents and troubles are not what it turns on. Measured on labelled examples in
# tests/word_lists.py.
_OTHERS = (
    r"friend|colleague|co-?worker|workmate|cousin|neighbou?r|boss|manager|client|customer|patient|pupil|"
    r"student|classmate|flatmate|roommate|housemate|acquaintance|relative|nephew|niece|aunt|uncle|"
    r"(?:sister|brother|mother|father|son|daughter)s?-in-law|in-laws?|"
    # family too: "My sister is bisexual and wants to come out" is her case, not the user's
    r"sister|brother|sibling|mum|mom|mother|dad|father|parent|grandmother|grandfather|grandma|grandpa|grandad|"
    r"son|daughter|wife|husband|partner|boyfriend|girlfriend|fianc[ée]e?|stepmother|stepfather|stepmum|stepdad|"
    r"stepson|stepdaughter|grandson|granddaughter|godson|goddaughter|landlord|landlady|tenant|teammate|mate|pal|"
    r"(?:guy|girl|man|woman|person)\s+I['’]m\s+(?:dating|seeing)"
)
# the other is whom it is about: what they have, are or asked ("a friend is pregnant", "my cousin's
# mortgage", "my boss wants to know"), not whom the user does something for ("a gift for a colleague")
_THEIR_CASE = (
    r"(?=['’]s\b|,?\s+who\s+(?:has|had|takes|took|uses|suffers|struggles|is\s+(?:recovering|on|having|going\s+"
    r"through|struggling|in\s+recovery|diagnosed|pregnant|sick|ill|unwell|in\s+debt|bipolar|autistic|disabled|blind|"
    r"deaf|gay|trans|transgender|bisexual|muslim|jewish|christian|hindu|sikh|diabetic|epileptic|dyslexic|depressed|"
    r"anxious|sober|homeless|unemployed|broke))\b"
    r"|\s+(?:is|are|was|were|has|have|had|takes|took|uses|used|wants|wanted|asked|asks|"
    r"told|tells|earns|earned|pays|paid|needs|needed|gets|got|just|recently|texted|messaged|emailed|says|said|"
    r"thinks|converted|became|started|stopped|quit|lost|came\s+out|drinks|smokes|suffers|struggles|lives|sees|"
    r"owes|keeps|attends|goes\s+to)\b)"
)
_OTHER = (
    rf"(?:my|a|an|our|one\s+of\s+my|this|that|the)\s+(?:[a-z]+\s+)?(?:{_OTHERS})s?(?:,?\s+(?-i:\p{{Lu}})[\w'’-]+,?)?"
    r"(?:\s+(?:in|at|from|on|of)\s+(?:my|our|the)\s+[\w-]+)?"  # "a student in my class has epilepsy"
)
# someone named, as whose care a message speaks of ("Gaz's doctor says he might need metformin")
_THEIR_CARE = (
    r"(?-i:(\p{Lu}[\w-]+))(?:['’]s\s+(?:doctor|gp|consultant|dentist|nurse|specialist|psychiatrist|therapist|midwife|"
    r"surgeon|physio|prescription|medication|meds|tablets|diagnosis|symptoms|blood\s+tests?|test\s+results)\b"
    # "Ola's been prescribed sumatriptan", "Dev was diagnosed with gout" (not "Dr Shah has prescribed me")
    r"|(?:['’]s|\s+has)\s+(?:just\s+)?been\s+(?:prescribed|diagnosed|put\s+on|started\s+on|signed\s+off)\b"
    r"|\s+(?:was|is)\s+(?:just\s+)?(?:prescribed|diagnosed|put\s+on|started\s+on)\b)"
)
_SOMEONE_ELSE = pattern(
    rf"\b(?:{_OTHER}(?:\s+of\s+(?:mine|ours))?{_THEIR_CASE}|{_THEIR_CARE}"
    rf"|(?:does|did|do|is|was|has|can|should|could|would|will)\s+{_OTHER}"  # "does my colleague Anna need..."
    r"|hypothetically|suppose"
    # a he or she the message opens on, named nowhere as the user ("She is on lithium and pregnant", "His
    # salary is £40k"): someone else's case
    r"|^\s*(?:she|he)\s+(?=(?:is|has|was|takes|took|had|just|recently|got|earns|owes|uses)\b)|^\s*(?:his|her)\s+(?=[a-z])"
    # anyone, as whom a sentence is about ("Someone on a forum asked", "if a child has asthma", "a story
    # about a man with..."), not as what it is about ("when did Melanie's friend adopt a child?")
    r"|(?:^|(?<=[.!?;:,])\s*|\b(?:if|when|suppose|imagine|about|for|say|that)\s+)"
    r"(?:someone|somebody|a\s+person|a\s+couple|a\s+(?:man|woman|boy|girl|child|kid|teenager|toddler|baby|family|"
    r"guy|lady))(?:['’]s)?)\b",
    re.IGNORECASE,
)
# what the user says while passing on another's question: not the user's own
_PASSING_ON = pattern(
    r"\b(?:asked|told|wants|wanted|asks|tells|needs|needed|texted|messaged|emailed)\s+(?:me|us)\b"
    r"|\bwants?\s+to\s+know\b|\bof\s+(?:mine|ours)\b"
    r"|\b(?:what|how)\s+(?:should|do|can|could|would)\s+i\s+(?:tell|say\s+to|answer|reply\s+to)\s+(?:him|her|them)\b",
    re.IGNORECASE,
)
# what the user asks about doing for the other: not the user's own case ("How can I support her?",
# "what gift should I get him?", "What should I do?" after a friend's news)
_FOR_THEM = pattern(
    r"\b(?:how|what|should|can|could|do|shall)\s+(?:\w+\s+){0,2}?(?:I|we)\s+(?:best\s+)?"
    r"(?:support|help|comfort|reassure|encourage|talk\s+to|speak\s+to|approach|tell|say|respond|reply|react|"
    r"be\s+there\s+for|look\s+after|care\s+for|get|buy|give|write|send|cook|make|do|watch|look\s+out|expect|"
    r"know|ask|keep\s+an\s+eye)\b"
    r"(?:\s+(?:to|for|with))?(?:\s+(?:him|her|them|it))?",
    re.IGNORECASE,
)
_WHAT_I_DO = pattern(
    r"\b(?:what|how|where|when|which|should|can|could|do|shall|would)\s+(?:[\w'’-]+\s+){0,3}?(?:I|we)\s+(?:best\s+)?"
    r"(?:read|serve|cover|handle|say|tell|support|help|expect|know|learn|ask|bring|cook|make|buy|give|send|write|"
    r"approach|talk|speak|react|respond|reply|be|go|visit|plan|organi[sz]e|arrange|prepare|suggest|recommend|"
    r"watch|look\s+out|keep\s+an\s+eye|care|look\s+after|comfort|reassure|encourage|check|phone|call|text|email|"
    r"invite|host|book|choose|pick|find|deal|cope|do)\b(?:\s+(?:to|for|with|at|on|about|it|them|him|her))*",
    re.IGNORECASE,
)
_OUR_PEOPLE = pattern(
    r"\b(?:my|our)\s+(?:[a-z]+\s+)?(?:"
    + "|".join(
        sorted({w for role, ws in ROLE_WORDS.items() if role not in ("dog", "cat") for w in ws}, key=len, reverse=True)
    )
    + r")s?\b",
    re.IGNORECASE,
)
_MYSELF = pattern(
    r"\b(?:i|me|my|mine|myself|we|(?-i:us|Us)|our|ours|ourselves|i'm|i've|i'd|i'll|we're|we've|we'd)\b", re.I
)


_THEIR_NAME = pattern(rf"\b(?i:{_OTHERS})s?,?\s+(\p{{Lu}}[\w'’-]+)")


_CARE_NAME = pattern(rf"\b{_THEIR_CARE}", re.IGNORECASE)


def others_named(text: str) -> set[str]:
    """The names given to the others a message speaks of ("my colleague Anna" -> {"anna"}, "Gaz's
    doctor says" -> {"gaz"})."""
    names = [n.removesuffix("'s").removesuffix("’s") for n in _THEIR_NAME.findall(text)]
    return {n.lower() for n in names + [m.group(1) for m in _CARE_NAME.finditer(text)]}


def whose_case(text: str) -> str:
    """The words that name the others whose case a message speaks of ("My brother" of "My brother is
    gay and wants to come out to our parents": not the parents)."""
    return " ".join(m.group(0) for m in _SOMEONE_ELSE.finditer(text))


def asks_for_someone_else(text: str) -> bool:
    """Whether the message asks about someone else's case (a friend, a colleague, "someone", a
    hypothetical person) and says nothing of the user's own besides passing the question on."""
    if not _SOMEONE_ELSE.search(text):
        return False
    rest = _FOR_THEM.sub(" ", _PASSING_ON.sub(" ", _SOMEONE_ELSE.sub(" ", without_request(text))))
    rest = _OUR_PEOPLE.sub(" ", rest)  # "...wants to come out to our parents": people named, not the user's case
    # what the user asks to do about it ("what should I read?", "how do I cover her shifts?") is not a
    # case of the user's own; what the user says of themselves is ("I'm on it too", "my medication")
    rest = _WHAT_I_DO.sub(" ", rest)
    return not (_MYSELF.search(rest) or _THE_HOUSEHOLD.search(rest))


def without_request(text: str) -> str:
    """The message without the words of asking ("can you tell me about Jonas?" -> "Jonas?"):
    what to search memory for, and what a general question must share with a memory."""
    stripped = _REQUEST.sub(" ", text)
    if re.search(r"\bexplain\b", stripped, re.IGNORECASE):  # "explain TCP to me"
        stripped = re.sub(r"\bto\s+me\b", " ", stripped, flags=re.IGNORECASE)
    stripped = " ".join(stripped.split())
    return stripped if words(stripped) else text


# Someone of the user's called by their role with "the", spoken to or quoted ("write to the landlord",
# "ask the vet", "what the physio said"): the user's own when memory says "my landlord" or "our vet".
# "Is the landlord responsible for..." asks about landlords in general and does not match.
_ROLES_BY_THE = (
    r"landlord|landlady|letting\s+agent|vet|gp|dentist|childminder|nanny|cleaner|builder|accountant|"
    r"solicitor|therapist|physio|boss|manager|line\s+manager|in-laws|neighbours?|flatmates?|housemates?"
)
_THE_ROLE = pattern(
    rf"\b(?:to|with|for|from|tell|ask|call|email|text|message|thank|remind|reply\s+to)\s+the\s+({_ROLES_BY_THE})\b"
    rf"|\bthe\s+({_ROLES_BY_THE})\s+(?:said|says|say|told|tells|wants|wanted|asked|visits?|comes?|came)\b",
    re.IGNORECASE,
)


# a thing of the household's, called "the" as one's own are ("the car's inspection", "the boiler")
_THE_THING = pattern(
    r"\bthe\s+(car|van|motorbike|bike|boiler|laptop|printer|router|garden|flat|house|loft|shed|greenhouse|"
    r"allotment|caravan|campervan|boat)\b",
    re.IGNORECASE,
)


# A report or request that is not a question ("AC is blowing warm air", "Boat trailer lights quit
# working", "Teach me some Marathi phrases") names things as their owner does: the user's, when a
# memory found says so ("The AC unit is from 2011", "my 14-foot jon boat"). A question is asked of
# anyone ("How long do leopard geckos live?" and "We have a leopard gecko called Noodle").
_A_QUESTION = pattern(
    r"\?|^\W*(?:what|how|why|when|where|who|which|whose|is|are|was|were|do|does|did|can|could|should|"
    r"would|will|has|have)\b",
    re.IGNORECASE,
)


# the words after "my" or "our" ("my 14-foot jon boat"), and after a "The" a memory opens on ("The AC unit")
_OWNED = pattern(r"\b(?:my|our)((?:\s+[\w-]+){1,4})|^\s*the((?:\s+[\w-]+){1,3})", re.IGNORECASE)
_ABBREVIATION = pattern(r"\b[A-Z]{2}\b")


def _owned(text: str) -> set[str]:
    """The words a memory says are the user's things: "my (...) boat", "our (...) car", or "The (...)
    AC" opening it, as the user's own things are told (lower-cased)."""
    return {w for m in _OWNED.finditer(text) for w in words(m.group(1) or m.group(2))}


def names_their_thing(query: str, hits: list[Hit], *, delicate: Callable[[Hit], bool] = lambda h: False) -> bool:
    """Whether the message calls a thing of the user's "the" as one's own are ("the car's inspection
    is coming up" and "Our car is a 2019 Dacia"), or, when it is not a question, names a thing at all
    that a memory found says is theirs (`_A_QUESTION`); not by a memory that is `delicate` (about health
    or money: "Compare antidepressants" and "My antidepressant is sertraline" is for the gate to judge)."""
    called_the = {t.lower() for t in _THE_THING.findall(query)}
    named = set() if _A_QUESTION.search(query) else _things_named(query)
    for h in hits:
        if h.type == "memory" and (owned := _owned(h.text)):
            if owned & called_the or (owned & named and not delicate(h)):
                return True
    return False


def _things_named(query: str) -> set[str]:
    """The words a message may name a thing by: not stop words, three letters or more, or a
    capitalised abbreviation ("AC", "EV"); not one it calls "a" or "any" thing ("List the parts of a
    boiler" is any boiler)."""
    anyone = {w.lower() for w in _ANY_ONE.findall(query)}
    abbreviations = {w.lower() for w in _ABBREVIATION.findall(query)}
    return {w for w in words(query) if w not in STOPWORDS and w not in anyone and (len(w) >= 3 or w in abbreviations)}


_ANY_ONE = pattern(r"\b(?:a|an|any|every|each)\s+(?:[\w-]+\s+)?([\w-]+)", re.IGNORECASE)


def about_someone(query: str, hits: list[Hit], *, pronouns: bool = True) -> bool:
    """Whether the message is about someone's own world: it says I, my, we, she..., or names
    someone the memory knows: a speaker of the transcript (written any way), or a person a memory
    or a past message names ("my sister Ana"), written with a capital as names are ("what does a
    rose symbolise?" is not about a daughter called Rose). "You" in a request ("can you tell me
    about Toyota?") is politeness, not the user's world."""
    if pronouns and _PERSONAL.search(without_request(query)):
        return True
    said = {w for w in words(query) if len(w) >= 3 and w not in STOPWORDS}
    speakers = {w for h in hits if h.name for w in words(h.name) if w not in STOPWORDS}
    if said & speakers:
        return True
    roles = {r.lower() for pair in _THE_ROLE.findall(query) for r in pair if r}
    singular = {r if r.endswith("ss") else r.removesuffix("s") for r in roles}  # "the neighbours": "our neighbour"
    if singular and any(
        re.search(rf"\b(?:my|our)\s+(?:[a-z]+\s+)?{re.escape(role)}s?\b", h.text, re.IGNORECASE)
        for role in singular
        for h in hits
    ):
        return True  # "Draft a note to the landlord" and "Our landlord is Klaus": the user's own
    people = people_in(hits)
    capitalised = names_in(query) | {w.lower() for w in words(query)[:1] if query.lstrip()[:1].isupper()}
    if capitalised & people:
        return True
    return any(name.startswith(w) for w in names_in(query) if len(w) >= 3 for name in speakers)  # "Mel": Melanie


# what says the word after it is a thing, not someone's name ("a bill", "how much pepper", "the summer")
_A_THING_BEFORE = pattern(r"\b(?:" + "|".join(sorted(people.THING_BEFORE)) + r")\s+$", re.IGNORECASE)
_LOWER_WORD = pattern(r"(?<![\w'’-])\p{Ll}(?:\p{Ll}|['’-])*")


def names_cased(query: str, hits: list[Hit]) -> str:
    """A message typed in lowercase with a word written as the name it is, where a memory found calls
    someone by it ("my wife Bríd", "our son Alfie"): people who type in lowercase name people too
    ("alfie cant focus on homework after tea" is Alfie's). One typed with capitals says its names
    itself ("What does a rose symbolise?" is no daughter Rose), and a word memory calls no one by
    stays as typed."""
    if any(c.isupper() for c in re.sub(r"\bI\b", "", query)):
        return query
    known = people_in(hits) - STOPWORDS
    if not known:
        return query

    def cased(m: re.Match[str]) -> str:
        word = m.group(0)
        bare = re.sub(r"['’]s$", "", word)
        if bare not in known or _A_THING_BEFORE.search(query[: m.start()]):
            return word  # "how much pepper", "split a bill": a thing, though the cat is Pepper
        return word[:1].upper() + word[1:]

    return _LOWER_WORD.sub(cased, query)


def people_in(hits: list[Hit]) -> set[str]:
    """The names the found texts call someone by ("my sister Ana", "a dog called Rufus"), lower-cased;
    not a day or a month ("Friday is my chemo day" names no one)."""
    found = {name.lower() for h in hits for group in _PERSON.findall(h.text) for name in group if name}
    return found - WHEN


# Days, months, seasons and holidays: capitalised, but never a person nor a place
WHEN = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow tonight january february march "
    "april may june july august september october november december christmas easter spring summer autumn "
    "winter".split()
)


def speakers_named(query: str, hits: list[Hit]) -> set[str]:
    """The transcript speakers the message names ("what did Caroline research?": Caroline, also as
    "Mel" for Melanie), as their names are stored, lower-cased."""
    named = names_in(query)
    if not named:
        return set()
    out = set()
    for h in hits:
        if h.name and h.name.lower() not in out:
            parts = {w for w in words(h.name) if w not in STOPWORDS}
            if parts & named or any(p.startswith(w) for w in named if len(w) >= 3 for p in parts):
                out.add(h.name.lower())
    return out


# The person a memory is about, when it opens with their name: "Geoff has early-stage Alzheimer's",
# "My husband Geoff has...", "Our son Felix is..." (not "Mum has...": a role, not a name).
_SUBJECT = pattern(r"^\s*(?:(?i:my|our|the user's)\s+(?:[a-z][\w-]*\s+){1,2}?)?(\p{Lu}\p{Ll}[\w'’-]*)")
_ROLES = {w for ws in ROLE_WORDS.values() for w in ws}


def names_its_subject(query: str, text: str, hits: list[Hit]) -> bool:
    """Whether the message names, by name, the person a memory is about ("What can I do to keep
    Geoff's mind active?" and "Geoff has early-stage Alzheimer's"): written as a name within the
    message, or opening it as a name the memories found call someone by ("my husband Geoff");
    never a day or a month ("Friday night film suggestions?" and "Friday is my chemo day")."""
    opening = _SUBJECT.match(text)
    if opening is None:
        return False
    name = opening.group(1).lower().removesuffix("'s").removesuffix("’s")
    if name in STOPWORDS or name in _ROLES or name in WHEN:
        return False
    first = words(query)[:1] if query.lstrip()[:1].isupper() else []
    # as a name, not a place or someone famous ("hotels in Florence", "Michael Jordan's best games")
    called = {w.lower().removesuffix("'s").removesuffix("’s") for w in people.called_by_name(query)}
    return (name in names_in(query) and name in called) or (name in first and name in people_in(hits))


def found_by_a_name_as_a_word(query: str, text: str) -> bool:
    """Whether a memory shares nothing with the message but a name of its own that the message uses
    as a word for a thing ("how do I split a bill?" and "My colleague Bill handles payroll", "how much
    pepper goes in a carbonara?" and "Our cat Pepper is on thyroid tablets")."""
    as_words = {
        stem(name)
        for name in names_in(" " + text) - WHEN  # "the December trip" is the month's
        if re.search(
            rf"\b(?:a|an|the|some|any|much|many|more|less|little|few|no|each|every)\s+{re.escape(name)}\b", query
        )
    }
    if not as_words:  # (most memories: the message's words are not read at all)
        return False
    shared = content_stems(query) & content_stems(text)
    return bool(shared) and shared <= as_words


def names_in(text: str) -> set[str]:
    """The names a text holds ("Lisbon", "Geoff"): capitalised words that do not start a sentence,
    lower-cased, without a possessive "'s"."""
    return {
        w.lower().removesuffix("'s").removesuffix("’s")
        for w in _CAPITALISED.findall(text)
        if w.lower() not in STOPWORDS
    }
