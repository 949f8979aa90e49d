"""nano-graphrag on the peers' benchmark, with citegraph's embedder and a stand-in model.

Hooks: ``GraphRAG(best_model_func=..., cheap_model_func=..., embedding_func=EmbeddingFunc(384,
256, func))``; ``tiktoken_model_name="gpt-4"`` (cl100k_base, loaded offline; nano-graphrag's
chunker hard-codes "gpt-4o", whose o200k_base cannot be had offline, so tiktoken's model table
maps it to cl100k_base in this process: token counts differ slightly); the LLM cache is off
(``enable_llm_cache=False``). Everything else is nano-graphrag's default: JSON key-value stores,
NanoVectorDB, NetworkX with Leiden clustering (graspologic) and a community report per community
at the end of every insert, 1,200-token chunks, one gleaning pass, 16 concurrent model calls.

The stand-in model recognises nano-graphrag's prompts by their text and answers:

* extraction (``-Real Data-`` ... ``Text: ...``): ``("entity"<|>NAME<|>type<|>description)`` and
  ``("relationship"<|>SOURCE<|>TARGET<|>description<|>strength)`` records joined by ``##``, ending
  with ``<|COMPLETE|>``, from citegraph's spaCy facts for that text (strength: a constant 5);
* the gleaning prompts: nothing more, and "no";
* description summaries: the first descriptions, joined;
* community reports: a JSON report whose title and findings name the community's first entities;
* anything else: a one-line answer.

Insert: one ``ainsert(list of texts)`` (nano-graphrag keeps no document id; chunks are mapped back
to titles by their text). Query: ``QueryParam(mode="local", only_need_context=True)``: entities by
vector search, then their communities, relations and text units; no model call. The text units
(the ``Sources`` table) in context order give the passages.
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
    norm,
    offline_tiktoken,
    parse_args,
    start_peer,
    write_record,
)

TUPLE, RECORD, DONE = "<|>", "##", "<|COMPLETE|>"
TYPES = {"PERSON": "person", "ORG": "organization", "NORP": "organization", "GPE": "geo", "LOC": "geo", "FAC": "geo", "EVENT": "event"}
_TEXT = re.compile(r"-Real Data-\n#+\nEntity_types: .*?\nText: (.*)\n#+\nOutput:", re.S)
_REPORT = re.compile(r"# Real Data\n.*?Text:\n```\n(.*?)\n```", re.S)
_SUMMARY = re.compile(r"-Data-\nEntities: (.*?)\nDescription List: (.*)\n#######", re.S)


def clean(text: str) -> str:
    """No delimiter, record separator or quote inside a field (nano-graphrag splits on them)."""
    for mark in (TUPLE, RECORD, DONE, '"'):
        text = text.replace(mark, " ")
    return " ".join(text.split())


def type_of(label: str) -> str:
    """spaCy's label in the prompt's vocabulary (organization, person, geo, event); others as they are."""
    return TYPES.get(label, label.lower())


class StandIn:
    def __init__(self, parts: SharedParts, log: ModelLog) -> None:
        self.parts, self.log = parts, log

    def __deepcopy__(self, memo: dict[int, Any]) -> StandIn:
        return self  # nano-graphrag deep-copies its config (asdict); the model is shared, not copied

    async def __call__(self, prompt: str, system_prompt: str | None = None, history_messages: Any = None, **kwargs: Any) -> str:
        started = self.log.start()
        kind, answer = self.answer(prompt)
        self.log.record(kind, started)
        await self.log.sleep()
        return answer

    def answer(self, prompt: str) -> tuple[str, str]:
        if m := _TEXT.search(prompt):
            facts = self.parts.facts(m.group(1))
            rows = [f'("entity"{TUPLE}"{clean(e.name)}"{TUPLE}"{type_of(e.type)}"{TUPLE}"{clean(e.description)}")' for e in facts.entities]
            rows += [
                f'("relationship"{TUPLE}"{clean(r.source)}"{TUPLE}"{clean(r.target)}"{TUPLE}"{clean(r.keywords)}: {clean(r.description)}"{TUPLE}5)'
                for r in facts.relations
            ]
            return "extract", RECORD.join(rows) + DONE
        if prompt.startswith("MANY entities were missed"):
            return "glean", DONE
        if prompt.startswith("It appears some entities may have still been missed"):
            return "glean-check", "no"
        if m := _SUMMARY.search(prompt):
            return "summary", " ".join(m.group(2).split("<SEP>")[:3])
        if m := _REPORT.search(prompt):
            return "report", community_report(m.group(1))
        return "other", "A short answer."


def community_report(table: str) -> str:
    """A report naming the community's first entities (the rows of its ``Entities`` CSV)."""
    names = []
    for line in table.splitlines():
        cells = [c.strip().strip('"') for c in line.split(",\t")]
        if len(cells) >= 4 and cells[0].isdigit():
            names.append((cells[1], cells[3]))
    head = [n for n, _d in names[:3]] or ["Community"]
    return json.dumps(
        {
            "title": " and ".join(head),
            "summary": " ".join(d for _n, d in names[:3]),
            "rating": 5.0,
            "rating_explanation": "A stand-in rating.",
            "findings": [{"summary": n, "explanation": d} for n, d in names[:5]],
        }
    )


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    # get_chunks and the token helpers hard-code "gpt-4o" (o200k_base, not shipped offline)
    offline_tiktoken(alias_models=("gpt-4o", "gpt-4o-mini"))
    logging.getLogger("nano-graphrag").setLevel(logging.WARNING)
    from nano_graphrag import GraphRAG, QueryParam
    from nano_graphrag._utils import EmbeddingFunc

    corpus, record, parts, log = start_peer("nano-graphrag", version("nano-graphrag"), args)
    model = StandIn(parts, log)

    async def embed(texts: list[str]) -> np.ndarray:
        return parts.embed(texts)

    store = args.workdir / "store"
    rag = GraphRAG(
        working_dir=str(store),
        best_model_func=model,
        cheap_model_func=model,
        embedding_func=EmbeddingFunc(embedding_dim=parts.embedder.dim, max_token_size=256, func=embed),
        tiktoken_model_name="gpt-4",  # cl100k_base, the encoding shipped offline
        enable_llm_cache=False,
    )
    by_text = corpus.titles_of_text()
    by_prefix = {key[:80]: titles for key, titles in by_text.items()}

    async def run() -> None:
        parts.reset_counters()
        log.reset()
        rss_before = current_rss_mb()
        with Clock() as clock:
            await rag.ainsert(list(corpus.passages.values()))
        record["insert"] = insert_figures(clock, parts, log, len(corpus.passages), store, rss_before)
        record["insert"]["communities"] = len(await rag.community_reports.all_keys())

        if not args.skip_queries:
            param = QueryParam(mode="local", only_need_context=True)

            async def rank(question: str) -> str:
                return await rag.aquery(question, param)

            def titles_of(context: str | None) -> list[str]:
                titles = []
                sources = (context or "").split("-----Sources-----", 1)[-1]
                for line in sources.splitlines():
                    m = re.match(r"\d+,\t(.*)$", line)
                    if m:
                        text = norm(m.group(1).strip().strip('"'))
                        titles.extend(by_text.get(text) or by_prefix.get(text[:80]) or [])
                return titles

            record["query"] = await aquery_figures(corpus, rank, titles_of, parts, log)

    asyncio.run(run())
    write_record(args.out, record)


if __name__ == "__main__":
    main()
