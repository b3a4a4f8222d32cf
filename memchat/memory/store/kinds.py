"""What kind of memory a sentence the user asked to keep is: an instruction to the assistant
(a rule: it goes to "How to work with you" in every call) or a fact about their world.

"Remember that rule: answer in British English", "remember: always show Go examples",
"I prefer Go examples" and "call me Sam" are about how the assistant should work; "I prefer
tea", "my sister lives in Porto" are facts; "remember to renew my passport" is a task (an event). An explicit "rule:", "fact:" or "event:" wins.
"""

from __future__ import annotations

import re

from memchat.patterns import pattern

KINDS_SAID = ("fact", "event", "rule")
# "rule: ...", "that rule: ...", "as a rule, ..." (a separator after the label, so that "the rule
# is that ..." stays a sentence)
_LABEL = pattern(r"^\s*(?:(?:the|this|that|a|as\s+a)\s+)?(?P<kind>rule|fact|event)\s*[:,-]\s*", re.IGNORECASE)
_IMPERATIVE = pattern(
    r"^\s*(?:please\s+)?(?:always|never|don'?t|do\s+not|stop|avoid|use|answer|reply|respond|write|"
    r"explain|format|keep|be\s+(?:brief|concise|short|terse|direct|formal|informal|detailed)|"
    r"call\s+me|address\s+me|refer\s+to\s+me|speak|talk|give|show\s+me|prefer|assume|include|quote|convert|"
    r"default\s+to|stick\s+to|translate|suggest|recommend|mention|cite|add\s+(?:comments|type\s+hints|tests|sources))\b",
    re.IGNORECASE,
)
# "I prefer / like / want / would like ... <something the assistant produces>"
_PREFERS = pattern(r"^\s*i\s+(?:prefer|like|want|need|would\s+(?:like|prefer)|'d\s+(?:like|prefer))\b", re.IGNORECASE)
_OUTPUT = pattern(
    r"\b(?:answers?|replies|reply|responses?|examples?|code|snippets?|explanations?|summar(?:y|ies)|"
    r"bullet(?:s| points)?|markdown|tables?|format(?:ting)?|tone|style|language|english|units?|metric|"
    r"imperial|citations?|sources|emojis?|jargon|you\s+to)\b",
    re.IGNORECASE,
)


# "Remember that ...", "remember: ..." typed where memory is the whole point (`memories add`,
# /remember): the request is not part of what to keep.
_REMEMBER = pattern(r"^\s*(?:please\s+)?remember(?:\s+that\b|\s*[:,]|(?=\s+to\s))\s*(?=\S)", re.IGNORECASE)


def kind_of(text: str, default: str = "fact") -> tuple[str, str]:
    """(kind, text without its label): a labelled kind, "rule" for an instruction, else default."""
    request = _REMEMBER.match(text)
    if request:  # "remember to ..." leaves "to ...", a thing to do, for the line below
        text = text[request.end() :]
    if re.match(r"^\s*to\s+\w", text, re.IGNORECASE):
        # "remember to call me Sam" tells the assistant how to work (a rule, sent with every call);
        # "remember to renew my passport" is a task of the user's (an event, sent when it helps)
        task = _trimmed(re.sub(r"^\s*to\s+", "", text, flags=re.IGNORECASE))
        return ("rule" if is_instruction(task) else "event"), task
    label = _LABEL.match(text)
    if label:  # "rule:" alone labels nothing: no text, which every caller refuses or skips
        return label.group("kind").lower(), _trimmed(text[label.end() :])
    if is_instruction(text):
        return "rule", _trimmed(text)
    return default, _trimmed(text)


# an instruction for some of the work: "When you suggest meals, keep weeknight cooking under 30 minutes"
# ("If I ask for code, assume Python", "When I ask about Spanish usage, give examples in both languages")
_WHEN_YOU = pattern(
    r"^\s*(?:when(?:ever)?|if|any\s+time)\s+(?:you|I\s+(?:ask|want|need|say|type|paste|send|share)\b)[^,.;:]{1,80},\s*",
    re.IGNORECASE,
)


def is_instruction(text: str) -> bool:
    """Whether a text tells the assistant how to work: "Always answer in British English", "Give
    money in euros", "If I ask for code, assume Python unless I say otherwise"."""
    when = _WHEN_YOU.match(text)
    if when:
        text = text[when.end() :]
    return bool(_IMPERATIVE.match(text) or (_PREFERS.match(text) and _OUTPUT.search(text)))


def _trimmed(text: str) -> str:
    return text.strip()
