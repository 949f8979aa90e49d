"""Sentences carry exact offsets: text[start:end] == sentence, for any text."""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citegraph.sentences import SentenceSplitter, split_blocks

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
