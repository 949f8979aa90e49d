"""The records that flow between pipeline stages.

Every stage takes and returns these frozen dataclasses; nothing in the core passes dicts around.
Two ideas run through all of them:

* A :class:`Span` is the unit of provenance: ``(document, version, start, end)`` in characters
  (Python ``str`` indices, i.e. Unicode code points) into the stored document text, half-open, with
  ``text[start:end] == span.text``. Entities and relations keep *every* span that supports them.
* The *route* that found a piece of evidence (a path through the graph) is kept apart from the
  *span* that supports a claim. A :class:`Citation` carries both, and only the span can support.

Why this file is long: it holds every record the stages pass to one another (and nothing else but
:func:`context_of`, the one rule on them that the answer and retrieval layers share): a newcomer reads
the shapes of the whole pipeline in one place, and each stage's module imports them from below.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

__all__ = [
    "ANSWER_TERMS",
    "CLAIM_TERMS",
    "OPENER",
    "SUBJECT",
    "Answer",
    "AnswerStatus",
    "AnswerWarning",
    "Answerability",
    "Citation",
    "Claim",
    "ClaimStatus",
    "CommunityReport",
    "ContextItem",
    "Document",
    "DocumentReport",
    "DocumentStatus",
    "Entity",
    "EntityMention",
    "Evidence",
    "ExtractedEntity",
    "ExtractedRelation",
    "Extraction",
    "Hop",
    "IngestReport",
    "Lead",
    "Located",
    "ReachedNode",
    "Rejection",
    "Relation",
    "Retrieval",
    "Span",
    "Stage",
    "Support",
    "Term",
    "Verdict",
    "context_of",
]


class DocumentStatus(StrEnum):
    """Outcome of ingesting one document (``citegraph ingest --json``)."""

    OK = "ok"  #: stored, something was extracted
    EMPTY = "empty"  #: stored; the extractor ran and found nothing (a result, not an error)
    FAILED = "failed"  #: nothing stored for this document; ``reason`` says why
    PARTIAL = "partial"  #: stored, but some records were rejected or failed
    UNCHANGED = "unchanged"  #: identical content already stored: a no-op
    SKIPPED = "skipped"  #: not a document citegraph reads (unsupported type)


class ClaimStatus(StrEnum):
    SUPPORTED = "supported"
    UNSUPPORTED = "unsupported"
    CONTRADICTED = "contradicted"
    UNCITED = "uncited"
    UNVERIFIED = "unverified"
    INVALID_MARKER = "invalid_marker"
    #: a question quoted word for word from what it cites (in a chat, how a proposal is made: "How about
    #: Thursday at 3?"): it states nothing, so there is nothing to check, and no answer's status counts it
    ASKED = "asked"


class Verdict(StrEnum):
    """A verifier's label for one citation (``Support.label``)."""

    SUPPORTED = "supported"  #: the cited text entails the claim
    NOT_SUPPORTED = "not_supported"  #: it does not (or is about something else)
    CONTRADICTED = "contradicted"  #: it states the opposite, or another value for the same thing
    UNVERIFIED = "unverified"  #: nothing could settle it (no model, a model that failed)


class Stage(StrEnum):
    """The check that decided a verdict (``Support.stage``), in the order they run."""

    GUARDS = "guards"  #: a proven conflict (another number, date or polarity for the same thing)
    QUOTE = "quote"  #: a near-quote of a sentence that asserts it
    CHECKER = "checker"  #: citegraph's trained cross-encoder (supported, contradicted, neither)
    SCREEN = "screen"  #: the small classifier, sure enough to settle it
    JUDGE = "judge"  #: a language model
    NONE = "none"  #: nothing settled it


