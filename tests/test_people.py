"""Who a request means by role ("my father-in-law"), and who memory says that is."""

import pytest

from memchat.memory.judge import people
from memchat.memory.store.memories import MemoryStore


@pytest.mark.parametrize(
    ("request_text", "paths"),
    [
        ("What could I give my father-in-law?", [("partner", "father")]),
        ("My partner's closest mate is coming for lunch", [("partner", "friend")]),
        ("Stocking fillers for the kids?", [("son",), ("daughter",)]),
        ("Something to post to my nephews abroad?", [("sister",), ("brother",)]),
        ("Draft an email to my boss", [("manager",)]),
        ("What treats are okay for the dog?", [("dog",)]),
        ("How do I kill a child process?", []),
        ("Explain the father of modern physics", []),
    ],
    ids=["in-law", "partner's friend", "kids", "nephews", "boss", "the dog", "child process", "no possessive"],
)
def test_role_paths_read_who_a_request_names(request_text, paths):
    assert people.role_paths(request_text) == paths


def test_names_and_memories_follow_the_role_path(db):
    store = MemoryStore(db)
    for text in (
        "My wife Ana is a teacher",
        "Ana's dad Jorge restores motorbikes",
        "Jorge lives in Braga",
        "My manager was Paul",
        "I restore furniture",
    ):
        store.add(text)
    assert people.names_for(db, "user", "partner") == ["Ana"]
    assert people.names_for(db, "Ana", "father") == ["Jorge"]
    texts = {store.get(i).text for i in people.memories_about(db, [("partner", "father")])}
    assert "Ana's dad Jorge restores motorbikes" in texts and "Jorge lives in Braga" in texts
    assert "I restore furniture" not in texts


def test_a_mentee_and_a_godchild_are_found_by_what_the_user_says_of_them(db):
    store = MemoryStore(db)
    for text in ("I'm mentoring Oskar, a junior developer", "I'm godfather to Alfie, my friend Tom's son"):
        store.add(text)
    assert people.names_for(db, "user", "mentee") == ["Oskar"]
    assert people.names_for(db, "user", "godchild") == ["Alfie"]
