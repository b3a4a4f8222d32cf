"""Memory brings back only what helps: the relevance gate, state-consistent and need-to-know injection.

End to end through the real SDK and the local Messages-API server: what each request's system
prompt holds is read from what the server received. The real bundled model ranks (retrieval).
"""

import json
import sqlite3

import pytest
from conftest import db_rows

from memchat import sessions
from memchat.db import open_db
from memchat.memory.store.memories import MemoryStore

UNRELATED = [
    "Why is the sky blue?",
    "How do I reverse a list in Python?",
    "What is the capital of Australia?",
    "Explain the difference between TCP and UDP.",
    "Write a haiku about autumn.",
    "How many grams are in a pound?",
]

PERSONAL_HISTORY = [
    "I adopted a grey cat called Pixel last spring; she hates the vacuum cleaner.",
    "Our team is migrating the billing service from MySQL to PostgreSQL 16 this quarter.",
    "My daughter Mia starts primary school in September and she is nervous about it.",
    "I painted the living room a deep blue colour last weekend, it looks great.",
    "We went camping by Lake Bled and saw the sky full of stars.",
]


def system_of(api) -> str:
    return api.requests[-1].get("system", "")


def memory_lines(system: str) -> list[str]:
    """The bullet lines of the memory block, by section title."""
    if "<memory>" not in system:
        return []
    block = system[system.index("<memory>") : system.index("</memory>")]
    return [line for line in block.splitlines() if line.startswith("- ")]


def retrieved_sections(system: str) -> set[str]:
    return {t for t in ("## What I know about you", "## Coming up", "## What happened before") if t in system}


@pytest.fixture
def profile(cli, api, real_encoder, memchat_home):
    """A profile with history: facts, a pinned fact, a rule, and several past conversations."""
    store = MemoryStore(open_db(memchat_home / "default.db"))
    store.add("The user's dentist is Dr. Okafor.", kind="fact", origin="stated")
    store.add("The user's laptop is a ThinkPad X1 with 32 GB of memory.", kind="fact", origin="stated")
    store.add("The user's favourite tea is Earl Grey.", kind="fact", origin="stated", pinned=True)
    store.add("Answer in British English.", kind="rule", origin="stated")
    for line in PERSONAL_HISTORY:
        assert cli("ask", line).exit_code == 0
    return store


def test_an_unrelated_prompt_gets_pins_and_rules_and_nothing_else(cli, api, profile):
    for prompt in UNRELATED:
        assert cli("ask", prompt).exit_code == 0
        system = system_of(api)
        assert "Answer in British English." in system and "Earl Grey" in system  # always sent
        assert retrieved_sections(system) == set(), f"{prompt!r} got: {memory_lines(system)}"


def test_a_related_prompt_gets_what_helps(cli, api, profile):
    assert cli("ask", "What is my cat called again?").exit_code == 0
    assert "Pixel" in system_of(api)
    assert cli("ask", "Which database are we migrating the billing service to?").exit_code == 0
    system = system_of(api)
    assert "PostgreSQL 16" in system
    # facts are not retrieved just because they fit (the laptop may be in "About you": the profile's card)
    retrieved = system.split("## About you")[0] + "".join(system.split("## About you")[1:]).partition("\n## ")[2]
    assert "Okafor" not in system and "ThinkPad" not in retrieved


def test_the_current_value_wins_over_a_superseded_one(cli, api, real_encoder, memchat_home):
    db = open_db(memchat_home / "default.db")
    store = MemoryStore(db)
    for text in ("I live in Berlin, in a flat near the Spree.", "Berlin is lovely in the summer, I live here."):
        assert cli("ask", text).exit_code == 0
    first = sessions.latest_session(db)
    source = [m.id for m in sessions.messages(db, first.id) if m.role == "user"]
    store.add("The user lives in Berlin.", key="user.city", value="Berlin", origin="stated", source_message_ids=source)
    assert cli("ask", "I moved from Berlin to Lisbon last month.").exit_code == 0
    store.add("The user lives in Lisbon.", key="user.city", value="Lisbon", origin="stated")
    for question in ("Where do I live?", "Which city do I live in now? I live near the river, right?"):
        assert cli("ask", question).exit_code == 0
        lines = memory_lines(system_of(api))
        assert any("Lisbon" in line for line in lines), (question, lines)
        for line in lines:  # Berlin only ever appears marked as the earlier value, beside the current one
            if "Berlin" in line and "moved from Berlin to Lisbon" not in line:
                assert "(earlier; now: The user lives in Lisbon.)" in line, line


def test_a_pending_guess_and_its_source_line_never_reach_a_request(cli, api, real_encoder, memchat_home):
    db = open_db(memchat_home / "default.db")
    assert cli("ask", "I've been so stressed I can't sleep, work is crazy.").exit_code == 0
    source = [m.id for m in sessions.messages(db, 1) if m.role == "user"]
    pending = MemoryStore(db).add(
        "The user may have an anxiety disorder.",
        kind="fact",
        origin="inferred",
        sensitive=True,
        source_message_ids=source,
    )
    assert pending.status == "pending"
    for prompt in (
        "How should I plan the weekend?",
        "I can't sleep again, any tips for sleeping better?",
        "Why am I so stressed at work?",
    ):
        assert cli("ask", prompt).exit_code == 0
        system = system_of(api)
        assert "anxiety" not in system and "so stressed I can't sleep" not in system, prompt


def test_a_passport_number_reaches_a_request_about_travel_documents_and_no_other(cli, api, real_encoder):
    assert cli("memories", "add", "My passport number is X4419027, it expires in 2029.").exit_code == 0
    assert cli("ask", "What travel documents do I need for Japan? Is my passport still valid?").exit_code == 0
    assert "X4419027" in system_of(api)
    for prompt in (
        "How should I plan the weekend?",
        "Write me a packing list for a beach holiday.",
        "What's a good number of hours to sleep?",
        "Recommend a book about Japan.",
    ):
        assert cli("ask", prompt).exit_code == 0
        assert "X4419027" not in system_of(api), prompt


def test_what_was_forgotten_is_never_sent_even_from_the_kept_transcript(cli, api, real_encoder, memchat_home):
    assert cli("ask", "Remember that my gym locker code is 4417.").exit_code == 0
    assert cli("ask", "Also my bike lock code is 4417 too, same digits.").exit_code == 0  # a mention, not the source
    (memory_id,) = [r[0] for r in db_rows(memchat_home, "SELECT id FROM memories WHERE status = 'active'")]
    assert cli("memories", "forget", str(memory_id), "--yes").exit_code == 0
    assert cli("ask", "What is my gym locker code?").exit_code == 0
    assert "4417" not in system_of(api)
    # Both messages and both replies quote the code: none of them is sent again.
    assert db_rows(memchat_home, "SELECT count(*) FROM withheld_messages") == [(4,)]


def test_a_message_that_leans_on_the_last_turn_finds_its_subject(cli, api, real_encoder):
    assert cli("memories", "add", "My sister Ana works as a paediatric nurse in Porto.").exit_code == 0
    assert cli("memories", "add", "My brother Tom flies cargo planes for a living.").exit_code == 0
    assert cli("ask", "I want to visit my sister Ana next month.").exit_code == 0
    assert cli("ask", "-c", "and what does she do?").exit_code == 0
    system = system_of(api)
    assert "paediatric nurse" in system


def test_recall_shows_the_nearest_match_marked_weak_and_min_score_filters(cli, real_encoder):
    empty = cli("recall", "Falcon")
    assert empty.exit_code == 0 and empty.stdout == "" and "memory is empty" in empty.stderr
    assert json.loads(cli("recall", "Falcon", "--json").stdout) == []
    cli("memories", "add", "The staging server is called Kestrel.")
    weakest = json.loads(cli("recall", "Falcon", "--json").stdout)
    assert [(h["text"], h["weak"]) for h in weakest] == [("The staging server is called Kestrel.", True)]
    table = cli("recall", "Falcon")
    assert "weak" in table.stdout and "Kestrel" in table.stdout
    assert json.loads(cli("recall", "Falcon", "--min-score", "0", "--json").stdout) == weakest
    assert json.loads(cli("recall", "Falcon", "--min-score", "0.5", "--json").stdout) == []
    strict = cli("recall", "Falcon", "--min-score", "0.5")
    assert strict.stdout == "" and "nothing in memory reaches relevance 0.5; the nearest is fact" in strict.stderr
    assert "Kestrel" in strict.stderr
    found = json.loads(cli("recall", "what is the staging server called?", "--json").stdout)
    assert found[0]["text"] == "The staging server is called Kestrel." and 0 < found[0]["score"] <= 1


def test_context_shows_the_memory_section_that_why_lists(cli, api, real_encoder, memchat_home):
    cli("memories", "add", "Answer with short paragraphs.", "--kind", "rule")
    cli("memories", "add", "The user's staging server is called Kestrel.")
    before = json.loads(cli("context", "--json").stdout)
    assert before["memory"] > 0 and before["memory_items"] == {"rules": 1}  # what every call carries
    script = "What is our staging server called?\n/why\n/context\n"
    out = cli("chat", input=script).stdout
    why = json.loads(cli("ask", "--explain", "--json", "-c", "And the staging server's name once more?").stdout)
    sent = why["memory"]
    assert {i["section"] for i in sent} == {"rules", "facts"}
    after = json.loads(cli("context", "--json").stdout)
    assert after["memory_items"] == {"rules": 1, "facts": 1} and after["memory_of"] == "the last call"
    (stored,) = db_rows(memchat_home, "SELECT memory FROM messages WHERE role = 'user' ORDER BY id DESC LIMIT 1")
    assert 0 < after["memory"] == json.loads(stored[0])["tokens"]  # the section the last call carried
    assert "Kestrel" in out and "memory section: 1 rule, 1 fact, as in the last call" in out


def test_sessions_own_messages_do_not_crowd_out_the_past(cli, api, real_encoder, memchat_home):
    # A question repeated in the same chat finds the earlier session's answer, not itself.
    assert cli("ask", "The Wi-Fi password at the cabin is on the fridge door.").exit_code == 0
    assert cli("ask", "Where is the cabin Wi-Fi password?").exit_code == 0
    assert cli("ask", "-c", "Where is the cabin Wi-Fi password, again?").exit_code == 0
    assert "on the fridge door" in system_of(api)


def test_numbers_and_politeness_do_not_make_a_general_question_personal(cli, api, real_encoder):
    """A question about no one gets nothing: not for a number it shares ("2" and "type 2 diabetes"),
    nor for asking politely ("can you tell me ..."), nor for a word that is also a cue of a
    sensitive category ("how does X work?" is not about a conflict at work)."""
    remember(
        cli,
        "I was diagnosed with type 2 diabetes in 2022.",
        "I take sertraline 50mg every morning with breakfast.",
        "I filed an HR complaint for harassment against my manager Klaus at work.",
        "My car is a blue 2015 Toyota Corolla.",
        "I am in recovery from alcohol, 2 years sober now.",
    )
    for prompt in (
        "What is 2+2?",
        "What is 15% of 2022?",
        "Can you tell me the history of the Toyota company?",
        "Could you explain how JSON works in Python to me?",
        "How does a work queue work?",
    ):
        assert cli("ask", prompt).exit_code == 0
        assert retrieved_sections(system_of(api)) == set(), f"{prompt!r} got: {memory_lines(system_of(api))}"
    assert cli("ask", "What car do I drive?").exit_code == 0
    assert "Toyota Corolla" in system_of(api)  # a personal question still gets it
    assert cli("ask", "How do I handle the HR complaint against my manager?").exit_code == 0
    assert "Klaus" in system_of(api)


def test_asking_politely_about_someone_memory_knows_still_finds_them(cli, api, real_encoder):
    """The words of asking ("can you tell me", "do you know") are not what is asked about: they are
    not searched for; a person memory names, however the memory says it, makes a message
    personal when written as a name (a capital), not as a word ("a rose")."""
    remember(
        cli,
        "My friend Jonas builds furniture in his garage.",
        "My brother, Tiago, works as a pilot for TAP.",
        "Klaus is my landlord and he lives downstairs.",
        "My daughter Rose has a peanut allergy.",
    )
    for prompt, expected in (
        ("tell me about Jonas", "builds furniture"),
        ("can you tell me what Tiago does for a living?", "pilot"),
        ("do you know who Klaus is?", "landlord"),
    ):
        assert cli("ask", prompt).exit_code == 0
        assert expected in system_of(api), (prompt, memory_lines(system_of(api)))
    assert cli("ask", "What does a rose symbolise in poetry?").exit_code == 0
    assert "peanut" not in system_of(api)


def test_a_reply_is_as_private_as_the_message_it_answers(cli, api, real_encoder, memchat_home):
    db = open_db(memchat_home / "default.db")
    old = sessions.create_session(db)
    sessions.add_message(db, old.id, "user", "My bank rejected my loan application because of my debt.")
    sessions.add_message(
        db, old.id, "assistant", "Paying down the balance first would improve your chances at the next interview."
    )
    assert cli("ask", "How do I improve my chances in a job interview?").exit_code == 0
    assert "Paying down the balance" not in system_of(api)
    assert cli("ask", "What can I do about my debt and the rejected loan?").exit_code == 0
    assert "rejected my loan" in system_of(api)  # about its category: it goes, with its reply


def test_a_reminder_is_a_task_not_a_rule_for_every_call(cli, api, real_encoder):
    assert cli("memories", "add", "Remember to renew my passport X1234567 before March").exit_code == 0
    assert cli("memories", "add", "Remember to answer in metric units").exit_code == 0
    kinds = {m["text"]: m["kind"] for m in json.loads(cli("memories", "list", "--json").stdout)}
    assert kinds == {"renew my passport X1234567 before March": "event", "answer in metric units": "rule"}
    assert cli("ask", "Why is the sky blue?").exit_code == 0
    assert "X1234567" not in system_of(api) and "answer in metric units" in system_of(api)
    assert cli("ask", "What do I need to do about my passport?").exit_code == 0
    assert "X1234567" in system_of(api)


def test_forgetting_withholds_the_replies_to_every_message_that_mentions_it(cli, api, real_encoder, memchat_home):
    db = open_db(memchat_home / "default.db")
    old = sessions.create_session(db)
    sessions.add_message(db, old.id, "user", "Big news: my sister Ana is pregnant with twins!")
    sessions.add_message(db, old.id, "assistant", "Congratulations! When is she due?")
    sessions.add_message(db, old.id, "user", "Biscuit chewed my shoes again this morning.")
    sessions.add_message(db, old.id, "assistant", "Puppies chew when they are teething; try a frozen toy.")
    assert cli("memories", "add", "My sister Ana is pregnant with twins").exit_code == 0
    assert cli("memories", "add", "Biscuit is my dog's name").exit_code == 0
    assert cli("memories", "forget", "1", "--yes").exit_code == 0
    assert cli("memories", "forget", "2", "--yes").exit_code == 0
    for prompt in ("Any news about my sister? When is she due?", "My dog keeps chewing my shoes, any tips?"):
        assert cli("ask", prompt).exit_code == 0
        system = system_of(api)
        assert not {"twins", "Congratulations", "Biscuit", "teething", "frozen"} & set(
            system.replace("!", " ").split()
        ), prompt


def test_what_an_old_value_led_to_is_marked_earlier_too(cli, api, real_encoder, memchat_home):
    """The reply to "I live in Berlin, in Kreuzberg" is as out of date as the message; and a fact kept
    under a key without a value ("I work at Nordwind") marks the messages that name it."""
    db = open_db(memchat_home / "default.db")
    old = sessions.create_session(db)
    sessions.add_message(db, old.id, "user", "I live in Berlin now, my flat is in Kreuzberg.")
    sessions.add_message(db, old.id, "assistant", "Kreuzberg is a lively neighbourhood with great food.")
    sessions.add_message(db, old.id, "user", "I work at Nordwind as a data engineer.")
    for text, key, value in (
        ("I live in Berlin", "user.city", "Berlin"),
        ("I live in Lisbon", "user.city", "Lisbon"),
        ("I work at Nordwind", "user.employer", None),
        ("I work at Zalando", "user.employer", None),
    ):
        args = ["memories", "add", "--key", key] + (["--value", value] if value else []) + ["--", text]
        assert cli(*args).exit_code == 0
    for prompt, current in (
        ("What neighbourhood do I live in?", "I live in Lisbon"),
        ("Where do I work as a data engineer?", "I work at Zalando"),
    ):
        assert cli("ask", prompt).exit_code == 0
        for line in memory_lines(system_of(api)):
            if "Kreuzberg" in line or "Nordwind" in line:
                assert f"(earlier; now: {current})" in line, line


# --- the parts, one by one ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, start, end",
    [
        ("What did I cook in December 2023?", "2023-12-01", "2023-12-31"),
        ("the talk on October 13, 2023", "2023-10-13", "2023-10-13"),
        ("on 1 February, 2023 we met", "2023-02-01", "2023-02-01"),
        ("notes from 2024-03-05", "2024-03-05", "2024-03-05"),
        ("what happened yesterday?", "2026-06-09", "2026-06-09"),
        ("last month's invoices", "2026-05-01", "2026-05-31"),
        ("the trip last year", "2025-01-01", "2025-12-31"),
        ("in March we moved", "2026-03-01", "2026-03-31"),
        ("in November we moved", "2025-11-01", "2025-11-30"),  # the most recent November
        ("three days ago", "2026-06-06", "2026-06-08"),
    ],
)
def test_dates_and_periods_named_in_a_message(text, start, end):
    from datetime import date

    from memchat.memory.recall.dates import period_in

    period = period_in(text, today=date(2026, 6, 10))
    assert period is not None and (period.start.isoformat(), period.end.isoformat()) == (start, end)


@pytest.mark.parametrize(
    "text, start, end",
    [
        ("What should I pack for my February trip?", "2027-02-01", "2027-02-28"),
        ("I'm presenting next month, help me prepare", "2026-11-01", "2026-11-30"),
        # a part of it is that third of it: the gig on the 28th, not the on-call week from the 9th
        ("the deadline at the end of next month", "2026-11-21", "2026-11-30"),
        ("a long weekend early December?", "2026-12-01", "2026-12-11"),
        ("somewhere warm mid-winter", "2026-12-30", "2027-01-30"),
        ("Who feeds the cat over the holidays?", "2026-12-15", "2027-01-06"),
        ("Ideas for our festive trip", "2026-12-15", "2027-01-06"),
        ("Where should we go at Easter?", "2027-03-19", "2027-04-05"),  # Easter Sunday 2027 is 28 March
        ("Plans for tomorrow?", "2026-10-29", "2026-10-29"),
        ("What's on this weekend?", "2026-10-31", "2026-11-01"),
        ("training plan for this winter", "2026-12-01", "2027-02-28"),
        ("a trip in November", "2026-11-01", "2026-11-30"),
        ("a picnic in October", "2026-10-28", "2026-10-31"),  # what is left of this month
        # a day told by its distance from today, as people say it (set 13: "the day after tomorrow"
        # was read as tomorrow, and "a week from today", "in a fortnight" as no day at all)
        ("am i free after lunch the day after tomorrow", "2026-10-30", "2026-10-30"),
        ("what's on for me a week from today", "2026-11-04", "2026-11-04"),
        ("can we do dinner this time next week", "2026-11-04", "2026-11-04"),
        ("anything on in a fortnight", "2026-11-11", "2026-11-11"),
        ("am i free a week on friday", "2026-11-06", "2026-11-06"),  # as "friday week"
        ("the weekend looks packed, what have we got", "2026-10-31", "2026-11-01"),
    ],
)
def test_the_period_ahead_a_request_names(text, start, end):
    from datetime import date

    from memchat.memory.recall.dates import coming_period

    period = coming_period(text, date(2026, 10, 28))
    assert period is not None and (period.start.isoformat(), period.end.isoformat()) == (start, end)


@pytest.mark.parametrize(
    "text",
    [
        "May I ask you something?",
        "What did we do in February?",
        "Photos from last June",
        "How do I pack a tent?",
        "Ideas for June's party?",
        "Plan the end of year party",
        "What did we do at the weekend?",
    ],
)
def test_no_period_ahead_where_there_is_none(text):
    from datetime import date

    from memchat.memory.recall.dates import coming_period

    assert coming_period(text, date(2026, 10, 28)) is None


def _plans_of(memchat_home, embedder, memories: tuple[str, ...]):
    """A profile of `memories`, kept on 2026-10-01; what a prompt's section holds as its plan on
    2026-10-28 (items whose reason is "plan ..."), with their sections."""
    from datetime import date

    from memchat.memory.judge import inject
    from memchat.memory.recall import index

    db = open_db(memchat_home / "default.db")
    store = MemoryStore(db)
    for text in memories:
        store.add(text, created_at="2026-10-01T10:00:00.000000Z")
    index.catch_up(db, embedder)

    def planned(prompt: str) -> list[tuple[str, str]]:
        section = inject.build(db, prompt, embedder=embedder, budget=1500, count=len, today=date(2026, 10, 28))
        return [(i.text, i.section) for i in section.items if i.reason.startswith("plan")]

    return planned


def test_a_request_naming_a_period_ahead_gets_the_plan_for_it(memchat_home, embedder):
    plans = _plans_of(
        memchat_home,
        embedder,
        (
            "I'm off to Reykjavik with Sam from 2027-02-12 to 2027-02-16",
            "My dentist check-up is on 2026-11-03",
            "The car's MOT is due on 2027-03-20",
            "I'm a structural engineer",
            "I love hot springs and long hikes",
        ),
    )

    def planned(prompt: str) -> list[str]:
        return [text for text, _ in plans(prompt)]

    february = planned("What should I pack for my February trip?")
    assert len(february) == 1 and "Reykjavik" in february[0]  # the one plan in February, not the dentist's
    assert planned("What should I pack for a weekend away?") == []  # no period named
    assert planned("How should I train for my hikes this winter?") == []  # a season is too wide to pick one
    assert planned("How does the MOT work in general?") == []  # a general question
    assert planned("Help me plan my February budget") == []  # in the period, but not what it is about


def test_my_trip_with_no_period_named_is_the_next_one_memory_holds(memchat_home, embedder):
    """ "What should I pack for my trip?" names no month, but "my trip" is the next trip memory holds,
    and "our last holiday" the latest one (found on an adversarial walk: neither was sent)."""
    plans = _plans_of(
        memchat_home,
        embedder,
        (
            "We flew to Crete on 2026-08-02",  # over: a trip that was, not the next one
            "We're flying to Lisbon on 2027-03-14",
            "I'm off to Reykjavik with Sam from 2027-02-12 to 2027-02-16",
            "We're going to Kyoto on 2028-04-01",  # too far ahead to be what "my trip" means
            "My dentist check-up is on 2026-11-03",
            "I'm a structural engineer",
        ),
    )
    for prompt in (
        "What should I pack for my trip?",
        "Any tips for our upcoming holiday?",
        "How early should I get to the airport for my flight?",
    ):
        found = plans(prompt)
        assert len(found) == 1 and "Reykjavik" in found[0][0], (prompt, found)  # the soonest of the two ahead
    assert plans("How do I plan a trip to Japan?") == []  # a trip, not the user's
    assert plans("Write a function that books the trip for a user") == []  # about no one
    last = plans("How was our last holiday?")
    assert len(last) == 1 and "Crete" in last[0][0] and last[0][1] != "plans"  # the latest, told as past


def test_a_trip_for_a_birthday_is_a_plan_and_the_birthday_itself_comes_round_every_year(memchat_home, embedder):
    # "for my dad's birthday" does not make a trip with its year a yearly thing; "Dad's birthday is
    # 12 January" with no year is one, and is no plan of January's
    plans = _plans_of(
        memchat_home,
        embedder,
        (
            "We're flying to Malaga from 9 to 16 January 2027 for my dad's birthday",
            "Dad's birthday is 12 January",
            "I'm a structural engineer",
        ),
    )
    found = plans("What should I pack for my trip?")
    assert len(found) == 1 and "Malaga" in found[0][0], found
    assert all("Dad's birthday is" not in text for text, _section in plans("What's on in January?"))


@pytest.mark.parametrize("text", ["I may come", "version 2.0", "the 31st of Nevermber 2023", "February 30, 2023"])
def test_no_period_where_there_is_none(text):
    from memchat.memory.recall.dates import period_in

    assert period_in(text) is None


def test_recall_ranks_the_named_period_first(db, fake_embedder):
    from memchat.importer import ImportedMessage, ImportedSession, import_sessions
    from memchat.memory.recall.search import recall

    sessions_ = [
        ImportedSession(
            "jsonl", label, label, [ImportedMessage(label, "user", "I cooked a mushroom risotto tonight", when)]
        )
        for label, when in (("dec", "2023-12-14T19:00:00.000000Z"), ("jan", "2024-01-20T19:00:00.000000Z"))
    ]
    import_sessions(db, sessions_)
    first = recall(db, "what did I cook in December 2023?", fake_embedder, kinds=("message",))[0]
    assert first.when.startswith("2023-12")
    first = recall(db, "what did I cook in January 2024?", fake_embedder, kinds=("message",))[0]
    assert first.when.startswith("2024-01")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("My passport number is X1234567", {"identity_document"}),
        ("I've been so stressed I can't sleep", {"health"}),
        ("My daughter starts school in September", {"children"}),
        ("Our mortgage payment went up again", {"finances"}),
        ("My card is 4111 1111 1111 1111", {"finances"}),
        ("I went to the LGBTQ support group", {"sexual_orientation"}),
        ("I voted in the local election", {"politics"}),
        ("We go to church on Sundays", {"religion"}),
        ("My home address is 12 Rua Augusta", {"precise_location"}),
        ("I love painting sunsets in blue", set()),
        ("print the result to stdout", set()),
        ("my pillow is too soft", set()),
        ("I want to investigate this bug", set()),
        ("Bring photo ID to the polling station", {"identity_document"}),
        ("We lease a VW ID.4", set()),  # a car's name, not a document
        ("My staff ID-20417 opens the car park", {"identity_document"}),
        ("My girlfriend Mae is a chef", set()),  # not "my girl"
        ("Our services talk over RabbitMQ", set()),  # a tool that starts as a word of faith does not
        ("We keep two rabbits in the garden", set()),
        ("Our rabbi retires in June", {"religion"}),
    ],
)
def test_sensitive_categories(text, expected):
    from memchat.memory.judge.sensitive import categories

    assert set(categories(text)) == expected


def test_a_message_is_about_a_category_by_its_words_or_broader_cues():
    from memchat.memory.judge.sensitive import topics

    assert "identity_document" in topics("What do I need for my trip to Japan?")
    assert "children" in topics("What did we do as a family last summer?")
    assert topics("How should I plan the weekend?") == frozenset()
    for general in (
        "How does a hash map work?",
        "brew install homebrew",
        "my lawn needs mowing",
        "a tripod for the newsletter",
    ):
        assert topics(general) == frozenset(), general
    assert "workplace_conflict" in topics("My manager keeps shouting at me")


@pytest.mark.parametrize(
    "word, same",
    [
        ("painting", "painted"),
        ("numbers", "number"),
        ("parties", "party"),
        ("running", "run"),
        ("classes", "class"),
        ("stressed", "stress"),
        ("moved", "move"),
        ("lived", "live"),
    ],
)
def test_the_stemmer_meets_word_forms(word, same):
    from memchat.memory.text import stem

    assert stem(word) == stem(same)


def test_personal_messages_and_impersonal_ones():
    from memchat.memory.judge.personal import about_someone as personal

    assert personal("What is my cat called?", []) and personal("and what does she do?", [])
    assert not personal("Why is the sky blue?", []) and not personal("What is the capital of Australia?", [])
    assert not personal("Can you tell me the history of Toyota?", []) and not personal(
        "Could you explain it to me?", []
    )
    assert personal("What did you tell me about the race?", []) and personal("Do you remember my cat?", [])


def test_a_reply_that_makes_no_sense_alone_brings_its_question(db, fake_embedder):
    from memchat import tokens
    from memchat.memory.judge import inject

    old = sessions.create_session(db)
    sessions.add_message(db, old.id, "user", "Which city should we move to next year, do you think?")
    sessions.add_message(db, old.id, "assistant", "Lisbon, definitely.")
    now = sessions.create_session(db)
    section = inject.build(
        db, "which city should we move to?", embedder=None, budget=1500, count=tokens.count, session_id=now.id
    )
    (item,) = [i for i in section.items if i.section == "history"]
    assert "Which city should we move to" in item.text and "Lisbon, definitely." in item.text
    assert len(item.context_ids) == 1


