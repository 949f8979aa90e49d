"""The reader (P(this passage answers this question)) and its place in "are the documents answering
this at all?": the shipped weights, their pin, and what happens without them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citegraph.answer.answerable import assess, located, of_type
from citegraph.answer.reader import CARD_PATH, Reader, Reading, _whole_words, default_reader
from citegraph.errors import ModelUnavailable
from citegraph.models import ContextItem, Evidence, Span

HANDBOOK = "Larkspur keeps daily snapshots of every active workspace. Snapshots are kept for 14 days on active workspaces."
ABOUT = "Larkspur keeps daily snapshots of every active workspace. Snapshots can be restored from the settings page by an owner."


def test_the_passage_that_holds_the_asked_fact_reads_as_the_answer() -> None:
    reader = default_reader()
    question = "How long are snapshots kept on active workspaces?"
    answers, about, unrelated = reader.read(question, [HANDBOOK, ABOUT, "The office is closed on public holidays."])
    assert answers.probability > 0.5 and about.probability < answers.probability - 0.2  # same subject and words, no duration
    assert answers.probability > unrelated.probability
    assert "14 days" in answers.answer and answers.answer in HANDBOOK  # it points at the words that answer
    # read once per distinct passage, in the caller's order, whatever else is read with it
    again = reader.scores(question, [ABOUT, HANDBOOK, ABOUT])
    assert again[0] == pytest.approx(about.probability) and again[1] == pytest.approx(answers.probability) and again[2] == again[0]
    assert reader.scores(question, []).shape == (0,)
    (long,) = reader.read(question * 60, [HANDBOOK])  # far over the window: read by its first words
    assert 0.0 <= long.probability <= 1.0


def test_weights_that_are_not_the_pinned_ones_are_refused(tmp_path: Path) -> None:
    card = json.loads(CARD_PATH.read_text(encoding="utf-8"))
    shutil.copy(CARD_PATH.parent / card["model_file"], tmp_path / card["model_file"])
    (tmp_path / "reader-minilm.json").write_text(json.dumps({**card, "sha256": "0" * 64}), encoding="utf-8")
    with pytest.raises(ModelUnavailable, match="sha256"):
        Reader(tmp_path / "reader-minilm.json")
    (tmp_path / "broken.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ModelUnavailable, match="model_file"):
        Reader(tmp_path / "broken.json")


def _context(*texts: str) -> list[ContextItem]:
    items = []
    for i, text in enumerate(texts):
        span = Span(f"doc{i}.md", "v1", 0, len(text), text)
        items.append(ContextItem(i + 1, Evidence(span=span, score=0.6, similarity=0.6, found_by="sentence")))
    return items


def test_answerability_reads_with_the_reader_and_says_so_when_it_cannot() -> None:
    pytest.importorskip("spacy")
    question = "How long are snapshots kept on active workspaces?"
    seen: list[tuple[str, list[str]]] = []

    def never(q: str, passages: list[str]) -> list[Reading]:
        seen.append((q, list(passages)))
        return [Reading(0.0, "", p) for p in passages]

    low = assess(question, _context(HANDBOOK), read=never)
    high = assess(
        question,
        _context(ABOUT, HANDBOOK),
        read=lambda q, ps: [Reading(0.9 if "14" in p else 0.1, "14 days" if "14" in p else "", p) for p in ps],
    )
    assert seen == [(question, [HANDBOOK])]  # a sentence with no text before it is read once
    assert dict(low.features)["reader"] == 0.0 and dict(high.features)["reader"] == 0.9
    assert low.probability is not None and high.probability is not None and high.probability > low.probability
    # where the answer was read: its words and the marker of the sentence that holds them
    assert low.reading is None and high.reading == ("14 days", 2, 0.9)

    def unavailable(q: str, passages: list[str]) -> list[Reading]:
        raise ModelUnavailable("no weights")

    unassessed = assess(question, _context(HANDBOOK), read=unavailable)
    assert unassessed.answerable and unassessed.probability is None and "reader is unavailable" in unassessed.note


def test_the_extractive_answer_quotes_the_sentence_the_reader_found_the_answer_in() -> None:
    from citegraph.answer.extractive import ExtractiveAnswerer

    context = _context("Snapshots are a feature of Larkspur.", "Snapshots help.", "Owners keep snapshots for 14 days.")
    scored = [
        ContextItem(c.marker, Evidence(c.span, score=s, similarity=s, found_by="sentence"))
        for c, s in zip(context, (0.9, 0.85, 0.3), strict=True)
    ]
    plain = ExtractiveAnswerer(max_claims=2)
    assert [c.marker for c in plain.select(scored, "How long?").quoted] == [1, 2]
    assert [c.marker for c in plain.select(scored, "How long?", lead=3).quoted] == [1, 3]  # in place of the lowest-scored
    assert "[3]" in plain.answer("How long?", scored, lead=3)


def test_a_reading_that_starts_inside_a_word_is_widened_to_the_word() -> None:
    text = "The tumour starts in the lining of the stomach."
    assert _whole_words(text, text.index("e stomach"), len(text) - 1) == "the stomach"
    assert _whole_words(text, 0, 2) == "The"


def _item(marker: int, text: str, at: int = 0) -> ContextItem:
    return ContextItem(marker, Evidence(Span("notes.md", "v1", at, at + len(text), text), 0.9, 0.9, "test"))


def test_a_reading_of_another_type_than_asked_is_not_the_answer() -> None:
    """The reader read the bridge for a two-hop question: "Toronto" for "Who is the fire warden in the
    office the Head of Security works from?". A place is no answer to "who"; the person is."""
    first = "Henrik Dahl works from the Toronto office."
    second = "The fire warden in Toronto is Kwame Asante."
    context = [_item(1, first), _item(2, second, 100)]
    readings = [Reading(0.6, "Toronto", first), Reading(0.4, "Kwame Asante", second)]
    assert located(context, readings) == ("Toronto", 1, 0.6)  # no type asked: the most probable
    assert located(context, readings, expected="agent") == ("Kwame Asante", 2, 0.4)
    assert located(context[:1], readings[:1], expected="agent") is None


