"""Questions about one whole document, or one section of it: "Summarize the information security
policy.", "Give me an overview of the travel guide.", "What's new in Tidepool 5.0?", "What does the
onboarding checklist say about laptops?".

Ranking sentences by their likeness to such a question finds the sentences that name the document
(its title, "This policy sets out…"), not what it says. Here the question is recognised by its form
(:func:`summary_request`), the document or section it names is found by its name (:func:`find_target`:
its file name, its title, a section's heading), and the evidence is read off its structure
(:func:`summary_evidence`): one sentence per section (in a chat log, per conversation), its first
(where a policy, a list or a note states its point: the lead), sections in document order, at most :data:`SUMMARY_SECTIONS`. A
lead that states nothing specific ("We keep data only as long as we need it.": no figure, obligation or
prohibition, :func:`specific`) brings the section's first sentence that does ("Customer data is deleted
30 days after cancellation."): on the development corpora's eight dev summary questions the mean share
of required points quoted went from 0.500 to 0.575, the points quoted from 81 to 99
(docs/results/2026-12-05/summary-details/). A document
of fewer sections gives each section up to :data:`PER_SECTION` sentences, the lead and then those
nearest the section's centroid (the sentences most like the section as a whole, MEAD's centroid
choice, Radev et al. 2004). Lead first was chosen on the development corpora's eight dev summary
questions: the mean share of their required points quoted went from 0.381 (centroid first) to 0.525.
An article (a document of one section that is no chat log or transcript) is read by a trained scorer
instead (:func:`article_order`): a logistic model over each sentence's place, length, likeness to the
article's centroid and to its first sentence, and its vector, fitted to the sentences a greedy
ROUGE-L oracle picks against human summaries of news (``bench/train_summary.py``, SummaRuNNer's
labels; :mod:`citegraph.retrieve.articles`): "its lead, then the sentences most like its centroid,
an earlier one a little ahead" stayed under the lead-3 baseline on news (ROUGE-L -0.0037 on 300 test
articles, docs/results/2026-12-06/news-300/).
A line of the document's record-keeping ("Version 3.0 · Owner: …", "Last reviewed …", a bare date
range: :func:`front_matter`) is never a point; choosing each section's first sentence with a figure
or an obligation instead of its lead was tried and not kept (dev 0.469 -> 0.463). With "about Y", the named document's sentences nearest the question
are taken instead, in document order. Asked what was decided ("What did the Board decide at …?", "What
did the leadership team decide on 15 January?", "What was agreed in …?"), a section that records
decisions (a sentence saying something was decided, agreed or approved, one written after a
"Decision:" label, the items under a "Decisions:" label line, and before a bare "The Board agreed."
the sentence it agrees to: :func:`decided`) is quoted by those, up to :data:`DECISIONS_PER_SECTION`,
instead of by its lead.

A question whose form matches but whose named document is not found confidently (:data:`NAMED_AT`)
is ranked as any other question: nothing is summarised from a guess.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from weakref import WeakKeyDictionary

import numpy as np

from citegraph.models import Evidence
from citegraph.retrieve.articles import article_order
from citegraph.retrieve.names import title_key
from citegraph.retrieve.view import GraphView
from citegraph.sentences import asks, evidence_words, is_heading, is_line_document
from citegraph.verify.assertion import instruction_frame

__all__ = [
    "DECISIONS_PER_SECTION",
    "NAMED_AT",
    "PER_SECTION",
    "SUMMARY_SECTIONS",
    "Request",
    "Target",
    "decided",
    "find_target",
    "specific",
    "summary_evidence",
    "summary_request",
]

SUMMARY_SECTIONS = 20  #: the most sections one summary quotes (those nearest the document's centroid, when it has more)
DECISIONS_PER_SECTION = 8  #: asked what was decided, the most decisions quoted from one section
PER_SECTION = 3  #: the most sentences of one section, when the document has fewer sections than :data:`SUMMARY_SECTIONS`
#: the share of the named phrase's words a document's or section's name must hold (a word only its body holds counts half)
NAMED_AT = 0.6
MIN_WORDS = 3  #: a sentence of fewer words (a list number, "Next review: 2026") is not quoted as a section's gist

_ASKS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"^(?:can you |could you |please )*(?:summari[sz]e|sum up|recap|outline|digest)\s+(?P<target>.+)$",
        r"^(?:can you |could you |please )*(?:give|show|write|get)(?: me| us)? (?:an? |the )?(?:short |brief |quick )?"
        r"(?:overview|summary|rundown|recap|outline|gist|digest|tl;?dr|(?:main|key) points|highlights) (?:of|from|for|in) (?P<target>.+)$",
        r"^(?:an? |the )?(?:short |brief |quick )?(?:overview|summary|rundown|recap|gist|tl;?dr|(?:main|key) points|highlights)"
        r" (?:of|from|for|in) (?P<target>.+)$",
        r"^(?:i(?:'d| would) like|i want|i need)(?: to (?:see|get|have|read))? (?:an? |the )?(?:short |brief |quick )?"
        r"(?:overview|summary|rundown|recap|gist|tl;?dr|(?:main|key) points|highlights) (?:of|from|for|in) (?P<target>.+)$",
        # the same asked inside a request ("Can you tell me what the checklist covers?", read as "what the checklist covers")
        r"^what (?P<target>.+?) (?:covers|contains|includes|describes|sets out|says)(?: about (?P<about>.+))?$",
        r"^what (?:are|were) the (?:main|key) (?:points|changes|decisions|takeaways|outcomes) (?:of|from|in) (?P<target>.+)$",
        r"^what (?:does|do|did) (?P<target>.+?) (?:cover|contain|include|describe|set out|say|conclude)(?: about (?P<about>.+))?$",
        r"^what(?:'s|’s| is| are| was)? (?:new|changed) in (?P<target>.+)$",
        r"^what (?:came|comes|come) out of (?P<target>.+)$",
        r"^what (?:was|were) (?:decided|agreed|concluded) (?:at|in|during) (?P<target>.+)$",
        r"^what did (?P<who>.+?) (?:decide|agree|conclude)(?: on)? (?:at|in|during|on) (?P<target>.+)$",
    )
)

_STOP = frozenset(
    "a an the of our my your its their his her this that these those for in on at to and or about from with by "
    "document doc file page please me us we you it whole entire all".split()
)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december")
_TOKEN = re.compile(r"\d+(?:[./]\d+)+|[^\W_]+")
_DATE = re.compile(r"\b(\d{4})-(\d{2})(?:-\d{2})?\b")


@dataclass(frozen=True)
class Request:
    """A question about a whole document or section: the phrase that names it, and what about it."""

    target: str
    about: str = ""
    decisions: bool = False  #: what was decided or agreed in it ("What did the Board decide at …?"), not all it says


@dataclass(frozen=True)
class Target:
    """What a summary question named: one version's passages, all of it or one section."""

    document: str
    version: str
    passages: tuple[int, ...]  #: the view's passages, in document order
    name: str  #: the document id, or "the section 'HEADING' of DOCUMENT"
    score: float  #: the share of the phrase's words its name holds (:data:`NAMED_AT`)