class AnswerStatus(StrEnum):
    VERIFIED = "verified"  #: every claim supported, and no two claims conflict
    QUOTED = "quoted"  #: verified, but every claim is a quote of the sentence it cites: the sources' words, chosen, not an answer written and checked
    #: every claim is supported by what it cites, but nothing shows the answer addresses the question
    #: (the relevance check does not find it addressed, and the reader found no answer in a cited
    #: sentence): related evidence, not an answer; or a summary (``Retrieval.summary``), whose quotes are
    #: exact but whose choice as the document's gist is not checked; shown in grey, never as checked
    RELATED = "related"
    CONFLICTING = "conflicting"  #: would be verified or cited, but two claims state different values (warning ``conflict``)
    CITED = "cited"
    PARTIALLY_SUPPORTED = "partially_supported"
    UNSUPPORTED = "unsupported"
    NO_EVIDENCE = "no_evidence"
    NOT_FOUND = "not_found"  #: evidence was found, but it does not answer the question: shown as context only, never as claims


@dataclass(frozen=True)
class Term:
    """How a status reads to a person: a short ``label``, a ``tone`` (``good``: shown as checked;
    ``caution``; ``bad``; ``muted``: grey, evidence rather than an answer) and what it ``means``.
    The one vocabulary: the terminal, the Markdown, the chat endpoint, MCP and the page (``GET
    /vocabulary``) all read it from here."""

    label: str
    tone: str
    means: str


#: an answer's status in words (the code stays in the JSON); only ``good`` reads as checked
ANSWER_TERMS: dict[AnswerStatus, Term] = {
    AnswerStatus.VERIFIED: Term("Checked", "good", "Every claim is supported by the sentence it cites."),
    AnswerStatus.QUOTED: Term(
        "Quoted", "good", "Every claim quotes the sentence it cites: support is exact; which sentences were chosen is retrieval's."
    ),
    AnswerStatus.RELATED: Term(
        "Related, not an answer",
        "muted",
        "The cited sentences support the claims, but nothing shows they answer the question (or, for a summary, that "
        "they sum the document up): related evidence, not a checked answer.",
    ),
    AnswerStatus.CONFLICTING: Term(
        "Sources disagree", "bad", "The sources disagree (in the answer or in the evidence it was given): see the warnings."
    ),
    AnswerStatus.CITED: Term("Not checked", "caution", "Every claim cites a sentence, but nothing checked the support."),
    AnswerStatus.PARTIALLY_SUPPORTED: Term("Partly supported", "caution", "Some claims are supported by what they cite, some are not."),
    AnswerStatus.UNSUPPORTED: Term("Not supported", "bad", "No claim is supported by what it cites: do not rely on this answer."),
    AnswerStatus.NO_EVIDENCE: Term("Nothing found", "caution", "Nothing you may read matches the question."),
    AnswerStatus.NOT_FOUND: Term(
        "Not in your documents",
        "caution",
        "The documents visible to you do not answer this question; the nearest evidence is shown as context, not as an answer.",
    ),
}
#: a claim's status and a citation's verdict in words (one table: the page shows both the same way)
CLAIM_TERMS: dict[str, Term] = {
    "supported": Term("supported", "good", "The cited sentence entails the claim."),
    "not_supported": Term("not supported", "bad", "The cited sentence does not entail the claim."),
    "unsupported": Term("not supported", "bad", "The cited sentence does not entail the claim."),
    "contradicted": Term("contradicted", "bad", "The cited sentence states the opposite, or another value for the same thing."),
    "unverified": Term("not checked", "caution", "Nothing could settle the support (no model, or a model that failed)."),
    "uncited": Term("no citation", "caution", "The claim cites no sentence."),
    "invalid_marker": Term("cites nothing", "bad", "The claim's marker points at no context sentence."),
    "asked": Term(
        "asked, not stated",
        "muted",
        "A question quoted word for word from the message it cites (in a chat, how a proposal is made): it states "
        "nothing, so there is nothing to check.",
    ),
}


@dataclass(frozen=True)
class Document:
    """One version of one document, as stored."""

    id: str  #: stable id: path relative to the ingest root, or ``--id``
    version: str  #: content hash (sha256 prefix) of ``text``
    text: str  #: the stored text every span indexes into
    source: str  #: where it was read from
    access: tuple[str, ...] = ("public",)  #: access labels, sorted
    label: str | None = None  #: optional human version label (``--version``)
    ingested_at: str = ""  #: ISO-8601 UTC
    current: bool = True  #: False once a newer version of the same id is stored
    media_type: str = "text/plain"
    dated: str | None = None  #: the date the document gives itself (ISO 8601 day): front matter, HTML meta, PDF, ``--date``
    supersedes: tuple[str, ...] = ()  #: ids of documents this one replaces (front matter ``supersedes:``), marked at its write
    superseded_by: str | None = None  #: the document that replaces this one, as stored (read only)