@pytest.mark.parametrize(
    ("line", "speaker"),
    [
        ("Anna Berg: The pager goes to Ilona on Sunday.", "Anna Berg"),
        ("2025-03-04 10:12 Anna Berg: The pager goes to Ilona on Sunday.", "Anna Berg"),
        ("10:12:05 From Anna Berg to Everyone: The pager goes to Ilona on Sunday.", "Anna Berg"),  # Zoom's saved chat
        ("[10:12] <anna_b> The pager goes to Ilona on Sunday.", "anna_b"),  # IRC
    ],
)
def test_a_chat_lines_speaker_answers_who_said_it_not_what_was_said(line: str, speaker: str) -> None:
    """In every chat shape, the speaker label is no answer to "what"; it is one to "who"."""
    context = [_item(1, line)]
    readings = [Reading(0.9, speaker, line)]
    assert located(context, readings) is None
    assert located(context, readings, expected="agent") == (speaker, 1, 0.9)


@pytest.mark.parametrize(
    ("expected", "sentence", "answer", "fits"),
    [
        ("date", "The packs arrive at Central on 23 June.", "23 June", True),
        ("date", "The packs arrive at Central on Saturday.", "Saturday", True),
        ("date", "The packs arrive at Central on Saturday.", "Central", False),  # no date in it
        ("date", "The decision was made by the board.", "The decision", False),  # "dec…" is no December
        # spaCy tags "10th" an ordinal; with its month it says when
        ("date", "Claims go to Sam on the expenses form by the 10th of the following month", "10th of the following month", True),
        ("date", "Our team came 10th in the league.", "10th", False),  # an ordinal alone is no date
        ("number", "Staff get twenty-five days of leave.", "twenty-five days", True),
        ("number", "Staff get paid leave.", "paid leave", False),
        ("agent", "Sofia Almeida leads the Gantt rewrite.", "Sofia Almeida", True),
        ("agent", "The rewrite is done in Lisbon.", "Lisbon", False),  # a place for "who"
        ("agent", "The rewrite is led by the platform team.", "the platform team", True),  # no entity: the benefit of the doubt
        ("place", "Kwame Asante is the fire warden.", "Kwame Asante", False),  # a person for "where"
    ],
)
def test_a_readings_type_is_read_from_the_sentence_it_is_in(expected: str, sentence: str, answer: str, fits: bool) -> None:
    at = sentence.index(answer)
    assert of_type(expected, sentence, at, at + len(answer)) is fits


