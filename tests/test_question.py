"""The question of an ask is read once (citegraph.question): retrieval links its names from that
parse, and the answerability, relevance and extractive checks read its type and terms from it."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from citegraph import question as question_module
from citegraph.embed import HashingEmbedder
from citegraph.models import AnswerStatus
from citegraph.pipeline import CiteGraph
from citegraph.question import AGENT, DATE, NUMBER, Question, expected_type
from citegraph.sentences import SentenceSplitter, load_spacy
from citegraph.store import SQLiteStore
from citegraph.verify.base import UncheckedVerifier


class _Counting:
    """spaCy's pipeline, counting how often each text is parsed."""

    def __init__(self, nlp: Any) -> None:
        self.nlp = nlp
        self.parsed: list[str] = []

    def pipe(self, texts: Any, **options: Any) -> Any:
        texts = list(texts)
        self.parsed.extend(texts)
        return self.nlp.pipe(texts, **options)

    def __call__(self, text: str) -> Any:
        self.parsed.append(text)
        return self.nlp(text)


def test_an_ask_parses_its_question_once(splitter: SentenceSplitter, larkspur: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=UncheckedVerifier()) as graph:
        graph.ingest([larkspur])
        counting = _Counting(load_spacy())
        monkeypatch.setattr("citegraph.sentences.load_spacy", lambda: counting)
        monkeypatch.setattr("citegraph.sentences._parses", OrderedDict())  # no parse kept from another test
        monkeypatch.setattr(graph.retriever, "nlp", counting)
        question_module._read.cache_clear()
        asked = "How long do exports stay available after cancellation?"
        answer = graph.ask(asked)
    assert answer.context and answer.answerability is not None and answer.answerability.features  # every check ran
    assert answer.relevance.label != "unchecked"
    assert counting.parsed.count(asked) == 1, counting.parsed[:3]


def test_a_question_reads_its_type_and_terms_from_its_one_parse() -> None:
    q = Question.read("When did Marta Ilves design the Quillon engine?")
    assert Question.read(q.text) is q and Question.of(q) is q  # read once, then from the cache
    assert q.expected == DATE and q.expected == expected_type(q.doc)
    entities, words = q.terms
    assert "marta ilves" in entities and "design" in words and "when" not in words
    assert Question.read("Who designed it?").expected == AGENT
    assert Question.read("How many days of vacation do we get?").expected == NUMBER
    assert Question.read("Is the store open on Sundays?").expected is None


@pytest.mark.parametrize(
    ("asked", "named", "framing"),
    [
        ("Our charity wants to use a meeting room for an afternoon. What's the hourly rate?", (), ("afternoon", "hourly")),
        ("Who is organising the restaurant for the Thursday evening at the offsite?", ("thursday",), ("evening",)),
        ("Who was primary on-call over the weekend after the incident?", (), ("weekend",)),
        ("What was the annual revenue in 2023?", ("2023",), ("annual",)),
    ],
)
def test_a_vague_time_is_a_word_to_find_not_a_name_the_evidence_must_give(
    asked: str, named: tuple[str, ...], framing: tuple[str, ...]
) -> None:
    # "an afternoon" frames the question; a date with a number or a day's name ("2023", "Thursday") is
    # still a name the evidence has to give for the question to be answered
    entities, words = Question.read(asked).terms
    assert entities == named
    assert all(w in words for w in framing)


def test_a_text_is_parsed_once_while_kept_and_the_kept_parses_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from citegraph import sentences

    monkeypatch.setattr(sentences, "PARSES_KEPT", 2)
    monkeypatch.setattr(sentences, "_parses", type(sentences._parses)())
    monkeypatch.setattr(sentences, "_ahead", {})  # nothing parsed ahead (a server's test may have)
    first, again = sentences.parsed(["Exports last 30 days.", "Exports last 30 days."])
    assert first is again and [t.text for t in first] == ["Exports", "last", "30", "days", "."]
    assert sentences.parsed(["Exports last 30 days."])[0] is first  # kept: the next check reads the same parse
    sentences.parsed(["Refunds take five days.", "Invoices are monthly."])
    assert len(sentences._parses) == 2  # the oldest is let go
    assert sentences.parsed(["Exports last 30 days."])[0] is not first


