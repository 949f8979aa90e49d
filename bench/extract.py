"""Extraction only: the spaCy extractor against a local LLM extractor, on the same sentences.

What is measured
----------------
The first N unique context paragraphs of a HotpotQA distractor sample (by title, in file order;
text = ``"".join(sentences)``) become :class:`~citegraph.models.Document` records (id = title,
version ``v1``). All of them are cut into sentences once, by one ``SentenceSplitter().split_many``
call; that split is timed and reported on its own, and is in neither extractor's time. Both
extractors then get exactly the same :class:`~citegraph.sentences.Sentence` lists, one
``extract`` call per paragraph:

* ``SpacyExtractor``: NER, noun chunks and the dependency parse. It reuses the parse the splitter
  kept with each sentence, so its time is the extraction logic alone, no second parse.
* ``LLMExtractor(make_chat_model(spec), nlp=splitter.nlp)``: one chat call per sentence with a
  JSON schema, up to two retries on malformed output; names the model returns must occur in the
  sentence, or they are rejected as ``not_in_sentence``. Its time includes that check (which
  parses names and sentences with spaCy). A rich progress bar on stderr advances per paragraph
  (one plain line per paragraph when stderr is not a terminal, e.g. under nohup).

Each timed region is the loop of ``extract`` calls, measured with ``time.perf_counter``. Model
loading is kept out: the chat model is built (for ``gguf:`` that loads the weights) and makes one
warm-up extraction of a throwaway sentence before the clock starts, and the extractor's ``stats``
counter is reset after it.

Figures, side by side: paragraphs, sentences, seconds, sentences/s, entity mentions, distinct entity
keys, relations; for the LLM also

* valid-JSON rate = 1 - invalid_outputs / calls, per call (first tries and retries alike);
* sentences that still failed after the retries (``extraction_failed`` rejections);
* rejected-entity rate = entity rejections ``not_in_sentence`` / (accepted entities + those);
* rejected relations (a source or target that does not occur in the sentence);

and the ratio LLM seconds / spaCy seconds (also against split + spaCy, since the parse the
spaCy extractor reuses is most of its real cost). ``--examples K`` prints what both extractors found in
the first K sentences, for a look at the quality behind the counts.

Usage::

    python bench/extract.py --data PATH/hotpotqa_distractor_sample100.json [--paragraphs 50]
        [--model gguf:qwen2.5-coder-1.5b] [--examples 3] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from time import perf_counter
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from citegraph.components import make_chat_model
from citegraph.errors import ModelOutputError
from citegraph.extract.base import Extractor
from citegraph.extract.llm_extractor import LLMExtractor
from citegraph.extract.spacy_extractor import SpacyExtractor
from citegraph.models import Document, Extraction
from citegraph.sentences import Sentence, SentenceSplitter
from common import environment, load_before_run, load_figures, read_questions, write_figures

DEFAULT_MODEL = "gguf:qwen2.5-coder-1.5b"
VERSION = "v1"
WARMUP_TEXT = "Ada Lovelace wrote the first published program for the Analytical Engine of Charles Babbage."


# -- data ---------------------------------------------------------------------------------------
def load_paragraphs(path: Path, limit: int) -> tuple[list[tuple[str, str]], int]:
    """``(title, text)`` of the first ``limit`` unique paragraphs (first title wins), and the questions read."""
    questions = read_questions(path)
    unique: dict[str, str] = {}
    read = 0
    for q in questions:
        if len(unique) >= limit:
            break
        read += 1
        context = q["context"]
        for title, sentences in zip(context["title"], context["sentences"], strict=True):
            unique.setdefault(title, "".join(sentences))
            if len(unique) >= limit:
                break
    return list(unique.items()), read


def split_documents(splitter: SentenceSplitter, paragraphs: list[tuple[str, str]], source: str) -> list[tuple[Document, list[Sentence]]]:
    documents = [Document(id=title, version=VERSION, text=text, source=source) for title, text in paragraphs]
    split = splitter.split_many([(d.id, d.version, d.text, d.media_type) for d in documents])
    return list(zip(documents, split, strict=True))


# -- the benchmark ------------------------------------------------------------------------------
def run_extractor(
    extractor: Extractor, work: Sequence[tuple[Document, list[Sentence]]], err: Console | None = None
) -> tuple[list[Extraction], float, list[str]]:
    """One ``extract`` per paragraph, timed as a whole. Returns (extractions, seconds, paragraph errors)."""
    extractions: list[Extraction] = []
    errors: list[str] = []
    progress: Progress | None = None
    if err is not None:
        progress = Progress(
            TextColumn(extractor.name),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.description}"),
            console=err,
            transient=False,
        )
        progress.start()
        task = progress.add_task("", total=len(work))
    try:
        start = perf_counter()
        for document, sentences in work:
            if progress is not None:
                progress.update(task, description=escape(f"{document.id[:40]} ({len(sentences)} sentences)"))
            try:
                extractions.append(extractor.extract(document, sentences))
            except ModelOutputError as exc:  # e.g. a prompt over the context window: the whole paragraph is lost
                errors.append(f"{document.id}: {exc}")
                extractions.append(Extraction(extractor.name))
            if progress is not None:
                progress.advance(task)
                if err is not None and not err.is_terminal:  # a redirected stderr (nohup) gets no live bar: one line per paragraph
                    done = len(extractions)
                    err.print(f"{extractor.name}: {done}/{len(work)} paragraphs, {perf_counter() - start:.0f} s", highlight=False)
        seconds = perf_counter() - start
    finally:
        if progress is not None:
            progress.stop()
    return extractions, seconds, errors


def figures(extractions: Sequence[Extraction], sentences: int, seconds: float) -> dict[str, Any]:
    entities = [e for x in extractions for e in x.entities]
    rejected = Counter((r.kind, r.reason) for x in extractions for r in x.rejected)
    return {
        "extractor": extractions[0].extractor if extractions else "",
        "paragraphs": len(extractions),
        "sentences": sentences,
        "seconds": round(seconds, 3),
        "sentences_per_s": round(sentences / seconds, 3) if seconds else None,
        "entity_mentions": len(entities),
        "distinct_entity_keys": len({e.key for e in entities}),
        "relations": sum(len(x.relations) for x in extractions),
        "rejections": {f"{kind}:{reason}": n for (kind, reason), n in sorted(rejected.items())},
    }


def llm_figures(extractor: LLMExtractor, extractions: Sequence[Extraction]) -> dict[str, Any]:
    stats = extractor.stats
    rejections = [r for x in extractions for r in x.rejected]
    accepted = sum(len(x.entities) for x in extractions)
    not_in_sentence = sum(1 for r in rejections if r.kind == "entity" and r.reason == "not_in_sentence")
    failed = sum(1 for r in rejections if r.reason == "extraction_failed")
    calls = stats["calls"]
    return {
        "calls": calls,
        "invalid_outputs": stats["invalid_outputs"],
        "valid_json_rate": round(1 - stats["invalid_outputs"] / calls, 4) if calls else None,
        "sentences_counted": stats["sentences"],
        "failed_sentences_counted": stats["failed_sentences"],
        "extraction_failed": failed,
        "entities_not_in_sentence": not_in_sentence,
        "rejected_entity_rate": round(not_in_sentence / (accepted + not_in_sentence), 4) if accepted + not_in_sentence else None,
        "rejected_relations": sum(1 for r in rejections if r.kind == "relation"),
        "failed_outputs": [r.record[:300] for r in rejections if r.reason == "extraction_failed"][:5],
        "rejected_entity_names": Counter(r.record for r in rejections if r.kind == "entity").most_common(10),
    }


def model_threads(extractor: LLMExtractor) -> str:
    llm = getattr(extractor.model, "llm", None)  # GGUFChat keeps its llama_cpp.Llama here
    if llm is None:
        return "n/a (server)"
    return f"{getattr(llm, 'n_threads', '?')} generation / {getattr(llm, 'n_threads_batch', '?')} prompt"


def examples(
    work: Sequence[tuple[Document, list[Sentence]]], spacy_x: Sequence[Extraction], llm_x: Sequence[Extraction], k: int
) -> list[dict[str, Any]]:
    """What each extractor found in the first ``k`` sentences (in document order)."""
    out: list[dict[str, Any]] = []
    for (_, sentences), sx, lx in zip(work, spacy_x, llm_x, strict=True):
        for sentence in sentences:
            if len(out) >= k:
                return out
            span = sentence.span

            def found(x: Extraction, span: Any = span) -> dict[str, list[str]]:
                return {
                    "entities": [f"{e.name} [{e.type}]" for e in x.entities if e.sentence == span],
                    "relations": [
                        f"{r.source_name or r.source_key} -[{r.type}]-> {r.target_name or r.target_key}"
                        for r in x.relations
                        if r.sentence == span
                    ],
                }

            where = f"{span.document}:{span.start}-{span.end}"
            llm = found(lx)
            llm["rejected"] = [
                f"{r.kind} {r.reason}: {r.record[:120]}"
                for r in lx.rejected
                if r.detail.endswith(where) or r.detail.startswith(f"{span.start}-{span.end}:")  # the formats LLMExtractor writes
            ]
            out.append({"sentence": span.text, "document": span.document, "spacy": found(sx), "llm": llm})
    return out


# -- output -------------------------------------------------------------------------------------
def render(out: Console, r: dict[str, Any]) -> None:
    s, m, q = r["spacy"], r["llm"], r["llm_quality"]
    table = Table(title="citegraph extraction benchmark: spaCy vs LLM", caption=r["data"])
    table.add_column("figure")
    table.add_column("spaCy", justify="right")
    table.add_column(f"LLM ({r['model']})", justify="right")
    rate = "n/a" if q["valid_json_rate"] is None else f"{100 * q['valid_json_rate']:.1f}%"
    ent_rate = "n/a" if q["rejected_entity_rate"] is None else f"{100 * q['rejected_entity_rate']:.1f}%"
    for label, a, b in [
        ("paragraphs", s["paragraphs"], m["paragraphs"]),
        ("sentences", s["sentences"], m["sentences"]),
        ("seconds", f"{s['seconds']:.2f}", f"{m['seconds']:.2f}"),
        ("sentences/s", f"{s['sentences_per_s']:.2f}", f"{m['sentences_per_s']:.3f}"),
        ("entities found (mentions)", s["entity_mentions"], m["entity_mentions"]),
        ("distinct entity keys", s["distinct_entity_keys"], m["distinct_entity_keys"]),
        ("relations found", s["relations"], m["relations"]),
        ("model calls (first tries + retries)", "", q["calls"]),
        ("valid-JSON rate (per call)", "", f"{rate}  ({q['invalid_outputs']} invalid)"),
        ("sentences failed after retries", "", q["extraction_failed"]),
        ("rejected-entity rate (not_in_sentence)", "", f"{ent_rate}  ({q['entities_not_in_sentence']})"),
        ("rejected relations", "", q["rejected_relations"]),
        ("paragraphs lost to errors", len(r["spacy_errors"]), len(r["llm_errors"])),
    ]:
        table.add_row(label, str(a), str(b))
    out.print(table)
    ratio = r["ratio_llm_over_spacy"]
    out.print(f"ratio LLM seconds / spaCy seconds: {ratio:,.0f}x" if ratio is not None else "ratio: n/a")
    out.print(f"sentence split (once, shared, in neither time): {r['split_s']:.2f} s")
    out.print(f"ratio LLM seconds / (split + spaCy) seconds: {r['ratio_llm_over_spacy_with_split']:,.0f}x (the parse is spaCy's real cost)")
    if q["rejected_entity_names"]:
        out.print("most rejected entity names:", escape(", ".join(f"{name!r} x{n}" for name, n in q["rejected_entity_names"])))
    for line in r["llm_errors"][:5]:
        out.print(f"[red]LLM error:[/red] {escape(line)}")
    for ex in r["examples"]:
        out.print(f"\n[bold]{escape(ex['document'])}[/bold]: {escape(ex['sentence'])}")
        for who in ("spacy", "llm"):
            found = ex[who]
            out.print(f"  {who:5} entities:  " + escape("; ".join(found["entities"])))
            out.print(f"  {who:5} relations: " + escape("; ".join(found["relations"])))
            if found.get("rejected"):
                out.print(f"  {who:5} rejected:  " + escape("; ".join(found["rejected"])))
    load = r["load_average_1min"]
    out.print(
        f"\n[dim]{r['environment']}; llama.cpp threads {r['llm_threads']}; "
        f"1-min load average {load['before']:.2f} before, {load['after']:.2f} after[/dim]"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="hotpotqa_distractor_sample100.json (a JSON list of HotpotQA objects)")
    parser.add_argument("--paragraphs", type=int, default=50, help="first N unique paragraphs, in file order (default 50)")
    parser.add_argument("--model", default=DEFAULT_MODEL, help=f"model spec for the LLM extractor (default {DEFAULT_MODEL})")
    parser.add_argument("--examples", type=int, default=3, help="print what both extractors found in the first K sentences (default 3)")
    parser.add_argument("--json-out", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    if args.paragraphs < 1:
        parser.error("--paragraphs must be at least 1")
    if not args.data.is_file():
        parser.error(f"--data {args.data}: no such file")

    out, err = Console(), Console(stderr=True)
    paragraphs, questions = load_paragraphs(args.data, args.paragraphs)
    if len(paragraphs) < args.paragraphs:
        err.print(f"[yellow]only {len(paragraphs)} unique paragraphs in {args.data}[/yellow]")

    load_before = load_before_run(err)

    splitter = SentenceSplitter()
    splitter.nlp(WARMUP_TEXT)  # loads spaCy outside every clock
    start = perf_counter()
    work = split_documents(splitter, paragraphs, str(args.data))
    split_s = perf_counter() - start
    sentences = sum(len(s) for _, s in work)
    err.print(f"{len(work)} paragraphs from {questions} questions, {sentences} sentences (split in {split_s:.2f} s)")

    spacy_extractor = SpacyExtractor(splitter)
    spacy_x, spacy_s, spacy_errors = run_extractor(spacy_extractor, work)

    err.print(f"loading {args.model} ...")
    llm = LLMExtractor(make_chat_model(args.model), nlp=splitter.nlp)
    warm_doc = Document(id="warmup", version=VERSION, text=WARMUP_TEXT, source="warmup")
    llm.extract(warm_doc, splitter.split(warm_doc.id, warm_doc.version, warm_doc.text))  # first call, outside the clock
    llm.stats = Counter()
    try:
        llm_x, llm_s, llm_errors = run_extractor(llm, work, err)
        quality = llm_figures(llm, llm_x)
        threads = model_threads(llm)
    finally:
        llm.close()

    result = {
        "data": str(args.data),
        "model": args.model,
        "questions_read": questions,
        "split_s": round(split_s, 3),
        "spacy": figures(spacy_x, sentences, spacy_s),
        "llm": figures(llm_x, sentences, llm_s),
        "llm_quality": quality,
        "ratio_llm_over_spacy": round(llm_s / spacy_s, 1) if spacy_s else None,
        "ratio_llm_over_spacy_with_split": round(llm_s / (split_s + spacy_s), 1),  # spaCy's real cost is the parse
        "spacy_errors": spacy_errors,
        "llm_errors": llm_errors,
        "examples": examples(work, spacy_x, llm_x, args.examples),
        "llm_threads": threads,
        "load_average_1min": load_figures(load_before),
        "environment": environment(),
    }
    render(out, result)
    write_figures(args.json_out, result, err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