# A person's own memories and questions that share no word with the memory that answers them.
OWN_MEMORIES = [
    "My daughter Mira plays the cello.",
    "I live in Lisbon.",
    "I'm allergic to penicillin.",
    "My dentist is Dr. Okafor on Rua Augusta.",
    "I drive a blue 2015 Honda Fit.",
    "The wifi password is on the fridge.",
    "We adopted a greyhound, Pixel, last spring.",
    "I work as a backend developer at a logistics startup.",
]
ASKED_IN_OTHER_WORDS = [
    ("what is my kid called?", 0),
    ("what car do I have?", 4),
    ("what instrument does my child practise?", 0),
    ("which antibiotics should I avoid?", 2),
    ("which city is home for me?", 1),
    ("what kind of pet do we have?", 6),
    ("what do I do for a job?", 7),
    ("how do I get online at home?", 5),
]


@pytest.fixture
def own_memories(cli, real_encoder):
    remember(cli, *OWN_MEMORIES)
    return cli


@pytest.mark.parametrize(("question", "answer"), ASKED_IN_OTHER_WORDS, ids=[q for q, _ in ASKED_IN_OTHER_WORDS])
def test_recall_finds_a_memory_asked_for_in_other_words_first(own_memories, question, answer):
    hits = json.loads(own_memories("recall", question, "--json").stdout)
    assert hits and hits[0]["text"] == OWN_MEMORIES[answer]
    assert all(isinstance(h["weak"], bool) and 0 <= h["score"] <= 1 for h in hits)


def test_recall_label_and_injection_bar_are_separate_settings(own_memories, api, monkeypatch):
    question = "what is my kid called?"
    monkeypatch.setenv("MEMCHAT_RECALL_WEAK", "0")  # nothing is weak: recall shows the same hits, unlabelled
    assert not any(h["weak"] for h in json.loads(own_memories("recall", question, "--json").stdout))
    assert own_memories("ask", "why is the sky blue?").exit_code == 0
    assert not any(text in system_of(api) for text in OWN_MEMORIES)  # an off-topic prompt still gets nothing
    monkeypatch.setenv("MEMCHAT_MEMORY_RELEVANCE", "1")  # the injection sends nothing retrieved: recall unmoved
    assert json.loads(own_memories("recall", question, "--json").stdout)[0]["text"] == OWN_MEMORIES[0]


def test_repl_recall_shows_the_best_match_labelled_and_says_when_memory_is_empty(cli, real_encoder):
    empty = cli("--provider", "echo", input="/recall what is my kid called?\n")
    assert "memory is empty" in empty.stdout
    for text in OWN_MEMORIES:
        cli("memories", "add", text)
    out = cli("--provider", "echo", input="/recall what car do I have?\n/recall zebra crossings\n").stdout
    lines = [line for line in out.splitlines() if "#" in line]
    assert lines[0].endswith("I drive a blue 2015 Honda Fit.")
    assert any(" weak " in line for line in lines)  # nothing is about zebras: the nearest, labelled weak


SECRET = "My bank card PIN is 4471923"


def test_a_private_memory_is_never_sent_unasked_but_the_users_recall_finds_it(cli, api, real_encoder, memchat_home):
    added = cli("memories", "add", "--private", SECRET)
    assert added.exit_code == 0 and "private" in added.stdout
    cli("memories", "add", "My bank is Monzo and I bank online.")
    for prompt in ("What is my bank card PIN?", "Which bank do I use, and what's my PIN?"):
        assert cli("ask", prompt).exit_code == 0
        assert "4471923" not in system_of(api)
    hits = json.loads(cli("recall", "bank card PIN", "--json").stdout)
    assert hits[0]["text"] == SECRET and hits[0]["source"].endswith("· private")
    # pinned or not: private wins
    cli("memories", "pin", "1")
    assert cli("ask", "What is my bank card PIN?").exit_code == 0 and "4471923" not in system_of(api)
    cli("memories", "unpin", "1")
    # the user can take it back, and the memory is sent again when a message needs it
    assert cli("memories", "edit", "1", "--no-private").exit_code == 0
    assert cli("ask", "What is my bank card PIN?").exit_code == 0 and "4471923" in system_of(api)
    assert cli("memories", "edit", "1", "--private").exit_code == 0
    assert json.loads(cli("memories", "show", "1", "--json").stdout)["private"] is True


def test_what_a_private_memory_was_drawn_from_is_withheld_too(cli, api, real_encoder, memchat_home):
    db = open_db(memchat_home / "default.db")
    said = sessions.add_message(db, sessions.create_session(db).id, "user", "The office alarm code is 5512877, FYI")
    mid = MemoryStore(db).add("The office alarm code is 5512877", source_message_ids=[said.id]).id
    from memchat.memory.recall import index

    index.catch_up(db, real_encoder)  # as the writers do
    assert cli("ask", "What is the office alarm code again?").exit_code == 0
    assert "5512877" in system_of(api)  # the memory (or the message it came from) answers
    assert cli("--provider", "echo", input=f"/private {mid}\n").exit_code == 0
    assert cli("ask", "What is the office alarm code again?").exit_code == 0
    assert "5512877" not in system_of(api), system_of(api)  # neither the memory nor the message that said it


def _a_session_that_said(db, secret_turn: str, reply: str) -> tuple[int, int]:
    """A past session: the turn that said a secret, its reply, and an unrelated exchange after."""
    s = sessions.create_session(db)
    said = sessions.add_message(db, s.id, "user", secret_turn)
    sessions.add_message(db, s.id, "assistant", reply)
    sessions.add_message(db, s.id, "user", "and the gym opens at 6 on weekdays")
    sessions.add_message(db, s.id, "assistant", "Good to know.")
    return s.id, said.id


@pytest.mark.parametrize("taken_back", ["forgotten", "made private"])
def test_a_resumed_session_no_longer_carries_what_memory_took_back(cli, api, memchat_home, taken_back):
    """Forget says the transcript is never sent again, private that what a memory was drawn from is
    withheld with it: so too in the history of the session it was said in, when that goes on."""
    db = open_db(memchat_home / "default.db")
    session_id, said = _a_session_that_said(db, "my locker code is zulu9876", "Noted: zulu9876.")
    MemoryStore(db).add("My locker code is zulu9876", source_message_ids=[said])
    db.close()
    change = (
        ("memories", "forget", "1", "--yes") if taken_back == "forgotten" else ("memories", "edit", "1", "--private")
    )
    assert cli(*change).exit_code == 0
    assert cli("ask", "-s", str(session_id), "what time does the gym open?").exit_code == 0
    sent = json.dumps(api.requests[-1]["messages"]) + system_of(api)
    assert "zulu9876" not in sent and "gym opens at 6" in sent  # the rest of the conversation goes on


@pytest.mark.parametrize("how", ["said before the memory was added", "said again in a later turn"])
def test_a_resumed_session_carries_no_turn_that_says_what_a_private_memory_holds(cli, api, memchat_home, how):
    """Not only the message a private memory was drawn from: any earlier turn of the session that
    says its value stays out of the history sent, as forget keeps out every mention."""
    db = open_db(memchat_home / "default.db")
    s = sessions.create_session(db)
    sessions.add_message(db, s.id, "user", "the gym locker 77-12-90 sticks sometimes")
    sessions.add_message(db, s.id, "assistant", "Try some graphite on 77-12-90's lock.")
    if how == "said again in a later turn":
        said = sessions.add_message(db, s.id, "user", "Remember that my locker code is 77-12-90")
        MemoryStore(db).add("My locker code is 77-12-90", source_message_ids=[said.id])
    sessions.add_message(db, s.id, "user", "and the gym opens at 6 on weekdays")
    sessions.add_message(db, s.id, "assistant", "Good to know.")
    db.close()
    if how == "said before the memory was added":
        assert cli("memories", "add", "--private", "My locker code is 77-12-90").exit_code == 0
    else:
        assert cli("memories", "edit", "1", "--private").exit_code == 0
    assert cli("ask", "-s", str(s.id), "what should I bring? my locker is 77-12-90 btw").exit_code == 0
    history = api.requests[-1]["messages"]
    assert "77-12-90" not in json.dumps(history[:-1]) + system_of(api), history
    assert "gym opens at 6" in json.dumps(history)  # the rest of the conversation goes on
    assert "77-12-90" in json.dumps(history[-1])  # what is typed now is sent as typed


def test_a_running_summary_does_not_carry_a_private_memory_into_later_calls(cli, api, memchat_home):
    db = open_db(memchat_home / "default.db")
    session_id, _ = _a_session_that_said(db, "hello", "Hi!")
    sessions.update_session(
        db, session_id, summary="- The user's bank card PIN is 4471923.\n- They are planning a trip to Porto."
    )
    MemoryStore(db).add(SECRET, private=True)
    db.close()
    assert cli("ask", "-s", str(session_id), "any tips for the trip?").exit_code == 0
    assert "4471923" not in system_of(api) and "Porto" in system_of(api) and "[private]" in system_of(api)


def test_a_session_summary_that_retells_a_private_memory_goes_private_with_it(memchat_home):
    db = open_db(memchat_home / "default.db")
    store = MemoryStore(db)
    retold = store.add(
        'Session 1 (2026-12-06, "SECRET: my bank card PIN is 4471923"): The user talked about their new card.',
        kind="event",
        key="session.1.summary",
        origin="inferred",
    )
    other = store.add(
        'Session 2 (2026-12-07, "Porto"): The user planned a trip.', kind="event", key="session.2.summary"
    )
    therapist = store.add(
        "Session 3 (2026-12-08): Dr. Hallowmere suggested journaling.", kind="event", key="session.3.summary"
    )
    pin = store.add(SECRET)
    store.update(pin.id, private=True)  # made private after the summary was written
    store.add("My therapist is Dr. Hallowmere", private=True)  # added private
    assert store.get(retold.id).private and store.get(therapist.id).private
    assert not store.get(other.id).private
    assert [h.action for h in store.history(retold.id)][-1] == "update"  # the change is in its history


def test_a_message_that_says_what_a_private_memory_holds_is_never_brought_back_unasked(memchat_home, real_encoder):
    """`memories add --private` records no source: the message that said it is found by what it says."""
    from memchat.app import Memchat
    from memchat.memory.recall import index

    db = open_db(memchat_home / "default.db")
    _a_session_that_said(db, "my locker code is zulu9876", "Noted.")
    index.catch_up(db, real_encoder)
    MemoryStore(db).add("My locker code is zulu9876", private=True)
    db.close()
    app = Memchat.load(provider="echo")
    try:
        for_a_tool = app.memories.recall("what is the locker code?", private=False)  # MCP, the recall tool
        for_the_user = app.memories.recall("what is the locker code?")
    finally:
        app.close()
    assert for_a_tool and not any("zulu9876" in h.text for h in for_a_tool)
    assert any(h.type == "message" and "zulu9876" in h.text for h in for_the_user)


def told_on(memchat_home, embedder, day: str, *texts: str):
    """A profile whose memories were told on `day` (ISO), embedded as the writers embed them."""
    from memchat.memory.recall import index

    db = open_db(memchat_home / "default.db")
    for text in texts:
        MemoryStore(db).add(text, created_at=f"{day}T10:00:00.000000Z")
    index.catch_up(db, embedder)
    return db


def section_on(db, embedder, prompt: str, today) -> str:
    """The memory section `prompt` gets on `today` (a date)."""
    from memchat.memory.judge import inject

    return inject.build(db, prompt, embedder=embedder, budget=1500, count=len, today=today).text


def test_a_request_about_the_diary_gets_every_plan_in_its_period(memchat_home, embedder):
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2027-03-08",
        "I have a dentist appointment on Friday at 9",
        "I'm presenting the roadmap to the board on 2027-03-16",
        "We're flying to Lisbon on 2027-04-20",
        "I'm a product manager at Ocado",
    )

    def section(prompt: str) -> str:
        return section_on(db, embedder, prompt, date(2027, 3, 10))

    week = section("What's on my plate this week?")
    assert "dentist" in week and "board" not in week and "Lisbon" not in week
    month = section("What have I got coming up this month?")
    assert "dentist" in month and "board" in month and "Lisbon" not in month
    assert "dentist" not in section("What's on at the Barbican this week?")  # not the diary


def test_a_day_of_the_month_asked_after_gets_the_plans_on_it(memchat_home, embedder):
    # "is the weekend of the 19th going to be a problem?" names a period by a day of the month alone,
    # and asks after the user's diary though it says no "I": the concert that Saturday is the answer
    from datetime import date

    from memchat.memory.recall.dates import Period, coming_period

    concert = "I play viola in the Camden Symphonia; we rehearse Wednesdays and the spring concert is Saturday 13 March"
    visit = "My brother Sami is staying with us from 12 to 20 March 2027"  # a span: it overlaps the weekend
    db = told_on(memchat_home, embedder, "2027-03-01", concert, visit, "I'm a product manager at Ocado")
    today = date(2027, 3, 2)
    weekend = section_on(db, embedder, "will the weekend of the 13th be a problem?", today)
    assert "viola" in weekend and "Sami" in weekend, weekend
    assert "viola" not in section_on(db, embedder, "is the 20th free?", today)
    assert coming_period("is the 2nd free?", today) == Period(date(2027, 3, 2), date(2027, 3, 2))
    assert coming_period("what about the 1st?", today) == Period(date(2027, 4, 1), date(2027, 4, 1))
    assert coming_period("we're on the 3rd floor", today) is None and coming_period("my 40th birthday", today) is None


def test_whether_you_can_make_something_is_asked_of_your_diary_typed_as_people_type(memchat_home, embedder):
    # "can I make it?" turns on what the diary holds then, whatever its words; people type months in
    # lowercase and drop the "my". A month said in lowercase is that month, a week of it that week;
    # a weekday asked about gets what that weekday holds every week, in whoever's words.
    from datetime import date

    from memchat.memory.recall.dates import Period, coming_period

    db = told_on(
        memchat_home,
        embedder,
        "2027-02-01",
        "Band practice is Wednesdays 7 to 10pm at the scout hut",
        "I swim at the lido on Tuesday and Friday mornings before work",
        "I'm refitting a kitchen in Hove until 5 March 2027",
        "We're at my sister's wedding in Bath on Saturday 20 March 2027",
        "I walk to work along the seafront",
        "Our whippet Pip gets an upset stomach from anything with beef in it",
        "I'm a joiner",
    )
    today = date(2027, 2, 3)

    def section(prompt: str) -> str:
        return section_on(db, embedder, prompt, today)

    assert "kitchen in Hove" in section("can i squeeze in a small job the first week of march")
    booked = section("what's booked in for march so far")
    assert "wedding" in booked and "kitchen" in booked, booked
    assert "Band practice" in section("my mate wants a curry wednesday night, can i")
    assert "Band practice" in section("can i go to the pub quiz tonight")  # the 3rd is a Wednesday
    assert "lido" in section("can i book the dentist in for friday at 8")
    assert "lido" not in section("can i go to the pub quiz tonight")
    assert "beef" in section("dog's been sick twice since breakfast")
    assert coming_period("anything on in march?", today) == Period(date(2027, 3, 1), date(2027, 3, 31))
    assert coming_period("the first week of march", today) == Period(date(2027, 3, 1), date(2027, 3, 7))
    assert coming_period("they march on", today) is None and coming_period("i may go", today) is None
    # a day of a month is that day, not the month; the weekend of it is its weekend
    assert coming_period("what's on wednesday 10th mar", today) == Period(date(2027, 3, 10), date(2027, 3, 10))
    assert coming_period("anything on March 10, 2027?", today) == Period(date(2027, 3, 10), date(2027, 3, 10))
    assert coming_period("is the weekend of 13 march free", today) == Period(date(2027, 3, 12), date(2027, 3, 14))
    assert "kitchen in Hove" in section("what have i got on 4th march")


def test_a_trip_to_get_ready_for_gets_the_households_travel_documents_never_a_number(memchat_home, embedder):
    # "what do we need to sort before we fly?" turns on a passport that runs out and an ESTA still to
    # get, identity documents no topic sends; never the passport's number, a Visa card, a passport
    # good for years, nor anything for a question about the world or about something else to sort
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2027-01-10",
        "My passport expires in August 2027",
        "We still need to apply for ESTAs for the kids",
        "My passport number is 584120937",
        "I have a Barclaycard Visa with a £2,000 limit",
        "My wife's passport is valid until June 2031",
        "My husband's old passport is valid until 2032",
        "My sister needs a visa for India, she's applying next month",
        "We're flying to Boston on 2027-03-20 for a week",
        "I'm a quantity surveyor in Bristol",
    )

    def section(prompt: str) -> str:
        return section_on(db, embedder, prompt, date(2027, 1, 12))

    ready = section("anything we need to sort before we fly in march?")
    assert "August 2027" in ready and "ESTAs" in ready, ready
    assert "584120937" not in ready and "Barclaycard" not in ready and "2031" not in ready, ready
    assert "2032" not in ready and "India" not in ready, ready  # good for years; someone else's
    assert "ESTAs" in section("boston trip, anything paperwork wise")
    assert "August 2027" not in section("Do Americans need a visa for Japan?")
    assert "ESTAs" not in section("anything medical i should sort before the flight in march?")


def test_what_you_can_afford_turns_on_what_comes_in_and_what_is_saved(memchat_home, embedder):
    # "what can we afford if we move?" is not like "I earn €86,000 gross" in meaning, and a money
    # route by likeness sent the VvE fee and the energy bill instead: what comes in and what is put
    # by go first, the newest of each; a question about money in general gets neither
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2027-01-10",
        "I earn €86,000 gross a year plus 8% holiday pay",
        "I used to earn €61,000 at my old job",
        "We have about €24,000 in savings at ASN Bank",
        "We pay €210 a month to the VvE for the building",
        "Our energy is with Vandebron at €185 a month",
        "Our mortgage is with ABN AMRO: about €385,000 left, fixed until 2031",
        "We'd like to move somewhere with a garden in the next couple of years",
        "I'm a backend engineer in Rotterdam",
    )

    def section(prompt: str) -> str:
        return section_on(db, embedder, prompt, date(2027, 1, 12))

    afford = section("what can we afford if we move next year?")
    assert "€86,000" in afford and "€24,000" in afford, afford
    from memchat.memory.judge import need

    text = "what can we afford if we move next year?"
    money = [n.memory.text for n in need.by_money(db, need.read(text, embedder), embedder, text, set())]
    assert not any("€61,000" in t for t in money), money
    assert "€86,000" not in section("How does compound interest work?")


def test_a_question_naming_where_a_plan_goes_gets_the_plan(memchat_home, embedder):
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2027-01-05",
        "We're flying Bristol to Lisbon on 2027-02-14 for half term",
        "Our son Arjun is six",
    )

    def section(prompt: str, today: date = date(2027, 1, 20)) -> str:
        return section_on(db, embedder, prompt, today)

    assert "2027-02-14" in section("Things to do in Lisbon with a six-year-old")
    assert "2027-02-14" not in section("Things to do in Lisbon with a six-year-old", today=date(2027, 3, 1))
    assert "2027-02-14" not in section("What's the tidal range of the Bristol Channel?")  # where it leaves from
    assert "2027-02-14" not in section("What's the history of Lisbon?")  # a question about no one
    # nor is a question about the world asked for the trip it names the place of: what it asks holds
    # whoever goes
    assert "2027-02-14" not in section("What's the weather usually like in Lisbon in February?")


def test_a_lookup_of_your_own_fact_gets_it_though_no_word_matches(cli, api, real_encoder):
    # "what's my reg plate?" shares no word with "My car's registration is ..." and scores under the
    # bar; a short question that looks up one of your facts gets the memory plainly most like it.
    remember(
        cli,
        "I was born on 14 March 1988",
        "My car's registration is KX19 ABC",
        "We drive a 2019 Skoda Octavia estate",
        "My GP is Dr Patel at Redland surgery",
        "My sister Nia has depression",
        "I owe about £3,400 on my Barclaycard",
        "I play five-a-side on Tuesdays",
        "My IBAN is GB82 WEST 1234 5698 7654 32",
    )
    assert cli("memories", "add", "--private", "My locker code is 77-12-90").exit_code == 0
    for question, fact in (
        ("what's my reg plate?", "KX19 ABC"),
        ("How old am I?", "born on 14 March 1988"),
    ):
        sent = retrieved_for(cli, question, why="lookup")
        assert any(fact in t for t in sent), (question, sent)
    for question, fact in (
        ("who's my GP?", "Dr Patel"),  # health, and the question is about it
        ("what's my IBAN again?", "GB82"),  # an account number goes when it is asked for
    ):
        sent = retrieved_for(cli, question)
        assert any(fact in t for t in sent), (question, sent)
    assert "77-12-90" not in " ".join(retrieved_for(cli, "what's my locker code?"))  # private: only recall shows it
    # a lookup reaches a sensitive memory only when it asks about that category
    for question in ("what was my old job?", "when do I play football?", "What's the name of our car?"):
        sent = retrieved_for(cli, question)
        assert not any(w in " ".join(sent) for w in ("depression", "Barclaycard", "GB82")), (question, sent)
    # nor is a request for ideas or a question about the world a lookup
    assert retrieved_for(cli, "What's the capital of France?") == []
    assert retrieved_for(cli, "what should I get my sister for her birthday?", why="lookup") == []


def test_a_lookup_the_model_reads_as_about_no_one_still_gets_the_fact_and_never_a_private_one(cli, api, real_encoder):
    # "what's my number plate?" reads as about no one to the encoder (a question of fact), but it
    # says "my"; a private memory nearby is neither sent nor in the way of the fact's lead
    remember(cli, "My car's registration is KX19 ABC", "I was born on 14 March 1988")
    assert cli("memories", "add", "--private", "My locker code is 77-12-90").exit_code == 0
    assert any("KX19 ABC" in t for t in retrieved_for(cli, "what's my number plate?", why="lookup"))
    assert retrieved_for(cli, "what's my locker code?", why="lookup") == []


def test_a_lookup_of_one_number_gets_no_other_document_nor_the_money_picture(cli, api, real_encoder):
    # "What is my visa number?" got the passport number; "What is my bank account number?" (kept
    # private) got every debt, as a request to plan one's money would
    remember(
        cli,
        "My passport number is 533912345",
        "I owe £6,500 on a car loan",
        "I have £2,100 left on my overdraft",
        "My car's registration is LD21 XKE",
    )
    assert cli("memories", "add", "--private", "My sort code is 20-00-00, account 41234567").exit_code == 0
    for prompt in ("What is my visa number?", "What's my driving licence number?", "What is my bank account number?"):
        sent = retrieved_for(cli, prompt)
        assert not [t for t in sent if "533912345" in t or "6,500" in t or "2,100" in t], (prompt, sent)
    assert any("533912345" in t for t in retrieved_for(cli, "What's my passport number?"))
    assert any("LD21" in t for t in retrieved_for(cli, "what's my reg plate?"))


def test_a_lookup_gets_a_private_matter_only_of_the_kind_its_words_name():
    # "What is my NHS number?" (the number kept private) got the salary: by meaning the question read
    # as about money, but its words name a document. What the words name decides; meaning only
    # when they name none.
    from memchat.memory.judge.inject import _looked_up
    from memchat.memory.recall.rank import Hit
    from memchat.memory.store.records import Memory

    def hits() -> list[Hit]:
        said = ("My salary is 41,000 a year before tax", "I live in Ipswich")
        return [
            Hit(
                "memory",
                i,
                "fact",
                text,
                0.01,
                "2026-12-01",
                "stated",
                cosine=cosine,
                memory=Memory(i, "fact", text),
                features={"cosine": cosine},
            )
            for i, (text, cosine) in enumerate(zip(said, (0.40, 0.20), strict=True), start=1)
        ]

    money = frozenset({"finances"})
    assert _looked_up([], hits(), "What is my NHS number?", meant=money, asked_of_no_one=False) == []
    (found,) = _looked_up([], hits(), "How much do I earn a year?", meant=money, asked_of_no_one=False)
    assert "41,000" in found.text


def test_a_question_about_what_a_thing_does_gets_none_of_yours(cli, api, real_encoder):
    # "What does the meniscus do in the knee?" asks about knees, not about the user's torn meniscus,
    # though the memory holds every word it names (and no word list calls it health)
    remember(
        cli,
        "I tore the meniscus in my left knee in 2021, so no running on hard surfaces",
        "Our Kafka consumer for shipment events is written in Go",
        "My thyroid is underactive and I take levothyroxine",
    )
    for question in (
        "What does the meniscus do in the knee?",
        "What does a Kafka consumer do?",
        "What is the function of the thyroid?",
        "what does the thyroid do",
    ):
        assert retrieved_for(cli, question) == [], question
    # the user's own case still gets it
    assert any("meniscus" in t for t in retrieved_for(cli, "My knee hurts after a run, what should I do?"))


def test_a_message_to_write_for_others_gets_no_household_diet_unless_it_carries_the_food(cli, api, real_encoder):
    # An invitation to a barbecue is the sender's words to choose: the partner's coeliac disease and
    # the user's diabetes are not for the neighbours' note; planning the barbecue's food needs them.
    remember(
        cli,
        "Daniel has coeliac disease, so anything he eats must be strictly gluten-free",
        "I have type 1 diabetes and use an insulin pump",
        "I'm lactose intolerant",
        "We live in Chorlton with our two kids",
        "My husband Daniel teaches maths",
    )
    for request in (
        "Write a note inviting the neighbours to a barbecue in our garden",
        "Draft a WhatsApp to the team about Friday's curry night",
        "Write an invitation to our Sunday lunch for my sister",
        "Write a short toast for our anniversary dinner",
    ):
        sent = " ".join(retrieved_for(cli, request, why="household"))
        assert not any(w in sent for w in ("coeliac", "diabetes", "lactose")), (request, sent)
    planned = " ".join(retrieved_for(cli, "Plan the food for our barbecue on Saturday"))
    assert "coeliac" in planned, planned
    menu = " ".join(retrieved_for(cli, "Write a note for the caterer with our barbecue menu"))
    assert "coeliac" in menu, menu


def test_a_technical_task_gets_the_stack_not_a_hobby_with_a_computer_in_it(cli, api, real_encoder):
    # The stack route took the memories most like the task among those near the tech examples:
    # a Raspberry Pi at home and home-brewed beer went to "Set up CI for my repo." (a device and a
    # hobby first, tech a close second); the plain statement of the stack, less like the terse task,
    # did not.
    remember(
        cli,
        "At work we write Go services on PostgreSQL and Kafka, deployed to Kubernetes with Helm",
        "I run Home Assistant on a Raspberry Pi 4 for the house",
        "I brew my own beer in the garage, mostly hoppy pale ales",
        "We have a border collie called Pepper",
    )
    for task in ("Set up CI for my repo.", "Write a Dockerfile for the new service I'm building."):
        sent = " ".join(retrieved_for(cli, task))
        assert "Home Assistant" not in sent and "beer" not in sent, (task, sent)
        assert "PostgreSQL" in sent or "PostgreSQL" in card_of(cli), (task, sent)


def test_a_trip_named_by_its_season_gets_the_trip_in_that_season(memchat_home, embedder):
    # "our summer holiday" names a period too long for every plan in it to be what the request is
    # about, so it had got none (and last summer's camping trip by search): the trip in it goes
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2026-12-01",
        "We're going to Lisbon and the Algarve with the kids from 3 to 17 August 2027",
        "Last summer (2026) we camped in the Lake District and it rained all week",
        "I'm seeing Khruangbin in Cardiff on 2027-07-10",
        "We have a border collie called Pepper",
    )
    today = date(2026, 12, 7)
    for request in ("What should I pack for our summer holiday?", "Can we bring the dog on our summer trip?"):
        section = section_on(db, embedder, request, today)
        assert "Algarve" in section, (request, section)
        assert "Khruangbin" not in section, (request, section)  # in the summer, but no trip
    # a summer's concert is not asked for by a question about the summer in general
    assert "Algarve" not in section_on(db, embedder, "What's the weather like in the summer in Portugal?", today)


