"""citegraph on the peers' benchmark: insert every passage, then retrieve for every question.

Insert: ``CiteGraph.open(DB, "minilm")`` and one ``ingest_texts`` call over all passages (one public
document each, its title as id), as ``citegraph eval retrieval`` ingests them. citegraph's default
extractor is spaCy in process, not a language model: the time inside its sentence splitter and
extractor is reported as ``model_s`` (it is the same spaCy work the stand-in model's look-up table
is filled with, outside the clock, for the peers), and ``framework_s`` is what is left after that
and the embedder. No model is called, so the delay setting changes nothing here.

Variant ``llm``: citegraph with its language-model extractor (``LLMExtractor``, one call per
sentence, with its JSON schema, 4 calls at a time as for its Ollama and OpenAI-compatible
backends) behind a stand-in :class:`ChatModel` that answers each sentence with the spaCy facts of
that sentence (at most the schema's 12 rows of each kind), looked up in a table filled before the
clock. Here the sentence splitter's spaCy parse and the extractor's name checks are framework
work, not model work.

Query: the default retrieval mode (``bridge-embedded``) through ``graph.retriever.retrieve`` as the caller
``public``, the ranked evidence spans mapped to their documents (titles), best first: the
same ranking ``citegraph eval retrieval`` scores.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    Clock,
    ModelLog,
    SharedParts,
    current_rss_mb,
    insert_figures,
    load_corpus,
    norm,
    parse_args,
    query_figures,
    run_record,
    write_record,
)


def wrap(obj: Any, method: str, log: ModelLog) -> None:
    """Time ``obj.method`` (this instance only) into ``log``'s seconds, without counting calls."""
    original = getattr(obj, method)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = log.start()
        try:
            return original(*args, **kwargs)
        finally:
            log.add_time(start)

    setattr(obj, method, timed)


_SENTENCE = re.compile(r"<sentence>\n(.*)\n</sentence>", re.S)
MAX_ROWS = 12  # the extraction schema's maxItems


def sentence_table(parts: SharedParts, texts: Sequence[str]) -> dict[str, str]:
    """norm(sentence) -> the stand-in's JSON answer: the spaCy entities and relations of that sentence."""
    from citegraph.models import Document

    rows: dict[str, dict[str, list[list[str]]]] = {}
    for at in range(0, len(texts), 32):
        batch = texts[at : at + 32]
        split = parts.splitter.split_many([(f"t{i}", "v", t, "text/plain") for i, t in enumerate(batch)])
        for i, (text, sentences) in enumerate(zip(batch, split, strict=True)):
            extraction = parts.extractor.extract(Document(id=f"t{i}", version="v", text=text, source=""), sentences)
            for sentence in sentences:
                rows.setdefault(norm(sentence.span.text), {"entities": [], "relations": []})
            for e in extraction.entities:
                row = [e.name, e.type]
                found = rows[norm(e.sentence.text)]["entities"]
                if row not in found:
                    found.append(row)
            for r in extraction.relations:
                row = [r.source_name, r.type, r.target_name]
                found = rows[norm(r.sentence.text)]["relations"]
                if row not in found:
                    found.append(row)
    return {key: json.dumps({k: v[:MAX_ROWS] for k, v in value.items()}) for key, value in rows.items()}


def stand_in_model(table: dict[str, str], log: ModelLog) -> Any:
    from citegraph.llm.base import ChatModel, ChatResult

    lock = threading.Lock()

    class StandIn(ChatModel):
        name = "stand-in"
        concurrency = 4  # as citegraph's Ollama and OpenAI-compatible backends

        def chat(self, messages: Any, *, schema: Any = None, max_tokens: int = 512, top_logprobs: int = 0) -> ChatResult:
            started = log.start()
            m = _SENTENCE.search(messages[-1].content)
            answer = table.get(norm(m.group(1)) if m else "", '{"entities": [], "relations": []}')
            with lock:
                log.record("extract" if m and norm(m.group(1)) in table else "miss", started)
            log.sleep_sync()
            return ChatResult(answer, {})

    return StandIn()


def main() -> None:
    args = parse_args(__doc__.splitlines()[0], variants=("spacy", "llm"))
    corpus = load_corpus(args.data, args.docs, args.questions, args.subset)
    record = run_record("citegraph", version("citegraph"), args, corpus)
    from citegraph.settings import DEFAULTS

    record["mode"] = f"{DEFAULTS.retrieval} (default)"
    record["variant"] = "default" if args.variant == "spacy" else "LLM extractor"

    from citegraph.ingest.indexer import TextInput
    from citegraph.pipeline import CiteGraph

    store = args.workdir / "store"
    store.mkdir()
    graph = CiteGraph.open(store / "citegraph.db", "minilm")
    parts = SharedParts(graph.embedder, graph.splitter, graph.extractor)
    parts.warm_up()  # loads spaCy and runs the ONNX session once, outside the clock
    graph.embedder.embed = parts.embed  # counted from here on (calls, texts, seconds)
    log = ModelLog(args.llm_delay)
    if args.variant == "spacy":
        wrap(graph.splitter, "split_ranges", log)  # split_many goes through split_ranges
        wrap(graph.extractor, "extract", log)
    else:
        from citegraph.extract.llm_extractor import LLMExtractor

        table = sentence_table(parts, list(corpus.passages.values()))  # before the clock
        model = stand_in_model(table, log)
        graph.extractor = LLMExtractor(model, nlp=graph.splitter.nlp, parallel=model.concurrency)

    items = [TextInput(title, text, source=f"hotpotqa:{title}") for title, text in corpus.passages.items()]
    rss_before = current_rss_mb()
    with Clock() as clock:
        report = graph.ingest_texts(items, access=("public",))
    statuses: dict[str, int] = {}
    for d in report.documents:
        statuses[d.status.value] = statuses.get(d.status.value, 0) + 1
    record["insert"] = insert_figures(clock, parts, log, len(items), store, rss_before)
    record["insert"]["document_status"] = statuses

    if not args.skip_queries:

        def rank(question: str) -> Any:
            return graph.retriever.retrieve(question, ["public"], limit=200)  # as eval retrieval ranks

        def titles_of(retrieval: Any) -> list[str]:
            return [e.span.document for e in retrieval.evidence]

        record["query"] = query_figures(corpus, rank, titles_of, parts, log)
    graph.close()
    write_record(args.out, record)


if __name__ == "__main__":
    main()