#: a document's own record-keeping, not what it says: "Version 3.0 · Owner: …", "Last reviewed 20 March 2025", "**Attendees:** …"
_FRONT_MATTER = re.compile(
    r"^[*_#\s]*(?:version\b|owner\b|author\b|approved by\b|last (?:reviewed|updated|modified)\b|next review\b|"
    r"(?:date|attendees|present|in attendance|apologies|chair|minutes by)\s*[:*]|effective (?:from |on )?\d|questions\s*:|contact\s*:)",
    re.IGNORECASE,
)
_DATE_WORDS = re.compile(r"\d+(?:[./-]\d+)*|\b(?:" + "|".join(_MONTHS) + r"|to|from|until|and|-|–)\b", re.IGNORECASE)


#: what makes a sentence state something specific: a figure, or an obligation or prohibition
_SPECIFIC = re.compile(
    r"\d|\b(?:must|mandatory|required|requires|never|always|at least|at most|no later than|within|not allowed|prohibited|forbidden)\b",
    re.IGNORECASE,
)


def specific(text: str) -> bool:
    """A sentence that states a figure, an obligation or a prohibition ("Laptops must use full-disk
    encryption.", "Deleted 30 days after cancellation"), not only a topic ("We keep data only as long
    as we need it.", "Every person has their own named accounts.")."""
    return _SPECIFIC.search(text) is not None


def quotable_text(text: str) -> bool:
    """A sentence a summary may quote, read from its text alone (the view adds that it is no heading):
    no question, no instruction to the reader, no front matter, :data:`MIN_WORDS` words or more."""
    return (
        not asks(text)
        and not is_heading(text)
        and evidence_words(text) >= MIN_WORDS
        and instruction_frame(text) is None
        and not front_matter(text)
    )