@dataclass(frozen=True, order=True)
class Span:
    """Half-open character range of one document version, with the text it covers."""

    document: str
    version: str
    start: int
    end: int
    text: str
    #: why the document's structure does not assert this text ("a code block", "struck through",
    #: "under the heading 'Debunked claims'"...), read at ingest; "" for an asserted sentence. Not part
    #: of a span's identity: the same range is the same span wherever it was read from.
    frame: str = field(default="", compare=False)

    @property
    def where(self) -> str:
        """``document@version:start-end`` (the version's first 8 characters): how a span is named."""
        return f"{self.document}@{self.version[:8]}:{self.start}-{self.end}"

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end:
            raise ValueError(f"span offsets must satisfy 0 <= start < end, got {self.start}, {self.end}")
        if len(self.text) != self.end - self.start:
            raise ValueError("span text length does not match its offsets")


@dataclass(frozen=True)
class ExtractedEntity:
    """An entity an extractor found in one sentence."""

    name: str  #: surface form as written
    key: str  #: normalised key (lemma, case-folded) that merges mentions into one entity
    type: str  #: NER label or ``CONCEPT`` for noun chunks
    sentence: Span  #: the sentence the program sent to the extractor: the provenance
    start: int | None = None  #: mention offsets in the document, when the extractor knows them
    end: int | None = None
    description: str = ""


@dataclass(frozen=True)
class ExtractedRelation:
    source_key: str
    target_key: str
    type: str
    sentence: Span
    source_name: str = ""
    target_name: str = ""
    description: str = ""


@dataclass(frozen=True)
class Rejection:
    """A record that was not stored, and why. Reported, never dropped silently."""

    kind: str  #: ``entity`` | ``relation`` | ``record`` | ``document``
    reason: str  #: machine-readable code, e.g. ``sentence_not_in_document``
    detail: str = ""  #: human-readable explanation
    record: str = ""  #: the offending record, as text


@dataclass(frozen=True)
class Extraction:
    """What one extractor produced for one document."""

    extractor: str
    entities: tuple[ExtractedEntity, ...] = ()
    relations: tuple[ExtractedRelation, ...] = ()
    extra_spans: tuple[Span, ...] = ()  #: spans that are not sentences of the splitter (imported)
    rejected: tuple[Rejection, ...] = ()


@dataclass(frozen=True)
class EntityMention:
    """One span that supports an entity."""

    span: Span
    surface: str
    type: str
    current: bool
    inferred: bool = False  #: created as the endpoint of a relation, not extracted itself
    extractor: str = ""
    description: str = ""


@dataclass(frozen=True)
class Entity:
    key: str
    name: str  #: most frequent visible surface form
    type: str
    mentions: tuple[EntityMention, ...] = ()
    inferred: bool = False  #: every visible mention is inferred


@dataclass(frozen=True)
class CommunityReport:
    """A community of the caller's graph (:mod:`citegraph.retrieve.communities`): id, size, central
    names, documents (``(document, sentences)``), and its summary: a few of its sentences, as spans."""

    id: str
    level: int
    size: int
    names: tuple[str, ...]
    documents: tuple[tuple[str, int], ...]
    summary: tuple[Span, ...]
    parent: str | None = None


@dataclass(frozen=True)
class Relation:
    """One asserted relation; the store is a multigraph, so pairs may repeat."""

    id: int
    source: str  #: entity key
    target: str
    type: str
    span: Span
    current: bool = True
    extractor: str = ""
    description: str = ""


@dataclass(frozen=True)
class Hop:
    """One step of a route: from one entity across one relation to another."""

    source: str  #: entity key the step starts from
    relation: str  #: relation type
    direction: str  #: ``out`` (followed source->target) or ``in`` (followed target->source)
    target: str  #: entity key the step arrives at
    span: Span  #: the sentence that asserted the relation


