"""LightRAG (lightrag-hku) on the peers' benchmark, with citegraph's embedder and a stand-in model.

Hooks: ``LightRAG(llm_model_func=..., embedding_func=EmbeddingFunc(384, 256, func))``; the
tokenizer is tiktoken's cl100k_base (``tiktoken_model_name="gpt-4"``), loaded offline; the LLM
caches are off (``enable_llm_cache=False``, ``enable_llm_cache_for_entity_extract=False``).
Everything else is LightRAG's default (JSON key-value and doc-status stores, NanoVectorDB,
NetworkX graph, 4 concurrent model calls, 3 documents in parallel, one gleaning pass).

The stand-in model recognises LightRAG's prompts by their text and answers:

* extraction (the chunk is fenced under ``---Input Text---``): an ``entity<|#|>name<|#|>type<|#|>
  description`` row per entity and a ``relation<|#|>source<|#|>target<|#|>keywords<|#|>
  description`` row per relation of citegraph's spaCy facts for that text, within the prompt's row
  caps, then ``<|COMPLETE|>``;
* the gleaning ("continue") prompt: nothing more, ``<|COMPLETE|>``;
* description summaries: the first descriptions of the list, joined;
* keyword extraction (``User Query:``): JSON, the question's entity names as low-level keywords
  and its relation types and noun-chunk heads as high-level ones;
* anything else: a one-line answer.

Insert: ``ainsert(texts, ids=titles, file_paths=titles)``. Query: ``aquery_data`` in ``local``
mode (entities first, then their relations and chunks; no answer generated), the chunks' file
paths being the passage titles, in the order LightRAG puts them into the context.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    Clock,
    ModelLog,
    SharedParts,
    aquery_figures,
    current_rss_mb,
    insert_figures,
    offline_tiktoken,
    parse_args,
    start_peer,
    write_record,
)

TUPLE = "<|#|>"
DONE = "<|COMPLETE|>"
TYPES = {  # spaCy label -> the type vocabulary of LightRAG's prompt
    "PERSON": "Person",
    "ORG": "Organization",
    "NORP": "Organization",
    "GPE": "Location",
    "LOC": "Location",
    "FAC": "Location",
    "EVENT": "Event",
    "WORK_OF_ART": "Content",
    "PRODUCT": "Artifact",
    "DATE": "Data",
    "TIME": "Data",
    "PERCENT": "Data",
    "MONEY": "Data",
    "QUANTITY": "Data",
    "LAW": "Concept",
    "LANGUAGE": "Concept",
    "CONCEPT": "Concept",
}
_INPUT = re.compile(r"---Input Text---\n```\n(.*)\n```\n\n---Output---", re.S)
_QUERY = re.compile(r"---Real Data---\nUser Query: (.*?)\n\n---Output---", re.S)
_CAPS = re.compile(r"output at most (\d+) total rows and at most (\d+) entity rows")
_LIST = re.compile(r"Description List:\n\n```\n(.*)\n```", re.S)


def name(text: str) -> str:
    """As the prompt asks: a case-insensitive (all lower-case) name in title case. It also keeps a
    concept called "entity" or "relation" from reading as a record marker to LightRAG's parser."""
    return clean(text.title() if text.islower() else text)


def clean(text: str) -> str:
    """A field may not hold the delimiter or a line break (the rows are line- and delimiter-split)."""
    return " ".join(text.replace(TUPLE, " ").split())