def front_matter(text: str) -> bool:
    """A line of the document's record-keeping (its version, owner, review date, attendees) or a bare
    date range ("1 April 2024 to 31 March 2025"): not a point of what it says."""
    return _FRONT_MATTER.match(text) is not None or len(_TOKEN.findall(_DATE_WORDS.sub(" ", text))) == 0


#: a question asking what was decided: "What did the Board decide at …", "What was agreed in …", "the key decisions of …"
_DECIDING = re.compile(r"\b(?:decid|decision|agree|resol)", re.IGNORECASE)
#: a sentence that records a decision, and a label over a list of them ("**Decisions:**")
_DECIDED = re.compile(
    r"\b(?:decided|agreed|approved|resolved|adopted|voted|endorsed)\b|^[*_\s-]*(?:decisions?|resolutions?)\s*[:*]+\s*\w", re.IGNORECASE
)
_DECISIONS_LABEL = re.compile(r"^\W*(?:decisions?|resolutions?|agreed|outcomes?)\W*$", re.IGNORECASE)
#: a decision this short says only that one was made ("The Board agreed."): the sentence before it says what
_BARE_DECISION_WORDS = 5


def decided(spans: Sequence[int], texts: Sequence[str], heading: Sequence[bool] | np.ndarray) -> set[int]:
    """The spans (of one document version, in order) that record a decision: a sentence saying that
    something was decided, agreed or approved, each item under a "Decisions:" label (until the next
    heading), and before a bare "The Board agreed." the sentence it agrees to."""
    out: set[int] = set()
    listed = False
    for k, s in enumerate(spans):
        text = texts[s]
        if heading[s]:
            listed = False
        if _DECISIONS_LABEL.match(text):
            listed = True
            continue
        if listed or _DECIDED.search(text):
            out.add(s)
            if k and len(text.split()) <= _BARE_DECISION_WORDS and not heading[spans[k - 1]]:
                out.add(spans[k - 1])
    return out


_POLITE_END = re.compile(r",?\s+(?:please|thanks|thank you)$", re.IGNORECASE)  #: "… of the security policy please"


def summary_request(question: str) -> Request | None:
    """The document a summary question names (its phrase as written), or None for any other question."""
    text = _POLITE_END.sub("", " ".join(question.strip().rstrip("?.!").split()))
    for pattern in _ASKS:
        m = pattern.match(text)
        if m is None:
            continue
        target = m.group("target")
        who = m.groupdict().get("who")
        if who:
            target = f"{who} {target}"
        about = m.groupdict().get("about") or ""
        if _words(target):
            return Request(target.strip(), about.strip(), _DECIDING.search(text[: m.start("target")]) is not None)
    return None