def test_a_plan_for_a_holiday_of_a_year_is_a_plan_for_that_day(memchat_home, embedder):
    # "We're thinking about Madeira for the Easter holidays in 2027" named no day, so "our spring
    # getaway" never found it: a holiday of a year named is that day (not a holiday without a year,
    # which may be every year's)
    from datetime import date

    from memchat.memory.recall.dates import planned_day

    told = "2026-11-01T10:00:00.000000Z"
    assert str(planned_day("Rome with the kids for the Easter holidays in 2027", told)) == "2027-03-28"
    assert str(planned_day("Christmas 2026 at my brother's in Leeds", told)) == "2026-12-25"
    assert str(planned_day("New Year's Eve 2026 in Edinburgh", told)) == "2026-12-31"
    for no_day in ("I love Christmas", "We always go to my mum's at Easter", "Our 2027 budget is tight"):
        assert planned_day(no_day, told) is None, no_day
    db = told_on(
        memchat_home,
        embedder,
        "2026-11-01",
        "We're thinking about Rome for the Easter holidays in 2027",
        "I'm a nurse in Exeter",
        "We have a border terrier called Moss",
    )
    section = section_on(db, embedder, "Any tips for our spring getaway with the kids?", date(2026, 11, 7))
    assert "Rome" in section, section


def test_a_question_about_the_calendar_gets_no_plan_it_does_not_name(memchat_home, embedder):
    # A question about the world reaches a plan by what it names, not because both are about dates:
    # "when's Lunar New Year?" is not asked for the wedding in Hanoi nor the marathon.
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2026-09-01",
        "We're going to Hanoi for my cousin Linh's wedding on 2026-12-12",
        "I'm running the Melbourne Marathon on 2026-10-11",
        "We are flying to Tokyo on 2027-04-02 to see the cherry blossom",
        "I'm going to KubeCon Europe in Amsterdam from 23 to 26 March 2027 for work",
        "Maya's 10th birthday party is on 19 June 2027; she wants a horse theme",
        "I work night shifts in an ICU",
    )
    today = date(2026, 9, 20)
    for question in (
        "When's Lunar New Year in 2027?",
        "When is Easter 2027?",  # names a period the conference falls in: still not asked for it
        "What day of the week is Christmas this year?",
        "When do the clocks change in Australia?",
        "Is Easter early or late next year?",
    ):
        section = section_on(db, embedder, question, today)
        for day in ("2026-12-12", "2026-10-11", "2027-04-02", "KubeCon", "birthday"):
            assert day not in section, (question, section)
    # but one that names where a plan goes is asked for it
    assert "2027-04-02" in section_on(db, embedder, "How warm is Tokyo in early April?", today)
    # asked about the user's own, the plans are what it turns on
    assert "2026-10-11" in section_on(db, embedder, "How should I taper in the weeks before my marathon?", today)


def test_a_dated_plan_is_coming_up_before_its_day_and_past_after_it(memchat_home, embedder):
    from datetime import date

    from memchat.memory.judge import inject

    db = open_db(memchat_home / "default.db")
    store = MemoryStore(db)
    store.add("I'm flying to Oslo on May 9 for the Nordic design week", created_at="2027-03-01T10:00:00.000000Z")
    store.add("Our anniversary is June 14", created_at="2027-03-01T10:00:00.000000Z")
    from memchat.memory.recall import index

    index.catch_up(db, embedder)

    def section(today: date) -> str:
        return inject.build(
            db, "When am I flying to Oslo?", embedder=embedder, budget=1500, count=len, today=today
        ).text

    before = section(date(2027, 4, 20))
    assert "## Coming up\n- [2027-05-09] I'm flying to Oslo on May 9" in before
    assert "## What I know about you" not in before or "Oslo" not in before.split("## What I know about you")[1]
    after = section(date(2027, 6, 1))
    assert "[2027-05-09, past] I'm flying to Oslo on May 9" in after and "## Coming up" not in after
    anniversary = inject.build(db, "When is our anniversary?", embedder=embedder, budget=1500, count=len).text
    assert "- Our anniversary is June 14" in anniversary  # a recurring date is a fact, not a plan
    # told after its day (added in July), the trip is past from the start; what holds since a day is not
    store.add("I'm driving to Bergen on 2027-06-20 for the festival", created_at="2027-07-02T10:00:00.000000Z")
    store.add("I've been vegetarian since 2019-01-01", created_at="2027-07-02T10:00:00.000000Z")
    index.catch_up(db, embedder)
    late = inject.build(
        db, "How was the drive to Bergen?", embedder=embedder, budget=1500, count=len, today=date(2027, 7, 3)
    ).text
    assert "[2027-06-20, past] I'm driving to Bergen on 2027-06-20" in late, late
    assert late.count("Bergen") == 1, late  # not on the profile's card as a standing fact either
    since = inject.build(
        db, "Since when am I vegetarian?", embedder=embedder, budget=1500, count=len, today=date(2027, 7, 3)
    ).text
    assert "- I've been vegetarian since 2019-01-01" in since and "past] I've been vegetarian" not in since, since


# A person's memories as `memories add` stores them (written for these tests; no word of the
# requests below is in the memory that serves them).
HOUSEHOLD = [
    "I'm allergic to shellfish",
    "My wife Ana is vegetarian",
    "Our twins Leo and Bea are nine and mad about football",
    "We have an old cat called Miso who hates the car",
    "I live in Porto",
    "I work as a backend developer; we use Go and PostgreSQL",
    "My bank account number is 40112233 at Millennium",
    "I'm on lithium for bipolar disorder",
]


@pytest.fixture
def household(cli, api, real_encoder):
    remember(cli, *HOUSEHOLD)
    return cli


def card_of(cli) -> str:
    """What a request that needs nothing in particular is sent: the profile's card, as JSON text."""
    return json.dumps(json.loads(cli("ask", "--explain", "--json", "Ideas for the weekend?").stdout)["memory"])


def remember(cli, *texts: str) -> None:
    """Each text stored as `memchat memories add` stores it."""
    for text in texts:
        assert cli("memories", "add", text).exit_code == 0, text


def sent_for(cli, api, prompt: str) -> str:
    assert cli("ask", prompt).exit_code == 0
    return system_of(api)


def test_a_request_gets_what_its_topic_needs_though_no_word_matches(household, api):
    dinner = sent_for(household, api, "What should I cook tonight for the four of us?")
    assert "shellfish" in dinner and "vegetarian" in dinner
    code = sent_for(household, api, "Set up CI for our repo, with the tests running on every push.")
    assert "Go and PostgreSQL" in code


def test_a_problem_told_without_my_is_still_the_users_own(cli, api, real_encoder):
    # "The radiators are cold upstairs" names no one and says no "my", yet it is the user's house:
    # the home's topic brings the boiler, though no word of the two matches.
    remember(cli, "Our boiler is a Worcester Bosch, about 12 years old", "I play netball on Tuesday evenings")
    sent = sent_for(cli, api, "The radiators are cold upstairs but hot downstairs")
    assert "Worcester Bosch" in sent and "netball" not in sent


def test_a_request_for_a_program_reaches_no_sensitive_memory_whatever_its_subject(cli, api, real_encoder):
    # The program's subject is not the user's: "an ADHD-friendly todo app" is code, and the user's
    # own assessment stays home; asked about it, it goes.
    remember(cli, "I'm on the waiting list for an ADHD assessment", "I owe about £4,000 on my Barclaycard")
    for prompt in (
        "How do I build an ADHD-friendly todo app in React?",
        "Write a Python script that sorts my Barclaycard statement into categories",
    ):
        sent = sent_for(cli, api, prompt)
        assert "ADHD assessment" not in sent and "£4,000" not in sent, prompt
    assert "ADHD assessment" in sent_for(cli, api, "Can I get my ADHD assessment sooner by going private?")


def test_an_account_number_goes_when_asked_for_not_with_its_subject(cli, api, real_encoder):
    remember(
        cli,
        "My bank account number is 41926633 and the sort code is 20-45-77",
        "I owe about £4,000 on my Barclaycard",
        "My mum's mobile is 07700 900123",
    )
    advice = sent_for(cli, api, "Should I pay off my credit card before saving?")
    assert "£4,000" in advice and "41926633" not in advice and "07700" not in advice
    assert "41926633" in sent_for(cli, api, "What's my bank account number?")


def test_a_street_address_is_never_on_the_card_but_goes_when_asked_for(cli, api, real_encoder):
    remember(
        cli,
        "We live at 22 Mill Street, Frome",
        "Our son Finn is three and mad about tractors",
        "I'm a freelance graphic designer",
    )
    explained = json.loads(cli("ask", "--explain", "--json", "Ideas for the weekend?").stdout)
    assert "22 Mill Street" not in json.dumps(explained["memory"])
    assert "Finn" in json.dumps(explained["memory"])  # the card is there, without the address
    assert "22 Mill Street" in sent_for(cli, api, "Where do we live?")


def test_a_home_town_is_on_the_card_and_a_door_code_is_not(cli, api, real_encoder):
    # A town or district is where you live, not your address, though it sits as near an address's
    # examples by meaning ("I live in Leith, Edinburgh" and "Flat 2, 93 Leith Walk, Edinburgh").
    for text in (
        "I live in Stockbridge, Edinburgh",
        "The key safe by the back door opens with 4471",
        "The code for the side gate is 7788",
        "I'm a freelance graphic designer",
    ):
        assert cli("memories", "add", text).exit_code == 0
    card = card_of(cli)
    assert "Stockbridge" in card and "graphic designer" in card
    assert "4471" not in card and "7788" not in card


def test_not_drinking_is_a_diet_on_the_card_and_a_drinking_problem_is_health(cli, api, real_encoder):
    from memchat.memory.judge import sensitive

    remember(cli, "I don't drink alcohol", "I'm a freelance graphic designer", "I live in York")
    card = json.dumps(json.loads(cli("ask", "--explain", "--json", "Suggest a bar for Friday").stdout)["memory"])
    assert "drink alcohol" in card
    for health in ("My dad is an alcoholic", "I had a drinking problem", "I'm in recovery from alcohol, 2 years sober"):
        assert "health" in sensitive.categories(health), health


def test_a_request_that_names_a_meal_gets_the_households_diet_whoever_it_is_for(cli, api, real_encoder):
    # "Sunday brunch ideas for the whole family" reads as family before food; a meal is still a meal.
    remember(cli, "I eat gluten-free because of coeliac disease", "We have two boys, Sam and Joe", "I live in Leeds")
    assert "coeliac" in sent_for(cli, api, "Sunday brunch ideas for the whole family")
    assert "coeliac" in sent_for(cli, api, "Party food for a seven-year-old's birthday")
    assert "coeliac" not in sent_for(cli, api, "Write a speech for the awards dinner")


def test_a_partner_is_on_the_card_whatever_their_job(cli, api, real_encoder):
    # "My girlfriend Sanne is a vet" reads like someone else's ("my friend's husband is a chef");
    # a partner or child named by role is family.
    remember(
        cli,
        "My girlfriend Sanne is a vet",
        "My husband Kwame is doing a PhD in physics",
        "I live in Rotterdam",
        "My friend's husband Bram is a chef",
    )
    card = card_of(cli)
    assert "Sanne" in card and "Kwame" in card and "Rotterdam" in card
    assert "Bram" not in card


def test_a_learning_difference_is_health_and_goes_to_no_unrelated_request(cli, api, real_encoder):
    remember(
        cli,
        "I have dyslexia, so I prefer short bullet points",
        "I'm a backend developer at a logistics startup",
        "We run CI on GitHub Actions",
        "My side project is a Rust CLI for tracking habits",
        "I live in Rotterdam",
    )
    assert "dyslexia" not in sent_for(cli, api, "How do I say 'I'm running late' naturally?")
    assert "dyslexia" in sent_for(cli, api, "Is my dyslexia why I read slowly?")


def test_an_allergy_to_animals_goes_with_a_pet_decision_and_no_further(cli, api, real_encoder):
    remember(
        cli,
        "Our daughter Ava is allergic to cats",
        "I'm allergic to penicillin",
        "I teach chemistry at a high school",
        "I live in Austin",
    )
    kitten = sent_for(cli, api, "Should we get a kitten?")
    assert "allergic to cats" in kitten and "penicillin" not in kitten
    assert "allergic to cats" not in sent_for(cli, api, "Plan a road trip for spring break")


def test_someones_health_goes_to_a_request_about_them_by_name_and_nowhere_else(cli, api, real_encoder):
    remember(
        cli,
        "Geoff has early-stage Alzheimer's",
        "Our grandson Oliver is five and loves dinosaurs",
        "I volunteer at the Oxfam bookshop on Thursdays",
        "We have about £80,000 in premium bonds and ISAs",
        "I live in Whitstable",
    )
    assert "Alzheimer" not in sent_for(cli, api, "Gift ideas for Oliver's birthday")
    assert "Alzheimer" in sent_for(cli, api, "What can I do to keep Geoff's mind active?")
    assert "premium bonds" not in sent_for(cli, api, "What is a premium bond?")  # a kind of thing, not yours


def test_common_conditions_and_medicines_are_health_and_savings_are_finances():
    from memchat.memory.judge import sensitive

    for text in (
        "Dad has Parkinson's",
        "Mum has dementia",
        "I have epilepsy",
        "I take amlodipine for my blood pressure",
        "I had a hip replacement in March",
        "I see a physio for my back",
        "I'm on HRT",
    ):
        assert "health" in sensitive.categories(text), text
    assert "finances" in sensitive.categories("We have £80,000 in premium bonds and ISAs")
    for text in ("I'm stating the obvious", "I study physiology", "My friend Isa is vegan", "I teach physics"):
        assert not sensitive.categories(text), text


def test_your_own_pet_is_on_the_card_and_a_holiday_is_not_religion(cli, api, real_encoder):
    remember(
        cli,
        "I have a Labrador called Bramble",
        "Our neighbours have a spaniel called Max",
        "I converted to Buddhism last year",
        "I live in Cardiff",
    )
    card = card_of(cli)
    assert "Bramble" in card and "Max" not in card
    assert "Buddhism" not in sent_for(cli, api, "Can I afford a holiday this year?")


def test_a_faith_told_in_its_own_words_stays_off_the_card(cli, api, real_encoder):
    # "I'm a Eucharistic minister at St Mary's" named no word of religion the lists knew, so it was on
    # the card of every call: what a person practises is told in its own words (a rosary, a deacon, a
    # pilgrimage, the kirk), and none of them goes unasked
    faith = (
        "I lead the rosary group at St Anne's on Wednesday evenings",
        "My wife Carmel is a deacon at our parish",
        "We took the children on a pilgrimage to Knock last spring",
        "I'm an elder at the kirk in Dunkeld",
    )
    remember(cli, *faith, "I'm a retired postman in Sligo", "We have a collie called Shep")
    card = card_of(cli)
    assert "Sligo" in card and "Shep" in card, card
    marks = ("rosary", "deacon", "pilgrimage", "kirk")
    assert [m for m in marks if m in card] == [], card
    assert_withheld(cli, ("Ideas for a quiet Sunday afternoon?", "Write a cover letter for a volunteer role"), *marks)


def test_a_name_typed_in_lowercase_is_still_the_person_memory_knows(cli, api, real_encoder):
    # "alfie cant focus on homework after tea" got nothing of Alfie, though "Alfie cant..." got his
    # ADHD: people who type in lowercase name people too. A word is read as a name only where a
    # memory found calls someone by it.
    remember(
        cli,
        "Our son Rafferty is eight",
        "Rafferty has epilepsy and takes Keppra twice a day",
        "My sister Bronagh lives in Derry",
        "I'm a baker in Bath",
    )
    assert_sent(
        cli,
        ("write a note for the childminder about rafferty", "rafferty wants to learn to swim, where do we start"),
        "epilepsy",
    )
    assert_withheld(cli, ("how warm should a baby's bath be?",), "Bath", "Bronagh", "epilepsy")
    # and a name memory knows used as a word for a thing is no one: "split a bill" is no colleague
    # Bill, "how much pepper" no cat Pepper (found on an adversarial walk: both were sent)
    remember(cli, "Our cat Pepper is on thyroid tablets", "My colleague Bill handles payroll")
    assert_withheld(
        cli,
        ("how much pepper goes in a carbonara", "How do I split a bill evenly between friends?"),
        "thyroid",
        "payroll",
    )


def test_helping_someone_of_yours_with_something_gets_what_they_live_with(cli, api, real_encoder):
    # "How do I help my daughter with her reading homework?" got her swimming lessons and clothes
    # size, not "Maya was assessed as dyslexic": helping them turns on their conditions, as a worry
    # about their body does
    remember(
        cli,
        "Our son Leo is nine",
        "Leo has ADHD and takes Medikinet in the mornings",
        "Leo plays football on Saturday mornings",
        "Leo wears age 9-10 clothes",
        "I'm a pharmacist in Leeds",
    )
    assert_sent(cli, ("How can I help my son with his maths homework?", "help our son settle at bedtime"), "ADHD")
    # help that his condition is no part of does not carry it (the first version sent it)
    assert_withheld(
        cli, ("help my son to pick a birthday present for his friend", "help my son with his Minecraft server"), "ADHD"
    )


def test_a_request_about_someone_gets_the_condition_that_shapes_life_with_them(cli, api, real_encoder):
    # A carer's "what do I say to him?" and a day out with an autistic grandson turn on what they live
    # with, though its topic is health and the request's is not: it had been withheld as health, and
    # the carer's every request went without the dementia. Not a condition a request must touch on
    # (a sister's diabetes and a present), nor help with a task of theirs, nor a question about the world.
    remember(
        cli,
        "My wife Ingrid is 71 and has vascular dementia",
        "Ingrid loves choral music and the garden",
        "I'm a retired marine engineer in Bergen",
        "Our grandson Tomas is 7 and is autistic",
        "Tomas is mad about trains",
        "My sister Hilde has type 2 diabetes",
        "Our son Erik is 12 and has ADHD",
    )
    assert_sent(cli, ("Birthday party ideas for my boy",), "ADHD")  # what parents call a son
    assert_sent(
        cli,
        (
            "What could Ingrid and I do on a rainy afternoon?",
            "She keeps hiding her handbag and then panics when she can't find it. What do I say?",
            "Ideas for my wife's birthday tea?",
        ),
        "dementia",
    )
    assert_sent(cli, ("Plan a day out with my grandson", "Christmas present ideas for Tomas"), "autistic")
    assert_withheld(
        cli,
        ("Present ideas for my sister?", "help my grandson to pick a present for his teacher"),
        "diabetes",
        "autistic",
    )
    assert_withheld(
        cli,
        (
            "What causes dementia, in general?",
            "How do I kill a child process in Go?",
            "help my wife with her email signature",
            "how can I help Ingrid with her CV?",  # by likeness alone it had gone (an adversarial pass's)
            "code for a little game Tomas can play",  # code: health is never a program's (a blind set's case)
        ),
        "dementia",
        "autistic",
    )


def test_the_condition_of_someone_of_theirs_is_not_theirs(cli, api, real_encoder):
    # "Mum's friend Jean has dementia" is about Mum by its words, but the dementia is Jean's: it is
    # no condition that shapes a day out with Mum (found on an adversarial walk of the rule above);
    # nor is a son's teacher's deafness his, nor is "deaf to my complaints" deafness (found by a
    # helper's adversarial pass), and code about someone's script is no request about them
    remember(
        cli,
        "My mum Carol is 80 and lives in Hull",
        "Mum's friend Jean has dementia",
        "Mum loves crosswords",
        "My son Olly is seven and loves dinosaurs",
        "My son's teacher is deaf",
        "My wife has dementia",
        "My husband is deaf to my complaints about the garden",
    )
    assert not [t for t in retrieved_for(cli, "Ideas for a day out with Mum", "person") if "Jean" in t]
    assert not [t for t in retrieved_for(cli, "Ideas for my son's birthday party", "person") if "teacher" in t]
    assert not [t for t in retrieved_for(cli, "Planning a weekend in Paris with my husband", "person") if "deaf" in t]
    assert not [
        t
        for t in retrieved_for(cli, "How do I fix this Python KeyError in my wife's script?", "person")
        if "dementia" in t
    ]


def test_a_request_when_in_your_day_gets_when_you_sleep_and_work(cli, api, real_encoder):
    # "Best time for me to book a dentist?" is no like "I sleep from 9am to 4pm" in meaning, and a
    # night worker's every such question turns on it: when in the user's own day gets their day's
    # times, a day the request names first. Not a question of the season or the world, nor
    # someone else's hours, nor a job that is over.
    remember(
        cli,
        "I sleep from about 9am to 4pm with blackout blinds",
        "I work twelve-hour night shifts at the sorting office",
        "I go to a life-drawing class on Saturday mornings",
        "My husband works 8 to 4 at the council",
        "I used to work early shifts at a bakery",
        "I'm growing garlic and leeks on my allotment",
    )
    assert_sent(
        cli,
        (
            "Best time for me to book a dentist?",
            "When should I take my iron tablets?",
            "The gas engineer wants to come at 10am, can I push it back?",
        ),
        "9am to 4pm",
    )
    assert_sent(cli, ("plan my saturday, I want to fit in a museum",), "Saturday mornings")
    assert_withheld(
        cli, ("When should I plant garlic?", "Best time of year to visit Japan?"), "9am to 4pm", "night shifts"
    )
    assert_withheld(cli, ("Best time for me to book a dentist?",), "8 to 4", "bakery")


def test_a_technical_task_gets_the_tool_its_work_is_done_with(cli, api, real_encoder):
    # "commits offsets" is Kafka's work and "5xx alerts" the observability stack's, though to the
    # encoder neither task is like "Tidewater uses Kafka for the meter-reading event stream": the
    # memory that names the tool goes first (tech_terms.json), for a task about no one too. Not
    # another tool of the stack, nor a request that is no technical task, nor a question in general.
    remember(
        cli,
        "Our event bus at work is Kafka on Confluent Cloud",
        "We run Prometheus and Grafana for monitoring",
        "Our services talk to each other over gRPC",
        "Our main database is PostgreSQL 16",
        "I switched from VS Code to Neovim last year",  # the Neovim is now, not a former fact
        "At work I analyse data in Python with pandas",
        "I live in Cardiff with my partner Sam",
    )
    for task, tool in (
        ("write a consumer that reads the meter events in batches and commits offsets", "Kafka"),
        ("Add an alert for when the 5xx rate spikes", "Prometheus"),
        ("Add an interceptor that puts a request ID on every RPC", "gRPC"),
        ("Make my editor format on save", "Neovim"),
    ):
        memory = json.loads(cli("ask", "--explain", "--json", task).stdout)["memory"]
        assert any(tool in i["text"] for i in memory), (task, memory)  # on the card (the main tools) or beside it
    assert_withheld(
        cli,
        ("Help me choose a dining table for six", "Explain how a hash map works, in general"),
        "PostgreSQL",
        "Kafka",
    )
    assert_withheld(cli, ("write a consumer that reads the meter events in batches and commits offsets",), "Neovim")
    # a how-to about a tool it names itself is asked of anyone (a helper set's general question)
    assert_withheld(cli, ("How do I pivot a dataframe in pandas from long to wide?",), "pandas")


def test_a_name_with_an_accent_is_a_name(cli, api, real_encoder):
    # "Zoë" and "Élodie" are names as "Zoe" is: [A-Z][a-z]+ had read "Zo" and nothing, so a daughter's
    # allergy was no one's and the family meal went without it
    remember(
        cli,
        "Our daughter Zoë is six",
        "Zoë is allergic to sesame",
        "My wife Élodie doesn't eat pork",
        "My friend Chloé's son can't eat eggs",
        "I work as a surveyor in Ghent",
    )
    card = card_of(cli)
    assert "sesame" in card and "pork" in card, card
    assert "eggs" not in card, card  # a friend's child is not the household's, accent or not
    from memchat.memory.judge.people import called_by_name

    assert called_by_name("A present for Élodie?") == ["Élodie"]
    assert called_by_name("a present for Łukasz") == ["Łukasz"]


def test_a_meal_a_parent_can_eat_too_gets_their_diet_and_the_households(cli, api, real_encoder):
    # "a dinner that mum can eat too" is for her and for the household: the household's diet had gone
    # only to a meal named for no one (the card holds what it can; the rest comes with the meal)
    remember(
        cli,
        "My dad Pieter is 80 and lives in Utrecht",
        "Dad has type 2 diabetes and watches his sugar",
        "My husband Ravi is vegan",
        "Our son Arjun is 7 and allergic to sesame",
        "I'm vegetarian",
        "I can't stand olives",
        "I'm a hospital pharmacist at the Leiden University Medical Centre, mostly on the oncology wards, "
        "and I supervise two junior pharmacists",
        "We live in a narrow three-storey canal house in the centre of Leiden, close to the Hooglandse Kerk, "
        "with a tiny courtyard garden",
        "I cycle to work on a Gazelle e-bike with a child seat on the back for Arjun",
        "I'm learning the cello with a teacher from the conservatoire",
        "My laptop is a ThinkPad X1 Carbon running Fedora",
    )
    sent = retrieved_for(cli, "something quick for dinner that dad can eat too?")
    assert any("diabetes" in t for t in sent) and any("olives" in t for t in sent), sent


def test_guests_at_your_table_get_their_diet_and_what_the_household_must_not_eat(memchat_home, embedder):
    # "dad's over for dinner saturday" is his meal and the household's: the son's sesame allergy goes
    # with it, as dad's diabetes does; the host's dislike of olives does not (the guest's meal is not
    # the host's to please). The household's meal route, read directly: on so small a profile the
    # card would hold them all.
    from memchat.memory.judge import need

    db = told_on(
        memchat_home,
        embedder,
        "2027-03-01",
        "My dad Pieter is 80 and lives in Utrecht",
        "Dad has type 2 diabetes and watches his sugar",
        "Our son Arjun is 7 and allergic to sesame",
        "I can't stand olives",
        "I'm a hospital pharmacist in Leiden",
    )

    def household(prompt: str) -> list[str]:
        return [n.memory.text for n in need.household_diet(db, need.read(prompt, embedder), embedder, prompt, set())]

    hosted = household("dad's over for dinner saturday, what should i cook")
    assert any("diabetes" in t for t in hosted) and any("sesame" in t for t in hosted), hosted
    assert not any("olives" in t for t in hosted), hosted
    assert any("olives" in t for t in household("what should i cook for dinner tonight")), "the household's own meal"


def test_whether_someone_of_the_household_may_eat_a_food_gets_their_allergy(cli, api, real_encoder):
    # "Can Lucía have a slice of roscón?" asks whether she may eat it; it got what memory says of
    # her (school, bedtime), not her egg allergy
    remember(
        cli,
        "Our daughter Maëlle is three",
        "Maëlle is allergic to tree nuts, diagnosed last spring; we carry an EpiPen",
        "Maëlle goes to nursery on Mondays and Wednesdays",
        "Maëlle's bedtime is 7pm sharp",
        "Maëlle loves the swings at Victoria Park",
        "I'm vegetarian",
        "I can't stand olives",
        "My husband Ravi is vegan",
        "I'm a tax adviser at a small firm in Norwich, mostly self-assessment for farmers and sole traders",
        "We live in a Victorian terrace in the Golden Triangle in Norwich, near Eaton Park, with a long garden",
        "I cycle to work on a cargo bike with a seat on the front for Maëlle",
        "I'm learning the cello with a teacher from the conservatoire",
        "My laptop is a ThinkPad X1 Carbon running Fedora",
        "I work Monday to Thursday, 8:30 to 5, and Fridays from home when the partners allow it",
        "I'm leading the firm's move from Sage to Xero for all of our clients this year",
        "My phone is a Google Pixel 8 Pro",
        "My husband Ravi is a structural engineer who works on bridges all over East Anglia",
    )
    assert "tree nuts" not in card_of(cli)  # so what follows is the request's doing, not the card's
    # a food the encoder does not know as food ("bolo-rei") is asked about as one all the same
    for prompt in ("Can Maëlle have a slice of bolo-rei at Epiphany?", "can our daughter eat marzipan?"):
        sent = retrieved_for(cli, prompt)
        assert any("tree nuts" in t for t in sent), (prompt, sent)