def test_a_parse_without_dependencies_reads_the_same_words_tags_and_entities(monkeypatch: pytest.MonkeyPatch) -> None:
    """Answerability reads words, lemmas, tags and entities only: its parse skips the dependency parser,
    and gives the same of each; a full parse kept already is handed over instead."""
    from citegraph import sentences

    monkeypatch.setattr(sentences, "_parses", type(sentences._parses)())
    text = "Marcus Bell checks the extinguisher in Leeds on the first Monday of every month."
    (light,) = sentences.parsed([text], dependencies=False)
    (full,) = sentences.parsed([text])
    assert light is not full and not light.has_annotation("DEP") and full.has_annotation("DEP")

    def read(doc: Any) -> tuple[list[tuple[str, ...]], list[tuple[str, str]]]:
        return [(t.text, t.lemma_, t.pos_, t.tag_) for t in doc], [(e.text, e.label_) for e in doc.ents]

    assert read(light) == read(full)
    assert sentences.parsed([text], dependencies=False)[0] is full  # the full parse, kept, serves both


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("how many days of holiday do I get", "how many days of holiday do I get?"),
        ("what's the hotel limit in London", "what's the hotel limit in London?"),
        ("Is the office open on Sundays", "Is the office open on Sundays?"),
        ("Before I go. where is the Lisbon office", "Before I go. where is the Lisbon office?"),  # the last sentence asks
        ("I'm off sick. after how many days do I need a note", "I'm off sick. after how many days do I need a note?"),
        ("Summarize the travel guide", "Summarize the travel guide"),  # asks nothing: no mark
        ("Who leads SSO?", "Who leads SSO?"),
        ("Can you tell me who leads SSO?", "who leads SSO?"),
        ("Hi, could you please tell me when the Lisbon office opens", "when the Lisbon office opens?"),
        ("Do you know if the office is open on Sundays?", "the office is open on Sundays?"),
        ("I'd like to know how many days of holiday I get", "how many days of holiday I get?"),
        ("I need to know how many days of holiday I get.", "how many days of holiday I get?"),  # asked, though ending in "."
        ("Hi! Quick question: how many days of holiday do I get", "how many days of holiday do I get?"),
        ("Sorry to bother you, where is the Lisbon office?", "where is the Lisbon office?"),
        ("Questions about SSO go to Henrik.", "Questions about SSO go to Henrik."),
        ("Tell me about the security policy", "Tell me about the security policy"),  # a request about a topic, kept whole
        ("Who can tell me about SSO?", "Who can tell me about SSO?"),
        # written as a message: its greeting line and its sign-off (with the writer's name) are no part of it
        ("Hello team,\n\nHow many days of holiday do I get?\n\nThanks,\nSam", "How many days of holiday do I get?"),
        ("How long are exports kept? Thanks in advance!", "How long are exports kept?"),
        ("Who leads SSO? Cheers, Ana", "Who leads SSO?"),
        ("Hi Sam, who leads SSO?", "who leads SSO?"),
        ("Does Brightwave give thanks to its volunteers?", "Does Brightwave give thanks to its volunteers?"),  # "thanks" asked about
        ("Which backup schedule is best? Best practice says weekly.", "Which backup schedule is best? Best practice says weekly."),
        ("Thanks", "Thanks"),  # nothing else: kept
        # typed around the question, saying nothing: a label, a doubled mark, an emoji, quotes, Markdown, "Please,"
        ("Q: Who leads SSO?", "Who leads SSO?"),
        ("Who leads SSO??", "Who leads SSO?"),
        ("Who leads SSO?! 🙏", "Who leads SSO?"),
        ('"Who leads SSO?"', "Who leads SSO?"),
        ("**Who leads SSO?**", "Who leads SSO?"),
        ("Please, by when are expense claims due?", "by when are expense claims due?"),
        ('Who wrote "Dune"?', 'Who wrote "Dune"?'),  # quotes inside it stay
        ("Please send the report.", "Please send the report."),  # asks nothing: kept
        ("Q4 revenue?", "Q4 revenue?"),  # no label
        ("Waht song did Maya propose for the party?", "What song did Maya propose for the party?"),  # a mistyped question word
        ("wich office is Maya in?", "which office is Maya in?"),
        ("Wichita is where?", "Wichita is where?"),  # a word of its own
        ("Hello team, waht song did Maya propose? Thanks, Sam", "what song did Maya propose?"),  # all of it, in turn
        ("Dear all, who leads SSO?", "who leads SSO?"),
        ("Hi-vis rules?", "Hi-vis rules?"),  # no greeting
    ],
)
def test_a_question_is_read_without_the_request_around_it_and_with_its_mark(typed: str, read: str) -> None:
    from citegraph.question import marked, unwrapped

    assert marked(unwrapped(typed)) == read


def test_a_question_typed_in_lower_case_is_read_with_the_capitals_its_documents_give_names() -> None:
    from citegraph.retrieve.names import capitalised, cased

    texts = [
        "Most of us work from the Lisbon office; our SSO rollout finished in May.",
        "Questions go to security@brightwave.io, and the team moved to Brightwave in 2021.",
        "Address: 3 Ferry Lane. Send it to the whistleblowing address.",
    ]
    assert capitalised("lisbon", texts) == "Lisbon" and capitalised("sso", texts) == "SSO"
    assert capitalised("brightwave", texts) == "Brightwave"  # the address is no word of the text
    assert capitalised("address", texts) is None  # capitalised only where a label opens, and in lower case elsewhere
    assert capitalised("most", texts) is None  # only where a sentence opens
    known = {"lisbon": "Lisbon", "sso": "SSO"}
    assert cased("who leads sso in the lisbon office?", known.get) == "who leads SSO in the Lisbon office?"
    assert cased("Who leads sso?", known.get) == "Who leads sso?"  # a capital of its own: as typed
    # typed all in capitals: read as typed in lower case, the documents' capitals given back
    assert cased("WHO LEADS SSO IN THE LISBON OFFICE?", known.get) == "who leads SSO in the Lisbon office?"
    assert cased("WHO LEADS SSO?", known.get) == "WHO LEADS SSO?"  # too short to tell shouting from a name


