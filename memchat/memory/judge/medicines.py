"""Which of the user's conditions a medicine turns on: what a pharmacist asks before "yes, take it".

A question whether the user may take a medicine ("Is it OK for me to take ibuprofen for this
headache?", "The GP suggested propranolol. Anything I should mention first?") needs the user's own
conditions that medicine is known to be risky with: asthma for an anti-inflammatory or a beta
blocker, high blood pressure for a decongestant, a migraine with aura for the combined pill. The
encoder does not see these as alike (ibuprofen and asthma are far apart by meaning), so they are
general medical knowledge, written down here as data: each class of medicine, by its names, and
the conditions that class is risky with. A pregnancy, breastfeeding or an allergy to the very
medicine counts for any of them. Each list's precision is measured on labelled examples
(tests/word_lists.py); a list is allowed to miss, not to fire on the wrong text.
"""

from __future__ import annotations

import re

from memchat.patterns import pattern

# (the class of medicine, by its names; the conditions it is risky with)
_CLASSES: tuple[tuple[str, str], ...] = (
    (  # anti-inflammatory painkillers (NSAIDs)
        r"ibuprofen|naproxen|diclofenac|aspirin|nurofen|advil|motrin|aleve|voltarol|mefenamic|"
        r"anti-?inflammator(?:y|ies)|nsaids?",
        r"asthma\w*|blood\s+pressure|hypertension|kidneys?(?!\s+(?:pie|beans?))|renal|(?:stomach|peptic|gastric)\s+ulcers?|ulcers?|"
        r"heart\s+(?:failure|disease|condition)|crohn'?s|colitis|blood\s+thinners?|warfarin|apixaban|rivaroxaban|"
        r"clopidogrel|lisinopril|ramipril|\w+sartan|"
        # an SSRI beside it raises the risk of a bleed; it slows how methotrexate and lithium are cleared
        r"sertraline|citalopram|escitalopram|fluoxetine|paroxetine|ssris?|antidepressants?|methotrexate|lithium",
    ),
    (  # beta blockers
        r"\w+olol|beta[- ]?blockers?",
        r"asthma\w*|copd|diabet\w*|insulin|low\s+blood\s+pressure|slow\s+heart",
    ),
    (  # decongestants
        r"sudafed|pseudoephedrine|phenylephrine|decongestants?|lemsip|day\s*nurse|dayquil",
        r"blood\s+pressure|hypertension|heart\s+(?:disease|condition|problem)|thyroid|glaucoma|prostate|"
        r"diabet\w*|lisinopril|ramipril|\w+sartan|amlodipine",
    ),
    (  # oestrogen: the combined pill, HRT
        r"(?:the\s+)?combined\s+pill|oestrogen|estrogen|hrt|microgynon|rigevidon|yasmin|"
        r"(?:the\s+)?(?:contraceptive\s+)?pill\s+for\s+my\s+skin",
        r"migraines?\s+with\s+aura|aura\s+migraines?|migraines?|blood\s+clots?|dvt|deep\s+vein|"
        r"pulmonary\s+embolism|smok\w+|breast\s+cancer|blood\s+pressure|hypertension",
    ),
    (  # antibiotics of the penicillin family
        r"\w+cillin|penicillins?|antibiotics?|co-?amoxiclav|flucloxacillin",
        r"(?:allergic|allergy|allergies)\s+(?:to\s+)?penicillin|penicillin\s+allerg\w+",
    ),
    (  # triptans
        r"\w+triptan",
        r"heart\s+(?:disease|condition|attack)|angina|blood\s+pressure|hypertension|sertraline|ssris?|"
        r"citalopram|fluoxetine|antidepressants?",
    ),
    (  # St John's wort
        r"st\.?\s+john'?s\s+wort",
        r"sertraline|citalopram|fluoxetine|ssris?|antidepressants?|(?:the\s+)?pill\b|contracepti\w+|warfarin",
    ),
    (  # opioids and codeine
        r"codeine|co-?codamol|tramadol|morphine|oxycodone|dihydrocodeine|opioids?",
        r"asthma\w*|copd|sleep\s+apno?ea|sertraline|ssris?|antidepressants?|sleeping\s+(?:pills?|tablets?)",
    ),
    (  # paracetamol
        r"paracetamol|acetaminophen|tylenol|calpol|panadol",
        r"liver|hepatitis|warfarin",
    ),
    (  # sedating antihistamines and sleeping pills
        r"piriton|chlorphenamine|benadryl|diphenhydramine|nytol|night\s*nurse|sleeping\s+(?:pills?|tablets?)|"
        r"zopiclone|promethazine|phenergan",
        r"glaucoma|prostate|sleep\s+apno?ea|epilep\w+",
    ),
    (  # trimethoprim, alone or with sulfamethoxazole (co-trimoxazole): a usual first antibiotic for a UTI
        r"trimethoprim|co-?trimoxazole|sulfamethoxazole|bactrim|septrin",
        r"methotrexate|warfarin|kidneys?(?!\s+(?:pie|beans?))|renal",
    ),
    (  # vaccines: a live one is unsafe on a medicine that damps the immune system
        r"vaccines?|vaccinations?|vaccinated|immuni[sz]ations?|(?:flu|shingles|mmr|covid|chickenpox|yellow\s+fever|"
        r"typhoid|travel|tetanus|hpv|pneumonia)\s+(?:shots?|jabs?|boosters?)",
        r"methotrexate|immuno-?suppress\w*|biologics?|adalimumab|humira|etanercept|infliximab|azathioprine|"
        r"chemo\w*|prednisolone|transplant|live\s+vaccines?",
    ),
    (  # metformin
        r"metformin",
        r"kidneys?(?!\s+(?:pie|beans?))|renal|liver",
    ),
)
# whatever the medicine
_ANY = r"pregnan\w*|breastfeeding|breast-feeding|trying\s+for\s+a\s+baby"