def test_a_child_told_by_age_is_of_the_household(cli, api, real_encoder):
    # "We have a three-year-old called Noor" says no son, daughter or child: Noor is one all the same
    from memchat.memory.judge.people import _AGED_CHILD

    remember(cli, "We have a three-year-old called Noor", "Noor is allergic to eggs", "I live in Ghent")
    assert "allergic to eggs" in sent_for(cli, api, "What should I cook when my mother-in-law comes on Wednesday?")
    assert _AGED_CHILD.findall("Our toddler Ben hates baths") == ["Ben"]
    assert _AGED_CHILD.findall("My 40-year-old brother Tom") == [] and _AGED_CHILD.findall("My old car") == []


def test_a_plain_health_question_gets_your_health_beside_a_card_memory_it_found(cli, api, real_encoder):
    # The marathon on the card answers the search for "my long run"; the diabetes still matters
    remember(
        cli,
        "I'm type 1 diabetic and wear a Dexcom",
        "I'm running the Austin marathon in February",
        "I'm on sertraline for depression",
        "I live in Austin, Texas",
    )
    assert "diabetic" in sent_for(cli, api, "Can I have a donut before my long run?")
    assert "sertraline" not in sent_for(cli, api, "Will my commute be miserable tomorrow?")


def test_a_day_is_not_a_person_and_someone_elses_pet_is_not_yours(cli, api, real_encoder):
    # "Friday is my chemo day" names no one: a request that opens with Friday is not about a person
    remember(
        cli,
        "Friday is my chemo day at the Royal Marsden",
        "The user's neighbour has a dog called Max",
        "My son's friend's dad Mike runs a garage",
        "I live in Sutton",
    )
    assert "chemo" not in sent_for(cli, api, "Friday night film suggestions?")
    card = card_of(cli)
    assert "Max" not in card and "Mike" not in card and "Sutton" in card


def test_the_card_holds_the_home_job_and_car_since_they_changed(cli, api, real_encoder):
    # A script's `memories add` keeps both when a statement may replace another (it says so, and
    # `memories edit --replaces` settles it); the card, sent with every call, shows what is current.
    remember(
        cli,
        "I live in Leith, Edinburgh",
        "I'm a data scientist at Skyscanner",
        "I drive a 2015 Golf",
        "We moved to Glasgow last month",
        "I just started a new job as a data engineer at Monzo",
        "We sold the Golf and bought a Kia Niro EV",
        "I bought a new bike for the commute",
        "My parents moved to Lagos last year",
    )
    card = card_of(cli)
    assert "Glasgow" in card and "Monzo" in card and "Kia" in card
    assert "Leith" not in card and "Skyscanner" not in card and "2015 Golf" not in card
    remember(cli, "I live in Peckham now", "My sister moved to Leeds in May")
    card = card_of(cli)
    assert "Peckham" in card  # a sister's move changes nothing of the user's home
    assert "Leith" in cli("recall", "Leith").stdout  # kept, and found when asked for


def test_a_plan_a_refusal_or_someone_elses_change_leaves_the_card_as_it_was(cli, api, real_encoder):
    # What a change hides is only what it replaces, and only a change done by the user hides anything:
    # a plan, a wish, a refusal, a move "here" years ago, a car bought for someone else, a team move.
    remember(
        cli,
        "I live in Kendal, in the Lake District",
        "I'm a structural engineer at Arup",
        "I'm a chartered engineer",
        "I drive a 2018 Skoda Octavia",
        "We're hoping to find a new house with a bigger garden",
        "I turned down a new job at Atkins",
        "We moved here in 2016",
        "We bought our daughter Ruth a new car when she passed her test",
        "I moved teams at work in the autumn",
        "I got a new position on the parish council",
        "We got a new car for my son",
    )
    card = card_of(cli)
    assert "Kendal" in card and "Arup" in card and "Octavia" in card, card
    remember(cli, "Last month my wife and I moved to Penrith to be near her parents", "I started a new job at Jacobs")
    card = card_of(cli)
    assert "Penrith" in card and "Kendal" not in card, card  # a move told with a role named is still ours
    assert "Jacobs" in card and "at Arup" not in card, card
    assert "chartered engineer" in card and "Octavia" in card, card  # not what a new job replaces
    remember(cli, "I got a new job offer from Mott MacDonald but didn't take it", "My job pays 58k a year")
    card = card_of(cli)
    assert "Jacobs" in card and "58k" not in card, card  # an offer declined changes nothing; pay is not the job
    remember(cli, "We gave up the car in the spring")
    assert "Octavia" not in card_of(cli)


def test_a_question_about_a_kind_of_number_gets_none_of_yours(cli, api, real_encoder):
    # "What is an NHS number?" is about no one: the user's own goes when the question names it as theirs
    # or as a particular one ("again"), as an alarm or gate code does.
    for text in ("My NHS number is 943 476 5919", "The code for the side gate is 7788"):
        assert cli("memories", "add", text).exit_code == 0
    assert "943 476" not in sent_for(cli, api, "What is an NHS number?")
    assert "7788" not in sent_for(cli, api, "What is a gate code?")
    assert "943 476" in sent_for(cli, api, "What's my NHS number?")
    assert "7788" in sent_for(cli, api, "What's the gate code again?")


def test_what_counts_as_an_identifier_and_what_does_not():
    from memchat.memory.judge.sensitive import holds_identifier

    for text in (
        "My sort code is 20-45-77",
        "NI number QQ123456C",
        "My NHS number is 485 777 3456",
        "I drive a 2019 Toyota Corolla hybrid, reg YK19 ABC",
        "Our car's number plate is AB12 CDE",
        "My licence plate is 7ABC123",
        "Our side gate code is 4471",
        "The alarm code: 0913",
        "My bike lock combination is 482",
    ):
        assert holds_identifier(text), text
    for text in (
        "Our house cost £425000",
        "I'm flying to Oslo on 2026-11-20",
        "I was born in 1987",
        "I earn 45000",
        "I drive a 2019 Toyota Corolla hybrid",
        "My registration for the marathon is confirmed",
        "The code review is at 3pm",
        "I code in Python 3 every day",
        "My PIN was changed last week",
    ):
        assert not holds_identifier(text), text


def test_a_general_question_about_a_thing_memory_mentions_gets_no_memory_but_one_that_answers_does(
    cli, api, real_encoder
):
    # "What is the RNLI?" asks what everyone may know: the user's shifts there do not answer it, though
    # its one word is in them; "What's the office wifi password?" is answered by a memory.
    remember(
        cli,
        "I volunteer at the RNLI shop on Thursdays",
        "I use a YubiKey for work logins",
        "The office wifi password is heron-42",
    )
    for prompt in ("What is the RNLI?", "How does a YubiKey work?"):
        explained = json.loads(cli("ask", "--explain", "--json", prompt).stdout)
        assert [m["text"] for m in explained["memory"] if m["section"] != "profile"] == [], prompt
    assert "heron-42" in sent_for(cli, api, "What's the office wifi password?")


def test_the_profile_is_small_labelled_and_never_sensitive(household, api):
    explained = json.loads(household("ask", "--explain", "--json", "Any plans for the weekend?").stdout)
    profile = [m for m in explained["memory"] if m["section"] == "profile"]
    assert profile and "## About you" in system_of(api)
    assert not any(word in m["text"] for m in profile for word in ("lithium", "40112233"))
    from memchat import tokens

    assert sum(tokens.count(m["text"]) + 2 for m in profile) <= 150


def test_the_card_knows_who_you_live_with_however_they_were_told(cli, api, real_encoder):
    # A partner who teaches at a school was kept off as "where a child spends the day"; a child told by
    # the day she turned two was kept off as a dated event; a pet on a medicine was kept off whole
    remember(
        cli,
        "My husband Tomás teaches chemistry at a sixth-form college and a secondary school",
        "Our son Mateo turned three on 2 October",
        "We have a ten-year-old tabby, Miso, adopted from the cat shelter; she's on thyroid tablets",
        "I'm a dental hygienist in Porto",
    )
    card = card_of(cli)
    assert "chemistry" in card and "Mateo" in card and "Miso" in card, card
    assert "thyroid" not in card, card  # what the cat has stays off the card
    again = [m for m in json.loads(card_of(cli)) if m["section"] == "profile"]
    assert again == [m for m in json.loads(card) if m["section"] == "profile"]  # the card kept between processes


def test_a_thing_said_with_a_date_is_on_the_card_and_the_thing_is_yours(cli, api, real_encoder):
    # "Our car is a 2019 Dacia...; its inspection is due in February 2027" was kept off the card as a
    # dated event, and "the car's inspection is coming up" got no car: "the car" is the user's when
    # memory says "our car"
    remember(
        cli,
        "Our van is a 2018 Ford Transit Custom, diesel; its MOT is due on 14 March 2027",
        "I'm a self-employed plasterer in Derby",
        "We sold our old Vauxhall Vivaro in 2024",
    )
    card = card_of(cli)
    assert "Transit Custom" in card and "MOT" not in card, card
    sent = retrieved_for(cli, "the van's MOT is coming up, what usually fails it?")
    assert any("Transit" in t for t in sent), sent
    assert retrieved_for(cli, "How does a van's catalytic converter work?") == []


def test_a_report_that_is_not_a_question_names_your_own_thing(cli, api, real_encoder):
    # "AC is blowing warm air" said no I or my and got nothing, though memory says "The AC unit is from
    # 2011": a report or request that is not a question names things as their owner does. A question
    # about the same thing is asked of anyone.
    remember(
        cli,
        "The dishwasher is a Bosch Serie 4 we bought in 2019",
        "I play in a community orchestra; my cello is a 1990s German workshop instrument",
        "I'm a pharmacist in Leicester",
    )
    assert any("Bosch" in t for t in retrieved_for(cli, "Dishwasher leaves a gritty film on everything")), "dishwasher"
    assert any("cello" in t for t in retrieved_for(cli, "Cello strings keep slipping out of tune in the cold hall"))
    assert_withheld(
        cli,
        (
            "How does a dishwasher's rinse aid work?",
            "What is the lowest note a cello can play?",
            "List the parts of a dishwasher",  # any dishwasher (an adversarial walk: it got the Bosch)
        ),
        "Bosch",
        "cello",
    )


def test_technical_and_general_questions_get_no_sensitive_or_retrieved_memory(household, api):
    for prompt in (
        "How do I validate a bank account number's check digit in Python?",
        "How does lithium-ion battery chemistry work?",
        "How do I kill a child process in Go?",
    ):
        system = sent_for(household, api, prompt)
        assert "40112233" not in system and "lithium for bipolar" not in system, prompt
    general = sent_for(household, api, "What is the population of Porto?")
    retrieved = [line for line in memory_lines(general) if "## About you" not in general.split(line)[0][-40:]]
    assert "What I know about you" not in general and "What happened before" not in general, retrieved


def test_a_question_about_no_one_gets_no_past_conversation_that_shares_its_words(household, api):
    """The user's own earlier asks are history too: a general or coding question that shares a word
    with one ("list", "football") is still about no one, and gets none of them."""
    for earlier in ("Write an endpoint that returns a paginated list of orders", "The twins want a new football kit"):
        sent_for(household, api, earlier)
    for prompt in ("How do I reverse a linked list in Java?", "Who won the football World Cup in 2010?"):
        system = sent_for(household, api, prompt)
        assert "What happened before" not in system and "What I know about you" not in system, prompt
        assert "paginated" not in system and "football kit" not in system, prompt


def test_a_health_question_of_the_users_own_reaches_the_health_memory(household, api):
    assert "lithium for bipolar" in sent_for(household, api, "Is it safe for me to take ibuprofen with my medication?")


def test_direct_questions_work_on_a_profile_with_memories_and_no_sessions(household, api):
    for prompt, expected in (
        ("Which city do I live in?", "I live in Porto"),
        ("What are my kids' names?", "Leo and Bea"),
        ("What's our cat called?", "Miso"),
    ):
        assert expected in sent_for(household, api, prompt), prompt


# Memories that name people by role once ("my brother Tiago") and then by name only.
RELATIVES = [
    "My wife Ana is a primary-school teacher",
    "Ana's dad Jorge restores old motorbikes",
    "My brother Tiago is a nurse in Lisbon",
    "Tiago collects soul records on vinyl",
    "I restore second-hand furniture at weekends",
    "Our neighbour Rita grows tomatoes",
]


def test_a_parent_called_by_name_is_the_users(cli, api, real_encoder):
    # "Mum" and "Dad" are names in most families: "a present for Dad" is about the user's father as
    # "my dad" is (it had reached for the father-in-law, "Ana's dad Jorge").
    remember(cli, *RELATIVES, "My dad Paulo is mad about birdwatching")
    assert "birdwatching" in sent_for(cli, api, "Birthday present ideas for Dad?")
    assert "birdwatching" not in sent_for(cli, api, "Tell me some dad jokes for a best man's speech")
    assert "birdwatching" not in sent_for(cli, api, "Gift ideas for a new dad?")


def test_a_person_named_by_role_brings_what_memory_says_of_them(cli, api, real_encoder):
    remember(cli, *RELATIVES)
    assert "restores old motorbikes" in sent_for(cli, api, "What could I give my father-in-law for Christmas?")
    assert "soul records" in sent_for(cli, api, "Birthday present ideas for my brother?")
    unrelated = sent_for(cli, api, "How do I kill a child process in Go?")
    assert "Jorge" not in unrelated and "Tiago" not in unrelated


@pytest.mark.parametrize(
    ("request_text", "memory_text", "own"),
    [
        ("Draft a polite text to the landlord about the broken boiler", "Our landlord is Klaus Becker", True),
        ("Remind me what the vet said about the dog's teeth", "Our vet is Dr Moss in Hove", True),
        ("Help me apologise to the neighbours for the noise", "Our neighbour Rita grows tomatoes", True),
        ("What time is my check-up with the dentist?", "My dentist is Dr Okafor", True),
        # said to someone memory knows by another role, or asked about the role in general
        ("Draft a polite text to the landlord about the broken boiler", "My boss is Priya", False),
        ("Is the landlord or the tenant responsible for a broken boiler?", "Our landlord is Klaus Becker", False),
        ("Write a short story where the landlord is a ghost", "Our landlord is Klaus Becker", False),
    ],
)
def test_someone_called_by_their_role_is_the_users_when_memory_says_so(request_text, memory_text, own):
    # "Draft a message to the landlord" says no "my", but memory says "Our landlord is Klaus": the
    # request is about the user's own world and may reach what memory holds of them.
    from memchat.memory.judge.personal import about_someone
    from memchat.memory.recall.rank import Hit

    hit = Hit(type="memory", id=1, kind="fact", text=memory_text, score=0.5, when="", source="stated")
    assert about_someone(request_text, [hit]) is own


def test_children_listed_with_their_ages_are_who_a_son_or_daughter_may_be(memchat_home):
    # "We've got three kids: Isla 10, Finn 7 and Rory 3" names no son or daughter: a request for "my
    # son" reads what memory says of each of them (read from the database as the routes read it)
    from memchat.memory.judge import people

    db = open_db(memchat_home / "default.db")
    for text in (
        "We've got three kids: Isla 10, Finn 7 and Rory 3",
        "Finn is mad about football",
        "I'm a vet in Truro",
    ):
        MemoryStore(db).add(text)
    names, about = people.people_and_memories(db, people.role_paths("What should I get my son for his birthday?"))
    assert {"Isla", "Finn", "Rory"} <= names
    MemoryStore(db).add("My stepdaughter Esme loves horses")
    MemoryStore(db).add("Our son Kit is obsessed with trains")
    assert people.names_for(db, "user", "son") == ["Kit"] and people.names_for(db, "user", "daughter") == ["Esme"]
    assert any("football" in MemoryStore(db).get(i).text for i in about)


def test_the_profile_puts_what_the_household_cannot_eat_before_what_it_likes(cli, api, real_encoder):
    likes = [
        "I love spicy Sichuan food",
        "My favourite breakfast is porridge with blueberries",
        "I drink two flat whites a day",
        "The user's favourite cuisine is Ethiopian",
        "I bake sourdough every weekend",
        "My go-to dish for guests is slow-roast lamb shoulder",
        "I batch-cook my lunches on Sundays",
        "We order pizza every Friday",
        "I love a good ramen",
        "My favourite snack is salted popcorn",
        "I make my own kimchi",
        "The user loves Ethiopian injera",
        "I like my steak medium rare",
        "We have roast chicken most Sundays",
        "I drink green tea in the afternoon",
        "I like dark chocolate with sea salt",
        "My favourite fruit is mango",
        "I love a full English breakfast",
        "We grow our own herbs for cooking",
        "The user loves Neapolitan pizza",
    ]
    remember(cli, *likes, "I'm pescatarian", "I can't stand mushrooms")
    explained = json.loads(cli("ask", "--explain", "--json", "Any plans for the weekend?").stdout)
    profile = [m["text"] for m in explained["memory"] if m["section"] == "profile"]
    # chosen first in their topic's turn (topics take turns), so they hold when the 150 tokens run out
    assert {"I'm pescatarian", "I can't stand mushrooms"} <= set(profile[:3]), profile


def test_a_memory_stored_before_the_encoder_was_ready_reaches_the_next_request(cli, api, real_encoder, memchat_home):
    # A new user's first `memories add` runs before the encoder's one-time preparation, so the
    # memory is stored without a vector; the next request must still see it by meaning.
    assert cli("memories", "add", "I'm lactose intolerant").exit_code == 0
    _forget_vectors(memchat_home)
    assert "lactose intolerant" in sent_for(cli, api, "What should I get at the café this morning?")


def _forget_vectors(memchat_home) -> None:
    """As if every memory had been stored before the encoder was ever prepared (a script's
    `memories add`, a `memories import`, on a new machine): no vectors."""
    conn = sqlite3.connect(memchat_home / "default.db")
    conn.execute("UPDATE memories SET embedding = NULL, embedding_model = NULL")
    conn.commit()
    conn.close()


def test_many_memories_stored_before_the_encoder_was_ready_all_reach_judgement(cli, api, real_encoder, memchat_home):
    # More than a chat turn embeds of a message backlog (32): the turn must still embed the
    # memories, or the profile card and search by meaning are blind to every one of them.
    others = [f"My colleague number {i} works in team {i % 7}" for i in range(45)]
    remember(cli, *others, "I'm lactose intolerant", "I drive a 2019 Chevy Silverado")
    _forget_vectors(memchat_home)
    asked = cli("ask", "--explain", "--json", "Truck's making a grinding noise when I brake")
    assert asked.exit_code == 0
    assert "embedding 47 memories stored before the encoder was ready" in asked.stderr
    profile = {m["text"] for m in json.loads(asked.stdout)["memory"] if m["section"] == "profile"}
    assert "I drive a 2019 Chevy Silverado" in profile
    assert "lactose intolerant" in sent_for(cli, api, "What should I get at the café this morning?")


def test_a_backlog_too_large_for_a_turn_is_said_once_with_what_embeds_it(
    cli, api, real_encoder, memchat_home, monkeypatch
):
    import memchat.app.turn

    monkeypatch.setattr(memchat.app.turn, "MEMORY_BACKLOG", 3)  # stands for 2,000 (seconds of embedding)
    remember(cli, "I'm lactose intolerant", "I live in Lyon", "I drive a Clio", "Our dog is Biscuit")
    _forget_vectors(memchat_home)
    first = cli("ask", "What should I get at the café this morning?")
    assert first.exit_code == 0
    assert "4 memories have no vector yet" in first.stderr and "memchat reindex" in first.stderr
    assert cli("reindex").exit_code == 0
    again = cli("ask", "What should I get at the café this morning?")
    assert "no vector" not in again.stderr
    assert "lactose intolerant" in system_of(api)


def test_imported_memories_are_embedded_by_the_import(cli, real_encoder, memchat_home, tmp_path, monkeypatch):
    from memchat.app.profile import Profile

    remember(cli, *(f"My friend number {i} plays the oboe" for i in range(40)), "I'm lactose intolerant")
    exported = tmp_path / "m.json"
    assert cli("memories", "export", "-o", str(exported)).exit_code == 0
    assert cli("memories", "forget", "--all", "--yes").exit_code == 0
    # A new machine: the encoder's one-time preparation not done yet. The import does it.
    monkeypatch.setattr(Profile, "encoder_prepared", lambda self: False)
    assert cli("memories", "import", str(exported)).exit_code == 0
    conn = sqlite3.connect(memchat_home / "default.db")
    rows = conn.execute("SELECT count(*), count(embedding) FROM memories WHERE status = 'active'").fetchone()
    conn.close()
    assert rows == (41, 41)


def test_a_health_or_money_memory_no_word_list_marks_stays_with_requests_about_that(cli, api, real_encoder):
    # Nothing marks "Parkinson's" or a salary sensitive by its words: by meaning they are health and
    # money, and go only to a request about health or money, not to one that is merely about family.
    remember(cli, "My mum Ana has Parkinson's", "My salary is 68k a year", "My sister Marta lives in Porto")
    gift = sent_for(cli, api, "Gift idea for my sister?")
    assert "Parkinson" not in gift and "68k" not in gift
    assert "Parkinson" in sent_for(cli, api, "How can I help my mum with her tremor?")
    assert "68k" in sent_for(cli, api, "What should I budget for rent?")


def test_an_allergy_to_a_medicine_stays_out_of_the_profile_but_a_food_or_sting_allergy_is_in_it(cli, api, real_encoder):
    """The profile holds diet and allergies a meal or a day out depends on; a reaction to a medicine
    is a health fact, sent only to a request about health."""
    medicine = ["I'm allergic to penicillin", "Ibuprofen gives me a rash", "I can't tolerate morphine"]
    daily = ["I'm allergic to sesame", "I carry an EpiPen because of a hornet sting allergy"]
    remember(cli, *medicine, *daily)
    explained = json.loads(cli("ask", "--explain", "--json", "Plan a day out at the coast for us").stdout)
    profile = {m["text"] for m in explained["memory"] if m["section"] == "profile"}
    assert set(daily) <= profile and not profile & set(medicine), profile
    asked = json.loads(cli("ask", "--explain", "--json", "Which painkiller is safe for me to take?").stdout)
    assert set(medicine) & {m["text"] for m in asked["memory"]}


def test_a_job_in_health_care_is_work_on_the_profile_and_a_health_fact_is_not(cli, api, real_encoder):
    """A nurse's job is who they are at work, not their health: it reaches the profile's card; a
    health fact beside it does not, though both say "hospital" or "doctor"."""
    jobs = ["I'm a nurse on night shifts at St James's hospital in Leeds", "My brother Owen works as a GP in Cardiff"]
    health = ["My doctor says my blood pressure is too high", "I was in hospital for a week in May"]
    remember(cli, *jobs, *health, "We have a rescue greyhound called Pepper")
    explained = json.loads(cli("ask", "--explain", "--json", "Help me write a cover letter for a new post").stdout)
    profile = {m["text"] for m in explained["memory"] if m["section"] == "profile"}
    assert jobs[0] in profile and not profile & set(health), profile


def _hit(type_: str, id_: int, text: str, score: float):
    from memchat.memory.recall.rank import Hit

    kind = "fact" if type_ == "memory" else "message"
    return Hit(type_, id_, kind, text, score, "2026-01-01", "test", role="user" if type_ == "message" else None)


def test_a_past_chat_far_below_a_fact_that_answers_is_not_sent_beside_it():
    from memchat.memory.judge.inject import MEMORY_SHARE, gate

    car = _hit("memory", 1, "We drive a 2023 Kia Niro EV now", 0.41)
    seats = _hit("message", 2, "Children with their own seat get the same under-seat allowance", 0.13)
    close = _hit("message", 3, "We test-drove the Niro and the Ioniq last spring", 0.41 * MEMORY_SHARE + 0.01)
    passed = gate([car, seats, close], "What car do we drive?", 0.05)
    assert [h.id for h in passed] == [1, 3]
    # With no memory among the hits (a search of transcripts), snippets keep the floor alone.
    assert [h.id for h in gate([seats, close], "What car do we drive?", 0.05)] == [3, 2]


def test_beside_a_weak_memory_a_past_chat_must_clear_the_bar_itself():
    """A memory that barely clears the bar lets nothing weaker in from past chats: the floor under
    it is for transcripts alone ("how long to my mum's by train?" and an earlier ask about a
    birthday present, at 0.03)."""
    from memchat.memory.judge.inject import gate

    mum = _hit("memory", 1, "My mum Aileen lives in Inverness", 0.06)
    gift = _hit("message", 2, "What should I get my other half for their birthday?", 0.03)
    trains = _hit("message", 3, "The sleeper train to Inverness was fully booked", 0.05)
    assert [h.id for h in gate([mum, gift, trains], "How long would it take to get to my mum's by train?", 0.05)] == [
        1,
        3,
    ]
    assert [h.id for h in gate([gift, trains], "How long would it take to get to my mum's by train?", 0.05)] == [3, 2]


def _said(id_: int, name: str, text: str, score: float):
    from memchat.memory.recall.rank import Hit

    return Hit("message", id_, "message", text, score, "2026-01-01", "import", role="user", name=name)


def test_a_question_naming_a_speaker_gets_their_words_on_a_sensitive_subject_and_no_one_elses():
    from memchat.memory.judge.inject import gate

    caroline = _said(
        1, "Caroline", "I'm thinking of counselling transgender people, helping them accept who they are", 0.06
    )
    melanie = _said(2, "Melanie", "My therapist says the depression is easing since I started running", 0.06)
    hits = [caroline, melanie]
    assert [h.id for h in gate(hits, "What career path has Caroline decided to pursue?", 0.05)] == [1]
    assert [h.id for h in gate(hits, "What has Mel said about her running?", 0.05)] == [2]  # a short name too
    assert gate(hits, "What did they talk about last week?", 0.05) == []  # no one named: need-to-know as before
    # A general or technical question gets no sensitive item, whoever said it.
    assert gate(hits, "What did Caroline say?", 0.05, technical=True) == []


def test_a_mention_of_children_alone_is_not_sensitive_but_their_health_is():
    from memchat.memory.judge.inject import gate

    camping = _hit("message", 1, "We took the kids camping at the lake in June", 0.06)
    asthma = _hit("message", 2, "Our son's asthma flared up at the campsite", 0.06)
    assert [h.id for h in gate([camping, asthma], "When did we go camping?", 0.05)] == [1]


# Health facts of a family, among others (written for this test; the requests name no condition).
FAMILY_HEALTH = [
    "Our daughter Iris gets asthma attacks whenever she catches a cold",
    "I have psoriasis on my elbows and knees",
    "Iris is five and loves painting",
    "We live in a flat in Leeds",
    "I ride a road bike to work",
    "Our bathroom has an extractor fan that rattles",
]


@pytest.mark.parametrize(
    "prompt, sent",
    [
        ("My little one is wheezing and coughing at night again. What should we do?", True),
        ("My skin is flaking and itchy after the cold snap. What helps?", True),
        ("Ideas for my daughter's birthday party?", False),
        ("The extractor fan in our bathroom rattles. How do I fix it?", False),
    ],
)
def test_a_request_partly_about_health_reaches_the_health_fact_it_touches_and_no_other_does(
    cli, api, real_encoder, prompt, sent
):
    remember(cli, *FAMILY_HEALTH)
    system = sent_for(cli, api, prompt)
    health = [t for t in FAMILY_HEALTH[:2] if t in system]
    assert bool(health) == sent, (prompt, health)


