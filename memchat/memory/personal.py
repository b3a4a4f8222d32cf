"""Whether a message is about someone's own world, or a general question.

A message with no person in it ("why is the sky blue?", "can you explain TCP to me?") is not
about the user's past: memchat.memory.inject then sends a memory only when most of the
message's words are in it. A message is about someone when it says I, my, we, she..., or
names someone memory knows: a speaker of the transcript, or a person a memory names ("my
sister Ana", "a cat called Pixel", "Biscuit is my dog") - not a brand ("my car is a Toyota").
The "you" and "me" of a request ("could you tell me ...") are politeness, not the user's world.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memchat.memory.terms import STOPWORDS, words

if TYPE_CHECKING:
    from memchat.memory.search import Hit

_PERSONAL = re.compile(
    r"\b(i|me|my|mine|myself|we|us|our|ours|ourselves|you|your|yours|yourself|i'm|i've|i'd|"
    r"i'll|we're|we've|he|she|him|his|her|hers|they|them|their|remember|again|last time|before)\b",
    re.IGNORECASE,
)
# "can you ...", "could you tell me ...", "do you know ...": the message asks the assistant for something
_REQUEST = re.compile(
    r"\b(?:can|could|would|will|do|won't|wouldn't)\s+you\b|\byou\s+know\b|\bthank\s+you\b|\bif\s+you\b|"
    r"\b(?:tell|show|give|help|teach)\s+me\b|\bexplain\s+(?:\S+\s+){0,6}?to\s+me\b",
    re.IGNORECASE,
)
# Someone memory knows by name: "my sister Ana", "a cat called Pixel", "Biscuit is my dog" (not "Toyota")
_PERSON = re.compile(
    r"\b(?:sister|brother|mother|father|mum|mom|dad|son|daughter|wife|husband|partner|friend|boss|manager|"
    r"colleague|girlfriend|boyfriend|fianc[eé]e?|child|kid|baby|aunt|uncle|cousin|grandma|grandpa|grandmother|"
    r"grandfather|niece|nephew|neighbou?r|teacher|doctor|dr\.?|cat|dog|puppy|kitten|called|named)\s+"
    r"([A-Z][\w-]+)|^\s*([A-Z][\w-]+)(?:'s|’s)?\s+(?:is|was)\s+(?:my|our)\b",
    re.MULTILINE,
)
# a name as people write it: capitalised, not the first word of a sentence
_CAPITALISED = re.compile(r"(?<![.!?:]\s)(?<=\s)[A-Z][\w'’-]+")


def about_someone(query: str, hits: list[Hit]) -> bool:
    """Whether the message is about someone's own world: it says I, my, we, she..., or names
    someone the memory knows (a speaker of the transcript, or a name in a memory). "You" in a
    request ("can you tell me about Toyota?") is politeness, not the user's world."""
    if _PERSONAL.search(_REQUEST.sub(" ", query)):
        return True
    speakers = {w for h in hits if h.name for w in words(h.name) if w not in STOPWORDS}
    known = speakers | {
        name.lower() for h in hits if h.memory is not None for pair in _PERSON.findall(h.text) for name in pair if name
    }
    if {w for w in words(query) if len(w) >= 3 and w not in STOPWORDS} & known:
        return True
    return any(name.startswith(w) for w in _names(query) if len(w) >= 3 for name in speakers)  # "Mel": Melanie


def _names(text: str) -> set[str]:
    """Capitalised words that do not start a sentence, lower-cased, without a possessive "'s"."""
    return {
        w.lower().removesuffix("'s").removesuffix("’s")
        for w in _CAPITALISED.findall(text)
        if w.lower() not in STOPWORDS
    }