@dataclass(frozen=True)
class ReachedNode:
    entity: str  #: entity key
    name: str
    depth: int
    seed: str  #: the seed the best route starts from
    route: tuple[Hop, ...] = ()


@dataclass(frozen=True)
class Evidence:
    """A candidate span and how retrieval found it."""

    span: Span
    score: float  #: ranking score (similarity discounted by depth)
    similarity: float  #: cosine similarity of the span to the question
    found_by: str  #: ``entity`` | ``relation`` | ``sentence`` | ``passage`` | ``bridge`` | ``summary`` | ``community`` | :data:`SUBJECT`
    entity: str | None = None  #: entity key whose mention or relation produced it
    depth: int | None = None
    route: tuple[Hop, ...] = ()
    community: str | None = None  #: for a question about the whole corpus: the community it stands for


#: ``Evidence.found_by`` of the sentence before one that opens with a pronoun ("Northgate Branch … is
#: open …" before "It is closed on Sundays and Mondays."): read with it, it says what the pronoun stands
#: for, and takes no place of the context's own (:func:`context_of`)
SUBJECT = "subject"
#: how the first message of a conversation is found for a question about who started it ("Who initiated
#: the discussion about …?"): added to the context beside the conversation's lines, read for the answer,
#: quoted beside a quoted line of its conversation
OPENER = "opener"


def context_of(evidence: Sequence[Evidence], size: int) -> list[Evidence]:
    """The first ``size`` of retrieval's ``evidence`` (what an answer reads), each with the subject
    (:data:`SUBJECT`) that retrieval placed right before it, which counts toward no place."""
    out: list[Evidence] = []
    subject: Evidence | None = None
    taken = 0
    for e in evidence:
        if e.found_by == SUBJECT:
            subject = e
            continue
        if taken >= size:
            break
        if subject is not None:
            out.append(subject)
            subject = None
        out.append(e)
        taken += 1
    return out


@dataclass(frozen=True)
class Retrieval:
    question: str
    seeds: tuple[str, ...]
    hops: int
    nodes: tuple[ReachedNode, ...]
    evidence: tuple[Evidence, ...]
    #: what a question about a whole document or section named (:mod:`citegraph.retrieve.summary`):
    #: its evidence is that text's sentences, one or a few per section, in document order
    summary: str | None = None
    #: the question as read (:meth:`Retriever.retrieve <citegraph.retrieve.retriever.Retriever.retrieve>`: its "?",
    #: capitals and abbreviations written out, a request around it dropped); the checks read this text. None: as asked
    read_as: str | None = None
    spelled_out: tuple[tuple[str, str], ...] = ()  #: the (short form, long form) pairs spelled out
    #: for a question about the whole corpus (:mod:`citegraph.retrieve.overview`): the communities it
    #: drew on, ``(id, title)``, one evidence sentence each (``Evidence.community``); ``summary`` names the scope
    communities: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ContextItem:
    marker: int
    evidence: Evidence

    @property
    def span(self) -> Span:
        return self.evidence.span


@dataclass(frozen=True)
class Support:
    """A verifier's verdict on one citation. ``score`` is a probability, or None when unchecked.

    ``stage`` names the check that decided the label: ``guards`` (a proof: a conflicting value, or a
    text unrelated to a claim that states a number), ``quote`` (a near-quote of a sentence that
    asserts it), ``checker`` (the trained cross-encoder), ``screen`` (the small classifier, sure
    enough to settle it), ``judge`` (a language model) or ``none`` (nothing settled it: ``unverified``). ``calibrated`` says whether ``score`` is a
    probability fitted on labelled data (the checker's, the screen's; a judge's with a calibration record): None when
    there is no score, False for a judge's raw P(yes) when no calibration record is configured for it.
    """

    label: Verdict
    score: float | None
    verifier: str
    guards: tuple[str, ...] = ()  #: the guards that fired (proofs and signals) and the other checks' notes
    stage: Stage = Stage.NONE
    calibrated: bool | None = None


@dataclass(frozen=True)
class Citation:
    marker: int
    span: Span
    support: Support
    route: tuple[Hop, ...] = ()  #: how retrieval reached the span (empty for a seed or a direct hit)
    found_by: str = ""  #: ``entity`` | ``relation`` | ``sentence``
    entity: str | None = None  #: the entity whose mention or relation surfaced the span
    community: str | None = None  #: for a question about the whole corpus: the community the span stands for