def _stem(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _words(text: str) -> list[str]:
    """Content words, loosely matched (case and accents ignored, a plural as its singular), each
    ISO month of a date ("2025-03-06") also as its month's name."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    loose = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    words = [_stem(w) for w in _TOKEN.findall(loose) if w not in _STOP]
    for _year, month in _DATE.findall(text):
        if 1 <= int(month) <= 12:
            words.append(_MONTHS[int(month) - 1])
    return list(dict.fromkeys(words))


def _matches(word: str, names: Collection[str]) -> bool:
    """A word is in a name as itself, or as a version a version number begins ("5.0" in "5.0.0")."""
    return word in names or (any(ch.isdigit() for ch in word) and any(n.startswith(word + ".") for n in names))


@dataclass
class _Names:
    """What :func:`find_target` reads of every document version of a view, read once per view (it
    was read again for each summary question: at 100,000 sentences, seconds a question)."""

    passages: dict[int, list[int]]  #: version -> its passages, in order
    bodies: dict[int, set[str]]  #: version -> the words of its name and of all its text
    titles: dict[int, set[str]]  #: version -> the words of its name and of its first passage's headings
    heads: dict[int, list[list[int]]]  #: version -> per passage, its heading spans
    head_words: dict[int, list[set[str]]]  #: version -> per passage, the words of its headings
    index: dict[str, list[int]]  #: word -> the versions whose body holds it


_NAMES: WeakKeyDictionary[GraphView, _Names] = WeakKeyDictionary()
_names_lock = threading.Lock()


def _names_of(view: GraphView) -> _Names:
    with _names_lock:
        found = _NAMES.get(view)
    if found is not None:
        return found
    c = view.columns
    texts = c.span_text
    passages: dict[int, list[int]] = {}
    for d, v in enumerate(view.section_version.tolist()):
        passages.setdefault(v, []).append(d)
    bodies, titles, heads, head_words = {}, {}, {}, {}
    index: dict[str, list[int]] = {}
    for v, ds in passages.items():
        document = c.passages[v][0]
        named = set(_words(title_key(document) + " " + document))
        body = set(named)
        for d in ds:
            for sp in view.spans_in(d).tolist():
                body.update(_words(texts[sp]))
        heads[v] = [[sp for sp in view.spans_in(d).tolist() if view.heading[sp]] for d in ds]
        head_words[v] = [{w for sp in head for w in _words(texts[sp])} for head in heads[v]]
        titles[v] = named | head_words[v][0]
        bodies[v] = body
        for w in body:
            index.setdefault(w, []).append(v)
    made = _Names(passages, bodies, titles, heads, head_words, index)
    with _names_lock:
        _NAMES[view] = made
    return made


def find_target(
    view: GraphView,
    request: Request,
    *,
    allowed: Callable[[str, str], bool] = lambda d, v: True,
    heading_level: Callable[[int], int | None] = lambda span: None,
) -> Target | None:
    """The visible document version, or section of one, whose name holds most of the request's words:
    a document is named by its id (file name, a date in it as its month) and the headings of its first
    passage (its title); a section by those and its own heading. A word only the document's body holds
    counts half (the product every document is about: "Tidepool 5.0"), and each word weighs by its
    rarity among the visible documents (log(1 + N / df), df counting the documents whose text holds
    it), so "5.0" outweighs "Tidepool". None below :data:`NAMED_AT`. A section is named only where its
    document's own name is not (the heading "Date of next meeting" does not take "the Board's January
    meeting" from the minutes it is in), and one candidate replaces another only at a higher score.
    ``heading_level(span)`` is a heading's level where the document's markup gives one (Markdown's
    ``#``): a section then runs over its subsections. ``allowed(document, version)``: the versions that may be named (the day asked)."""
    asked = _words(request.target)
    if not asked:
        return None
    c = view.columns
    texts = c.span_text
    names = _names_of(view)
    versions = {v: passages for v, passages in names.passages.items() if allowed(*c.passages[v])}
    bodies = names.bodies

    def holding(word: str) -> Collection[int]:
        """The allowed versions whose text holds ``word`` (a version number also as the start of a longer one)."""
        if any(ch.isdigit() for ch in word):
            return [v for v in versions if _matches(word, bodies[v])]
        return [v for v in names.index.get(word, ()) if v in versions]

    held = {w: holding(w) for w in asked}
    # a word many documents hold names none of them (the product every page is about): weighed by its rarity
    weight = {w: math.log(1.0 + len(versions) / max(1, len(held[w]))) for w in asked}
    total = sum(weight.values())
    # a version holding none of the words scores 0 and is never named: only the others are read
    candidates = sorted({v for vs in held.values() for v in vs})
    best: Target | None = None
    best_key = (NAMED_AT, 0)
    for v in candidates:
        passages = versions[v]
        document, version = c.passages[v]
        heads = names.heads[v]
        title = names.titles[v]

        def score(named: set[str], body: set[str] = bodies[v]) -> float:
            return sum(weight[w] * (1.0 if _matches(w, named) else 0.5 if _matches(w, body) else 0.0) for w in asked) / total

        whole = score(title)
        if (whole, 1) > best_key:  # a whole document over one of its sections at the same score
            best, best_key = Target(document, version, tuple(passages), document, whole), (whole, 1)
        for i, head in enumerate(heads):
            if not head or i == 0 or whole >= NAMED_AT:  # a document its own name names is summarised whole
                continue
            named = score(title | names.head_words[v][i])
            if named > whole and (named, 0) > best_key:
                best, best_key = (
                    Target(
                        document, version, _section(view, passages, heads, i, heading_level), _section_name(texts, head, document), named
                    ),
                    (named, 0),
                )
    return best


def _section_name(texts: Sequence[str], head: Sequence[int], document: str) -> str:
    return f"the section '{' '.join(texts[s] for s in head)}' of {document}"


def _section(
    view: GraphView, passages: Sequence[int], heads: Sequence[Sequence[int]], i: int, heading_level: Callable[[int], int | None]
) -> tuple[int, ...]:
    """Passage ``i`` and those after it up to the next heading of its level or above (when the markup
    gives levels), or up to the next heading (when it does not)."""
    level = heading_level(heads[i][0])
    out = [passages[i]]
    for j in range(i + 1, len(passages)):
        if heads[j]:
            deeper = level is not None and (lv := heading_level(heads[j][0])) is not None and lv > level
            if not deeper:
                break
        out.append(passages[j])
    return tuple(out)


def summary_evidence(
    view: GraphView, target: Target, request: Request, question_vector: np.ndarray, limit: int = SUMMARY_SECTIONS, embedder: str = ""
) -> list[Evidence]:
    """The target's sentences a summary quotes, in document order (see the module's docstring).
    ``embedder``: the name of the embedder that made the view's vectors (an article is read by the
    trained scorer only where it is the one the scorer was fitted on)."""
    rank = view.span_rank
    vectors = view.span_vectors
    texts = view.columns.span_text

    def quotable(s: int) -> bool:
        return (
            not view.heading[s]
            and not view.asks(s)
            and int(view.word_counts[s]) >= MIN_WORDS
            and instruction_frame(texts[s]) is None
            and not front_matter(texts[s])
        )

    # sections: a passage with a heading and the passages that continue it; in a chat log or a
    # transcript, each passage (a conversation, or a window of its lines) is one
    passages = [sorted(view.spans_in(d).tolist(), key=rank.__getitem__) for d in target.passages]
    log = is_line_document("\n".join(texts[s] for spans in passages[:3] for s in spans[:20]))
    sections: list[list[int]] = []
    for spans in passages:
        if not sections or log or any(view.heading[s] for s in spans):
            sections.append([])
        sections[-1].extend(s for s in spans if quotable(s))
    sections = [s for s in sections if s]
    if not sections:
        return []
    every = np.concatenate(sections)
    sims = vectors[every] @ np.asarray(question_vector, dtype=np.float32)
    similarity = dict(zip(every.tolist(), sims.tolist(), strict=True))
    if request.about:
        chosen = sorted(similarity, key=lambda s: (-similarity[s], rank[s]))[:limit]
    else:
        centroids = [vectors[spans].mean(axis=0) for spans in sections]
        ranked = []  # per section, its lead, then its sentences nearest its centroid
        details: set[int] = set()
        # asked what was decided: a section that records decisions is quoted by them (in order), not by its lead
        agreed = decided([s for spans in passages for s in spans], texts, view.heading) if request.decisions else set()
        takes: list[int] = []
        lead_first = len(sections) == 1 and not log  # a text of one section that is no log: an article, written lead first
        for spans, centroid in zip(sections, centroids, strict=True):
            ours = [s for s in spans if s in agreed][:DECISIONS_PER_SECTION]
            if ours:
                ranked.append([*ours, *(s for s in spans if s not in ours)])
                takes.append(len(ours))
                continue
            takes.append(0)
            order = article_order([texts[s] for s in spans], vectors[spans], embedder) if lead_first else None
            if order is not None:  # an article: its sentences in the order the trained scorer puts them
                ranked.append([spans[j] for j in order])
                continue
            near = vectors[spans] @ centroid
            rest = sorted(range(1, len(spans)), key=lambda j: (-near[j], rank[spans[j]]))
            if not (log or lead_first or specific(texts[spans[0]])):
                # a lead that only names its topic is followed by the section's first sentence that says something specific
                detail = next((j for j in range(1, len(spans)) if specific(texts[spans[j]])), None)
                if detail is not None:
                    rest.remove(detail)
                    rest.insert(0, detail)
                    details.add(spans[detail])
            ranked.append([spans[0], *(spans[j] for j in rest)])
        if len(ranked) > limit:  # the sections most like the whole document
            whole = vectors[every].mean(axis=0)
            keep = sorted(range(len(ranked)), key=lambda k: -float(centroids[k] @ whole))[:limit]
            ranked = [ranked[k] for k in sorted(keep)]
            takes = [takes[k] for k in sorted(keep)]
        per = 1 if log else max(1, min(PER_SECTION, limit // len(ranked)))  # a log: one line per conversation
        chosen = [
            s
            for spans, take in zip(ranked, takes, strict=True)
            for s in spans[: take or max(per, 2 if len(spans) > 1 and spans[1] in details else 1)]
        ]
    chosen.sort(key=rank.__getitem__)
    n = len(chosen)
    return [
        Evidence(view.span(s), score=1.0 - i / (n + 1), similarity=float(similarity[s]), found_by="summary") for i, s in enumerate(chosen)
    ]
