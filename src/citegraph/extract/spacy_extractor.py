"""The default extractor: spaCy NER, noun chunks and the dependency parse; no LLM.

Entities are named entities (minus bare cardinal and ordinal numbers) and noun chunks. A noun
chunk's key is its head noun with its compound modifiers ("Snapshot exports" -> ``snapshot export``),
so adjectives such as "latest" do not split one entity into many; a compound also yields its head
as an entity and an ``is a`` relation to it.

Relations come from the parse of one sentence at a time:

* subject - verb - object (``dobj``, ``attr``, ``oprd``, ``dative``): type is the verb lemma,
  with a particle ("set up"), "not" when negated, and the participle for passives;
* subject - verb - preposition - object: the preposition joins the type ("stay available for");
  adjectival and clausal complements extend the verb phrase;
* noun - preposition - noun ("retention of snapshots"): type is the preposition.

Conjunctions on either side fan out. Every relation is tied to the span of its sentence.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from typing import Any

from citegraph.extract.base import Extractor
from citegraph.extract.keys import key_from_tokens
from citegraph.models import Document, ExtractedEntity, ExtractedRelation, Extraction
from citegraph.sentences import Sentence, SentenceSplitter

__all__ = ["SpacyExtractor"]

_SKIP_LABELS = {"CARDINAL", "ORDINAL"}
_SUBJECTS = {"nsubj", "nsubjpass", "csubj"}
_OBJECTS = {"dobj", "attr", "oprd", "dative"}
_COMPLEMENTS = {"acomp", "xcomp"}  # a ccomp is a clause with its own subject: extracted on its own


class _Walked:
    """A Doc's entities and noun chunks, computed once, with their start tokens for bisection."""

    def __init__(self, doc: Any) -> None:
        self.ents = list(doc.ents)
        self.chunks = list(doc.noun_chunks)
        self._starts = {id(self.ents): [e.start for e in self.ents], id(self.chunks): [c.start for c in self.chunks]}

    def within(self, spans: list[Any], parse: Any) -> list[Any]:
        """Those of ``spans`` that lie inside ``parse`` (a sentence of the same Doc), in order."""
        starts = self._starts[id(spans)]
        out = []
        for span in spans[bisect.bisect_left(starts, parse.start) :]:
            if span.start >= parse.end:
                break
            if span.end <= parse.end:
                out.append(span)
        return out


def _conjuncts(tok: Any) -> Iterator[Any]:
    yield tok
    yield from tok.conjuncts


