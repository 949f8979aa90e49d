"""Sentences carry exact offsets: text[start:end] == sentence, for any text."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citegraph.sentences import (
    SECTION_CHARS,
    SPACY_MODEL,
    SentenceSplitter,
    _runs_on,  # the rule alone: spaCy itself joins these two lines
    asks,
    document_name,
    ends_asking,
    is_heading,
    load_spacy,
    section_texts,
    sections,
    split_blocks,
)

# Arbitrary unicode (no lone surrogates: those cannot come out of a UTF-8 file), with extra weight on
# the whitespace, punctuation and markup characters that move sentence boundaries.
_chars = st.one_of(
    st.characters(blacklist_categories=["Cs"]),
    st.sampled_from([*list(" \t\n\n\r\xa0\u2003\u3000.!?;:-#*>`[]()\"'"), "é", "ß", "中", "🙂", "\u200b", "\ufeff"]),
    st.sampled_from(list(string.ascii_letters)),
)
texts = st.text(_chars, max_size=300)


def _check(text: str, media_type: str, splitter: SentenceSplitter) -> list:
    sentences = splitter.split("doc", "v1", text, media_type)
    previous_end = 0
    for s in sentences:
        span = s.span
        assert text[span.start : span.end] == span.text
        assert span.text and span.text == span.text.strip()
        assert span.start >= previous_end  # disjoint, in order
        previous_end = span.end
    return sentences


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_plain_text_offsets_slice_back_and_cover_every_character(splitter: SentenceSplitter, text: str) -> None:
    sentences = _check(text, "text/plain", splitter)
    covered = set()
    for s in sentences:
        covered.update(range(s.span.start, s.span.end))
    # Nothing is lost: every visible character of a plain-text document is inside some sentence.
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_markdown_offsets_slice_back(splitter: SentenceSplitter, text: str) -> None:
    _check(text, "text/markdown", splitter)


def test_markdown_markers_are_left_out_of_spans(splitter: SentenceSplitter) -> None:
    text = "# Exports\n\nExports use the latest snapshot. Owners start them.\n\n- First item.\n1. Second item.\n\n```\ncode\n```\n"
    got = [s.span.text for s in splitter.split("d", "v", text, "text/markdown")]
    assert got == ["Exports", "Exports use the latest snapshot.", "Owners start them.", "First item.", "Second item.", "code"]


def test_sentences_do_not_cross_paragraphs(splitter: SentenceSplitter) -> None:
    text = "A heading without a stop\n\nThe body starts here. It ends here."
    got = [s.span.text for s in splitter.split("d", "v", text)]
    assert got == ["A heading without a stop", "The body starts here.", "It ends here."]


def test_long_blocks_are_cut_without_losing_text() -> None:
    text = "word " * 10_000
    blocks = split_blocks(text)
    assert len(blocks) > 1
    assert "".join(text[s:e] for s, e in blocks).replace(" ", "") == text.replace(" ", "")


# -- passages of a long document (issue 35, item 2) ---------------------------------------------------


def _spans(splitter: SentenceSplitter, text: str, media_type: str = "text/markdown") -> list[tuple[int, int, str]]:
    return [(s.span.start, s.span.end, s.span.text) for s in splitter.split("d", "v", text, media_type)]


def test_headings_read_as_headings_and_rows_of_figures_do_not() -> None:
    for heading in ("Vacation", "Hotels and meals", "Our offices in 2025", "City Hotel per night Meals per day"):
        assert is_heading(heading), heading
    for line in (
        "Full-time employees get 25 days of paid vacation per year.",  # a sentence
        "London £180 £55",  # a table row: two figures
        "Tom Ashby: deploy is clean",  # a chat entry
        "Questions? Ask in #help,",  # ends a clause
        "2025-03-04",
        "We will find you.'",  # a sentence closed inside a quotation
        "Taser!\u2019",
        "ActionAid USA. --",  # an item of a list run together with dashes
        "**Date:** 10 March 2025",  # a field, not a title
        "Christoph of Hesse (Frankfurt, 14 May 1901 –",  # a line that runs on: its bracket is open
    ):
        assert not is_heading(line), line


def test_a_heading_that_names_a_date_is_a_heading_not_a_row_of_figures() -> None:
    # a date or a quarter is one value, however many numbers it is written with: these title a
    # meeting's minutes and a report's section, and are never quoted as what the document says
    for heading in (
        "Leadership team meeting, 15 January 2025",
        "Q4 2024 review",
        "Pay grades from 1 April 2025",
        "Meeting of March 3, 2025",
    ):
        assert is_heading(heading), heading
    for line in ("2 March 2025 and 4 April 2025", "Meeting on March 3, 2025 at 14:00", "London £180 £55"):  # still two values
        assert not is_heading(line), line


def test_a_sentence_spacy_ends_too_early_goes_on_and_a_line_break_still_ends_one(splitter: SentenceSplitter) -> None:
    # spaCy's parser ends these two after "Hell" and "torn open"; the small letter that follows on the
    # same line says the sentence goes on, so neither half is a unit (or a heading) of its own
    text = 'But did it sound killer? Hell yeah. Her leg was torn open and she bled out." She died in a minute.'
    got = [s.span.text for s in splitter.split("d", "v", text)]
    assert "Hell yeah." in got and 'Her leg was torn open and she bled out."' in got
    assert not any(is_heading(t) for t in got)
    doc = splitter.nlp("Opening hours\nmonday to friday, nine to five.")
    heading, line = doc[0:2], doc[3:]
    assert (heading.text, line.text[:6]) == ("Opening hours", "monday")
    assert not _runs_on(doc.text, heading, line)  # a line break ends a heading, whatever follows it
    assert _runs_on("Opening hours monday", heading, line)


def test_a_short_document_is_one_passage(splitter: SentenceSplitter) -> None:
    spans = _spans(splitter, "Larkspur is a project tracker. It is made by Quillon Labs in Tallinn. It was founded in 2015.")
    assert sections(spans) == ([0, 0, 0], [False, False, False])
    assert section_texts(spans) == ["Larkspur is a project tracker. It is made by Quillon Labs in Tallinn. It was founded in 2015."]


def test_a_handbook_is_cut_at_its_headings_and_each_passage_keeps_its_heading(splitter: SentenceSplitter) -> None:
    text = (
        "# Handbook\n\n## Vacation\n\nFull-time employees get 25 days of paid vacation per year. Unused days expire in March.\n\n"
        "## Sick leave\n\nYou can self-certify for up to five working days.\n\n- Tell your manager by 10:00.\n- Log it in Pebble.\n"
    )
    spans = _spans(splitter, text)
    owner, heading = sections(spans)
    by_text = {t: (o, h) for (_s, _e, t), o, h in zip(spans, owner, heading, strict=True)}
    # the two headings that open the document head one passage; the next heading after body text starts another
    assert by_text["Handbook"] == (0, True) and by_text["Vacation"] == (0, True)
    assert by_text["Unused days expire in March."] == (0, False)
    assert by_text["Sick leave"] == (1, True) and by_text["Log it in Pebble."][0] == 1
    texts = section_texts(spans)
    assert texts[1].startswith("Sick leave You can self-certify") and "Log it in Pebble." in texts[1]


def test_a_long_section_is_cut_near_the_size_the_embedder_reads_and_passages_under_a_heading_keep_it(splitter: SentenceSplitter) -> None:
    body = "\n\n".join(f"Paragraph {i} of the travel rules says that office {i} books its own trains and hotels." for i in range(30))
    spans = _spans(splitter, f"# Travel\n\n{body}\n")
    owner, _heading = sections(spans)
    texts = section_texts(spans)
    assert len(texts) == owner[-1] + 1 >= 3
    assert owner == sorted(owner)  # passages are runs of the document, in order
    assert all(len(t) <= SECTION_CHARS + 100 for t in texts)  # the heading repeated ahead of a later passage
    assert all(t.startswith("Travel ") for t in texts)


def test_a_chat_is_cut_into_conversations_at_its_time_stamps(splitter: SentenceSplitter) -> None:
    text = (
        "Time: 20260506_12:00\nLi Hua: Are we still on for Friday?\nWolfgang: Yes, 7pm at the usual place.\n"
        "Time: 20260507_09:00\nLi Hua: Did the parcel arrive?\nJennifer: It came this morning.\n"
    )
    spans = _spans(splitter, text, "text/plain")
    owner, heading = sections(spans)
    assert owner == [0, 0, 0, 1, 1, 1] and not any(heading)


def test_each_passage_of_a_cut_document_opens_with_the_documents_name(splitter: SentenceSplitter) -> None:
    """A chat window whose lines never name their subject ("Form closed: 54 people coming") is
    embedded with the name of the log it is part of; a document of one passage as it was."""
    lines = [f"[{d:02d}/04/2025, 09:{d:02d}] Declan Furlong: The coach for day {d} leaves the hotel at nine sharp." for d in range(1, 21)]
    lines.append("[14/05/2025, 21:07] Joana Ferreira: Form closed: 54 people coming, 3 can't make it")
    spans = _spans(splitter, "\n".join(lines) + "\n", "text/plain")
    assert sections(spans)[0][-1] >= 1  # cut into windows the embedder reads whole
    texts = section_texts(spans, "chat/whatsapp-porto-retreat-2025.txt")
    assert all(t.startswith("whatsapp porto retreat 2025: [") for t in texts)
    assert texts[-1].endswith("Joana Ferreira: Form closed: 54 people coming, 3 can't make it")
    # a name of figures only names nothing; a document of one passage is embedded as before
    assert section_texts(spans, "week3/20260121_1000.txt") == section_texts(spans)
    one = _spans(splitter, "Larkspur is a project tracker. It is made by Quillon Labs.")
    assert section_texts(one, "larkspur-overview.md") == ["Larkspur is a project tracker. It is made by Quillon Labs."]
    assert document_name("policies/Retention_Policy.v2.html") == "Retention Policy.v2"


def test_a_message_that_states_something_and_then_asks_is_no_question() -> None:
    """Only a span that asks and states nothing else is a question (its reply, not it, is the
    evidence); a chat message that offers something and closes with "What do you think?" states it."""
    for question in (
        "How long is customer data kept?",
        "AdamSmith: Hey Li Hua! Can you measure the window in the basement?",
        "Are you coming tonight? 😊",
        "Is it done? Did you check?",
    ):
        assert asks(question) and ends_asking(question), question
    for statement in (
        "HaileyJohnson: Hey! I offer a doorstep delivery service for fresh milk and bread. What do you think?",
        "Thrall: Nice work on the play area! 🌟 Maybe we could add a water feature? It could be fun for the kids! What do you all think?",
        "who's doing the Thursday dinner? the venue only does lunch",
        "We keep it for 30 days.",
    ):
        assert not asks(statement), statement
    assert ends_asking("Thrall: Nice work! Maybe a water feature? What do you all think? 🌟")
    assert not ends_asking("who's doing the Thursday dinner? the venue only does lunch")


def test_a_closing_emphasis_mark_does_not_open_the_next_sentence(splitter: SentenceSplitter) -> None:
    text = "**How long do we keep customer data?**\nWe keep it for 90 days. **Decision:** Porto in September."
    spans = [s.span.text for s in splitter.split("faq", "v", text, "text/markdown")]
    # the mark that closes the question is no part of the answer after it, nor is a mark left open
    assert spans == ["How long do we keep customer data?", "We keep it for 90 days.", "**Decision:** Porto in September."]


def test_a_section_number_stays_with_its_heading_and_a_release_heading_is_a_heading(splitter: SentenceSplitter) -> None:
    got = [
        s.span.text for s in splitter.split("d", "v", "Sessions expire after 8 hours.\n\n4. Devices\n\nLaptops are encrypted.", "text/html")
    ]
    assert got == ["Sessions expire after 8 hours.", "4. Devices", "Laptops are encrypted."]  # not "4." and "Devices"
    for heading in ("[5.0.0] - 2025-05-19", "v2.3 (2024-01-05)", "Version 4.2", "[Unreleased]"):
        assert is_heading(heading), heading
    for cell in ("3.5", "12.50"):  # a bare figure, as a table's cell gives it, is no heading
        assert not is_heading(cell), cell


def test_a_short_label_stays_with_what_it_labels_and_a_bold_label_line_is_its_own_unit(splitter: SentenceSplitter) -> None:
    timeline = "## Timeline\n\n- 4 March, 10:31: Rollback to 4.12.0 decided.\n- Owner: Sofia Almeida will own it.\n"
    assert [s.span.text for s in splitter.split("d", "v", timeline, "text/markdown")] == [
        "Timeline",
        "4 March, 10:31: Rollback to 4.12.0 decided.",  # not "4 March, 10:31:" and a sentence without its time
        "Owner: Sofia Almeida will own it.",
    ]
    header = "**Meeting:** Thursday 6 March 2025, video call\n**Facilitator:** Sofia Almeida\n**Attendees:** Tom Ashby, Mateus Costa\n"
    assert [s.span.text for s in splitter.split("d", "v", header, "text/markdown")] == [
        "**Meeting:** Thursday 6 March 2025, video call",
        "**Facilitator:** Sofia Almeida",
        "**Attendees:** Tom Ashby, Mateus Costa",
    ]


def test_a_task_list_box_is_left_out_like_a_list_marker(splitter: SentenceSplitter) -> None:
    text = "# Checklist\n\n- [ ] Order the laptop two weeks ahead.\n- [x] Lunch with the team.\n"
    assert [s.span.text for s in splitter.split("d", "v", text, "text/markdown")] == [
        "Checklist",
        "Order the laptop two weeks ahead.",
        "Lunch with the team.",
    ]


def test_the_pipeline_tokenizes_as_the_saved_model_does() -> None:
    """load_spacy keeps the tokenizer English's defaults build instead of reading the model's from disk
    again (0.15 s of the load): that is only right while the two are the same."""
    import spacy

    saved = spacy.load(SPACY_MODEL).tokenizer.to_bytes(exclude=["vocab"])
    assert load_spacy().tokenizer.to_bytes(exclude=["vocab"]) == saved


def _fresh(code: str) -> str:
    """``code`` run by a fresh interpreter (spaCy not yet imported there); its standard output."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_pipeline_loads_without_spacys_command_line_which_still_works_after() -> None:
    """citegraph/spacy_import.py: spaCy's commands (typer, requests, weasel) are not imported to parse
    a question, and are all there when something asks for them afterwards."""
    before = _fresh(
        "import sys\n"
        "from citegraph.sentences import load_spacy, parsed\n"
        "doc = parsed(['Who leads the Platform team?'])[0]\n"
        "print(len(doc), sorted(m for m in ('spacy.cli', 'typer', 'requests', 'weasel') if m in sys.modules))"
    )
    assert before == "6 []"
    after = _fresh(
        "from citegraph.sentences import load_spacy\n"
        "load_spacy()\n"
        "import spacy, spacy.cli\n"
        "print(callable(spacy.cli.download), spacy.info()['spacy_version'] == spacy.__version__, spacy.info.__module__)"
    )
    assert after == "True True spacy.cli.info"