@dataclass(frozen=True)
class Claim:
    text: str  #: the claim itself, markers removed
    raw: str  #: the claim as it appeared in the answer, markers included
    status: ClaimStatus
    citations: tuple[Citation, ...] = ()
    markers: tuple[int, ...] = ()  #: every marker written, valid or not
    invalid_markers: tuple[int, ...] = ()


@dataclass(frozen=True)
class AnswerWarning:
    code: str
    message: str
    data: tuple[tuple[str, object], ...] = field(default=())


@dataclass(frozen=True)
class Relevance:
    """Whether an answer addresses its question (citegraph.answer.relevance), apart from support."""

    label: str  #: addressed · partly_addressed · not_addressed · unchecked
    expected: str | None  #: the answer type the question asks for (date, number, agent, place), if any
    found_type: bool | None  #: a claim holds an answer of that type (None: no type expected)
    coverage: float | None  #: share of the question's terms the claims mention
    terms: tuple[str, ...] = ()  #: the question's terms
    missing: tuple[str, ...] = ()  #: those no claim mentions
    method: str = "rules"
    note: str = ""


class Located(NamedTuple):
    """The reader's best answer among the context (:attr:`Answerability.reading`)."""

    answer: str  #: the words it found
    marker: int  #: the context sentence that holds them
    probability: float  #: the reader's P(answers)


@dataclass(frozen=True)
class Answerability:
    """Whether the visible evidence answers the question at all (citegraph.answer.answerable),
    decided from the question and the context before an answer is written; apart from support."""

    answerable: bool
    probability: float | None  #: P(answerable); None when it was not assessed
    features: tuple[tuple[str, float], ...] = ()
    missing: tuple[str, ...] = ()  #: the question's named entities no context sentence names
    note: str = ""
    #: the reader's best answer among the context; None when it found none in a context sentence
    reading: Located | None = None


@dataclass(frozen=True)
class Lead:
    """The answer itself, shown ahead of the quotes: the words the reader found the answer in, inside a
    sentence a claim cites, with their own character range of that document version (a part of the
    citation's span). Only on an answer shown green (it addresses the question)."""

    text: str
    marker: int  #: the context item (and citation) it is inside
    probability: float  #: the reader's P(answers) of it
    span: Span  #: its characters in the document version


@dataclass(frozen=True)
class Answer:
    question: str
    text: str
    status: AnswerStatus
    context: tuple[ContextItem, ...]
    claims: tuple[Claim, ...]
    warnings: tuple[AnswerWarning, ...]
    retrieval: Retrieval
    models: tuple[tuple[str, str], ...]
    relevance: Relevance = Relevance("unchecked", None, None, None)  #: does it address the question (not support)
    answerability: Answerability | None = None  #: does the context answer the question at all (None: not assessed)
    lead: Lead | None = None  #: the answer's own words, where the reader found them in a cited sentence


@dataclass(frozen=True)
class DocumentReport:
    id: str
    version: str | None
    status: DocumentStatus
    source: str = ""
    sentences: int = 0
    entities: int = 0
    relations: int = 0
    inferred_entities: int = 0
    rejected: tuple[Rejection, ...] = ()
    reason: str = ""  #: why a document failed or was skipped
    superseded: str | None = None  #: the version this one replaced
    extractor: str = ""  #: what extracted it (an import file's documents name it, the rest the configured extractor)
    notes: tuple[str, ...] = ()  #: what was done to the text on the way, e.g. over-long sentences cut


@dataclass(frozen=True)
class IngestReport:
    documents: tuple[DocumentReport, ...]
    rejected: tuple[Rejection, ...] = ()  #: problems not tied to one document (e.g. unknown ids)
    unavailable: str | None = None  #: set when a model backend was down: the run stopped extracting

    @property
    def partial(self) -> bool:
        bad = {DocumentStatus.FAILED, DocumentStatus.PARTIAL, DocumentStatus.SKIPPED}
        return bool(self.rejected) or any(d.status in bad for d in self.documents)