def test_a_name_written_as_a_chat_handle_is_named() -> None:
    # "AdamSmith:" names Adam, and "Li Hua" is the handle "LiHua": no name is missing, whichever way it is written
    none = [Reading(0.0, "", "")]
    for question, line in (
        ("When does Adam confirm the plumber will arrive?", "AdamSmith: The plumber will be arriving tomorrow at 10 AM."),
        ("What does Li Hua think about the focaccia?", "LiHua: The rosemary focaccia was amazing!"),
        ("What did AdamSmith say about the plumber?", "Adam Smith said the plumber comes tomorrow."),
    ):
        found = assess(question, _context(line), read=lambda q, ps: none * len(ps))
        assert found.missing == () and dict(found.features)["entities"] == 1.0, question
    missing = assess("What did Wolfgang say about the plumber?", _context("AdamSmith: The plumber comes at 10."), read=lambda q, ps: none)
    assert missing.missing == ("wolfgang",)


def test_a_speaker_label_answers_who_and_nothing_else() -> None:
    context = _context("Kieran: For sure! Tywin's methods were ruthless, and Cersei learned a lot from him.")
    kieran = [Reading(0.9, "Kieran", context[0].span.text)]
    assert located(context, kieran, expected=None) is None
    assert located(context, kieran, expected="agent") == ("Kieran", 1, 0.9)
    for line in ("2025-03-06 08:20 Jamal Reid: Cleared.", "[16/04/2025, 12:02] Jamal Reid: Cleared."):
        assert located(_context(line), [Reading(0.9, "Jamal Reid", line)], expected=None) is None, line
        assert located(_context(line), [Reading(0.9, "Jamal Reid", line)], expected="agent") == ("Jamal Reid", 1, 0.9)
    named_inside = _context("Rowan: I think Kieran said it best.")
    assert located(named_inside, [Reading(0.9, "Kieran", named_inside[0].span.text)], expected=None) == ("Kieran", 1, 0.9)


def test_the_names_in_the_text_before_a_sentence_count_for_it_and_the_sentence_is_parsed_once() -> None:
    """ "She has led the sales team since 2021." answers a question about Maria Lopez when the text
    before it names her: the features read the two as one, though each is parsed apart (the
    sentence's own parse is the one the answer's later checks find kept)."""
    pytest.importorskip("spacy")
    from citegraph.sentences import _parses

    before = "Maria Lopez joined Brightwave in 2015. "
    sentence = "She has led the sales team since 2021."

    def read(q: str, passages: list[str]) -> list[Reading]:
        return [Reading(0.6, "2021", p) for p in passages]

    question = "Since when has Maria Lopez led the sales team?"
    with_names = dict(assess(question, _context(sentence), read=read, surroundings=lambda span: before + span.text).features)
    alone = dict(assess(question, _context(sentence), read=read).features)
    assert with_names["entities"] == 1.0 and alone["entities"] == 0.0
    assert with_names["sentence"] > alone["sentence"]
    assert (sentence, True) in _parses  # parsed whole, for the checks that read its dependencies
    assert (before + sentence, False) not in _parses and (before + sentence, True) not in _parses