class StandIn:
    def __init__(self, parts: SharedParts, log: ModelLog) -> None:
        self.parts, self.log = parts, log

    def __deepcopy__(self, memo: dict[int, Any]) -> StandIn:
        return self  # LightRAG deep-copies its config (asdict); the model is shared, not copied

    async def __call__(self, prompt: str, system_prompt: str | None = None, history_messages: Any = None, **kwargs: Any) -> str:
        started = self.log.start()
        kind, answer = self.answer(prompt)
        self.log.record(kind, started)
        await self.log.sleep()
        return answer

    def answer(self, prompt: str) -> tuple[str, str]:
        if m := _INPUT.search(prompt):
            caps = _CAPS.search(prompt)
            total, most_entities = (int(caps.group(1)), int(caps.group(2))) if caps else (10**6, 10**6)
            facts = self.parts.facts(m.group(1))
            entities = facts.entities[:most_entities]
            kept = {e.name for e in entities}
            rows = [f"entity{TUPLE}{name(e.name)}{TUPLE}{TYPES.get(e.type, 'Other')}{TUPLE}{clean(e.description)}" for e in entities]
            for r in facts.relations:
                if r.source in kept and r.target in kept:
                    rows.append(
                        f"relation{TUPLE}{name(r.source)}{TUPLE}{name(r.target)}{TUPLE}{clean(r.keywords)}{TUPLE}{clean(r.description)}"
                    )
            return "extract", "\n".join([*rows[:total], DONE])
        if "identify and extract any missed or incorrectly formatted entities" in prompt:
            return "glean", DONE
        if m := _LIST.search(prompt):
            descriptions = []
            for line in m.group(1).splitlines():
                try:
                    item = json.loads(line)
                except json.JSONDecodeError:
                    continue
                descriptions.extend(str(v) for v in item.values()) if isinstance(item, dict) else descriptions.append(str(item))
            return "summary", " ".join(descriptions[:3])
        if m := _QUERY.search(prompt):
            facts = self.parts.facts(m.group(1))
            low = list(dict.fromkeys(e.name for e in facts.entities))
            high = list(dict.fromkeys(r.keywords for r in facts.relations))
            return "keywords", json.dumps({"high_level_keywords": high, "low_level_keywords": low})
        return "other", "A short answer."


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    offline_tiktoken()
    logging.getLogger("lightrag").setLevel(logging.WARNING)
    from lightrag import LightRAG, QueryParam
    from lightrag.kg.shared_storage import initialize_pipeline_status
    from lightrag.utils import EmbeddingFunc

    corpus, record, parts, log = start_peer("LightRAG", version("lightrag-hku"), args)

    async def embed(texts: list[str], **_: Any) -> np.ndarray:
        return parts.embed(texts)

    store = args.workdir / "store"

    async def run() -> None:
        rag = LightRAG(
            working_dir=str(store),
            llm_model_func=StandIn(parts, log),
            embedding_func=EmbeddingFunc(embedding_dim=parts.embedder.dim, max_token_size=256, func=embed),
            tiktoken_model_name="gpt-4",  # cl100k_base, the encoding shipped offline
            enable_llm_cache=False,
            enable_llm_cache_for_entity_extract=False,
        )
        await rag.initialize_storages()
        await initialize_pipeline_status()
        parts.reset_counters()
        log.reset()
        titles = list(corpus.passages)
        rss_before = current_rss_mb()
        with Clock() as clock:
            await rag.ainsert(list(corpus.passages.values()), ids=titles, file_paths=titles)
        record["insert"] = insert_figures(clock, parts, log, len(titles), store, rss_before)
        statuses = await rag.doc_status.get_status_counts() if hasattr(rag.doc_status, "get_status_counts") else {}
        record["insert"]["document_status"] = {str(k): v for k, v in statuses.items()}

        if not args.skip_queries:
            param = QueryParam(mode="local", enable_rerank=False)

            async def rank(question: str) -> dict[str, Any]:
                return await rag.aquery_data(question, param)

            def titles_of(result: dict[str, Any]) -> list[str]:
                chunks = (result.get("data") or {}).get("chunks") or []
                return [c.get("file_path", "") for c in chunks]  # the title, given as file_path on insert

            record["query"] = await aquery_figures(corpus, rank, titles_of, parts, log)
        await rag.finalize_storages()

    asyncio.run(run())
    write_record(args.out, record)


if __name__ == "__main__":
    main()