def test_spacy_imported_first_elsewhere_is_used_as_it_is() -> None:
    out = _fresh("import spacy\nfrom citegraph.spacy_import import import_spacy\nprint(import_spacy() is spacy, hasattr(spacy, 'cli'))")
    assert out == "True True"


def test_a_kept_parse_holds_its_own_word_vectors_not_its_batchs() -> None:
    """spaCy leaves each parse's ``tensor`` a view of its whole batch's array: kept, one short
    sentence held the batch (about 96 KB instead of 7). The kept parse owns a copy of its rows."""
    from citegraph.sentences import parsed

    texts = [f"Room {n} on the second floor seats {n + 4} people and has a screen." for n in range(12)]
    docs = parsed(texts)
    for doc in docs:
        assert doc.tensor.base is None and doc.tensor.shape[0] == len(doc)
    assert parsed(texts[:1])[0] is docs[0]  # kept, and given again


def test_texts_parsed_ahead_are_given_back_as_kept_and_bounded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from citegraph import sentences

    monkeypatch.setattr(sentences, "_ahead", {})
    monkeypatch.setattr(sentences, "PARSED_AHEAD", 3)
    texts = [f"The Kestrel Room seats {n} people." for n in range(5)]
    assert sentences.parse_ahead(texts, chunk=2) == 3  # no more than the bound
    assert sentences.parse_ahead(texts) == 0  # full: nothing more
    kept = sentences._ahead[(texts[0], True)]
    assert sentences.parsed([texts[0]])[0] is kept
    assert sentences.parsed([texts[1]], dependencies=False)[0] is sentences._ahead[(texts[1], True)]  # a full parse serves both
    assert [t.dep_ for t in kept] and kept.tensor.base is None
    # after a write: what the store no longer holds goes, and leaves room for what it now holds
    assert sentences.forget_ahead({texts[0], texts[3]}) == 2
    assert set(sentences._ahead) == {(texts[0], True)}
    assert sentences.parse_ahead(texts[3:]) == 2


def test_what_a_chat_app_writes_in_place_of_a_message_is_no_evidence() -> None:
    from citegraph.sentences import evidence_words

    for line in (
        "[12/03/2025, 18:55] Joana Ferreira: Messages and calls are end-to-end encrypted. No one outside of this chat can read them.",
        "[01/03/2025, 09:00] Messages and calls are end-to-end encrypted. Only people in this chat can read them.",
        "[12/03/2025, 18:56] Joana Ferreira: <Media omitted>",
        "12/03/2025, 18:57 - Joana Ferreira: This message was deleted",
        "[12/03/2025, 18:58] Joana Ferreira: IMG-20250312-WA0001.jpg (file attached)",
        "[12/03/2025, 18:59] Joana Ferreira: <attached: 00000012-PHOTO-2025-03-12.jpg>",
    ):
        assert evidence_words(line) == 0, line
    assert evidence_words("[12/03/2025, 19:02] Declan Furlong: The venue holds 60 people.") > 0
    assert evidence_words("[02/04/2025, 14:09] Sam Whitfield added Bilal Hussain") > 0  # who joined when: kept
    assert evidence_words("Messages and calls are end-to-end encrypted in the Tidepool app.") > 0  # a document's sentence