def test_the_reader_reads_a_sentence_alone_and_the_word_features_read_the_text_before_it() -> None:
    """The reader reads each context sentence once, alone: what it points at is in the sentence itself
    and its P is that reading's, never the words before it (a second reading with them was dropped on
    2026-12-06: half the reader's time for the same answers); the name the text before it gives still
    counts for the word features."""
    pytest.importorskip("spacy")
    before = "Maria Lopez joined Brightwave in 2015. "
    sentence = "She has led the sales team since 2021."
    seen: list[list[str]] = []

    def read(q: str, passages: list[str]) -> list[Reading]:
        seen.append(list(passages))
        # read with the text before it, the reader would point at the name there; alone, at the year
        return [Reading(0.8, "Maria Lopez", p) if p.startswith("Maria") else Reading(0.4, "2021", p) for p in passages]

    found = assess(
        "Since when has Maria Lopez led the sales team?", _context(sentence), read=read, surroundings=lambda span: before + span.text
    )
    assert seen == [[sentence]]  # once, alone
    assert dict(found.features)["reader"] == 0.4
    assert dict(found.features)["entities"] == 1.0  # "Maria Lopez", named in the text before it
    assert found.reading == ("2021", 1, 0.4)


def test_a_preamble_that_asks_nothing_does_not_make_a_question_less_answerable(monkeypatch: pytest.MonkeyPatch) -> None:
    """ "Quick note from the night shift." names nothing the documents hold; the question after it is
    as answerable as when typed alone, while a question read whole is never made less answerable."""
    pytest.importorskip("spacy")
    question = "How long are snapshots kept on active workspaces?"

    def read(q: str, passages: list[str]) -> list[Reading]:
        return [Reading(0.9 if "14" in p else 0.1, "14 days" if "14" in p else "", p) for p in passages]

    alone = assess(question, _context(HANDBOOK), read=read)
    framed = assess(f"Quick note from the night shift. {question}", _context(HANDBOOK), read=read)
    assert alone.probability is not None and framed.probability is not None
    assert framed.probability == pytest.approx(alone.probability)
    # read whole only, the preamble's words count against it
    monkeypatch.setattr("citegraph.answer.answerable.own_asking_sentence", lambda text: None)
    whole = assess(f"Quick note from the night shift. {question}", _context(HANDBOOK), read=read)
    assert whole.probability is not None and whole.probability < alone.probability


def test_a_reading_of_a_sentence_about_another_place_than_the_question_names_is_no_answer() -> None:
    """ "In Leeds the fire alarm is tested every Wednesday" answers a question about Leeds, not "On
    which day is the fire alarm tested in the Toronto office?": the reader's P of it does not count,
    and its words are not the answer. A sentence that names the question's place (itself or in the
    text before it), or no place at all, is read as before; and a place is never held against a
    question that asks for one."""
    pytest.importorskip("spacy")
    question = "On which day is the fire alarm tested in the Toronto office?"

    def read(q: str, passages: list[str]) -> list[Reading]:
        return [Reading(0.8, "every Wednesday", p) if "Wednesday" in p else Reading(0.1, "", p) for p in passages]

    leeds = "In Leeds the fire alarm is tested every Wednesday at 10:00."
    elsewhere = assess(question, _context(leeds), read=read)
    assert dict(elsewhere.features)["reader"] == 0.0 and elsewhere.reading is None
    for sentence, before in [
        ("In Toronto the fire alarm is tested every Wednesday at 10:00.", ""),  # the question's own place
        ("The fire alarm is tested every Wednesday at 10:00.", ""),  # no place: nothing says it is another's
        ("The alarm is tested every Wednesday at 10:00, as in Leeds.", "Toronto office. "),  # named just before it
    ]:
        found = assess(question, _context(sentence), read=read, surroundings=lambda span, b=before: b + span.text)
        assert dict(found.features)["reader"] == 0.8 and found.reading is not None, sentence
    # a question asking for a place: the answer names another one
    where = assess(
        "Which city does Henrik Dahl work in?",
        _context("Henrik Dahl works from the Leeds office."),
        read=lambda q, ps: [Reading(0.7, "Leeds", p) for p in ps],
    )
    assert dict(where.features)["reader"] == 0.7