def test_the_profile_is_a_card_of_who_the_user_is_now(cli, api, real_encoder):
    """One fact of each kind a call benefits from (home, diet, household, pet, job, main tools, current
    project, how they get around), the current one before a former one, and not a friend's diet,
    a neighbour's pet or the rent."""
    card = [
        "I live in Ghent now",
        "I don't eat pork",
        "My husband Pieter is a physiotherapist",
        "We have a tabby cat called Saffraan",
        "I'm a QA engineer at a logistics company",
        "At work we write Kotlin and deploy on Google Cloud",
        "We drive a 2021 Skoda Enyaq",
    ]
    around = [
        "I grew up in Antwerp",
        "I lived in Lille for six years",
        "My friend Joke can't eat eggs",
        "My friend Lies is gluten-free",
        "Our neighbours have a beagle called Moos",
        "The user's rent is €1,150 a month",
        "Our son Mats goes to De Regenboog primary school",
        "I am a member of the GMB union",
        "I go to Mass every Sunday at St Bavo",
        "I love Vietnamese food",
        "My favourite snack is speculoos",
        "I drink oat lattes",
        "We make waffles on Sundays",
        "I like my coffee strong",
        "Our flat has a tiny balcony",
        "The landlord is slow to fix the boiler",
    ]
    remember(cli, *card + around)
    explained = json.loads(cli("ask", "--explain", "--json", "Any plans for the weekend?").stdout)
    profile = {m["text"] for m in explained["memory"] if m["section"] == "profile"}
    assert set(card) <= profile, set(card) - profile
    assert not profile & {
        "I grew up in Antwerp",
        "My friend Joke can't eat eggs",
        "My friend Lies is gluten-free",
        "The user's rent is €1,150 a month",
    }
    # nor where a child spends the day, nor what the sensitive categories cover (union, faith)
    sent = {m["text"] for m in explained["memory"]}
    assert not sent & {
        "Our son Mats goes to De Regenboog primary school",
        "I am a member of the GMB union",
        "I go to Mass every Sunday at St Bavo",
    }, sent


def test_a_request_the_profile_answers_gets_no_topic_filler_beside_it(cli, api, real_encoder):
    """The topic's memories stand in for a search that found nothing; a search that found what the
    profile holds found something (the commute), so no other transport memory is added beside it."""
    remember(
        cli,
        "My commute to work is a 25-minute tram ride",
        "My bike has had a flat tyre for weeks",
        "I am thinking of buying an e-bike",
        "My sister Lotte is a midwife",
        "I live in Utrecht",
        "Our car is a 2017 Renault Clio",
    )
    asked = json.loads(cli("ask", "--explain", "--json", "Will my commute be slow tomorrow with the strike?").stdout)
    sent = [(m["section"], m["text"]) for m in asked["memory"]]
    assert ("profile", "My commute to work is a 25-minute tram ride") in sent
    assert [t for section, t in sent if section != "profile"] == [], sent


def test_a_coding_task_about_no_one_gets_the_users_stack_and_nothing_else_of_them(cli, api, real_encoder):
    """Code is written in the user's stack: a technical request gets the card's main-tools line,
    not their home or family; a general question gets no profile at all."""
    remember(
        cli,
        "I live in Ghent now",
        "My husband Pieter is a physiotherapist",
        "At work we write Kotlin and deploy on Google Cloud",
        "I am a QA engineer at a logistics company",
        "We drive a 2021 Skoda Enyaq",
    )
    for prompt in ("Add retries with backoff to this HTTP client.", "Write a function that paginates API results."):
        asked = json.loads(cli("ask", "--explain", "--json", prompt).stdout)
        assert [(m["section"], m["text"]) for m in asked["memory"]] == [
            ("profile", "At work we write Kotlin and deploy on Google Cloud")
        ], prompt
    general = json.loads(cli("ask", "--explain", "--json", "What's the capital of Iceland?").stdout)
    assert general["memory"] == []


@pytest.mark.parametrize(
    "stack",
    [
        "Our backend is Elixir services talking to each other over RabbitMQ, on MySQL 8",
        "We're a Scala shop: Akka services on Cassandra",
        "Our API is a FastAPI app on Cloud Run with Firestore",
        "Our game servers are C++ on bare metal",
    ],
)
def test_a_stack_said_as_what_the_services_are_is_the_cards_main_tools(cli, api, real_encoder, stack):
    """ "Our backend is Elixir services ... on MySQL" names no language as "we write" or "I code in"
    does, but it is the stack a coding task is done in: the card holds it as the main tools."""
    remember(
        cli,
        "I live in Porto",
        "I'm a backend engineer at a payments company",
        "My partner Rui is a nurse",
        "I'm leading the work to move our batch jobs onto a workflow engine",
        stack,
    )
    asked = json.loads(
        cli("ask", "--explain", "--json", "Write an integration test for the reconcile job against a real db").stdout
    )
    assert ("profile", stack) in [(m["section"], m["text"]) for m in asked["memory"]], asked["memory"]


def test_a_pets_illness_reaches_a_request_about_the_pet_but_the_users_health_does_not(cli, api, real_encoder):
    """A pet's illness is its care, not the user's private health: "the dog" brings the dog's
    arthritis, and still nothing of the user's own health."""
    remember(
        cli,
        "Our dog Pixel is a nine-year-old collie",
        "Pixel has arthritis in her hips",
        "I am on sertraline for depression",
        "I have a bad back",
        "I live in Leeds",
    )
    asked = json.loads(cli("ask", "--explain", "--json", "How far should I walk the dog each day?").stdout)
    texts = [m["text"] for m in asked["memory"]]
    assert "Pixel has arthritis in her hips" in texts, texts
    assert not [t for t in texts if "sertraline" in t or "bad back" in t], texts


def test_a_dated_plan_is_never_a_standing_fact_on_the_profile(cli, api, real_encoder):
    """The card is sent as what is true now; a plan with a day is coming up before it and past after
    it, so it reaches a request only as a plan, with its day."""
    remember(
        cli,
        "I live in Ghent now",
        "We are moving to Lisbon on 2027-03-01",
        "My husband Pieter is a physiotherapist",
        "I work as a QA engineer",
    )
    weekend = json.loads(cli("ask", "--explain", "--json", "Any plans for the weekend?").stdout)
    assert "We are moving to Lisbon on 2027-03-01" not in {m["text"] for m in weekend["memory"]}
    asked = json.loads(cli("ask", "--explain", "--json", "What paperwork do we need before the move to Lisbon?").stdout)
    assert [m["section"] for m in asked["memory"] if "Lisbon" in m["text"]] in (["plans"], ["history"])


def test_a_day_told_by_its_distance_from_when_it_was_said_is_that_day(memchat_home, embedder):
    # "I'm flying to Lisbon tomorrow" said on 1 March is a plan for 2 March, coming up before it and
    # past after it; kept as a current fact it would say "tomorrow" for ever. A time of day, a habit,
    # or what today or yesterday tells names no day.
    from datetime import date

    from memchat.memory.judge import inject
    from memchat.memory.recall import index
    from memchat.memory.recall.dates import one_off_day, planned_day

    told = "2027-03-01T10:00:00.000000Z"
    assert str(planned_day("I'm flying to Lisbon tomorrow", told)) == "2027-03-02"
    assert str(planned_day("We see the consultant the day after tomorrow", told)) == "2027-03-03"
    assert str(planned_day("My knee op is in 10 days", told)) == "2027-03-11"
    assert str(planned_day("The exam is in two weeks' time", told)) == "2027-03-15"
    assert str(planned_day("Dinner at Ana's tonight", told)) == "2027-03-01"
    assert str(planned_day("I'm flying to Oslo on May 9, back in two weeks", told)) == "2027-05-09"
    for no_day in (
        "I walk the dog every day",
        "I work best in the morning",
        "I want to visit Japan one day",
        # what today or yesterday tells often holds from then on: a fact, on the card if it belongs
        "I got a puppy today, she's called Luna",
        "I found out yesterday that I'm allergic to kiwi",
    ):
        assert one_off_day(no_day, told) is None, no_day
    db = open_db(memchat_home / "default.db")
    MemoryStore(db).add("I'm flying to Lisbon tomorrow", created_at=told)
    index.catch_up(db, embedder)

    def section(today: date) -> str:
        return inject.build(db, "When do I fly to Lisbon?", embedder=embedder, budget=1500, count=len, today=today).text

    assert "## Coming up\n- [2027-03-02] I'm flying to Lisbon tomorrow" in section(date(2027, 3, 1))
    assert "[2027-03-02, past] I'm flying to Lisbon tomorrow" in section(date(2027, 3, 20))


def test_a_how_to_in_code_gets_none_of_the_users_own_facts_and_a_birth_date_is_a_fact(cli, api, real_encoder):
    # "How do I compute age from date of birth in SQL?" asks how anyone would do it: the user's own
    # date of birth shares its words and its topic (dates), and is not sent; the user's stack is.
    # Asked as the user's own, it goes, as a fact: a date of birth comes round every year, it is
    # no event of 1990.
    remember(cli, "My date of birth is 1990-04-02", "At work we use Python and PostgreSQL 15")

    def sent(prompt: str) -> list[dict]:
        return json.loads(cli("ask", "--explain", "--json", prompt).stdout)["memory"]

    for prompt in (
        "How do I compute age from date of birth in SQL?",
        "How do I count the days between two dates in JavaScript?",
    ):
        items = sent(prompt)
        assert not [m for m in items if "1990-04-02" in m["text"]], (prompt, items)
        assert [m for m in items if "PostgreSQL" in m["text"]], (prompt, items)
    birthday = sent("When's my birthday?")
    assert [m["section"] for m in birthday if "1990-04-02" in m["text"]] == ["facts"], birthday
    from memchat.memory.recall.dates import one_off_day

    for born in ("My date of birth is 1990-04-02", "I was born on 2 April 1990", "Ana's DOB is 12/03/1988"):
        assert one_off_day(born, "2026-12-03T10:00:00.000000Z") is None, born
    assert str(one_off_day("Our baby is due to be born on 2027-03-01", "2026-12-03T10:00:00.000000Z")) == "2027-03-01"


def test_a_day_named_by_its_weekday_is_a_one_off_and_a_habit_is_not():
    from memchat.memory.recall.dates import one_off_day, planned_day

    told = "2026-12-03T10:00:00.000000Z"  # a Thursday
    assert str(one_off_day("On Tuesday I had my first driving lesson in the Tesla", told)) == "2026-12-01"
    assert planned_day("On Tuesday I had my first driving lesson in the Tesla", told) is None  # past: no plan
    assert str(planned_day("I have a dentist appointment next Monday", told)) == "2026-12-07"
    assert str(one_off_day("Last Saturday we went to a wedding in Harrogate", told)) == "2026-11-28"
    assert str(planned_day("This Thursday I start my new job", told)) == "2026-12-03"
    for habit in (
        "I play netball on Tuesday evenings",
        "I go to Quaker meeting on Sundays",
        "Book club is on the first Thursday of the month",
        "Bin day is Wednesday",
    ):
        assert one_off_day(habit, told) is None, habit


def test_a_faiths_law_of_what_to_eat_reaches_the_households_meal_and_nothing_else(cli, api, real_encoder):
    """Halal and kosher name a religion, sensitive, yet a meal must respect them as it does an
    allergy; a gift or a general question about the faith does not get them."""
    remember(
        cli,
        "I'm Hindu and I don't eat beef",
        "My wife Noa is Jewish and keeps kosher",
        "Our son Ari is nine",
        "I live in Leicester",
        "I work as a surveyor",
    )
    meal = sent_for(cli, api, "What can I make for the family on Friday night?")
    assert "don't eat beef" in meal and "keeps kosher" in meal
    for prompt in ("Gift ideas for my wife", "What is Diwali?"):
        sent = sent_for(cli, api, prompt)
        assert "kosher" not in sent and "beef" not in sent, prompt


def test_a_condition_that_sets_what_someone_eats_reaches_their_meal_but_no_one_elses(cli, api, real_encoder):
    """Diabetes reads as health, but a meal must respect it: the user's dinner gets it; their
    daughter's lunchbox and a general question about insulin do not."""
    remember(
        cli,
        "I have type 1 diabetes",
        "I am on sertraline for anxiety",
        "Our daughter Lina is six",
        "Lina won't touch tomatoes",
        "I live in Bruges",
        "I work as an architect",
    )

    def sent(prompt: str) -> list[str]:
        return [m["text"] for m in json.loads(cli("ask", "--explain", "--json", prompt).stdout)["memory"]]

    dinner = sent("What should I make for my dinner tonight?")
    assert "I have type 1 diabetes" in dinner and not [t for t in dinner if "sertraline" in t], dinner
    lunchbox = sent("Pack my daughter's lunchbox for tomorrow.")
    assert "Lina won't touch tomatoes" in lunchbox and "I have type 1 diabetes" not in lunchbox, lunchbox
    assert "I have type 1 diabetes" not in sent("How does insulin work, in general?")


def test_a_question_about_what_is_usual_for_people_gets_none_of_your_health_but_your_own_does(cli, api, real_encoder):
    # "usually", "typically", "on average" with no I, my or we asks for knowledge: the topic's
    # memories are not sent in its place; the same subject asked as the user's own gets them.
    for text in ("I use a CPAP machine for sleep apnoea", "My son Leo has eczema", "I'm a sound engineer in Glasgow"):
        assert cli("memories", "add", text).exit_code == 0
    assert "eczema" not in sent_for(cli, api, "What creams do dermatologists typically recommend?")
    assert "CPAP" not in sent_for(cli, api, "What do people usually do about snoring?")
    assert "CPAP" not in sent_for(cli, api, "What's the typical treatment you get for snoring?")
    assert "eczema" in sent_for(cli, api, "What cream is typically best for eczema on a toddler? He's 2")
    assert "CPAP" in sent_for(cli, api, "What can I do about my snoring?")


def test_you_in_a_question_about_the_world_is_anyone_not_the_user(household, api):
    # Talking to an assistant, "you" is the assistant or anyone ("how long do you boil an egg?"),
    # not the person whose memories these are: a question about the world said with it gets no
    # memory beyond the card, and the same subject as the user's own still does.
    remember(household, "We keep three hens in the back garden", "I cycle to work on a steel touring bike")
    remember(household, "Our boiler is a 12-year-old Vaillant combi")

    def sent(prompt: str, *, card: bool = True) -> list[str]:
        explained = json.loads(household("ask", "--explain", "--json", prompt).stdout)
        return [m["text"] for m in explained["memory"] if card or m["section"] != "profile"]

    for prompt in (
        "How long do you boil an egg for a runny yolk?",
        "How often should you oil a bike chain?",
    ):
        assert sent(prompt, card=False) == [], prompt
    assert any("touring bike" in t for t in sent("My chain keeps slipping when I change gear, what should I check?"))
    assert any("Vaillant" in t for t in sent("The radiators are cold upstairs but hot downstairs"))


def test_a_question_about_the_world_gets_no_health_or_money_memory_by_its_topic(household, api):
    # "How many hours of sleep does an adult need?" is health, and the encoder finds it more
    # topical than general; but it asks about people at large and says nothing of the user's own:
    # the lithium is not sent by its topic. Asked as the user's own, it is.
    for prompt in (
        "How many hours of sleep does an adult need?",
        "What's a healthy resting heart rate?",
        "How much should a family spend on groceries a month?",
    ):
        sent = sent_for(household, api, prompt)
        assert "lithium" not in sent and "40112233" not in sent, prompt
    assert "lithium" in sent_for(household, api, "I've been sleeping really badly this week, what can I do?")


def test_a_question_about_the_world_gets_a_memory_by_its_topic_only_when_plainly_on_it(cli, api, real_encoder):
    # A question about the world shares a place or a loose topic with a memory ("in Ontario" and a
    # fan of a Toronto team): that is no reason to send it. A plan for the very place asked about
    # is plainly on the question's topic and still goes.
    remember(
        cli,
        "I'm a Toronto Raptors fan",
        "We're going to Quebec City for Christmas 2026",
        "I coach my son's hockey team",
        "I do woodworking in my garage",
    )

    assert not [
        t for t in retrieved_for(cli, "Is it legal to ride in the back of a pickup in Ontario?") if "Raptors" in t
    ]
    quebec = retrieved_for(cli, "How cold does Quebec City get at Christmas?")
    assert any("Quebec City for Christmas" in t for t in quebec), quebec
    assert not [t for t in quebec if "Raptors" in t], quebec


def test_what_the_assistant_said_before_and_a_medicine_named_are_the_users_own(household, api):
    # "You" alone is anyone, but what the assistant said is the user's own conversation, and a
    # question that names a medicine is the user's own question whether it says so or not: neither
    # is a question about the world, and each gets the user's health or money memory.
    remember(household, "I have type 1 diabetes and use an insulin pump", "I owe £4,000 on my Barclaycard")
    assert "insulin pump" in sent_for(household, api, "What did you say about the insulin pump?")
    assert "Barclaycard" in sent_for(household, api, "What was your advice about paying off the Barclaycard?")
    assert "lithium" in sent_for(household, api, "Is ibuprofen safe with lithium?")
    assert "lithium" not in sent_for(household, api, "How many hours of sleep does an adult need?")


@pytest.mark.parametrize(
    ("memories", "word", "asked", "not_asked"),
    [
        # "Is it safe to eat smoked salmon?" says no I, but whoever asks would eat it: a pregnancy (a
        # health memory, never on the card) is what the answer turns on. A dog's food, or a question
        # that is not about eating, gets no such memory.
        (
            ("I'm 14 weeks pregnant with our first", "We have a labrador called Moss"),
            "pregnant",
            ("Is it safe to eat smoked salmon?", "Is runny egg OK to eat?"),
            ("Is it safe for dogs to eat grapes?", "Is it safe to leave shoes in a hot car?"),
        ),
        # "How many pints is sensible?" and "going out for drinks" ask no "can I", but the user will
        # drink: an antibiotic that must not meet alcohol is what the answer turns on. A question
        # about pints as a measure, or the pub's television, is not about drinking.
        (
            ("I take metronidazole for an infection this week", "I drive a 2015 VW Golf"),
            "metronidazole",
            ("Going to the pub later, how many pints is sensible?", "I'm going out for drinks with work tonight"),
            ("How many pints are in a gallon?", "Is the pub going to show the match?"),
        ),
    ],
    ids=["safe to eat", "a night of drinking"],
)
def test_what_the_user_would_eat_or_drink_gets_what_it_turns_on(
    cli, api, real_encoder, memories, word, asked, not_asked
):
    remember(cli, *memories)
    for prompt in asked:
        assert any(word in t for t in retrieved_for(cli, prompt)), prompt
    for prompt in not_asked:
        assert not [t for t in retrieved_for(cli, prompt) if word in t], prompt


def test_a_drink_asked_for_gets_the_users_reason_not_to_drink(cli, api, real_encoder):
    # Being sober is what "Can I have a glass of wine at the wedding?" turns on, though it is no
    # medicine and shares no word with it. A cocktail menu for guests, or a drink the user takes
    # every day, is not that question.
    remember(cli, "I'm a recovering alcoholic, three years sober", "I drink two flat whites a day")

    for prompt in ("Can I have a glass of wine at the wedding?", "Going to the pub later, how many pints is sensible?"):
        got = retrieved_for(cli, prompt)
        assert any("sober" in t for t in got) and not [t for t in got if "flat whites" in t], (prompt, got)
    assert not [t for t in retrieved_for(cli, "Suggest a cocktail menu for our party") if "sober" in t]
    # a medicine that is the reason not to drink is sent once
    remember(cli, "I'm on metronidazole so I can't drink this week")
    assert len([t for t in retrieved_for(cli, "Can I have a beer tonight?") if "metronidazole" in t]) == 1


def test_a_medicine_known_only_by_its_brand_and_dose_is_one_the_user_takes(cli, api, real_encoder):
    # Brand names have no ending to go by ("Elvanse", "Tresiba", "Eliquis"); a dose says it is a
    # medicine all the same, and "my morning pill" speaks of it. Two units of leave are not a dose.
    remember(
        cli,
        "I take Vyvanse 40 mg every morning",
        "I take 2 units of annual leave a month for my course",
        "I'm a civil engineer in Gdansk",
        "My partner Ola is a teacher",
        "I get hay fever every June",  # health the topic's route may pick first
        "I had my appendix out in 2019",
        "I've been cutting down on alcohol since the summer",
        "I see a physio for my left shoulder",
    )
    for prompt in ("Can I have a couple of beers tonight with my pill?", "Is it ok to take Night Nurse tonight?"):
        got = " ".join(retrieved_for(cli, prompt))
        assert "Vyvanse" in got and "annual leave" not in got, (prompt, got)
    assert any(
        "Vyvanse" in t for t in retrieved_for(cli, "Can I have a couple of beers tonight with my pill?", why="medicine")
    )


def test_a_request_whether_to_take_something_gets_the_medicines_the_user_takes(cli, api, real_encoder):
    # As with a drink: what the user takes already decides whether they may take something more
    # (St John's wort and an SSRI; an anti-inflammatory on a blood-pressure tablet), though no word
    # of the two matches. Taking the dog somewhere is not taking a medicine.
    remember(
        cli,
        "I take 50mg sertraline for anxiety",
        "I'm a primary school teacher in Derby",
        "We have a spaniel called Pip",
        "I run 5k most mornings before work",
        "My sister Jo lives in Leeds",
    )
    assert "sertraline" in sent_for(cli, api, "Can I take St John's wort for a low mood?")
    assert "sertraline" in sent_for(cli, api, "Is it OK to take Night Nurse?")  # a brand, no ending to go by
    assert "sertraline" in sent_for(cli, api, "My knee's been sore since Sunday's run, what can I take for it?")
    assert "sertraline" not in sent_for(cli, api, "Can I take Pip to the beach at Skegness?")
    assert "sertraline" not in sent_for(cli, api, "What's the maximum daily dose of paracetamol for adults?")
    remember(cli, "My blood pressure was borderline high at my last check-up")
    headache = sent_for(cli, api, "Is it OK for me to take ibuprofen for this headache?")
    assert "sertraline" in headache and "blood pressure" in headache, headache  # the medicine and the condition


def test_a_medicine_asked_about_or_offered_gets_the_conditions_it_is_risky_with(cli, api, real_encoder):
    # A pharmacist's first question: asthma before an anti-inflammatory or a beta blocker, kidney
    # trouble before naproxen, a pregnancy before anything, an allergy to that very family of
    # antibiotics. The encoder does not find them (naproxen and asthma are far apart by meaning);
    # the condition must be the user's own, now, and never private.
    remember(
        cli,
        "I've had asthma since I was a kid",
        "I'm a bus driver in Leicester",
        "We have two cats, Mochi and Tofu",
        "I go wild swimming at the quarry on Sundays",
        "My dad has stage 3 kidney disease",
        "I'm allergic to amoxicillin",
        "I used to have stomach ulcers",
    )
    naproxen = retrieved_for(cli, "Can I take naproxen for my sore shoulder?", "condition")
    assert any("asthma" in t for t in naproxen), naproxen
    assert not any("kidney" in t or "ulcers" in t for t in naproxen), naproxen  # his, and a past one
    offered = retrieved_for(cli, "The doctor has prescribed bisoprolol, should I mention anything?", "condition")
    assert any("asthma" in t for t in offered), offered
    antibiotic = retrieved_for(cli, "My dentist wants to give me penicillin V for a tooth infection", "condition")
    assert any("amoxicillin" in t for t in antibiotic), antibiotic
    # nothing of it for a medicine asked about in general, for someone else, in code, or not a medicine
    for prompt in (
        "Is naproxen stronger than ibuprofen?",
        "Can my dad take naproxen for his knee?",
        "Write a Python function that checks a naproxen dose against a weight",
        "Can I take the cats to the vet on the bus?",
    ):
        assert not retrieved_for(cli, prompt, "condition"), prompt
    # the user's private memory stays out; a pregnancy counts for any medicine
    remember(cli, "I'm 14 weeks pregnant")
    cli("memories", "edit", "1", "--private")
    aches = retrieved_for(cli, "Is it OK for me to take codeine for my back?", "condition")
    assert any("pregnant" in t for t in aches) and not any("asthma" in t for t in aches), aches


def test_what_a_blind_set_missed_my_meds_her_pregnancy_a_meal_ahead_and_the_pub(cli, api, real_encoder):
    # Four requests that reach what they turn on though they share no word with it (each class from
    # a blind helper's set, written here in other words): medicines called "my meds", a partner's
    # pregnancy for what she may eat, a meal for a time ahead asked with no "I", and a round at the
    # pub for someone who does not drink.
    remember(
        cli,
        "I'm on sertraline, 100mg every morning",
        "My partner Zoe is 20 weeks pregnant",
        "Zoe works at the city library",
        "Zoe loves a Sunday roast",
        "I have coeliac disease",
        "I've been sober for three years and don't drink at all",
        "I cycle to work along the canal",
    )
    assert any(
        "sertraline" in t for t in retrieved_for(cli, "Do I need to do anything about my meds when we fly to Chicago?")
    )
    assert any("pregnant" in t for t in retrieved_for(cli, "What should my partner steer clear of eating right now?"))
    assert any("coeliac" in t for t in retrieved_for(cli, "What's a good snack before a long ride tomorrow?"))
    assert any(
        "sober" in t for t in retrieved_for(cli, "My mates want me down the pub after work, what should I drink?")
    )
    # "the boys from football" are friends, not the user's sons (whose request it would then be)
    assert any(
        "sober" in t
        for t in retrieved_for(cli, "The boys from football want me at the bar after the match, what should I order?")
    )
    # and not for the world's or someone else's: a tablet computer, a breakfast abroad, a pub quiz
    assert not any("sertraline" in t for t in retrieved_for(cli, "My tablet keeps crashing, any fixes?"))
    assert not any("coeliac" in t for t in retrieved_for(cli, "What do people in Portugal eat for breakfast?"))
    assert not any(
        "sober" in t for t in retrieved_for(cli, "We met at the pub quiz, what should I get her for her birthday?")
    )


def test_where_someone_lives_goes_without_the_condition_told_in_the_same_breath(cli, api, real_encoder):
    # "My dad is 78, lives in Pune and has Parkinson's" was held back whole from "what time will it
    # be for Dad when I ring him?" (a blind set): health, and not what the request is about. What it
    # says of him besides goes; the condition stays home, and a private memory stays whole at home.
    remember(
        cli,
        "My grandad is 85, lives in Whitby and has heart failure",
        "I work as a bus driver in York",
        "We have a cat called Mochi",
    )
    sent = retrieved_for(cli, "How long would it take me to drive over to see Grandad on Saturday?")
    assert "My grandad is 85, lives in Whitby" in sent, sent
    assert not any("heart" in t for t in sent), sent
    assert not any("heart" in t for t in retrieved_for(cli, "Write a function that computes York to Whitby distance"))
    cli("memories", "edit", "1", "--private")
    assert not any("Whitby" in t for t in retrieved_for(cli, "How long to drive to see Grandad?"))


def test_a_medicine_or_condition_that_sets_the_diet_goes_with_a_meal_and_no_further(cli, api, real_encoder):
    # An MAOI rules out aged cheese and cured meat, kidney disease salt and potassium: a meal must
    # respect them as it does an allergy, though no word of the request is theirs.
    remember(cli, "My partner Robin is on phenelzine", "I have chronic kidney disease", "I'm a florist in Norwich")
    tapas = sent_for(cli, api, "Ideas for a cheese and wine evening")
    assert "phenelzine" in tapas and "kidney" in tapas, tapas
    tap = sent_for(cli, api, "How do I fix a dripping tap?")
    assert "phenelzine" not in tap and "kidney" not in tap, tap
    remember(cli, "We lost a pregnancy last year and are trying again")
    assert "pregnancy" not in sent_for(cli, api, "What should I cook for dinner tonight?")
    remember(cli, "I'm 7 months pregnant with our first")
    assert "7 months pregnant" in sent_for(cli, api, "Ideas for a cheese and wine evening")


def test_a_partner_who_studies_medicine_is_on_the_card_and_a_girlfriend_is_not_a_child(cli, api, real_encoder):
    # "my girl" (a daughter) had matched "my girlfriend", and "medicine" as a subject read as health:
    # the partner was off the card as a child's health fact would be.
    from memchat.memory.judge import sensitive

    remember(cli, "My boyfriend Idris is studying pharmacy in Cardiff", "I'm a tattoo artist in Bristol")
    assert "Idris" in card_of(cli)
    assert sensitive.categories("My girlfriend Mae is a chef") == frozenset()
    assert "children" in sensitive.categories("My girls love swimming")


