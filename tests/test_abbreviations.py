"""Abbreviations the documents define, spelled out in the question (citegraph.retrieve.abbreviations).

A guideline says "basal cell carcinoma (BCC)" once and a person asks "What is recommended for
aftercare for BCC?": without the long form the question finds unrelated sentences and
reads as unanswerable. Definitions are read from the sentences the caller may see, and only those."""

from __future__ import annotations

import pytest

from citegraph.answer.answerable import located
from citegraph.answer.reader import Reading
from citegraph.embed import HashingEmbedder
from citegraph.models import ContextItem, Evidence, Span
from citegraph.pipeline import CiteGraph
from citegraph.retrieve.abbreviations import definitions, long_form, spell_out
from citegraph.sentences import SentenceSplitter
from citegraph.store import SQLiteStore


@pytest.mark.parametrize(
    ("short", "before", "expected"),
    [
        ("BCC", "Slow-growing skin tumours, called basal cell carcinoma", "basal cell carcinoma"),
        ("EAC", "starts in the lining: Esophageal adenocarcinoma", "Esophageal adenocarcinoma"),
        ("HLA", "Typing of Human leukocyte antigen", "Human leukocyte antigen"),
        ("PD-1", "a drug that blocks programmed death protein 1", "programmed death protein 1"),
        ("SSO", "Staff sign in with single sign-on", "single sign-on"),
    ],
)
def test_the_long_form_is_the_shortest_run_of_words_holding_the_letters(short: str, before: str, expected: str) -> None:
    assert long_form(short, before) == expected


@pytest.mark.parametrize(
    ("short", "before"),
    [
        ("MRI", "the scan was done on Tuesday"),  # the letters are not there in order
        ("XYZ", "we met"),
        ("BCC", "tests for BCC"),  # the short form itself is not its own long form
    ],
)
def test_words_that_do_not_hold_the_letters_define_nothing(short: str, before: str) -> None:
    assert long_form(short, before) is None


def test_definitions_take_the_long_form_written_most_often_and_skip_lowercase_asides() -> None:
    texts = [
        "Basal cell carcinoma (BCC) is common.",
        "Most basal cell carcinoma (BCC) is cured.",
        "A bad cold case (BCC) is rare.",
        "Radiation therapy (see page 4) is used.",  # an aside, not a short form
        "Magnetic resonance imaging (MRI) shows soft tissue.",
    ]
    assert definitions(texts) == {"BCC": "Basal cell carcinoma", "MRI": "Magnetic resonance imaging"}


def test_the_question_is_read_with_each_short_form_followed_by_its_long_form() -> None:
    defined = {"BCC": "basal cell carcinoma", "MRI": "magnetic resonance imaging"}
    read, pairs = spell_out("Is an MRI used for BCC? And for BCC that returns?", defined)
    assert read == "Is an MRI (magnetic resonance imaging) used for BCC (basal cell carcinoma)? And for BCC that returns?"
    assert pairs == (("MRI", "magnetic resonance imaging"), ("BCC", "basal cell carcinoma"))
    # already said, or already in parentheses, or not defined: as asked
    for question in ("Is basal cell carcinoma (BCC) common?", "Is BCC (basal cell carcinoma) common?", "Is SCC common?", "Is bcc common?"):
        assert spell_out(question, defined) == (question, ())


def test_a_reading_that_names_the_questions_own_subject_is_not_an_answer() -> None:
    first, second = "Skin tumours of this kind, called basal cell carcinoma (BCC), grow slowly.", "A biopsy confirms the diagnosis."
    span = Span("guide.md", "v1", 0, len(first), first)
    other = Span("guide.md", "v1", len(first) + 1, len(first) + 1 + len(second), second)
    context = [ContextItem(1, Evidence(span, 0.9, 0.9, "test")), ContextItem(2, Evidence(other, 0.8, 0.8, "test"))]
    readings = [Reading(0.6, "Skin tumours of this kind, called basal cell carcinoma", span.text), Reading(0.4, "A biopsy", other.text)]
    assert located(context, readings) == ("Skin tumours of this kind, called basal cell carcinoma", 1, 0.6)
    assert located(context, readings, ["BCC", "basal cell carcinoma"]) == ("A biopsy", 2, 0.4)


GUIDE = (
    "Slow-growing skin tumours of this kind are called basal cell carcinoma (BCC) by doctors. "
    "Surgery is the most common treatment for basal cell skin cancer. "
    "Follow-up visits for basal cell skin cancer include a full skin exam once a year."
)
STAFF = "Our single sign-on (SSO) provider is Oktaline. Team leads approve SSO access."


def test_a_question_is_read_with_the_definitions_the_caller_may_see_and_no_others(tmp_path, splitter: SentenceSplitter) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "guide.txt").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "staff").mkdir()
    (tmp_path / "staff" / "it.txt").write_text(STAFF, encoding="utf-8")
    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter) as g:
        g.ingest([tmp_path / "guide.txt"])
        g.ingest([tmp_path / "staff"], access=("staff",))
        answer = g.ask("What does aftercare for BCC include?")
        assert answer.question == "What does aftercare for BCC include?"  # shown as asked
        assert answer.retrieval.read_as == "What does aftercare for BCC (basal cell carcinoma) include?"
        assert answer.retrieval.spelled_out == (("BCC", "basal cell carcinoma"),)
        # SSO is defined only in a staff document: a public caller's question is read as asked
        public = g.ask("Who approves SSO access?")
        assert public.retrieval.read_as is None and public.retrieval.spelled_out == ()
        staff = g.ask("Who approves SSO access?", labels=("staff",))
        assert staff.retrieval.spelled_out == (("SSO", "single sign-on"),)


def test_an_abbreviation_is_named_where_the_context_names_most_of_its_long_forms_words() -> None:
    """A guide defines "basal cell carcinoma (BCC)" once and writes "basal cell skin cancer"
    everywhere else: a question about BCC is about those sentences, and is not unanswerable for the
    want of the three letters (GraphRAG-Bench medical: questions abstained for it)."""
    from citegraph.answer.answerable import features
    from citegraph.question import Question, parse

    question = Question.read("What does aftercare for BCC (basal cell carcinoma) include?")
    assert "bcc" in question.terms[0]
    spelled = (("BCC", "basal cell carcinoma"),)
    (skin,) = parse(["Aftercare for basal cell skin cancer includes a full skin exam once a year."]) or []
    values, missing = features(question, [skin], [0.6], [0.2], spelled=spelled)
    assert "bcc" not in missing and values["entities"] == 1.0
    _values, missing = features(question, [skin], [0.6], [0.2])  # read without the definition: not named
    assert "bcc" in missing
    (other,) = parse(["Aftercare for melanoma includes a full skin exam once a year."]) or []
    _values, missing = features(question, [other], [0.6], [0.2], spelled=spelled)  # one word of three: not named
    assert "bcc" in missing