def _compile(source: str) -> re.Pattern[str]:
    return pattern(rf"\b(?:{source})\b", re.IGNORECASE)


_NAMED = [(_compile(names), _compile(conditions)) for names, conditions in _CLASSES]
_ANY_TIME = _compile(_ANY)
# an allergy or intolerance to a medicine: "I'm allergic to penicillin", "ibuprofen makes me wheezy"
_ALLERGY = pattern(r"\b(?:allerg\w+|intoleran\w+|reaction\s+to|can['’]?t\s+take|cannot\s+take)\b", re.IGNORECASE)


def classes_named(text: str) -> list[int]:
    """The classes of medicine a text names, by index."""
    return [i for i, (names, _conditions) in enumerate(_NAMED) if names.search(text)]


def turns_on(request: str, memory: str) -> bool:
    """Whether a memory holds a condition one of the medicines the request names is risky with (or
    one every medicine is: a pregnancy), or an allergy to that very medicine."""
    named = classes_named(request)
    if not named:
        return False
    if _ANY_TIME.search(memory):
        return True
    if any(_NAMED[i][1].search(memory) for i in named):
        return True
    return _ALLERGY.search(memory) is not None and any(_NAMED[i][0].search(memory) for i in named)


# The words that start those conditions, for finding the memories that may hold one (FTS5 prefixes;
# the lists above then decide). Kept to words that name a condition or a medicine, so the newest
# rows they match are few.
_SEARCH_WORDS = (
    "asthma copd pressure hypertension kidney renal ulcer heart crohn colitis warfarin apixaban rivaroxaban "
    "clopidogrel lisinopril ramipril losartan candesartan amlodipine diabet insulin thyroid glaucoma prostate "
    "migraine aura clot dvt embolism smoke smoking smoker cancer penicillin allerg angina sertraline citalopram "
    "fluoxetine ssri antidepress pill contracept apnoea apnea sleeping liver hepatitis epilep pregnan "
    "breastfeed baby escitalopram paroxetine methotrexate lithium warfarin immunosuppress immuno biologic "
    "adalimumab humira etanercept infliximab azathioprine chemo prednisolone transplant live"
)
SEARCH_TERMS = " OR ".join(f'"{w}"*' for w in _SEARCH_WORDS.split())