def test_a_request_about_a_faiths_practice_gets_your_faith_and_a_question_about_it_does_not(cli, api, real_encoder):
    # "suhoor", "Shabbat", "iftar" are not like "I'm Jewish" to the encoder; religion is sensitive, so it
    # reaches only a request about religion, and this one is: your own, not a question about no one.
    remember(cli, "I'm Jewish and my husband is Catholic", "I'm a pharmacist in Leeds", "We have a cat called Mochi")
    assert "Jewish" in sent_for(cli, api, "How do we keep Shabbat on a ski trip?")
    assert "Jewish" not in sent_for(cli, api, "What is Shabbat?")
    assert "Jewish" not in sent_for(cli, api, "Where should we go skiing in February?")
    assert "Jewish" not in sent_for(cli, api, "What should I cook for iftar with my Muslim friends?")  # not that faith
    assert "Jewish" not in sent_for(cli, api, "Write a Python function for my app that lists the Passover dates")
    assert "Jewish" not in sent_for(cli, api, "My landlord's attitude is beyond belief, how do I complain?")
    remember(cli, "I go to a gambling support group in the church hall", "I used to be Methodist")
    for request in ("Adventurous weekend ideas for my husband and me?", "Lentil recipes for our dinner party?"):
        sent = sent_for(cli, api, request)
        assert "Jewish" not in sent and "gambling" not in sent and "Methodist" not in sent, (request, sent)
    assert "gambling" not in sent_for(cli, api, "What should I give up for Lent this year?")


def test_a_question_asking_what_a_kind_of_thing_is_gets_none_of_yours(cli, api, real_encoder):
    # "What is a frozen shoulder?" shares every word with the user's own, and the model reads it as
    # their health; it asks what one is. Asked as their own, it goes.
    remember(cli, "I have a frozen shoulder on my left side", "I'm a carpenter in Ghent")
    assert "frozen shoulder" not in sent_for(cli, api, "What is a frozen shoulder?")
    assert "frozen shoulder" in sent_for(cli, api, "Can I still lift boards with my frozen shoulder?")


def test_a_household_told_in_lowercase_is_still_the_household(cli, api, real_encoder):
    # people who type in lowercase name people too: "our son ravi" is Ravi, and his allergy is the household's
    remember(
        cli,
        "our son ravi is five",
        "ravi is allergic to sesame",
        "my friend's boy tom can't eat eggs",
        "i'm a nurse in leeds",
    )
    card = card_of(cli)
    assert "sesame" in card, card
    assert "eggs" not in card, card  # someone else's child still


def retrieved_for(cli, prompt: str, why: str = "") -> list[str]:
    """The memories a request was sent beside the card (`ask --explain --json`), those whose reason
    starts with `why` if given: what it was judged to need."""
    explained = json.loads(cli("ask", "--explain", "--json", prompt).stdout)
    return [
        i["text"]
        for i in explained["memory"]
        if i["section"] not in ("profile", "rules", "pinned") and i["reason"].startswith(why)
    ]


def assert_sent(cli, prompts: tuple[str, ...], mark: str) -> None:
    """Each of `prompts` is sent, beside the card, a memory that holds `mark`."""
    for prompt in prompts:
        assert any(mark in t for t in retrieved_for(cli, prompt)), prompt


def assert_withheld(cli, prompts: tuple[str, ...], *marks: str) -> None:
    """None of the memories that hold one of `marks` is sent beside the card to any of `prompts`."""
    for prompt in prompts:
        sent = retrieved_for(cli, prompt)
        assert not [t for t in sent if any(mark in t for mark in marks)], (prompt, sent)


def test_a_request_for_something_to_wear_gets_your_sizes_and_what_you_wont_wear(cli, api, real_encoder):
    # To the encoder "hiking boots" is not like "I'm a UK size 9 shoe" and no topic holds clothes: a
    # request to choose or buy what the user will wear gets their sizes, a shoe size only for shoes,
    # and what they will not wear; not someone else's size, a past one, a gift or a program.
    remember(
        cli,
        "I'm a UK size 9 shoe",
        "I wear large t-shirts and 34/32 jeans",
        "I avoid leather and fur",
        "My husband Piotr takes a size 11 shoe",
        "My husband Piotr is a paramedic",
        "I work as a pharmacist in Cardiff",
        "We're going walking in Snowdonia in May 2027",
        "I can only wear wide shoes because of my bunions",  # health, though no word list says so
    )
    boots = " ".join(retrieved_for(cli, "Find me some hiking boots for Snowdonia"))
    assert "size 9 shoe" in boots and "34/32" not in boots and "size 11" not in boots, boots
    assert "bunions" not in " ".join(retrieved_for(cli, "Recommend some sandals for me", why="wear"))
    jacket = " ".join(retrieved_for(cli, "I need a waterproof jacket for cycling to work"))
    assert "34/32" in jacket and "size 9" not in jacket, jacket
    assert "leather" in sent_for(cli, api, "What should I wear to a winter wedding?")
    for request in (
        "How do I get mud off suede boots?",
        "Write a Python class for a shoe shop's stock",
        "A warm coat for my husband for Christmas",
        "Find me a jacket potato recipe",
        "Buy school shoes for my daughter's first term",
    ):
        assert retrieved_for(cli, request, why="wear") == [], request  # search may still find one by its words
    remember(cli, "I used to be a size 16 in dresses")
    dress = " ".join(retrieved_for(cli, "Need a dress for a summer party", why="wear"))
    assert "34/32" in dress and "size 16" not in dress, dress  # over: not now


def test_something_physical_you_plan_gets_what_your_body_brings_to_it(cli, api, real_encoder):
    # To the encoder a hill is not like glucose tablets, nor a training plan like a knee: a request of
    # the user's own to walk, train, drive or pack gets the conditions and aids that activity must
    # respect (memchat.memory.judge.body), what it does to that very activity first; not someone else's,
    # not one that is over, not a question about the world, a fact looked up or code.
    remember(
        cli,
        "For a hypo I take glucose tablets; I keep them in my rucksack and the glovebox",
        "I have to check my blood sugar before driving, and every two hours on a long drive",
        "I had my left knee replaced in 2023 and can't kneel",
        "I wear a hearing aid in my right ear",
        "My dad Ken has asthma",
        "I used to have eczema as a teenager",
        "I teach geography at a secondary school in Perth",
        "I love the Cairngorms",
    )
    hill = retrieved_for(cli, "Off up a hill on Saturday, what food should I take?")
    assert any("glucose" in t for t in hill) and not any("knee" in t for t in hill), hill  # food: not the knee
    print(hill)
    drive = retrieved_for(cli, "Driving down to Carlisle tomorrow, anything to sort before I go?", why="body")
    assert drive and "before driving" in drive[0], drive  # the one that speaks of driving first
    plan = " ".join(retrieved_for(cli, "Can you build me a twelve week training plan for a 10k?", why="body"))
    assert "knee" in plan and "hearing" not in plan, plan
    packing = " ".join(retrieved_for(cli, "Packing list for my week away in the Highlands", why="body"))
    assert "hearing aid" in packing and "Ken" not in packing and "eczema" not in packing, packing
    for request in (
        "What's the difference between a corbett and a munro?",  # the world's
        "How many calories does a 10k run burn on average?",
        "My dad wants to start hill walking, is it a good idea?",  # his, not mine
        "Jess wants to start running, can you plan her first month?",
        "Write a Python script that plans a hill walking route",
        "Which hill did I climb last summer?",  # a fact looked up
        "Make me a playlist for my long run",  # nothing the body brings
        # words of activity used for something else (an adversarial pass)
        "Can I drive traffic to my website with better SEO?",
        "How can I climb the career ladder faster?",
        "Should I worry that inflation keeps climbing?",
        "Can I do a deep dive on our Q3 numbers before Friday?",
        "Can I get tickets to see Bryan Ferry in Glasgow?",
        "The trip switch keeps flipping, what should I check first?",
        "Should I exercise my share options before I leave?",
        "What should I pack first for the move to our new flat?",
    ):
        assert retrieved_for(cli, request, why="body") == [], request
    # someone else's condition, one that is over, and a job are not the user's own
    remember(
        cli,
        "Sam has epilepsy and I drive him to school on Mondays",
        "I had eczema when I was younger",
        "I write firmware for insulin pumps",
    )
    drive = " ".join(retrieved_for(cli, "Driving down to Carlisle tomorrow, anything to sort before I go?", why="body"))
    assert "blood sugar" in drive and "Sam" not in drive and "firmware" not in drive, drive
    # bitter cold to go out in, and what the cold sets off
    remember(cli, "Cold air sets off my asthma, so I wear a scarf over my mouth")
    cold = " ".join(retrieved_for(cli, "Windchill of -12 tomorrow and I have to walk to work", why="body"))
    assert "asthma" in cold and "knee" not in cold, cold
    assert retrieved_for(cli, "What causes wind chill?", why="body") == []


def test_a_symptom_you_feel_gets_the_conditions_of_yours_it_may_come_from(cli, api, real_encoder):
    # "Head's pounding and I'm on a late tonight" shares no word with "I get migraines": what the
    # user says they feel gets the standing conditions of theirs it may come from, as a GP asks
    # first; not another condition, not someone else's, not for a question in general or a loaf.
    remember(
        cli,
        "I get migraines when I'm short of sleep; sumatriptan works if I take it early",
        "My ferritin runs low so I take an iron supplement",
        "I tore a ligament in my left knee in 2024",
        "I'm lactose intolerant",
        "My dad Ray has type 2 diabetes",
        "I'm a paramedic in Swansea",
        "I bake sourdough every weekend",
    )
    head = " ".join(retrieved_for(cli, "Head's pounding and I'm on a late shift tonight, what can I do?"))
    assert "migraines" in head and "ferritin" not in head, head  # by its words or by the symptom
    tired = " ".join(retrieved_for(cli, "I've been so tired lately even after a full night's sleep", why="symptom"))
    assert "ferritin" in tired and "lactose" not in tired, tired
    knee = " ".join(retrieved_for(cli, "my knee's been twinging since Sunday's walk, what should I do"))
    assert "ligament" in knee, knee  # by its words, or by the joint
    for request in (
        "What causes migraines in general?",
        "Dad's been dizzy and so tired lately, should he see someone?",  # his, not mine
        "My loaf came out flat and dense again, where am I going wrong?",
        "Write a Python function that logs symptoms to a CSV",
    ):
        assert retrieved_for(cli, request, why="symptom") == [], request


def test_a_training_plan_gets_your_goal_your_level_and_when_you_train(cli, api, real_encoder):
    # "Build me a 16-week training block" names no sport, no race and no time: it needs the race
    # ahead, the level the user is at and when they train, for the sport of the race (not the
    # climbing, not the book club Aisha runs, not the laptop running Fedora), and nothing for
    # someone else's training or a question about the world.
    remember(
        cli,
        "I'm running the Manchester Marathon on 2027-04-11, hoping for under four hours",
        "My half marathon PB is 1:52 from the Great North Run",
        "I do long runs with a club on Sunday mornings",
        "I boulder at the Depot once a week, around V3",
        "Aisha runs the book club I go to",
        "My laptop is a Dell XPS running Fedora",
        "I work as a pharmacist in Stockport",
    )
    block = " ".join(retrieved_for(cli, "Build me a 16-week training block", why="training"))
    assert "Manchester Marathon" in block and "1:52" in block and "Sunday" in block, block
    assert not any(word in block for word in ("V3", "book club", "Fedora")), block
    climbing = " ".join(retrieved_for(cli, "Four-week training plan to send my first V4 boulder"))
    assert "V3" in climbing and "Marathon" not in climbing, climbing
    for request in (
        "Write a training plan for our new support staff",
        "My son wants a training plan for his football",
        "What's the marathon world record?",
    ):
        assert retrieved_for(cli, request, why="training") == [], request


def test_a_request_to_plan_your_money_gets_your_money_picture_and_nothing_else_does(cli, api, real_encoder):
    # "Make me a monthly budget" shares no word with "I earn" or "rent": a request plainly about the
    # user's own money gets up to three of their money facts, nearest it; not someone else's money,
    # a child's support payments, an account number, and not for code or a question in general.
    remember(
        cli,
        "I earn about £3,100 a month after tax",
        "We pay £1,250 rent for the flat in Leith",
        "I owe £2,100 on my Amex",
        "My brother's mortgage is with Halifax",
        "My partner Jo earns about £48k",
        "My card ending 8812 has a £4,000 limit",
        "My sort code and account number are 20-45-77 41234567",
        "I'm a physiotherapist at the Western General",
        "I love hillwalking in the Cairngorms",
    )
    budget = " ".join(retrieved_for(cli, "Make me a monthly budget", why="money"))
    assert "3,100" in budget and "1,250" in budget, budget
    assert not any(word in budget for word in ("Halifax", "41234567", "Jo earns", "8812")), budget
    debt = " ".join(retrieved_for(cli, "Should I pay off my card or put money aside first?", why="money"))
    assert "Amex" in debt and "Jo earns" not in debt and "8812" not in debt, debt
    for request in (
        "Write a Python function that computes compound interest",
        "How do credit card interest rates work in general?",
        "Plan a hillwalking weekend in the Cairngorms",
        "Should my brother remortgage?",
    ):
        assert retrieved_for(cli, request, why="money") == [], request


def plans_sent(db, embedder, today):
    """What a request is sent as plans (the "plans" part of its section), on `today`."""
    from memchat.memory.judge import inject

    def plans(prompt: str) -> str:
        section = inject.build(db, prompt, embedder=embedder, budget=1500, count=len, today=today)
        return " ".join(i.text for i in section.items if i.section == "plans")

    return plans


def test_your_absence_is_your_next_trip_whatever_its_words(memchat_home, embedder):
    # "Who could feed the cat while I'm away?" shares nothing with "We're flying to Crete on
    # 2026-11-20": the user's own absence is their soonest trip ahead (or the one in the period it
    # names), a trip and not the dentist; someone else's absence is not.
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2026-10-01",
        "We're flying to Crete on 2026-11-20 for a week",
        "I'm going to Vienna for a conference on 2027-01-12",
        "I have a dentist appointment on 2026-10-15",
        "Our cat Miso is nine",
    )
    plans = plans_sent(db, embedder, date(2026, 10, 2))
    away = plans("Who could feed the cat while we're away?")
    assert "Crete" in away and "dentist" not in away and "Vienna" not in away, away
    assert "Vienna" in plans("Instructions for the cat sitter while I'm away in January")
    assert "Crete" not in plans("Who could feed the cat while my sister is away?")


def test_getting_ready_for_a_trip_gets_your_next_trip_and_never_a_rota(memchat_home, embedder):
    # "How early do I need to be at the airport for my flight?" got "I'm on call on Tuesday nights"
    # (the soonest plan like it) and not the flight; "before I go to the States" and "pack for the 2
    # weeks away" named no trip and got none. A trip got ready for is the soonest trip ahead.
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2026-05-01",
        "I'm covering the night rota at the depot on 2026-05-09",
        "We're off to Montreal on 2026-06-18 for my niece's graduation, home on 2026-07-02",
        "I'm a bus mechanic in Leeds",
    )
    plans = plans_sent(db, embedder, date(2026, 5, 2))
    for prompt in (
        "How early should I be at the airport for my flight?",
        "Anything left to sort before we head off to Canada?",
        "what do I pack for the two weeks away",
    ):
        found = plans(prompt)
        assert "Montreal" in found and "rota" not in found, (prompt, found)
    for prompt in ("What should I eat before I go to the gym?", "Quick lunch to pack for work"):
        assert "Montreal" not in plans(prompt), prompt


def test_pets_named_together_are_known_and_a_sitter_gets_their_care(cli, api, real_encoder):
    # "We have two dogs, Pip and Bramble" names the dogs as "our kids are Maya and Felix" names the
    # children; a brief for the dog sitter gets what memory says of them, though a heart tablet is not
    # like "write a note for the sitter" in meaning; not the neighbours' dogs.
    remember(
        cli,
        "We have two dogs, Pip and Bramble",
        "Pip takes a heart tablet every morning",
        "Our neighbours have two dogs, Rex and Max",
        "Rex once bit the postman",
        "I'm a primary teacher in Hove",
    )
    note = " ".join(retrieved_for(cli, "Write a note for the dog sitter", why="person"))
    assert "heart tablet" in note and "postman" not in note, note


def test_a_journey_or_a_place_you_plan_gets_what_you_need_to_get_about_and_nothing_else_does(cli, api, real_encoder):
    # "Which seat should I book for the long flight?" is not like "I use a manual wheelchair" to the
    # encoder, and a wheelchair is health, so search's gate keeps it back: a request that plans a place
    # to go or a journey of the user's own reaches it; a story, a question about no one, code do not.
    remember(
        cli,
        "I use a manual wheelchair",
        "I play wheelchair basketball on Tuesday evenings",
        "My friend Jo is registered blind",
        "I'm a backend developer in Glasgow",
        "I'm flying to Toronto in March 2027 for a conference",
    )
    for request in (
        "Which airline seat should I book for the long flight?",
        "Find me somewhere nice to eat in Edinburgh on Saturday.",
        "Plan a day out in the Highlands.",
    ):
        sent = sent_for(cli, api, request)
        assert "manual wheelchair" in sent and "registered blind" not in sent, (request, sent)
    assert "registered blind" in sent_for(cli, api, "Plan a day out in Glasgow with Jo")  # the person it names
    for request in (
        "My flight was delayed, can I claim compensation?",
        "Why do planes leave contrails?",
        "Write a Python script that scrapes hotel prices",
        "How do I hem trousers?",
    ):
        sent = sent_for(cli, api, request)
        assert "wheelchair" not in sent and "blind" not in sent, (request, sent)
    remember(cli, "I was on crutches for six weeks after my knee op in 2021")
    assert "crutches" not in sent_for(cli, api, "Book me a train to York on Friday")  # over: not now
    # whose need it is: the subject of the clause that says it, and the journey must be the user's
    remember(
        cli,
        "My brother uses a wheelchair, so I visit him at home",
        "I'm writing a novel whose heroine uses a wheelchair",
        "My mother-in-law can't manage stairs",
    )
    sent = sent_for(cli, api, "Book a flight to Berlin for my colleague Tom")
    assert "wheelchair" not in sent and "stairs" not in sent, sent
    sent = sent_for(cli, api, "Find a hotel for my parents near the airport")
    assert "stairs" not in sent and "brother" not in sent, sent  # a mother-in-law is not a mother
    # what a place or a journey must allow for, the one most like the request
    remember(cli, "I get seasick on boats")
    sent = sent_for(cli, api, "Are whale-watching tours a good idea on our trip to Madeira?")
    assert "seasick" in sent and "registered blind" not in sent, sent


def test_a_parents_condition_is_health_off_the_card_and_their_diet_goes_with_a_meal_for_them(cli, api, real_encoder):
    # "heart failure", "my appendix out", "a Blue Badge" are health: never on the card; a diet a doctor
    # set ("a low-salt diet") goes with a meal cooked for the people it is theirs ("my parents": mum and dad)
    remember(
        cli,
        "My dad has heart failure and is on a low-salt diet",
        "I had my appendix out in 2023",
        "My Blue Badge runs out in May 2027",
        "I'm an accountant in Leicester",
        "We have a greyhound called Bolt",
    )
    card = card_of(cli)
    assert "accountant" in card and "heart failure" not in card and "appendix" not in card, card
    assert "Blue Badge" not in card, card
    assert "low-salt" in sent_for(cli, api, "What should I cook for my parents when they arrive?")
    assert "low-salt" not in sent_for(cli, api, "How do I set up a periodic task in Celery?")


def test_eating_out_is_a_meal_and_a_meal_as_a_time_is_not(cli, api, real_encoder):
    remember(cli, "I have coeliac disease", "I take levothyroxine every morning", "I'm a teacher in Bristol")
    for request in (
        "Find me somewhere nice to eat in Edinburgh on Saturday.",
        "Where should we eat out for Tom's birthday?",
    ):
        assert "coeliac" in sent_for(cli, api, request), request
    for request in (
        "How long should I wait after my pill before breakfast?",
        "Plan my run before a big breakfast",
        "Recommend a name for my café",
        "Find me a restaurant job in Leeds",
        "Write a review of the café we went to yesterday",
    ):
        assert "coeliac" not in sent_for(cli, api, request), request


def test_a_question_about_what_marks_or_causes_a_condition_gets_no_ones_condition(cli, api, real_encoder):
    # "What are the symptoms of type 1 diabetes?" says "the" as a question for a particular memory does
    # ("what is the office alarm code again?"), but asks what marks a kind of condition: the son's goes
    # to a request about him, not to this
    remember(cli, "Our son Arjun is 9 and has type 1 diabetes", "The office alarm code is 4471", "I live in Leicester")
    assert "Arjun" not in sent_for(cli, api, "What are the symptoms of type 1 diabetes?")
    assert "Arjun" not in sent_for(cli, api, "What causes type 1 diabetes?")
    assert "Arjun" in sent_for(cli, api, "Snack ideas for Arjun after football")
    assert "4471" in sent_for(cli, api, "What is the office alarm code again?")


def test_a_request_whether_you_may_drink_gets_the_medicines_you_take(cli, api, real_encoder):
    # "Can I have a glass of wine tonight?" is not like "I take amitriptyline for nerve pain" to the
    # encoder; the medicine is health, and what the request needs. Not someone else's, not one you
    # stopped, not for wine as a subject.
    remember(
        cli,
        "I take amitriptyline for nerve pain",
        "Tom takes propranolol for migraines",
        "I used to take sertraline",
        "I'm a backend developer in Glasgow",
    )
    for request in ("Can I have a glass of wine tonight?", "Is it OK to have a few beers at the stag do?"):
        sent = sent_for(cli, api, request)
        assert "amitriptyline" in sent and "propranolol" not in sent and "sertraline" not in sent, (request, sent)
    for request in ("Recommend a wine for our dinner party", "How do I get red wine out of a carpet?"):
        assert "amitriptyline" not in sent_for(cli, api, request), request


def test_grandchildren_are_people_by_role(cli, api, real_encoder):
    # "the grandkids" are the grandson and the granddaughter memory names; "my grandson" is the one
    remember(
        cli,
        "Our granddaughter Zosia is 6 and our grandson Kuba is 3",
        "Zosia is allergic to peanuts",
        "Kuba loves dinosaurs",
        "I'm a retired bus driver in Nottingham",
    )
    assert "peanuts" in sent_for(cli, api, "What should I cook for the grandkids on Sunday?")
    sent = sent_for(cli, api, "Present ideas for my grandson")
    assert "dinosaurs" in sent and "peanuts" not in sent, sent


def test_a_job_or_a_project_that_names_a_condition_stays_on_the_card(cli, api, real_encoder):
    # the health words are said of someone's body, not of a job or a migration that uses the same word
    remember(
        cli,
        "I teach at a school for the deaf in Leeds",
        "I'm a Blue Badge guide in London",
        "Our team is doing a transplant of the billing monolith onto Kubernetes",
    )
    card = card_of(cli)
    assert "school for the deaf" in card and "Blue Badge guide" in card and "monolith" in card, card


def test_a_drink_that_is_not_alcohol_or_not_yours_to_drink_gets_no_medicine(cli, api, real_encoder):
    # the drink must be what the user asks to have: a wedding's wine order, a wine bar, a pint of milk,
    # "for God's sake" and gin rummy are not; a battery is not a medicine
    remember(
        cli,
        "I take sertraline 100mg every morning",
        "I use lithium batteries in my head torch",
        "I'm a wedding planner in Bristol",
    )
    for request in (
        "How much wine should I order for 80 wedding guests?",
        "Can I get a pint of milk added to my grocery order?",
        "For God's sake, can I get a refund on this broken kettle?",
        "Can I have the rules of gin rummy?",
    ):
        assert "sertraline" not in sent_for(cli, api, request), request
    sent = sent_for(cli, api, "Is it OK to have a gin and tonic tonight?")
    assert "sertraline" in sent and "batteries" not in sent, sent


def test_a_request_that_names_no_one_but_is_plainly_yours_gets_the_memory_it_matches(cli, api, real_encoder):
    """A terminal user rarely says "I" or "my": "Need new hiking boots" asks for their own feet.
    A request that reads as the user's own by meaning (need.PLAIN_REQUEST) gets the memories that
    clear the bar as a personal message would; a question about the world still gets none."""
    remember(
        cli,
        "I take size 46 shoes and my feet are wide",
        "I keep my passwords in Bitwarden",
        "My sister Ines lives in Porto",
        "I play five-a-side football on Thursdays",
        "I rent a flat in Leeds with a gas boiler",
        "We have a cocker spaniel called Mango",
    )
    wants = {
        "Need new hiking boots before the trip, any picks?": "I take size 46 shoes and my feet are wide",
        "Shin pads recommendations for five-a-side?": "I play five-a-side football on Thursdays",
    }
    for prompt, memory in wants.items():
        asked = json.loads(cli("ask", "--explain", "--json", prompt).stdout)
        assert memory in [m["text"] for m in asked["memory"]], (prompt, asked["memory"])
    for question in (
        "How are shoe sizes converted between the UK and EU?",
        "Why do gas boilers lose pressure?",
        "Is it safe to leave shoes in a hot car?",  # a question about the world, though it reads as one's own
    ):
        asked = json.loads(cli("ask", "--explain", "--json", question).stdout)
        assert [m["text"] for m in asked["memory"] if m["section"] != "profile"] == [], (question, asked["memory"])


def test_a_how_to_whose_i_is_anyone_gets_no_memory_for_one_shared_word(cli, api, real_encoder):
    """ "How do I reverse a string in Java?" asks what anyone would do: the "I" is its doer, so a
    memory that shares one word ("I wrote Java at a bank") is not sent; the same how-to about the
    user's own things ("my", "our") still gets what it names."""
    remember(
        cli,
        "I spent four years writing Java at a bank before this job",
        "Our staging cluster runs Kubernetes on GKE in europe-west2",
        "I play the cello in a community orchestra",
        "My partner Sam is a nurse",
    )
    for question in ("How do I reverse a string in Java?", "How would I write a regex for UK postcodes in Java?"):
        asked = json.loads(cli("ask", "--explain", "--json", question).stdout)
        assert [m["text"] for m in asked["memory"] if m["section"] != "profile"] == [], (question, asked["memory"])
    own = json.loads(cli("ask", "--explain", "--json", "How do I point kubectl at our staging cluster?").stdout)
    assert "Our staging cluster runs Kubernetes on GKE in europe-west2" in [m["text"] for m in own["memory"]]


# A card full enough that every slot competes for its tokens: what goes first is what counts.
_A_FULL_LIFE = (
    "I'm a paramedic with the East of England Ambulance Service",
    "My husband Leo teaches PE and coaches the football team at a primary school",
    "Our daughter Ivy is four, loves dinosaurs and starts school in September",
    "Our son Alfie is eleven and plays the cornet in the county youth brass band",
    "We have a rescue greyhound called Pepper who is scared of the hoover",
    "I'm vegetarian and I don't eat eggs either, though I do eat cheese",
    "Leo can't eat peanuts or tree nuts and carries an EpiPen",
    "I drive a 2017 Skoda Octavia estate with a tow bar for the bike rack",
    "I use a Samsung Galaxy S22 and a ten-year-old Lenovo laptop at home",
    "I'm renovating the downstairs bathroom myself, tiling it this month",
    "I keep my notes in Obsidian and my budget in a Google Sheet",
    "My sister Nell lives in Cambridge with her wife and their twins",
)


def _profile_lines(cli) -> str:
    """The profile block alone of the memory section (not what a topic or search added)."""
    items = json.loads(cli("ask", "--explain", "--json", "Ideas for the weekend?").stdout)["memory"]
    return "\n".join(i["text"] for i in items if i["section"] == "profile")


def test_when_the_user_works_is_on_the_card_and_a_household_chore_is_not(cli, api, real_encoder):
    # Shifts decide when anything can happen (a dentist, a date night, a study plan); the day the
    # recycling goes out decides nothing.
    remember(
        cli,
        *_A_FULL_LIFE,
        "I live in Norwich",
        "I work four 12-hour shifts, then have four days off",
        "I put the recycling out on Thursday nights",
    )
    card = _profile_lines(cli)
    assert "12-hour shifts" in card
    assert "recycling" not in card


def test_the_card_says_where_home_is_before_what_only_names_the_town(cli, api, real_encoder):
    # A season ticket names the city as a home does; the home slot holds where the user lives.
    remember(
        cli,
        *_A_FULL_LIFE,
        "I'm a Newcastle United season-ticket holder at St James' Park",
        "We own a 1920s semi-detached house in Heaton, Newcastle",
    )
    card = _profile_lines(cli)
    assert "semi-detached house in Heaton" in card, card