def test_a_question_asked_without_its_mark_or_in_lower_case_is_answered_as_asked_with_them(
    splitter: SentenceSplitter, larkspur: Path
) -> None:
    """Of the development corpora's 126 dev questions, asked without their "?" 7 more were answered
    wrong, typed in lower case 8 more, wrapped in "Can you tell me …" 2 more, each framing read as
    another question by the parse every check starts from."""
    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, verifier=UncheckedVerifier()) as graph:
        graph.ingest([larkspur])
        asked = "How long do exports stay available after cancellation?"
        answer = graph.ask(asked)
        for framing in ("How long do exports stay available after cancellation", "how long do exports stay available after cancellation"):
            other = graph.ask(framing)
            assert other.question == framing  # shown as typed
            assert other.retrieval.read_as is not None and other.retrieval.read_as.endswith("cancellation?")
            assert (other.status, [c.text for c in other.claims]) == (answer.status, [c.text for c in answer.claims])
        assert answer.retrieval.read_as is None  # read as asked
        wrapped = graph.ask("Can you tell me how long exports stay available after cancellation?")
        assert wrapped.retrieval.read_as == "how long exports stay available after cancellation?"


def test_the_asking_sentence_of_a_question_typed_after_something_else_weighs_more_in_its_vector() -> None:
    """ "Quick question from a new starter. How many days of holiday do I get?": retrieval ranks by
    the mean of the whole text's vector and the asking sentence's; a question of one sentence, or one
    whose "vs." or "St." only looks like a sentence's end, by its own vector."""
    from citegraph.embed import HashingEmbedder
    from citegraph.question import asking_sentence
    from citegraph.retrieve.retriever import question_vector

    assert asking_sentence("Quick question from a new starter. How many days of holiday do I get?") == "How many days of holiday do I get?"
    assert asking_sentence("I'm off sick. After how many days do I need a note?") == "After how many days do I need a note?"
    assert asking_sentence("Who scored in the City vs. Chelsea match?") is None
    assert asking_sentence("How many days of holiday do I get?") is None
    assert asking_sentence("I'm off sick. I need a note.") is None  # nothing asks
    # what is said after the question is read with it too: the question is still what asks
    assert asking_sentence("How many days of holiday do I get? I'm asking for a colleague.") == "How many days of holiday do I get?"
    embedder = HashingEmbedder()
    typed = "Quick question from a new starter. How many days of holiday do I get?"
    whole, asked = embedder.embed([typed, "How many days of holiday do I get?"])
    got = question_vector(embedder, typed)
    assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-5
    assert float(got @ asked) > float(whole @ asked)  # nearer what is asked than the whole text is
    single = "How many days of holiday do I get?"
    assert np.allclose(question_vector(embedder, single), embedder.embed([single])[0])
    # an asking sentence that points back at what was said before it is read with it, whole
    back = "Quillon Labs changed its name in 2019. What does their new name stand for?"
    assert np.allclose(question_vector(embedder, back), embedder.embed([back])[0])


@pytest.mark.parametrize(
    ("text", "asks_to_write"),
    [
        ("Imagine you are a ward nurse. Draft a handover note for the night shift.", True),
        ("You are a new office manager tasked with writing a welcome e-mail for new starters.", True),
        ("Rewrite the travel policy as a one-page checklist.", True),
        ("Assume the role of a fire warden and write the evacuation briefing.", True),
        ("You are a new starter. How many days of holiday do I get?", False),  # a role, then a question
        ("How do I write an expense claim?", False),
        ("Can you write me the hotel limit?", False),
        ("Summarize the security policy.", False),  # a summary request: answered from the document's sections
        ("What is the hotel limit?", False),
    ],
)
def test_a_request_to_write_from_the_documents_is_told_from_a_question(text: str, asks_to_write: bool) -> None:
    from citegraph.question import writing_request

    assert writing_request(text) is asks_to_write


def test_a_request_to_write_is_answered_with_related_evidence_never_as_not_found_or_green(
    splitter: SentenceSplitter, larkspur: Path
) -> None:
    """GraphRAG-Bench's Creative Generation requests (a role to play, then a plan or a letter to draft) were
    answered `not_found` for one in five: they ask for a text, not a fact, and no sentence reads as
    their answer. Such a request has no answer to find or to abstain on; its nearest evidence is
    quoted, grey."""
    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter) as graph:
        graph.ingest([larkspur])
        # the documents say little of a launch note: read as a question, P(answerable) is near 0
        answer = graph.ask("You are a product manager. Write a launch note about the Gantt view for the team.")
        assert answer.claims and answer.status not in (AnswerStatus.NOT_FOUND, AnswerStatus.VERIFIED, AnswerStatus.QUOTED)
        assert answer.answerability is not None and answer.answerability.answerable
        assert answer.answerability.note.startswith("a request to write from the documents")
        assert (answer.answerability.probability or 0.0) < 0.1
