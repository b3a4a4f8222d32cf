"""The precision of memchat's word lists, measured on labelled examples.

Precision: of the texts a list fires on, the share that are what the list looks for. Recall is
printed too, but a word list is allowed to miss (the embedding model decides by meaning beside
it); what it must not do is fire on the wrong texts. Used by tests/test_word_lists.py (floors)
and tests/bench/word_lists.py (README's table).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from memchat.app import turn
from memchat.memory.capture.turns import _SMALL_TALK
from memchat.memory.judge import body, inject, medicines, need, people, personal, sensitive, vehicles
from memchat.memory.store import kinds
from memchat.memory.store.records import Memory

HERE = Path(__file__).parent
LABELLED = json.loads((HERE / "data" / "word_lists_labelled.json").read_text())
JUDGEMENT = json.loads((HERE / "bench" / "data" / "judgement_own.json").read_text())


@dataclass
class Measure:
    name: str
    what: str
    examples: int
    fired: int
    right: int
    relevant: int

    @property
    def precision(self) -> float:
        return self.right / self.fired if self.fired else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.relevant if self.relevant else 1.0


def _measure(name: str, what: str, fires: Callable[[str], bool], labelled: Iterable[tuple[str, bool]]) -> Measure:
    items = list(labelled)
    fired = [(t, y) for t, y in items if fires(t)]
    return Measure(name, what, len(items), len(fired), sum(y for _, y in fired), sum(y for _, y in items))


def _yes_no(block: dict) -> list[tuple[str, bool]]:
    return [(t, True) for t in block["yes"]] + [(t, False) for t in block["no"]]


# The lists measured on examples written for them (tests/data/word_lists_labelled.json): name, what a
# right hit is, the test that fires, the block of labelled examples.
YES_NO: list[tuple[str, str, Callable[[str], bool], str]] = [
    (
        "helping someone of yours (need._HELPING_THEM)",
        "a request to help someone of the user's with something",
        lambda t: bool(need._HELPING_THEM.search(t)),
        "helping_them",
    ),
    (
        "a plan to go somewhere (need._JOURNEY, need.tells_a_journey)",
        "a memory of a plan that takes the user somewhere",
        need.tells_a_journey,
        "journey_plan",
    ),
    (
        "a trip got ready for (need._TRIP_AHEAD)",
        "a request that gets ready for a trip of the user's without calling it one",
        lambda t: bool(need._TRIP_AHEAD.search(t)),
        "trip_ahead",
    ),
    (
        "the user away (need._AWAY)",
        "a request that speaks of the user's own absence, a trip of theirs",
        lambda t: bool(need._AWAY.search(t)),
        "away",
    ),
    (
        "my money (need._MY_MONEY, need._STATES_MONEY)",
        "a memory that states the user's own money: what they earn, pay, save, hold or owe",
        need.states_my_money,
        "states_my_money",
    ),
    (
        "asks what to wear (need._WEAR_REQUEST, need._WORN_BY_OTHERS)",
        "a request to choose or buy something the user will wear",
        need.asks_what_to_wear,
        "asks_what_to_wear",
    ),
    (
        "what I wear (need._WEARS)",
        "a memory of the user's own size or of what they will or won't wear",
        need.states_what_i_wear,
        "states_what_i_wear",
    ),
    (
        "a pet's own health (need._PET_SUBJECT, need._pets_own)",
        "a memory whose subject is a pet, its health no person's",
        need._pets_own,
        "pets_own_health",
    ),
    (
        "someone else he or she may mean (need._ANTECEDENT, need._someone_else)",
        "a request that names or describes someone its he or she may mean, not a household member",
        need._someone_else,
        "someone_else_named",
    ),
    (
        "the user eats too (need._USER_EATS)",
        "a meal request for others that the user eats at too (with me, hosting, having them over)",
        lambda t: bool(need._USER_EATS.search(t)),
        "user_eats_too",
    ),
    (
        "sums of money (need._AN_AMOUNT)",
        "a memory that states a sum of money (never on the card)",
        lambda t: bool(need._AN_AMOUNT.search(t)),
        "sum_of_money",
    ),
    (
        "a home without its cost (need._WHAT_IT_COSTS, need._without_the_cost)",
        "where the user lives, said with what it costs, which the card holds without the cost",
        lambda t: need._without_the_cost(Memory(0, "fact", t)) is not None,
        "home_without_its_cost",
    ),
    (
        "a partner who is a man (people._PARTNER_IS)",
        "a memory that says the user's own partner is a man (whom a request's he may mean)",
        lambda t: bool(people._PARTNER_IS["he"].search(t)),
        "partner_is_a_man",
    ),
    (
        "working time (need._AT_WORK, need._works_then)",
        "when the user works, not a club, a class, a chore or someone else's hours",
        need._works_then,
        "working_time",
    ),
    (
        "where the user lives (need._WHERE_WE_LIVE, need.says_where_we_live)",
        "a statement of where the user lives, not what only names a town",
        need.says_where_we_live,
        "where_we_live",
    ),
    (
        "diet constraints (need._CONSTRAINT)",
        "what someone must or will not eat or drink",
        lambda t: bool(need._CONSTRAINT.search(t)),
        "diet_constraint",
    ),
    (
        "suggestion requests (need._SUGGESTION)",
        "a request for something to give or do for someone",
        lambda t: bool(need._SUGGESTION.search(t)),
        "suggestion_request",
    ),
    (
        "tastes (need._TASTE)",
        "what someone likes, a gift or an outing can go by",
        lambda t: bool(need._TASTE.search(t)),
        "taste_memory",
    ),
    (
        "former facts (need._FORMER)",
        "a fact about the person's past, not who they are now",
        lambda t: bool(need._FORMER.search(t)),
        "former_fact",
    ),
    (
        "where a child spends the day (need._CHILD_PLACE)",
        "a memory of a child's school, nursery or childminder",
        lambda t: bool(need._CHILD_PLACE.search(t) and not need._USER.match(t)),
        "child_place",
    ),
    (
        "people by role (people.role_paths)",
        "a request that means someone memory may know by role",
        lambda t: bool(people.role_paths(t)),
        "role_request",
    ),
    (
        "health care work (sensitive.CARE_WORK)",
        "a statement of someone's job or workplace in health care, or their study of it",
        lambda t: bool(sensitive.CARE_WORK.search(t)),
        "care_work",
    ),
    (
        "precise location (sensitive_words.json, sensitive._PATTERNS)",
        "a street address, postcode, or the code or key to a home",
        lambda t: "precise_location" in sensitive.categories(t),
        "precise_location",
    ),
    (
        "diary requests (need._AGENDA)",
        "a request about the user's own diary for a period",
        lambda t: bool(need._AGENDA.search(t)),
        "agenda_request",
    ),
    (
        "animal allergies (need._ANIMAL_ALLERGY)",
        "an allergy to an animal",
        lambda t: bool(need._ANIMAL_ALLERGY.search(t)),
        "animal_allergy",
    ),
    (
        "meals (need._MEAL)",
        "a request for food to cook, bring or eat",
        lambda t: bool(need._MEAL.search(t)),
        "meal_request",
    ),
    (
        "a faith's diet law (need._DIET_LAW)",
        "a rule of what someone eats that a faith sets",
        lambda t: bool(need._DIET_LAW.search(t)),
        "diet_law",
    ),
    (
        "code requests (personal._CODE)",
        "a request for a program, or in a programming language",
        personal.asks_for_code,
        "code_request",
    ),
    (
        "changes of home, job or car (need._CHANGE, need.changed)",
        "a statement that the user's own home, job or car changed, as something done",
        lambda t: any(need.changed(t, slot, "2026-12-01T10:00:00Z") for slot in need.ONE_AT_A_TIME),
        "change_statement",
    ),
    (
        "a faith's practices (sensitive_words.json faiths)",
        "a request that names a practice or festival of a faith",
        lambda t: bool(sensitive.practices_named(t)),
        "faith_practice",
    ),
    (
        "plans of a place to go (sensitive_words.json access_needs, need.plans_a_journey)",
        "a request to choose, plan or book a place to go or a journey",
        need.plans_a_journey,
        "access_request",
    ),
    (
        "access needs (sensitive_words.json access_needs, sensitive.has_an_access_need)",
        "a memory that someone has or uses an aid to get about, or needs help to",
        sensitive.has_an_access_need,
        "access_need",
    ),
    (
        "whether I may drink (need._DRINK, need._MAY_I)",
        "a request whether, or how much, the user may drink alcohol",
        need.asks_to_drink,
        "drink_request",
    ),
    (
        "whether I may take a medicine (need._REMEDY, need._MAY_I_TAKE)",
        "a request whether the user may take a medicine or supplement, or what they can take",
        need.asks_to_take,
        "take_request",
    ),
    (
        "a symptom or a worry about someone's body (need._SYMPTOM, need.describes_symptom)",
        "a request that tells of a symptom or a worry about someone's body",
        need.describes_symptom,
        "symptom_request",
    ),
    (
        "a condition someone has (need._CONDITION, need.states_a_condition)",
        "a memory that says what condition someone has",
        need.states_a_condition,
        "condition_statement",
    ),
    (
        "a condition that shapes all life with someone (need._SHAPING)",
        "a memory that says someone lives with a condition that shapes everything done with them",
        need.states_a_shaping_condition,
        "shaping_condition",
    ),
    (
        "can I make it then (need._CAN_I_MAKE_IT, need.asks_if_i_can_make_it)",
        "a request whether the user can make, fit in or take on something at a time",
        need.asks_if_i_can_make_it,
        "can_i_make_it",
    ),
    (
        "guests at the user's table (need._HOSTING)",
        "a meal request that has guests eat with the household",
        lambda t: bool(need._HOSTING.search(t)),
        "hosting",
    ),
    (
        "what a pet may eat (need._PET_MAY_HAVE)",
        "a request whether a pet may eat or have something",
        lambda t: bool(need._PET_MAY_HAVE.search(t)),
        "pet_may_have",
    ),
    (
        "who minds the pet while we're away (need._MINDING_THE_PET, need.minds_a_pet_away)",
        "a request about the pet's care while the household is away",
        need.minds_a_pet_away,
        "minding_the_pet",
    ),
    (
        "an arrangement for minding the pet (need._MINDS_IT)",
        "a memory of who minds the pet while the household is away",
        lambda t: bool(need._MINDS_IT.search(t)),
        "minds_the_pet",
    ),
    (
        "a day of my week (need._MY_WEEKDAY)",
        "a request about a day of the user's own week",
        lambda t: bool(need._MY_WEEKDAY.search(t)),
        "my_weekday",
    ),
    (
        "a stay away overnight (need._OVERNIGHT)",
        "a plan that keeps the household away overnight",
        lambda t: bool(need._OVERNIGHT.search(t)),
        "overnight_plan",
    ),
    (
        "a place of worship's hall as a venue (sensitive._A_HALL)",
        "a memory whose only faith word is the hall a group meets in",
        lambda t: bool(sensitive._A_HALL.search(t)) and "religion" not in sensitive.categories(t),
        "venue_hall",
    ),
    (
        "more of a medicine (need._REFILL, need.asks_for_more_medicine)",
        "a request to get more of a medicine",
        need.asks_for_more_medicine,
        "refill",
    ),
    (
        "who prescribes (need._PRESCRIBER)",
        "a memory of the user's GP, pharmacy or how they order prescriptions",
        lambda t: bool(need._PRESCRIBER.search(t)),
        "prescriber",
    ),
    (
        "my career (need._CAREER, need.asks_about_my_career)",
        "a request about the user's own career",
        need.asks_about_my_career,
        "career_request",
    ),
    (
        "what I do at work (need._CAREER_FACT)",
        "a memory of the user's own job, current work or career aim",
        lambda t: bool(need._CAREER_FACT.search(t)),
        "career_fact",
    ),
    (
        "a pet's diet (need._PET_DIET)",
        "a memory of what a pet must not eat or is fed",
        lambda t: bool(need._PET_DIET.search(t)),
        "pet_diet",
    ),
    (
        "getting ready for a trip on paper (need._A_TRIP, need._PAPERWORK, need.readies_a_trip)",
        "a request that readies a trip of the user's own: documents, visas, what to sort",
        need.readies_a_trip,
        "readies_a_trip",
    ),
    (
        "a travel document's state (need._TRAVEL_DOCUMENT, need._A_PAYMENT_CARD, need._DOCUMENT_STATUS)",
        "a memory of a household travel document: a passport, visa or ESTA and how it stands",
        lambda t: bool(
            need._TRAVEL_DOCUMENT.search(t) and not need._A_PAYMENT_CARD.search(t) and need._DOCUMENT_STATUS.search(t)
        ),
        "travel_document",
    ),
    (
        "what the money allows (need._ASKS_WHAT_IT_ALLOWS)",
        "a request what the user can afford, has left, owes or may save",
        lambda t: bool(need._ASKS_WHAT_IT_ALLOWS.search(t)),
        "asks_what_it_allows",
    ),
    (
        "what comes in or is put by (need._INCOME, need._SAVINGS)",
        "a memory of the user's income or savings",
        lambda t: bool((need._INCOME.search(t) or need._SAVINGS.search(t)) and need.states_my_money(t)),
        "income_or_savings",
    ),
    (
        "a drink in a request (need._A_DRINK_ASKED)",
        "a request with a drink, a bar or a party in it (for a constraint on drink alone)",
        lambda t: bool(need._A_DRINK_ASKED.search(t)),
        "drink_asked",
    ),
    (
        "a household role without 'my' (people._BARE_ROLE)",
        "a request that opens with someone of the user's household, 'my' dropped",
        lambda t: bool(people._BARE_ROLE.search(t)),
        "bare_role",
    ),
    (
        "when in my day (need._WHEN_IN_MY_DAY, need.asks_when_in_my_day)",
        "a request when in the user's own day to do something",
        need.asks_when_in_my_day,
        "when_in_my_day",
    ),
    (
        "my day's times (need._TIME_OF_MY_DAY, need.states_my_day)",
        "a memory that says when the user's own day holds something, again and again",
        need.states_my_day,
        "my_day",
    ),
    (
        "a tool's work in a task (tech_terms.json, need.tools_asked, need.names_a_tool)",
        "a technical task and a memory of the user's tools (task || memory): the memory names a tool the task's work is done with",
        lambda t: need.names_a_tool(t.split(" || ")[1], need.tools_asked(t.split(" || ")[0])),
        "tool_work",
    ),
    (
        "help with a task of theirs (need._HELPING_WITH, need._FOR_THEIR_OWN, need.helps_with_their_task)",
        "a request for help with someone's task that is not their learning or day, or for someone of theirs",
        need.helps_with_their_task,
        "their_task",
    ),
    (
        "a request about my car (vehicles._ASKED, vehicles.asks_about_a_vehicle)",
        "a request about a car or van of the user's household, or its tyres, brakes or papers",
        vehicles.asks_about_a_vehicle,
        "vehicle_request",
    ),
    (
        "what the household drives (vehicles._DRIVES, vehicles._A_VEHICLE, vehicles.names_driven)",
        "a memory that says what car or van the user or their household drives now, by its make or model",
        lambda t: bool(vehicles.names_driven([t])),
        "drives",
    ),
    (
        "my medicines named as mine (need._MY_MEDICINES, need.names_my_medicines)",
        "a request that speaks of the user's own medicines as theirs",
        need.names_my_medicines,
        "my_medicines",
    ),
    (
        "a meal for a time ahead (need._MEAL_AHEAD)",
        "a meal asked about for a time ahead: the asker's own",
        lambda t: bool(need._MEAL_AHEAD.search(t)),
        "meal_ahead",
    ),
    (
        "a medicine offered to me (need._OFFERED, need.offered_a_medicine)",
        "a request saying a doctor, dentist or pharmacist offers the user a medicine",
        need.offered_a_medicine,
        "offered_medicine",
    ),
    (
        "a condition a medicine is risky with (medicines._CLASSES, medicines.turns_on)",
        "a memory holding a condition a medicine the request names is risky with",
        lambda t: medicines.turns_on(*t.split(" || ")),
        "risky_condition",
    ),
    (
        "whether, what or where I may eat (need._MAY_I_EAT, need._SAFE_FOR_ME)",
        "a request whether something is safe for the user to eat or drink, or what or where they may eat",
        need.asks_to_eat,
        "eat_request",
    ),
    (
        "someone called by their role (personal._THE_ROLE)",
        "a request about a particular person in the user's life named by role",
        lambda t: bool(personal._THE_ROLE.search(t)),
        "the_role",
    ),
    (
        "a language named to do it in (personal._LANGUAGE, personal.names_its_language)",
        "a request that names the programming language or framework to do it in",
        personal.names_its_language,
        "language_named",
    ),
    (
        "something physical I plan (body._EXERTION, body._DRIVING, body._AWAY, body._WATER, body.activities)",
        "a request that plans something physical the user does: exercise, a drive, a trip to get ready for, water",
        lambda t: bool(body.activities(t)),
        "body_activity",
    ),
    (
        "a condition what I plan must respect (body._CONDITIONS, body.turns_on)",
        "a memory holding a condition or aid that what the request plans must respect",
        lambda t: body.turns_on(*t.split(" || ")),
        "body_condition",
    ),
    (
        "training for a sport (body._TRAINING, body.asks_to_train)",
        "a request that plans training for, or getting better at, a sport",
        body.asks_to_train,
        "training_request",
    ),
    (
        "running as a sport (body.PURSUITS['running'])",
        "a memory that speaks of running as a sport",
        lambda t: "running" in body.pursuits(t),
        "running_memory",
    ),
    (
        "a symptom named (body._SYMPTOMS, body._JOINT_HURTS, body.names_a_symptom)",
        "a request that names a symptom someone may feel",
        body.names_a_symptom,
        "symptom_named",
    ),
    (
        "a condition a symptom may come from (body._SYMPTOMS, body.may_explain)",
        "a memory holding a condition the symptom may come from, or an injury of the joint that hurts",
        lambda t: body.may_explain(*t.split(" || ")),
        "symptom_condition",
    ),
    (
        "medicines taken (need._TAKES)",
        "a memory that someone takes a medicine",
        need.takes_a_medicine,
        "medicine_statement",
    ),
    (
        "what a kind of thing is (inject._DEFINITION)",
        "a question asking what a kind of thing is or a word means, not about anyone",
        lambda t: bool(inject._DEFINITION.match(t)) and not personal.says_its_own(t),
        "definition_question",
    ),
    (
        "the doer of a how-to (personal._HOW_DO_I)",
        "a how-to whose I or we is anyone who would do it, not a clue to the user's own facts",
        lambda t: personal.says_its_own(t) and not personal.says_more_than_how_to(t),
        "how_to_doer",
    ),
    (
        "questions in general (personal._IN_GENERAL)",
        "a question about what is usual for people at large, not the user",
        personal.asks_in_general,
        "in_general_request",
    ),
    (
        "you as anyone (personal._ANYONE_YOU)",
        'a question whose "you" is anyone who would do it, not the assistant asked to do something',
        lambda t: bool(personal._ANYONE_YOU.search(t)) and not personal.says_its_own(t),
        "anyone_you",
    ),
    (
        "an instruction to the assistant (kinds._IMPERATIVE, kinds._WHEN_YOU, kinds.is_instruction)",
        "a memory that tells the assistant how to work, kept as a rule and sent with every call",
        kinds.is_instruction,
        "instruction",
    ),
    (
        "a request to explain a thing of the world (inject._EXPLAINS)",
        "a request to explain or describe something of the world, not the user's own case: it gets no private matter",
        lambda t: inject._EXPLAINS.match(t) is not None,
        "explain_request",
    ),
    (
        "a question for someone else (personal._SOMEONE_ELSE, personal.asks_for_someone_else)",
        "a request about someone else's case, saying nothing of the user's own beyond passing it on",
        personal.asks_for_someone_else,
        "for_someone_else",
    ),
    (
        "a lookup of one's own fact (personal._LOOKUP, personal.asks_for_own_fact)",
        "a short question that asks for one stored fact of the user's, not for ideas, a how-to or the world",
        personal.asks_for_own_fact,
        "own_fact_lookup",
    ),
    (
        "a message to write (need._MESSAGE_TO_WRITE, need.writes_a_message)",
        "a text to write for others that does not carry the food itself: no household diet",
        need.writes_a_message,
        "message_to_write",
    ),
    (
        "a reason not to drink (need._NOT_DRINKING, need.says_i_dont_drink)",
        "a memory that says the user does not drink alcohol, or must not now",
        need.says_i_dont_drink,
        "not_drinking",
    ),
    (
        "a moment recalled (turn._MOMENT, turn.recalls_a_moment)",
        'what follows "remember (that)" names a moment of the past, not something to keep',
        turn.recalls_a_moment,
        "recalls_a_moment",
    ),
    (
        "small talk (capture.turns._SMALL_TALK)",
        "a message with nothing to keep",
        lambda t: bool(_SMALL_TALK.match(t)),
        "small_talk",
    ),
]


def measures() -> list[Measure]:
    memories = [m for p in JUDGEMENT["profiles"] for m in p["memories"]]
    cases = [c for p in JUDGEMENT["profiles"] for c in p["cases"]]
    out = [
        _measure(
            "sensitive memory words (sensitive_words.json)",
            "a memory the person marked sensitive (judgement set)",
            lambda t: bool(sensitive.categories(t) - {"children"}),
            ((m["text"], bool(m.get("sensitive"))) for m in memories),
        ),
        _measure(
            "first-person cues (personal._PERSONAL)",
            "a request that needs the person's memories (judgement set)",
            lambda t: bool(personal._PERSONAL.search(t)),
            ((c["prompt"], "need" in c) for c in cases),
        ),
    ]
    out += [_measure(name, what, fires, _yes_no(LABELLED[block])) for name, what, fires, block in YES_NO]
    for category, block in LABELLED["message_cues"].items():
        out.append(
            _measure(
                f"message cues: {category} (sensitive_words.json)",
                f"a request about {category.replace('_', ' ')}",
                lambda t, c=category: c in sensitive.topics(t),
                _yes_no(block),
            )
        )
    return out


def table(rows: list[Measure]) -> str:
    lines = ["| word list | fires on | examples | fired | precision | recall |", "|---|---|---:|---:|---:|---:|"]
    for m in rows:
        lines.append(f"| {m.name} | {m.what} | {m.examples} | {m.fired} | {m.precision:.2f} | {m.recall:.2f} |")
    return "\n".join(lines)