def test_only_the_best_match_of_your_own_request_and_not_one_you_marked_sensitive():
    from memchat.memory.judge.inject import gate
    from memchat.memory.store.records import Memory

    def fact(id_: int, text: str, score: float, flagged: bool = False, cosine: float = 0.4):
        hit = _hit("memory", id_, text, score)
        hit.memory = Memory(id_, "fact", text, sensitive=flagged)
        hit.features["cosine"] = cosine
        return hit

    nickel = fact(1, "I'm allergic to nickel, cheap jewellery gives me a rash", 0.12)
    therapy = fact(2, "I see a therapist for anxiety every Tuesday", 0.11)
    prompt = "Earrings for the wedding next month?"
    assert [h.id for h in gate([nickel, therapy], prompt, 0.05, own=True)] == [1]
    assert gate([nickel, therapy], prompt, 0.05) == []  # not plainly the user's own: the usual rule
    marked = fact(1, nickel.text, 0.12, flagged=True)
    assert gate([marked, therapy], prompt, 0.05, own=True) == []
    card = fact(3, "My card number is 4929 1234 5678 9012, allergic to nickel", 0.12)
    assert gate([card], prompt, 0.05, own=True) == []
    # the best match by one shared word, not by meaning ("this year" and "last year")
    faith = fact(4, "I converted to Buddhism last year", 0.12, cosine=0.13)
    assert gate([faith], "Can I afford a holiday this year?", 0.05, own=True) == []


# A husband and a son in memory, among the rest of a life (a card full enough that what is said of
# Tomasz beyond his job is not on it).
_CARER = (
    "My husband Tomasz was a carpenter for thirty years",
    "Tomasz goes to the Men's Shed in Leominster on Tuesdays to make furniture",
    "Tomasz hates loud restaurants and crowds",
    "Tomasz takes his tea black with two sugars",
    "Our son Kit is seven and mad about steam trains",
    "I live in Hereford",
    "I'm a school librarian at Bishop of Hereford Bluecoat School",
    "I drive a 2015 Honda Jazz",
    "We have a cat called Mabel",
    "I use an iPhone 12 and an old iPad",
    "I'm vegetarian",
    "I'm writing a local history of our village church",
)


def test_he_with_no_one_named_is_the_household_member_memory_knows(cli, api, real_encoder):
    # A carer says "he" of the person they look after: with a husband in memory, "he" is him, and
    # what is said of him that is like the request goes, though the request names no one.
    remember(cli, *_CARER)
    assert "two sugars" in sent_for(cli, api, "What drink should I make him when he gets in?")


def test_she_or_a_question_about_no_one_reaches_no_household_man(cli, api, real_encoder):
    remember(cli, *_CARER)
    assert "two sugars" not in sent_for(cli, api, "What drink should I make her when she gets in?")
    assert "Tomasz" not in sent_for(cli, api, "How did Beethoven keep composing after he went deaf?")


def test_the_card_says_where_you_rent_without_the_rent(cli, api, real_encoder):
    # The rent is money and never on the card; where the user lives is what most requests need.
    remember(cli, *_A_FULL_LIFE, "We rent a two-bed flat in Leith, Edinburgh for £1,150 a month")
    card = _profile_lines(cli)
    assert "We rent a two-bed flat in Leith, Edinburgh" in card, card
    assert "1,150" not in card
    # a question about money still gets the memory whole
    assert "£1,150 a month" in sent_for(cli, api, "Is what we pay in rent reasonable for the area?")


def test_what_a_host_or_a_runner_may_eat_turns_on_their_own_diet(cli, api, real_encoder):
    # The host eats at the table too, and "which gels are safe for me?" asks what the user may eat,
    # though it reads as about running: both need the coeliac disease no word of theirs names.
    remember(
        cli,
        "I have coeliac disease, diagnosed in 2019",
        "I'm training for the Berlin Marathon in September",
        "My colleague Ruth is vegetarian",
        "I live in Sheffield",
        "I'm a radiographer at the Northern General",
    )
    assert "coeliac" in sent_for(cli, api, "Hosting my colleague Ruth and two others on Saturday, menu ideas?")
    assert "coeliac" in sent_for(cli, api, "Race day fuelling: which energy gels are safe for me?")
    assert "coeliac" not in sent_for(cli, api, "Which running watch has the best GPS?")


def test_a_request_about_someone_gets_their_condition_but_a_gift_idea_does_not(cli, api, real_encoder):
    # Whatever a carer asks about the person they care for turns on that person's condition; a gift
    # idea turns on what they like, and a request about someone else gets none of it.
    remember(
        cli,
        *_A_FULL_LIFE,
        "My dad Harold has Parkinson's and walks with a frame",
        "Dad loves brass band music and old westerns",
        "My dad Harold declared bankruptcy in 2019",
    )
    room = sent_for(cli, api, "Dad's coming to stay next week, how should I set up the spare room?")
    assert "Parkinson" in room
    assert "bankruptcy" not in room  # his health is what it turns on, not his debts
    assert "Parkinson" not in sent_for(cli, api, "Help me write a funny message for my dad's 70th birthday card")
    assert "Parkinson" not in sent_for(cli, api, "Birthday present ideas for my dad?")
    assert "Parkinson" not in sent_for(cli, api, "How should I set up the spare room for my sister Nell?")
    assert "Parkinson" not in sent_for(cli, api, "Write a Python script that reminds my dad to take his tablets")


def test_a_childs_brush_with_the_law_or_their_health_is_never_on_the_card(cli, api, real_encoder):
    # A child's name and age are family for the card; what happened to them is not for every call.
    remember(
        cli,
        "I live in Bath",
        "My wife Elena is seeing a therapist for anxiety",
        "My daughter Zoe is 16 and was caught shoplifting last month",
        "My mum Carol has early-stage dementia",
    )
    card = _profile_lines(cli)
    assert "Bath" in card and "shoplifting" not in card, card
    from memchat.memory.judge import sensitive

    assert "legal_status" in sensitive.categories("My daughter Mia is 15 and was caught shoplifting last month")
    assert "health" in sensitive.categories("My daughter Zoe is 16 and had an abortion in January")
    assert sensitive.categories("We keep a bee hive and I archive the honey records") == frozenset()


def test_the_card_holds_a_home_without_its_rent_whatever_the_currency_is_written(cli, api, real_encoder):
    remember(cli, *_A_FULL_LIFE, "We rent a two-bed flat in Lyon for 1 200 € per month")
    card = _profile_lines(cli)
    assert "We rent a two-bed flat in Lyon" in card and "1 200" not in card


def test_a_request_that_calls_someone_by_name_gets_what_memory_says_of_them(cli, api, real_encoder):
    # "Present ideas for Ines" names no role, but memory knows Ines is the partner
    remember(
        cli,
        *_A_FULL_LIFE,
        "My partner Ines is a marine biologist who loves free diving",
        "Ines can't stand surprises",
    )
    assert "free diving" in sent_for(cli, api, "Present ideas for Ines?")


def test_a_pets_health_is_its_care_and_the_pet_stays_on_the_card(cli, api, real_encoder):
    # "gets very anxious" is health for a person; for the dog it is what a sitter, a walk or bonfire
    # night turns on. The user's own anxiety stays off the card.
    remember(
        cli,
        "I live in Leeds",
        "Our border collie Bramble is 3 and gets very anxious with fireworks",
        "I get anxious before presentations at work",
    )
    card = _profile_lines(cli)
    assert "Bramble" in card, card
    assert "presentations" not in card


def test_a_place_or_someone_famous_with_a_familys_name_reaches_none_of_their_memories(cli, api, real_encoder):
    remember(
        cli,
        "I live in Leeds",
        "My wife Florence is on antidepressants",
        "My son Jordan has severe asthma",
        "Our Sophie is on antidepressants since the dog died",
    )
    assert "antidepressants" not in sent_for(cli, api, "Cheap hotels in Florence for a weekend?")
    assert "asthma" not in sent_for(cli, api, "I'm flying to Jordan next month, what should I pack?")
    assert "asthma" not in sent_for(cli, api, "Where can I stream Michael Jordan's best games?")
    assert "Sophie" not in _profile_lines(cli)  # a person said like a pet ("Our Sophie") is no pet
    assert "antidepressants" in sent_for(cli, api, "How can I help Florence sleep better?")


def test_a_memory_made_private_or_forgotten_leaves_the_card_at_once_in_the_same_process(memchat_home, embedder):
    # The REPL keeps one process for a whole chat: the card it worked out must not keep sending a
    # memory the user has just marked /private or forgotten (neither changes a vector).
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2026-11-01",
        "I live in Lyon with my wife Claire",
        "Our daughter Lea is 4",
        "I work as a nurse at the Croix-Rousse hospital",
    )
    store = MemoryStore(db)
    by_text = {m.text: m.id for m in store.find(status="active")}
    today = date(2026, 11, 2)
    card = section_on(db, embedder, "Ideas for the weekend?", today)
    assert "Lea" in card and "nurse" in card, card
    store.update(by_text["Our daughter Lea is 4"], private=True)
    assert "Lea" not in section_on(db, embedder, "Ideas for the weekend?", today)
    store.forget([by_text["I work as a nurse at the Croix-Rousse hospital"]])
    assert "nurse" not in section_on(db, embedder, "Ideas for the weekend?", today)


def test_the_card_is_kept_between_processes_as_ids_only_and_never_used_stale(
    cli, api, memchat_home, real_encoder, monkeypatch
):
    # A fresh `ask` reads the card the last one worked out (ids under the key of what it was worked
    # out from) instead of working it out again; never one holding what has since become private,
    # nor one that no longer reads.
    from memchat.memory.judge import need

    def card() -> list[str]:
        explained = json.loads(cli("ask", "--explain", "--json", "Ideas for the weekend?").stdout)
        return [i["text"] for i in explained["memory"] if i["section"] == "profile"]

    remember(cli, "I live in Ghent with my husband Tom", "Our son Arlo is 6", "I'm a GP at a practice in Ledeberg")
    first = card()
    assert any("Arlo" in line for line in first) and any("Ghent" in line for line in first), first
    db = open_db(memchat_home / "default.db")
    stored = db.conn.execute("SELECT card FROM profile_card").fetchall()
    assert len(stored) == 1 and not any(word in stored[0][0] for word in ("Ghent", "Arlo", "Ledeberg")), stored
    worked_out = []
    real = need._profile
    monkeypatch.setattr(need, "_profile", lambda *a, **k: worked_out.append(1) or real(*a, **k))
    need._PROFILES.clear()  # as a fresh process
    assert card() == first and worked_out == []
    arlo = next(m.id for m in MemoryStore(db).find(status="active") if "Arlo" in m.text)
    assert cli("memories", "edit", str(arlo), "--private").exit_code == 0
    need._PROFILES.clear()
    assert not any("Arlo" in line for line in card()) and worked_out == [1]
    with db.conn:
        db.conn.execute("UPDATE profile_card SET card = 'not a card'")
    need._PROFILES.clear()
    assert any("Ghent" in line for line in card()) and worked_out == [1, 1]
    # one stored by hand: numbers json reads as infinity, a slot that is no slot, a memory no card may hold
    remember(cli, "I was diagnosed with HIV last year")
    secret = next(m.id for m in MemoryStore(db).find(status="active") if "HIV" in m.text)
    card()
    for hand_made in (
        '{"lines": [[1e400, "home", true]], "replaced": []}',
        '{"lines": [[1, "home", true]], "replaced": [-1e400]}',
        '{"lines": [[1, ["home"], true]], "replaced": []}',
        f'{{"lines": [[{secret}, "health", true], [1, "home", true]], "replaced": []}}',
        f'{{"lines": [[{secret}, "home", true]], "replaced": []}}',
    ):
        with db.conn:
            db.conn.execute("UPDATE profile_card SET card = ?", (hand_made,))
        need._PROFILES.clear()
        assert not any("HIV" in line for line in card()), hand_made  # and no crash
    db.close()


def test_a_question_put_to_anyone_with_you_gets_nothing_of_the_users(household, api):
    """ "You" asked of anyone ("can you take ibuprofen with lithium?") is a question in general: no memory
    of the user's goes though it names one; asked as their own ("... with my lithium?") it does, and the
    assistant asked to do something ("can you suggest a dinner?") still gets what the topic needs."""
    for prompt in (
        "Can you take ibuprofen with lithium?",
        "How long should you knead bread dough?",
        "How long before you can drive after a general anaesthetic?",
        "Do you need a visa to visit Japan?",
    ):
        system = sent_for(household, api, prompt)
        assert "What I know about you" not in system and "What happened before" not in system, (
            prompt,
            memory_lines(system),
        )
        assert "lithium for bipolar" not in system, prompt
    assert "lithium for bipolar" in sent_for(household, api, "Can I take ibuprofen with my lithium?")
    dinner = sent_for(household, api, "Can you suggest a dinner for the four of us?")
    assert "shellfish" in dinner and "vegetarian" in dinner, dinner


def test_a_question_about_someone_elses_case_gets_none_of_the_users_own_secrets(cli, api, real_encoder):
    # "A friend of mine is on 20 mg of sertraline" shares every word with the user's own sertraline,
    # but asks about the friend: the user's health, money and documents stay home. Asked for the user,
    # or about the person a memory is about, they still go.
    remember(
        cli,
        "I take 20 mg of sertraline every morning for anxiety",
        "My salary is £58,000 a year before tax",
        "My passport number is 533391207 and it expires in March 2028",
        "My colleague Anna has type 1 diabetes",
    )
    assert_withheld(
        cli,
        (
            "A friend of mine is on 20 mg of sertraline; is that a low dose?",
            "My flatmate asked me how sertraline interacts with alcohol. What should I tell her?",
            "Hypothetically, if someone earned 58,000 pounds in the UK, what would their take-home pay be?",
            "A colleague's salary is 58,000 pounds; is that good for a developer?",
            "My boss wants to know how to renew a British passport that expires in 2028.",
            # someone named, as whose care it speaks of (a blind set: the user's own diabetes went)
            "Kev's doctor says he might need sertraline, what side effects should he watch for?",
            "Suki's been prescribed sertraline; will it make her drowsy?",
        ),
        "sertraline",
        "£58,000",
        "533391207",
    )
    assert any("sertraline" in t for t in retrieved_for(cli, "Is 20 mg of sertraline a low dose for me?"))
    assert any("£58,000" in t for t in retrieved_for(cli, "What's my take-home pay on my salary?"))
    assert any(
        "Anna" in t for t in retrieved_for(cli, "What does my colleague Anna need for her diabetes on our trip?")
    )
    assert any("Anna" in t for t in retrieved_for(cli, "Anna's nurse says her diabetes needs a new plan, any tips?"))


def test_a_relative_or_friend_with_your_condition_does_not_get_yours(cli, api, real_encoder):
    # "My brother is gay and wants to tell our parents" is about the category of "I'm gay": the topic
    # let it through, though the request is the brother's case and what the user does is help him.
    # Your own goes when you say it is yours too; a family member's own still goes.
    remember(
        cli,
        "I'm gay and haven't told my parents yet",
        "I take sertraline 100 mg for depression",
        "I've been sober since 2021 after years of heavy drinking",
        "My daughter Nia has epilepsy and takes Keppra",
        "We're Jewish and keep a kosher kitchen",
        "I work as a paralegal in Swansea",
    )
    assert_withheld(
        cli,
        (
            "My brother is gay and wants to come out to our parents. How can I help him?",
            "My girlfriend was just put on sertraline for her depression; what should I watch for?",
            "Write a card for my workmate who is in recovery from drink.",
            "My cousin started taking sertraline last week; what should I say to her?",
            # what the user asks to do about it is no case of the user's; a he or she opened on is someone's
            "My flatmate has just been diagnosed with depression; what should I read?",
            "She is on sertraline and pregnant; what are the risks?",
            "The guy I'm seeing is gay and not out to his family; where should we go for dinner?",
        ),
        "gay",
        "sertraline 100",
        "sober",
    )
    assert any("sertraline" in t for t in retrieved_for(cli, "My sister takes sertraline like me; can we both drink?"))
    nia = retrieved_for(cli, "My daughter had another seizure at school; what should I ask the neurologist?")
    assert any("Nia" in t for t in nia), nia
    # the household's own ("We're Jewish") is the daughter's too
    assert any(
        "Jewish" in t for t in retrieved_for(cli, "When should my daughter start preparing for her bat mitzvah?")
    )


def test_a_private_matter_you_say_is_yours_gets_what_memory_says_of_it(cli, api, real_encoder):
    # "Being epileptic, which jobs should I avoid?" reads as work; "Ruth and I are both epileptic, any
    # tips for travelling together?" as travel: the epilepsy is health, so no topic reached it, and
    # the memory is far from either in meaning. The user says it is theirs: what memory says of it goes.
    remember(
        cli,
        "I have epilepsy and take lamotrigine 200mg twice a day",
        "I'm on sertraline for depression",
        "I owe about £9,000 on credit cards",
        "My sister Ruth lives in Leeds",
        "I work as a bus driver in Sheffield",
        "We have a cat called Miso",
    )
    assert_sent(
        cli,
        (
            "Being epileptic, which jobs should I avoid?",
            "Ruth and I are both epileptic, any tips for travelling together?",
        ),
        "lamotrigine",
    )
    assert any("£9,000" in t for t in retrieved_for(cli, "Given my credit card debt, should I take the job?"))
    # a word of the list that is no matter, another's case, or the matter asked about in general
    assert_withheld(
        cli,
        (
            "How do I depress the clutch smoothly on a hill start?",
            "My sister has epilepsy, what should I do?",
            "My friend's depression is bad and I don't know what to say",
            "Is epilepsy genetic?",
        ),
        "lamotrigine",
        "sertraline",
    )


def test_a_rule_goes_to_a_question_about_no_one_without_what_it_says_of_your_health(cli, api, real_encoder):
    # Rules go with every call; the reason a rule gives may be a diagnosis. A question about no one
    # gets the instruction alone, or nothing when the instruction is the diagnosis; a request of
    # your own gets the rule whole.
    cli("memories", "add", "--kind", "rule", "Don't suggest anything with caffeine, because I have a heart arrhythmia")
    cli("memories", "add", "--kind", "rule", "When planning meals, remember I'm on warfarin so watch the vitamin K")
    cli("memories", "add", "--kind", "rule", "Give distances in kilometres: I live in Lyon")
    cli("memories", "add", "--kind", "rule", "Quote prices in euros and temperatures in Celsius")
    remember(cli, "I'm a structural engineer in Lyon")

    def rules(prompt: str) -> list[str]:
        explained = json.loads(cli("ask", "--explain", "--json", prompt).stdout)
        return [i["text"] for i in explained["memory"] if i["section"] == "rules"]

    for prompt in ("How many moons does Jupiter have?", "How do I parse a CSV file in Rust?"):
        told = rules(prompt)
        assert "Don't suggest anything with caffeine" in told, (prompt, told)
        assert not [t for t in told if "arrhythmia" in t or "warfarin" in t], (prompt, told)
        assert "Give distances in kilometres: I live in Lyon" in told, (prompt, told)
        assert "Quote prices in euros and temperatures in Celsius" in told, (prompt, told)  # money, not yours
    own = rules("What should I have for breakfast tomorrow?")
    assert any("arrhythmia" in t for t in own) and any("warfarin" in t for t in own), own
    # the reason said first, after a comma, in brackets: the instruction alone, capitalised
    for said, instruction in (
        ("As I'm diabetic, never suggest sugary drinks", "Never suggest sugary drinks"),
        ("No late-night plans, I have chronic fatigue syndrome", "No late-night plans"),
        ("Skip anything with shellfish (I have a severe shellfish allergy)", "Skip anything with shellfish"),
    ):
        cli("memories", "add", "--kind", "rule", said)
        told = rules("Write a limerick about the sea")
        assert instruction in told and said not in told, (said, told)
    # one rule, several instructions: those that say nothing private go, the private one does not
    for said, kept, private in (
        ("Use British English and never mention my HIV status", "Use British English", "HIV"),
        ("Keep answers short; don't bring up my bankruptcy", "Keep answers short", "bankruptcy"),
        ("Never mention my bipolar disorder, and always give metric units", "Always give metric units", "bipolar"),
    ):
        cli("memories", "add", "--kind", "rule", said)
        told = rules("What's the tallest mountain in Africa?")
        assert kept in told and not [t for t in told if private in t], (said, told)
        assert said in rules("Plan my week for me"), said  # a request of your own gets it whole


def test_explaining_a_thing_of_the_world_for_a_task_of_yours_gets_none_of_your_private_matters(cli, api, real_encoder):
    # "Describe the symptoms of bipolar II for my novel's character" got the user's own diagnosis by
    # its topic; "for my exam", "for my slides" is a task, not the user's case
    remember(
        cli,
        "I was diagnosed with bipolar II in 2019 and take lamotrigine",
        "I owe about £9,000 on two credit cards",
        "I'm a nursing student in Cardiff",
    )
    for prompt in (
        "Describe the warning signs of a manic episode for my novel's main character",
        "Walk me through how credit card interest is calculated for my maths lesson slides",
        "Explain lamotrigine rash for my pharmacology revision",
    ):
        sent = retrieved_for(cli, prompt)
        assert not [t for t in sent if "bipolar" in t or "9,000" in t], (prompt, sent)
    assert any("9,000" in t for t in retrieved_for(cli, "How long will it take me to pay off my credit cards?"))


def test_a_plate_or_a_door_code_never_rides_on_the_card_but_goes_when_asked_for(cli, api, real_encoder):
    # The card goes with nearly every request: "I drive a Corolla, reg YK19 ABC" sent the plate with all
    # of them. What holds a plate or a code that opens something is found when asked for.
    remember(
        cli,
        "I drive a 2019 Toyota Corolla hybrid, reg YK19 ABC",
        "Our side gate code is 4471",
        "I live in Leeds with my wife Priya",
    )
    card = card_of(cli)
    assert "YK19" not in card and "4471" not in card and "Leeds" in card, card
    assert any("YK19 ABC" in t for t in retrieved_for(cli, "What's the reg of my Corolla?"))
    assert any("4471" in t for t in retrieved_for(cli, "What's our side gate code?"))


def test_a_question_about_what_people_eat_gets_none_of_the_households_diet(cli, api, real_encoder):
    # "Which dishes are typical at a Diwali feast?" asks what anyone eats: the household's conditions
    # went with it (a pregnancy at a relevance under 0). A meal the user will have still gets them.
    remember(cli, "I have coeliac disease and must eat strictly gluten-free", "My wife Priya is pregnant")
    for prompt in ("Which dishes are typical at a Diwali feast?", "What vegetarian dishes are popular in Portugal?"):
        sent = retrieved_for(cli, prompt, why="household")
        assert sent == [], (prompt, sent)
    assert retrieved_for(cli, "What should I cook for dinner tonight?", why="household")


def test_a_scheduling_job_in_code_is_about_no_ones_diary(cli, api, real_encoder):
    # "every other Thursday" is a schedule to program, not a day of the user's: a trip went with it.
    remember(
        cli,
        "We're flying to Lisbon on 2026-08-14 for a week.",  # past: a trip the user took
        "I play five-a-side football every Tuesday evening.",
        "I run our home server on a Raspberry Pi 4",
        "I'm a product manager at Ocado",
        "Our dog Pepper is a beagle",
    )
    for prompt in (
        "How do I write a cron job that runs every other Thursday?",
        "How do I write a cron job that runs on the first Tuesday evening of each month?",
    ):
        sent = retrieved_for(cli, prompt)
        assert not [t for t in sent if "Lisbon" in t or "football" in t], (prompt, sent)


def test_whoever_minds_the_pet_while_you_are_away_comes_first_with_the_stay_it_is_for(cli, api, real_encoder):
    # "who'll have the dog while we're in spain" is not like "When we go away Rex stays with my sister
    # Ana" to the encoder, and the dog has more memories than the route sends: the arrangement goes
    # first, then the care a minder gives, and the household's next stay away (not a day out).
    remember(
        cli,
        "Our dog Rex is a four-year-old collie",
        "Rex goes to Northside Vets and is insured with Petplan",
        "Rex barks at the postman every morning",
        "Rex pulls on the lead near other dogs",
        "Rex gets a Librela injection once a month",
        "Rex loves the beach at Portobello",
        "Rex is scared of fireworks",
        "Rex had his teeth cleaned in October",
        "When we go away Rex stays with my sister Ana in Leith",
        "We're going to the Christmas market in York on Saturday 12 December 2026",
        "We're flying to Malaga from 9 to 16 January 2027 to see my parents",
        "My sister Marta is visiting us from 20 to 27 December 2026",
        # the rest of a life, so the card is full of it and the route must choose
        "I'm a civil engineer at Arup in Edinburgh",
        "My husband Tom is vegetarian",
        "Our daughter Isla is seven and mad about horses",
        "We live in a flat in Leith",
        "I drive a 2021 Skoda Octavia",
        "I'm allergic to penicillin",
        "I run with Leith Harriers on Tuesday evenings",
        "I'm learning Spanish on Duolingo",
    )
    for request in ("who'll have the dog while we're in spain", "what does the dog sitter need to know"):
        assert "stays with my sister Ana" in sent_for(cli, api, request), request  # the card or the route
    sent = " ".join(retrieved_for(cli, "who'll have the dog while we're in spain"))
    assert "Malaga" in sent and "York" not in sent and "Marta" not in sent, sent


def test_a_meal_ordered_or_served_as_people_say_it_gets_the_households_diet(cli, api, real_encoder):
    # a chippy, a roast, the main: a meal the household eats, though no word of it is "dinner"; a
    # roast of someone's CV is not
    remember(
        cli,
        "My wife Janet has coeliac disease and has to be strictly gluten-free",
        "I'm an electrician in Leeds",
        "We watch the rugby on Saturdays",
    )
    for request in (
        "ringing the chippy in a bit, what do i need to say so the wife doesnt end up poorly",
        "everyone's at ours on boxing day, what do i do for the main",
        "ideas for a sunday roast this weekend",
    ):
        assert "coeliac" in " ".join(retrieved_for(cli, request)), request
    assert "coeliac" not in " ".join(retrieved_for(cli, "roast my CV, be brutal"))


def test_a_day_of_your_week_gets_what_it_holds_though_it_meets_in_a_church_hall(cli, api, real_encoder):
    # a church hall is a room any group hires: Cubs there is no faith, and goes to a question about
    # that weekday; so does "my thursday evenings" and when to set the alarm
    remember(
        cli,
        "Cubs meet on Tuesdays, 6:30 to 8pm, in the Parish Church hall",
        "I have Spanish lessons online on Thursday mornings 8:00 to 9:00",
        "I teach chemistry at a secondary school in Dundee",
        "We go to Mass at St Mary's on Sundays",
        "My partner Alex is a GP in Broughty Ferry",
        "We live in a terrace in the West End",
        "I'm vegetarian",
        "I drive a Honda Jazz",
        "I swim at 7am on Mondays and Fridays",
        "Choir is on Wednesday evenings at the community centre",
        "I do the big shop on Saturday mornings",
        "I work from home on Fridays",
    )
    assert "Cubs" in sent_for(cli, api, "can i fit a dentist appointment in on tuesday")  # the card or the day
    for request in ("what time should my alarm be on thursday", "my thursdays are mental, what could i move"):
        assert "Spanish lessons" in sent_for(cli, api, request), request  # the card or the day
        assert "swim" not in " ".join(retrieved_for(cli, request, why="day")), request  # that day's, not Monday's


def test_your_own_low_mood_that_names_your_partner_is_not_theirs_to_be_sent(cli, api, real_encoder):
    # "I've been feeling low and haven't told Janet" names Janet, but it is the user's own health: a
    # meal for the wife gets her coeliac disease, not that; "feeling low" is health as "depressed" is
    remember(
        cli,
        "My wife Janet has coeliac disease and has to be strictly gluten-free",
        "I've been feeling low since mum went into the home and I haven't told Janet how bad it's got",
        "Janet is a teaching assistant at the primary school",
        "I'm an electrician in Leeds",
        "We live in a semi in Bramley",
    )
    sent = sent_for(cli, api, "ringing the chippy in a bit, what do i say so the wife doesnt end up poorly")
    assert "coeliac" in sent and "feeling low" not in sent, sent
    assert "feeling low" not in sent_for(cli, api, "what should i get janet for her birthday")