class SpacyExtractor(Extractor):
    def __init__(self, splitter: SentenceSplitter | None = None) -> None:
        self.splitter = splitter or SentenceSplitter()
        self.name = self.splitter.name

    def extract(self, document: Document, sentences: Sequence[Sentence]) -> Extraction:
        entities: list[ExtractedEntity] = []
        relations: list[ExtractedRelation] = []
        # A sentence's ``.ents`` and ``.noun_chunks`` walk its whole Doc (a block of the document) and
        # filter: per sentence, that is quadratic in the block (a block of 3,000 tiny sentences took
        # minutes). Each Doc is walked once here and its chunks and entities handed out by position.
        walked: dict[int, _Walked] = {}
        for sentence in sentences:
            parse, offset = sentence.parse, sentence.offset
            if parse is None:  # sentences from elsewhere: parse them here
                parse, offset = self.splitter.nlp(sentence.span.text)[:], sentence.span.start
            doc = parse.doc
            if id(doc) not in walked:
                walked.clear()  # sentences come in document order: one Doc at a time is enough
                walked[id(doc)] = _Walked(doc)
            ents, rels = self._sentence(sentence, parse, offset, walked[id(doc)])
            entities.extend(ents)
            relations.extend(rels)
        return Extraction(self.name, tuple(entities), tuple(relations))

    def _sentence(
        self, sentence: Sentence, parse: Any, offset: int, walked: _Walked
    ) -> tuple[list[ExtractedEntity], list[ExtractedRelation]]:
        span = sentence.span
        by_token: dict[int, tuple[str, str]] = {}  # token index -> (key, surface)
        entities: list[ExtractedEntity] = []
        relations: list[ExtractedRelation] = []

        def add(tokens: Any, key: str, type_: str) -> None:
            start, end = offset + tokens[0].idx, offset + tokens[-1].idx + len(tokens[-1].text)
            if not key or not (span.start <= start < end <= span.end):
                return
            surface = span.text[start - span.start : end - span.start]
            entities.append(ExtractedEntity(surface, key, type_, span, start, end))
            for tok in tokens:
                by_token.setdefault(tok.i, (key, surface))

        for ent in walked.within(walked.ents, parse):
            if ent.label_ not in _SKIP_LABELS:
                add(ent, key_from_tokens(ent, lemmatise=ent.label_ not in {"PERSON", "ORG", "GPE"}), ent.label_)
        for chunk in walked.within(walked.chunks, parse):
            root = chunk.root
            if root.pos_ == "PRON" or root.i in by_token:
                continue  # a pronoun, or a head that is already part of a named entity
            parts = sorted([root, *(c for c in root.children if c.dep_ == "compound")], key=lambda t: t.i)
            tokens = parse.doc[parts[0].i : root.i + 1]
            key = key_from_tokens(parts)
            add(tokens, key, "CONCEPT")
            head_key = key_from_tokens([root])
            if len(parts) > 1 and head_key and head_key != key:
                add(parse.doc[root.i : root.i + 1], head_key, "CONCEPT")
                relations.append(ExtractedRelation(key, head_key, "is a", span, tokens.text, root.text))

        def entity_of(tok: Any) -> tuple[str, str] | None:
            return by_token.get(tok.i)

        def relate(subject: Any, type_: str, obj: Any) -> None:
            for s in _conjuncts(subject):
                for o in _conjuncts(obj):
                    a, b = entity_of(s), entity_of(o)
                    if a and b and a[0] != b[0]:
                        relations.append(ExtractedRelation(a[0], b[0], type_, span, a[1], b[1]))

        def verb_objects(verb: Any, phrase: str) -> Iterator[tuple[str, Any]]:
            for child in verb.children:
                if child.dep_ in _OBJECTS:
                    yield phrase, child
                elif child.dep_ in {"prep", "agent"}:
                    for pobj in child.children:
                        if pobj.dep_ == "pobj":
                            yield f"{phrase} {child.text.lower()}", pobj
                elif child.dep_ in _COMPLEMENTS and child.i > verb.i and list(child.children):
                    yield from verb_objects(child, f"{phrase} {child.lemma_.lower()}")

        for tok in parse:
            if tok.pos_ not in {"VERB", "AUX"}:
                continue
            subjects = [c for c in tok.children if c.dep_ in _SUBJECTS]
            if not subjects and tok.dep_ in {"relcl", "acl"}:
                subjects = [tok.head]
            if not subjects:
                continue
            passive = any(c.dep_ in {"auxpass", "nsubjpass"} for c in tok.children)
            phrase = tok.text.lower() if passive else tok.lemma_.lower()
            particles = [c.text.lower() for c in tok.children if c.dep_ == "prt"]
            if particles:
                phrase += " " + " ".join(particles)
            # "stay available for 30 days": a bare adjectival complement belongs to the verb phrase.
            phrase += "".join(f" {c.text.lower()}" for c in tok.children if c.dep_ == "acomp" and not list(c.children))
            if any(c.dep_ == "neg" for c in tok.children):
                phrase = "not " + phrase
            for subject in subjects:
                for type_, obj in verb_objects(tok, phrase):
                    relate(subject, type_, obj)

        for tok in parse:
            if tok.i not in by_token or tok.pos_ not in {"NOUN", "PROPN"}:
                continue
            for child in tok.children:
                if child.dep_ == "prep":
                    for pobj in child.children:
                        if pobj.dep_ == "pobj":
                            relate(tok, child.text.lower(), pobj)
        return entities, relations