def test_seeing_a_counsellor_is_health_and_stays_back_from_a_question_about_your_diary(cli, api, real_encoder):
    # "I see a counsellor every other Thursday" is therapy, as "therapist" is: a request to fit a
    # haircut in on Thursday gets what Thursday holds, not that; a school counsellor's job is no health
    remember(
        cli,
        "I see a counsellor, Lorna, every other Thursday at 4pm",
        "I play five-a-side on Thursday evenings",
        "I teach chemistry in Dundee",
        "My son Ruaridh is nine",
    )
    sent = sent_for(cli, api, "can I fit a haircut in on thursday afternoon")
    assert "counsellor" not in sent and "five-a-side" in sent, sent
    from memchat.memory.judge import sensitive

    assert sensitive.categories("I'm a school counsellor in Leeds") == frozenset()


def test_running_out_of_a_medicine_gets_who_prescribes_it_and_how_you_order_it(cli, api, real_encoder):
    # "nearly out of my thyroid tabs, how do I get more" is not like "I order repeat prescriptions on
    # the NHS App" to the encoder; a sister who is a GP is not the user's
    remember(
        cli,
        "I take levothyroxine 75mcg every morning for an underactive thyroid",
        "My GP is Dr Okafor at Riverside Surgery; I order repeat prescriptions on the NHS App",
        "My sister Aoife is a GP in Bristol",
        "I'm a quantity surveyor in Leeds",
        "We live in a semi in Headingley",
    )
    sent = " ".join(retrieved_for(cli, "nearly out of my thyroid tabs, how do i get more"))
    assert "NHS App" in sent and "Aoife" not in sent, sent
    assert "NHS App" not in " ".join(retrieved_for(cli, "what are the side effects of levothyroxine in general"))


def test_a_request_about_your_career_gets_what_you_do_lead_and_aim_for(cli, api, real_encoder):
    # "prep bullet points for my review" is not like "I'm leading the move to Temporal" to the encoder;
    # a code review, a sister's job, and code are not the user's career
    remember(
        cli,
        "I'm a senior backend engineer at Fenwick, a fintech in Lisbon",
        "My current project is moving the reconciliation batch jobs onto Temporal workflows",
        "Last quarter I shipped the multi-currency FX revaluation job",
        "I want to get promoted to staff engineer next year",
        "My sister Ola is an engineer at Rolls-Royce",
        "I manage my to-dos in Todoist",
        "We live in a two-bed flat in Alvalade",
        "I climb on Tuesday and Thursday evenings",
        "I'm learning European Portuguese",
    )
    sent = " ".join(retrieved_for(cli, "prep bullet points for my review", why="career"))
    assert "Temporal" in sent and "shipped" in sent and "Ola" not in sent and "Todoist" not in sent, sent
    assert retrieved_for(cli, "review my pull request for bugs", why="career") == []
    assert retrieved_for(cli, "write a python function that parses a CV into JSON", why="career") == []


def test_a_pets_symptom_gets_your_vet_though_the_vet_memory_names_the_pet(cli, api, real_encoder):
    # "Our vet is Shawlands; Dr Mehta knows Dougie best" names Dougie, so it was one of his memories
    # ranked below three others and never sent as the vet; "got the runs" is a symptom
    remember(
        cli,
        "Our dog Dougie is a retired racing greyhound",
        "Dougie has a corn on a toe pad that makes him lame on hard pavements",
        "Dougie can't be left more than about five hours",
        "Dougie has a sensitive stomach and is on salmon and rice",
        "Dougie feels the cold badly and needs his fleece below 8 degrees",
        "Dougie has a strong prey drive, so he's muzzled in the park",
        "Our vet is Shawlands Veterinary Centre; Dr Anjali Mehta knows Dougie best",
        "I'm a nurse on rotating shifts",
        "We rent a tenement flat in Shawlands",
        "My daughter Isla is 14",
    )
    for request in ("dougie's limping coming home off the pavement", "dog's got the runs, he nicked a sausage roll"):
        assert "Shawlands Veterinary" in sent_for(cli, api, request), request


def test_a_guest_named_whom_memory_knows_by_no_role_brings_their_diet(cli, api, real_encoder):
    # "niamh and tomás coming for sunday lunch": Tomás is the daughter's partner, a role memory never
    # says, but he is named as a guest, and "Tomás won't eat fish" is his
    remember(
        cli,
        "My daughter Niamh lives in Galway",
        "Niamh and Tomás had a baby girl last year",
        "Tomás won't eat fish of any kind",
        "My husband Declan has Parkinson's",
        "I'm a retired teacher in Connemara",
        "We keep hens",
        "My friend Bríd can't eat gluten",
    )
    sent = sent_for(cli, api, "niamh and tomás coming for sunday lunch, what'll i make")
    assert "won't eat fish" in sent and "Bríd" not in sent, sent


def test_mends_from_an_adversarial_pass_over_this_stops_routes(cli, api, real_encoder):
    # what a helper session found (2026-12-07, eighth session), each class once more
    remember(
        cli,
        "My husband Declan is a carpenter",
        "I've been bummed out for weeks and haven't told Declan",
        "I'm seeing Anne on Thursdays about my marriage; she's a counsellor at Relate",
        "Declan has coeliac disease",
        "I'm the school counsellor at Ridgeway Academy",
        "I'm up for promotion to head of year in the spring",
        "My GP is Dr Okafor at Riverside Surgery; I order repeat prescriptions on the NHS App",
        "I take levothyroxine every morning",
        "Our dog Rex stays with my sister Ana when we go away",
        "We're going to the Christmas market in York on Saturday 12 December 2026",
        "We're flying to Lanzarote from 9 to 16 January 2027",
    )
    # what the user keeps from someone, and couples counselling, never go with a request about him
    for request in ("what should I get Declan for his birthday", "plan a weekend away for me and Declan"):
        sent = sent_for(cli, api, request)
        assert "bummed out" not in sent and "Relate" not in sent, (request, sent)
    assert "Relate" not in sent_for(cli, api, "Write a short poem about autumn")  # not on the card
    assert "coeliac" not in " ".join(retrieved_for(cli, "the chippy is coming to hang the doors tomorrow"))
    assert "promotion" not in " ".join(retrieved_for(cli, "is there a promotion on at Tesco this week", why="career"))
    assert "NHS App" in sent_for(cli, api, "need a repeat prescription")  # no "my" said
    trip = " ".join(retrieved_for(cli, "who'll have the dog while we're away", why="plan"))
    assert "Lanzarote" in trip and "York" not in trip, trip  # a stay away, not a day out


def test_pets_named_in_a_list_with_a_phrase_each_are_known_and_the_cats_are_yours(cli, api, real_encoder):
    # "We have two cats: Biltong, a six-year-old ginger, and Rooibos" names both cats, so "biltong" in
    # a request is the cat (a dried meat to anyone else); "the cats" are the household's, as "the cat" is
    remember(
        cli,
        "We have two cats: Biltong, a six-year-old ginger, and Rooibos, a three-year-old tabby",
        "Biltong has early kidney disease and is on a renal diet",
        "When we're away, Auntie Rosalind feeds the cats",
        "Rooibos is an escape artist",
        "I'm a civil engineer in Cape Town",
        "My husband Pieter makes wine in Stellenbosch",
        "We own a semi in Observatory",
        "I sing in a community choir",
    )
    assert "kidney disease" in sent_for(cli, api, "biltong's drinking loads of water and not eating")
    assert "Auntie Rosalind" in sent_for(cli, api, "who's looking after the cats while we're away")


@pytest.mark.parametrize(
    "text, day",
    [
        ("what's happening tuesday next week", "2026-11-03"),
        ("am i free tuesday morning next week", "2026-11-03"),
        ("next week on thursday, anything?", "2026-11-05"),
        ("what's on thursday", "2026-10-29"),
        ("can i do this friday", "2026-10-30"),
        ("next monday", "2026-11-02"),
        ("what's on wednesday", "2026-10-28"),  # today is a Wednesday
        ("what sides for saturday the 14th", "2026-11-14"),  # a day of the month says which Saturday
        ("in galway for the day tuesday week", "2026-11-10"),  # a week from the coming Tuesday
    ],
)
def test_one_day_of_the_week_ahead_is_that_day(text, day):
    from datetime import date

    from memchat.memory.recall.dates import Period, coming_period

    assert coming_period(text, date(2026, 10, 28)) == Period(date.fromisoformat(day), date.fromisoformat(day))


@pytest.mark.parametrize(
    "text", ["my thursday evenings are mental", "photos from last friday", "monday or tuesday?", "we swim on tuesdays"]
)
def test_a_habit_a_day_gone_or_a_choice_of_days_is_no_day_ahead(text):
    from datetime import date

    from memchat.memory.recall.dates import coming_period

    assert coming_period(text, date(2026, 10, 28)) is None


def test_a_weekday_asked_of_the_diary_gets_that_days_plans_and_habits_and_no_other_days(memchat_home, embedder):
    # "what's happening tuesday next week" is the diary of one day: the dentist that Tuesday (one of
    # many plans), and "what's on thursday" the class every Thursday, not the club's first Friday
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2026-12-01",
        "I have a dentist check-up with Dr Fourie on Tuesday 15 December at 08:00",
        "I'm on leave from 17 December to 8 January",
        "We're driving to Gqeberha on 22 December",
        "I have a French conversation class on Thursday mornings at 10:00",
        "The astronomy club meets the first Friday of the month at 20:30",
        "I'm a civil engineer in Cape Town",
    )
    today = date(2026, 12, 7)
    tuesday = section_on(db, embedder, "what's happening tuesday next week", today)
    assert "dentist" in tuesday and "Gqeberha" not in tuesday, tuesday
    thursday = section_on(db, embedder, "what's on thursday", today)
    assert "French conversation" in thursday and "astronomy club" not in thursday, thursday


def test_a_diet_the_user_keeps_to_goes_with_their_meals(cli, api, real_encoder):
    # "eating lower-carb these days" and "meant to keep salt down" shape a meal as an intolerance
    # does; neither goes to a question that is no meal
    remember(
        cli,
        "I'm eating lower-carb these days: brown rice, no white bread, hardly any sugar",
        "I'm 92kg and trying to lose six kilos, and I'm meant to keep salt down",
        "I'm a retired surveyor living near Eymet",
        "I play bridge on Mondays",
    )
    sent = sent_for(cli, api, "meal prep for the week, keep it cheap")  # one may be on the card
    assert "lower-carb" in sent and "salt down" in sent, sent
    assert "salt down" in " ".join(retrieved_for(cli, "meal prep for the week, keep it cheap", why="household"))
    assert "lower-carb" not in " ".join(retrieved_for(cli, "how do I keep a bridge scorecard in a spreadsheet"))


def test_a_visa_named_for_a_country_readies_a_trip(cli, api, real_encoder):
    # a visa is only ever for a journey: "documents for the portugal visa" gets the appointment, and a
    # Visa card is no visa
    from memchat.memory.judge import need

    remember(
        cli,
        "South Africans need a Schengen visa for Portugal; my VFS appointment for it is on Tuesday 2 March 2027",
        "I bank with FNB and have a Visa credit card",
        "I'm a civil engineer in Cape Town",
    )
    assert "VFS appointment" in " ".join(retrieved_for(cli, "list of documents for the portugal visa"))
    assert not retrieved_for(cli, "is my visa debit card accepted in spain", why="documents")
    for request in ("list of documents for the portugal visa", "what do i need for my japan visa application"):
        assert need.readies_a_trip(request), request
    for request in ("is my visa debit card accepted in spain", "how do visa sponsorships work for employers"):
        assert not need.readies_a_trip(request), request


def test_my_licence_is_my_driving_licence_and_guests_get_no_hosts_diet(cli, api, real_encoder):
    # "my licence is nearly out" says no "driving", yet asks about the user's identity document; and a
    # host's own slimming diet is not what guests they name get at supper (their coeliac disease is)
    remember(
        cli,
        "My driving licence card expires on 18 February 2027 and the renewal needs a booking at the DLTC",
        "I'm 92kg and trying to lose six kilos",
        "Alan's wife Margaret has coeliac disease",
        "I'm a retired surveyor in the Dordogne",
        "I play bridge on Mondays",
    )
    assert "DLTC" in " ".join(retrieved_for(cli, "my licence is nearly out, what do i do"))
    supper = " ".join(retrieved_for(cli, "alan and margaret are coming for supper saturday, what do i make"))
    assert "coeliac" in supper and "six kilos" not in supper, supper


@pytest.mark.parametrize(
    "text, world",
    [
        ("what happens to people who overstay their visa in nz", True),  # no "?", typed at a terminal
        ("what's the tallest building in rotterdam", True),
        ("what do they ask on the us citizenship test", True),  # the US, not us
        ("is a us visa needed for brazilians", True),
        ("can you help us plan a trip", False),
        ("is it ok to have a glass of prosecco tonight, im on tablets", False),  # "im" is I'm
        ("what should i cook tonight", False),
    ],
)
def test_a_question_about_the_world_as_people_type_it(text, world):
    from memchat.memory.judge.personal import asks_about_the_world

    assert asks_about_the_world(text) is world


@pytest.mark.parametrize(
    "text, general",
    [
        ("what happens to people who overstay their visa", True),
        ("can kids who have nut allergies eat coconut", True),
        ("my kids who are 5 and 7 need a hobby", False),
    ],
)
def test_people_by_the_kind_they_are_is_asked_in_general(text, general):
    from memchat.memory.judge.personal import asks_in_general

    assert asks_in_general(text) is general


def test_a_question_about_the_world_typed_without_a_question_mark_gets_nothing_of_yours(cli, api, real_encoder):
    # people at a terminal leave off the "?": "what happens to people who overstay their visa in nz"
    # is still about people at large, and "they" in a question about the world is anyone; a question
    # that names someone memory knows, in lowercase, is still about them
    remember(
        cli,
        "My cousin Viliami came on a visitor visa in April; it ran out in October and he's still here",
        "I became a US citizen in 1998 and keep my naturalization certificate in the fire safe",
        "My partner Yara works Mondays, Tuesdays and Thursdays",
        "We're going to Sri Lanka from 6 to 27 February 2027",
        "I'm a backend developer in Rotterdam",
    )
    for question in (
        "what happens to people who overstay their visa in nz",
        "what do they ask on the us citizenship test",
        "when does the uk switch to winter time",
    ):
        assert not retrieved_for(cli, question), question
    assert "Sri Lanka" in " ".join(retrieved_for(cli, "is the february trip still ok for yara given everything"))


def test_a_thing_of_yours_a_festive_week_and_a_crowds_meal_as_people_type_them(cli, api, real_encoder):
    # "the van" is the user's when memory says "our delivery van", though the question has no "my";
    # "what's going on christmas week" asks after the diary; a meal "everybody" eats is not for the
    # host's own slimming diet, which still goes with the user's own lunch
    remember(
        cli,
        "Since March 2026 our delivery van is a 2024 Ford Transit 250",
        "The new van still doesn't have the bakery logo on it",
        "Alexis and Dana are staying with us for Christmas, December 23 to 27",
        "I want to lose 20 pounds before the cruise",
        "I run a panadería in San Antonio",
        "I sing in the parish choir",
    )
    assert "logo" in " ".join(retrieved_for(cli, "how much does it cost to get the logo put on the van"))
    assert "Alexis and Dana" in " ".join(retrieved_for(cli, "what's going on christmas week"))
    assert "20 pounds" not in " ".join(retrieved_for(cli, "christmas eve dinner that everybody can eat, ideas"))
    assert "20 pounds" in sent_for(cli, api, "what can i eat at the shop for lunch that isn't bread")


@pytest.mark.parametrize(
    "text, day, start",
    [
        # of several days named, the soonest to come: the meeting, not next year's 28 November
        (
            "A passenger complained on 28 November; I've got a meeting about it on Thursday 10 December",
            "2026-12-10",
            None,
        ),
        # a span over two months is a plan until its last day, from its first
        ("I'm on annual leave from 21 December to 3 January", "2027-01-03", "2026-12-21"),  # annual leave is no habit
        ("we're away Dec 28 - Jan 4", "2027-01-04", "2026-12-28"),
        ("staying with us from 18 to 28 December 2026", "2026-12-28", "2026-12-18"),
    ],
)
def test_the_day_of_a_plan_that_names_several_days(text, day, start):
    from datetime import date

    from memchat.memory.recall.dates import planned_day, span_start

    assert planned_day(text, "2026-12-01T10:00:00") == date.fromisoformat(day)
    assert span_start(text, "2026-12-01T10:00:00") == (date.fromisoformat(start) if start else None)


def test_the_diary_of_a_week_or_a_holiday_reaches_a_plan_told_beside_a_past_day(memchat_home, embedder):
    # "what have i got on this week" gets the meeting on Thursday though its memory names a past
    # day first; "am i working christmas" asks after the diary and gets the leave over it
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2026-12-01",
        "A passenger complained on 28 November that I didn't wait; I've got a meeting with Craig about it on Thursday 10 December",
        "I'm on annual leave from 21 December to 3 January",
        "My Python assignment is due Friday 18 December",
        "I drive buses out of the Manukau depot",
    )
    today = date(2026, 12, 7)
    assert "meeting with Craig" in section_on(db, embedder, "what have i got on this week", today)
    assert "annual leave" in section_on(db, embedder, "am i working christmas", today)


def test_a_plan_on_the_day_of_the_month_a_request_names_goes_whatever_its_words(memchat_home, embedder):
    # "write me a running order for the 20th", "speech for the 20th" are for what the user has on the
    # 20th, however unlike it their words are
    from datetime import date

    db = told_on(
        memchat_home,
        embedder,
        "2026-12-01",
        "The depot Christmas prizegiving is on Sunday 20 December and I'm the MC",
        "The twins' school concert is on Tuesday 15 December",
        "I drive buses out of the Manukau depot",
    )
    from memchat.memory.judge import need

    today = date(2026, 12, 7)
    section = section_on(db, embedder, "write me a running order for the 20th", today)
    assert "prizegiving" in section and "school concert" not in section, section
    request = "speech for the 20th"  # (unlike the plan in its words: it was under the plans' floor)
    planned = need.plans_ahead(db, need.read(request, embedder), embedder, request, today, exclude=set())
    assert [n.memory.text for n in planned] == [
        "The depot Christmas prizegiving is on Sunday 20 December and I'm the MC"
    ]


def test_your_own_condition_that_sets_the_diet_reaches_your_meal_among_many_food_memories(memchat_home, embedder):
    # The meal route read the memories nearest food by meaning, and the user's own diabetes reads as
    # health: among more food memories than that read (a baker's, a home cook's), "cheap lunches that
    # won't spike my sugar" never saw it. The conditions nearest health are read too.
    from memchat.memory.judge import need

    dishes = [
        "sourdough", "tamales", "chop suey", "lasagne", "banana bread", "pho", "jollof rice", "paella",
        "pierogi", "ramen", "shepherd's pie", "dal", "empanadas", "roast chicken", "chilli", "gnocchi",
        "risotto", "falafel", "moussaka", "bibimbap", "fish pie", "goulash", "tacos", "biryani",
        "pancakes", "scones", "flapjacks", "meatballs", "curry laksa", "minestrone", "quiche", "brownies",
        "pad thai", "tagine", "stir fry", "carrot cake", "burritos", "sushi rolls", "tortilla", "crumble",
        "bolognese", "dumplings", "katsu curry", "cornbread", "fried rice",
    ]  # fmt: skip
    db = told_on(
        memchat_home,
        embedder,
        "2027-03-01",
        *(f"I make a really good {dish} and the family asks for it every week" for dish in dishes),
        "I was diagnosed with type 2 diabetes in 2024",
        "I drive the 33 bus out of the Manukau depot",
        "My phone is a Samsung Galaxy A54",
    )
    for prompt in ("cheap lunches i can take on shift that wont spike my sugar", "easy takeaway night options for me"):
        meal = [n.memory.text for n in need.household_diet(db, need.read(prompt, embedder), embedder, prompt, set())]
        assert "I was diagnosed with type 2 diabetes in 2024" in meal, (prompt, meal)


def test_a_vaccine_or_a_medicine_offered_turns_on_what_the_user_already_takes(cli, api, real_encoder):
    # What a pharmacist asks first: a live vaccine is unsafe on a drug that damps the immune system,
    # an anti-inflammatory beside an SSRI risks a bleed, trimethoprim beside methotrexate is toxic.
    # Neither word of the request is like the medicine's, so it is general knowledge, held as data.
    remember(
        cli,
        "I'm on azathioprine for my Crohn's",
        "I take citalopram 20mg every morning",
        "I take methotrexate 20mg on Sundays",
        "I teach chemistry at a sixth-form college in Derby",
        "We have a border collie called Skye",
    )
    jab = retrieved_for(cli, "should i get the yellow fever jab before ghana")
    assert any("azathioprine" in t for t in jab), jab
    back = retrieved_for(cli, "can i take naproxen for my back")
    assert any("citalopram" in t for t in back), back
    infection = retrieved_for(cli, "the walk-in centre wants to give me trimethoprim for a water infection")
    assert any("methotrexate" in t for t in infection), infection
    # a booster seat is no vaccine, and how vaccines work is asked of the world
    for prompt in ("should we get a booster seat for the car", "how do vaccines train the immune system?"):
        assert not any(w in " ".join(retrieved_for(cli, prompt)) for w in ("azathioprine", "methotrexate")), prompt


def test_a_presents_price_reaches_the_budget_for_presents_and_not_the_savings(memchat_home, embedder):
    # "secret santa idea for jussi, 20 euro limit" reads as money by its price: the topic route gave
    # it the index fund put by for the kids (a blind set, on a profile of 161 memories). A present's
    # price is what it may cost; what memory says is set aside for presents goes with it, the rest of
    # the money picture does not. The routes read directly: on so small a profile the gate hides it.
    from memchat.memory.judge import need

    db = told_on(
        memchat_home,
        embedder,
        "2026-12-01",
        "We put €300 a month into an index fund for each of the kids",
        "My salary is €6,200 a month gross",
        "Our Christmas gift budget is €150 per kid and €50 for everyone else",
        "My colleague Jussi is mad about fishing and Finnish rap",
        "Our mortgage is €186,000 with OP",
        "I'm a firmware engineer in Tampere",
    )

    def money_routes(prompt: str) -> list[str]:
        request = need.read(prompt, embedder)
        found = need.by_topic(db, request, embedder, set(), True) + need.by_money(db, request, embedder, prompt, set())
        return [n.memory.text for n in found]

    gift = money_routes("secret santa idea for jussi, 20 euro limit")
    assert any("gift budget" in t for t in gift), gift
    assert not any("index fund" in t or "salary" in t or "mortgage" in t for t in gift), gift
    assert any("index fund" in t for t in money_routes("how much more could we save each month for the kids"))


def test_whether_a_remedy_is_ok_beside_my_pills_is_a_question_of_taking_it(cli, api, real_encoder):
    # "is ibuprofen ok alongside my head pills" asks whether to take it, as "can I take" does: what the
    # user takes already decides it (the SSRI beside an anti-inflammatory). Not a question for the dog.
    from memchat.memory.judge import need

    remember(
        cli,
        "I've been on sertraline 100 mg since the spring for anxiety",
        "I take sumatriptan 50 mg when a migraine starts",
        "We have a spaniel called Taika",
        "I'm a firmware engineer in Tampere",
    )
    sent = retrieved_for(cli, "is ibuprofen ok alongside my head pills")
    assert any("sertraline" in t for t in sent), sent
    assert need.asks_to_take("is a lemsip safe with my blood pressure tablets")
    assert not need.asks_to_take("is aspirin safe for dogs")


def test_a_request_about_the_car_gets_what_memory_says_of_it_by_its_make_or_model(cli, api, real_encoder):
    # Memory calls the car by its make or model ("The Sorento's WoF is due in February"), a request
    # calls it "the car" (sets 12 and 13: the warrant, the service, the partner's car's inspection).
    # Whose car a request names is whose; a policy number stays home, as does a car the household
    # no longer has and a question about cars in general.
    remember(
        cli,
        "Since June we've had a 2019 Kia Sorento seven-seater, diesel",
        "The Sorento's WoF is due in February 2027",
        "The Kia is insured with Tower, policy number 41-8827-3305",
        "My wife Ana drives a 2015 Toyota Auris hybrid",
        "The Auris has to pass its annual inspection by 28 February 2027",
        "I used to drive a Honda Jazz",
        "We have a border collie called Skye",
        "I'm a bus driver in Auckland",
    )
    warrant = " ".join(retrieved_for(cli, "when's the warrant due on the car"))
    assert "WoF is due" in warrant and "policy number" not in warrant, warrant
    hers = " ".join(retrieved_for(cli, "my wife's car needs booking in for something before spring right"))
    assert "annual inspection" in hers and "WoF" not in hers, hers
    assert "Jazz" not in " ".join(retrieved_for(cli, "car won't start this morning, what do i check"))
    assert not retrieved_for(cli, "how does a car engine work, in general?", why="vehicle")


def test_another_coffee_turns_on_a_stimulant_the_user_takes_and_no_other_medicine(cli, api, real_encoder):
    # "can i have another flat white, got a deadline" is a stimulant's business (set 13: Vyvanse);
    # caffeine adds to it. An SSRI is not what another coffee turns on, nor is a question in general.
    remember(
        cli,
        "I was diagnosed with ADHD in 2024 and take Vyvanse 40 mg every morning",
        "I'm a marine biology PhD student in Townsville",
        "I play roller derby on Mondays",
    )
    assert any("Vyvanse" in t for t in retrieved_for(cli, "can i have another flat white, got a deadline"))
    assert not retrieved_for(cli, "how much caffeine is in a flat white, in general?", why="medicine")
    cli("memories", "forget", "1", "--yes")
    remember(cli, "I take sertraline 50 mg for anxiety")
    assert not retrieved_for(cli, "can i have another flat white, got a deadline", why="medicine")


def test_someone_elses_mum_is_not_yours(db):
    # "mikko's mum asked what she should bring for nye" got what memory says of the user's own mum
    # (her Moomin mugs): a possessive before "mum" makes her someone else's
    from memchat.memory.judge import people

    assert people.role_paths("mikko's mum asked what she should bring for nye") == []
    assert people.role_paths("Jess's dad is coming for lunch") == []
    assert people.role_paths("it's mum's birthday on friday") == [("mother",)]
    assert people.role_paths("my wife's mum is coming") == [("partner", "mother")]


def test_the_car_route_sends_no_health_money_number_gone_car_or_someone_elses(cli, api, real_encoder):
    # An adversarial pass on the car route: a health reason, hidden cash, a VIN and a rego went out
    # with a car noise; a car that died by its other name; a neighbour's car for "Tui's car"; a word
    # that is also the model's name ("Golf lessons"); a film's car chase.
    remember(
        cli,
        "We've had a 2018 Volkswagen Golf since March 2025",
        "The Golf needs its cambelt done at 120,000 km; it's on 112,000 now",
        "Golf lessons with Pete every Thursday at the Miramar links",
        "The Golf's VIN is WVWZZZAUZJW123456",
        "The Golf's rego is KJH442 and runs out in March",
        "The Golf has a disabled parking badge because of my MS",
        "I hid 5,000 cash in the Golf spare wheel well",
        "We bought a 2009 Honda Jazz in 2015",
        "The Jazz died on the motorway in March 2024",
        "My neighbour Tui drives a red Tesla Model 3",
        "I work as a librarian in Petone",
    )
    noise = " ".join(retrieved_for(cli, "the car is making a clunking noise over bumps, is the cambelt due?"))
    assert "cambelt done at 120,000" in noise, noise
    for gone in ("Golf lessons", "VIN", "KJH442", "MS", "cash", "Jazz", "Tesla"):
        assert gone not in noise, (gone, noise)
    assert not retrieved_for(cli, "Tui's car won't start, how do I jump start it?", why="vehicle")
    assert not retrieved_for(cli, "the car chase in Bullitt, how was it filmed?", why="vehicle")
