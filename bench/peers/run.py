"""Run citegraph and its peers on the same corpus, each in its own venv, and write one table.

    bench/peers/setup.sh && python bench/peers/run.py --data ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json

Every system runs as a child process (``.venvs/NAME/bin/python SCRIPT ...``) twice: with no model
delay (insert, then the questions) and with ``--llm-delay`` seconds per model call (insert only,
on the first ``--delay-docs`` documents). Each child writes a JSON record (see ``common.py``); this
driver adds its own wall time and the load average around it, and writes ``peers.json`` and
``peers.md`` into ``--out-dir``. Standard library only, so any Python 3.11 runs it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

#: name -> (venv, script, extra arguments, model calls at insert?)
SYSTEMS: dict[str, tuple[str, str, list[str], bool]] = {
    "citegraph": ("citegraph", "citegraph_run.py", [], False),
    "citegraph-llm": ("citegraph", "citegraph_run.py", ["--variant", "llm"], True),
    "lightrag": ("lightrag", "lightrag_run.py", [], True),
    "nano-graphrag": ("nano-graphrag", "nano_graphrag_run.py", [], True),
    "graphrag": ("graphrag", "ms_graphrag_run.py", ["--variant", "standard"], True),
    "graphrag-fast": ("graphrag", "ms_graphrag_run.py", ["--variant", "fast"], True),
}
VIEWS = {  # the insert overhead, three ways; the first is the target's own measure
    "framework_s": "framework s (wall, model and embedder time excluded)",
    "framework_cpu_s": "framework CPU s (model and embedder CPU excluded)",
    "wall_less_model_s": "framework + embedder s (wall less model time)",
}
TARGET_INSERT_RATIO = 10.0  #: citegraph's framework overhead at least this many times below LightRAG's and nano-graphrag's


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = next(int(x.split()[1]) for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("MemTotal"))
    except (OSError, StopIteration):
        mem = 0
    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory_gb": round(mem / 2**20, 1),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def run_child(name: str, delay: float, docs: int | None, questions: int | None, args: argparse.Namespace) -> dict[str, Any]:
    venv, script, extra, _ = SYSTEMS[name]
    python = HERE / ".venvs" / venv / "bin" / "python"
    if not python.exists():
        return {"system": name, "error": f"{python} missing: run bench/peers/setup.sh {venv}"}
    tag = f"{name}-delay{delay:g}"
    out = args.work / f"{tag}.json"
    log = args.work / f"{tag}.log"
    if args.reuse and out.exists():
        record = json.loads(out.read_text())
        same = (
            record.get("subset") == args.subset
            and record.get("llm_delay_s") == delay
            and record.get("documents") == min(docs or 1000, 1000)
            and (questions is None or record.get("questions") == questions)
        )
        if same:
            print(f"[{time.strftime('%H:%M:%S')}] {tag}: reusing {out}", file=sys.stderr, flush=True)
            record.setdefault("driver", {})["reused"] = True
            return record
    out.unlink(missing_ok=True)
    cmd = [
        str(python),
        str(HERE / script),
        "--data",
        str(args.data),
        "--workdir",
        str(args.work / tag),
        "--out",
        str(out),
        "--llm-delay",
        str(delay),
    ]
    cmd += extra
    if docs is not None:
        cmd += ["--docs", str(docs)]
    if questions is not None:
        cmd += ["--questions", str(questions)]
    cmd += ["--subset", args.subset]
    if delay:
        cmd.append("--skip-queries")
    load = os.getloadavg()[0]
    print(f"[{time.strftime('%H:%M:%S')}] {tag}: running (load {load:.2f}), log {log}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    with log.open("w") as fh:
        try:
            proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, timeout=args.timeout, cwd=REPO, check=False)
            code: int | str = proc.returncode
        except subprocess.TimeoutExpired:
            code = f"timeout after {args.timeout} s"
    seconds = time.perf_counter() - start
    if code != 0 or not out.exists():
        tail = log.read_text(errors="replace").splitlines()[-15:]
        print(f"  {tag} failed ({code}):\n    " + "\n    ".join(tail), file=sys.stderr)
        return {"system": name, "llm_delay_s": delay, "error": f"exit {code}", "log_tail": tail}
    record = json.loads(out.read_text())
    record["driver"] = {"child_wall_s": round(seconds, 1), "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2)}
    print(f"  done in {seconds:.0f} s", file=sys.stderr, flush=True)
    return record


# -- the table ----------------------------------------------------------------------------------
def _f(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def label(r: dict[str, Any]) -> str:
    name = f"{r['system']} {r.get('version', '')}".strip()
    variant = r.get("variant", "default")
    return f"{name} ({variant})" if variant not in ("default", "standard") else name


def table(plain: list[dict[str, Any]], delayed: dict[str, dict[str, Any]], delay: float) -> list[str]:
    lines = [
        "| system | query mode | insert wall s | insert CPU s | embedder s | framework s | framework CPU s | model calls/doc | embed calls/doc | texts embedded/doc "
        f"| peak RSS MB | store MB | s/doc, no delay | s/doc, {delay:g} s/call | query p50 ms | p95 ms | all-gold@8 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in plain:
        if "error" in r:
            lines.append(f"| {r['system']} | failed: {r['error']} |" + " |" * 15)
            continue
        i, q = r["insert"], r.get("query", {})
        d = delayed.get(r["_name"])
        if d is None:
            per_doc = "no model calls" if not SYSTEMS[r["_name"]][3] else "–"
        elif "error" in d:
            per_doc = f"failed ({d['error']})"
        else:
            per_doc = f"{d['insert']['wall_per_doc_s']:.3f} (n={d['documents']})"
        lines.append(
            f"| {label(r)} | {r.get('mode', '')} | {_f(i['insert_wall_s'])} | {_f(i['insert_cpu_s'])} | {_f(i['embed_s'])} | {_f(i['framework_s'], 2)} "
            f"| {_f(i['framework_cpu_s'], 2)} | {_f(i['model_calls_per_doc'], 2)} | {_f(i['embed_calls_per_doc'], 2)} | {_f(i['embedded_texts_per_doc'])} "
            f"| {_f(i['peak_rss_after_insert_mb'], 0)} | {_f(i['store_mb'])} | {i['wall_per_doc_s']:.3f} | {per_doc} | {_f(q.get('query_p50_ms'))} | {_f(q.get('query_p95_ms'))} "
            f"| {_f(q.get('all_gold@8'), 3)} |"
        )
    return lines


def verdicts(plain: list[dict[str, Any]]) -> list[str]:
    by = {r["_name"]: r for r in plain if "error" not in r}
    cg = by.get("citegraph")
    if cg is None:
        return ["citegraph's run failed: no verdicts."]
    out = []
    for r in by.values():  # framework and embedder together: the insert wall less the model's own time
        r["insert"]["wall_less_model_s"] = round(r["insert"]["insert_wall_s"] - r["insert"]["model_s"], 3)
    for key in ("framework_s", "framework_cpu_s", "wall_less_model_s"):
        base = cg["insert"][key]
        for peer in [p for p in SYSTEMS if not p.startswith("citegraph")]:
            if peer not in by:
                out.append(f"- insert {VIEWS[key]}: {peer} did not run.")
                continue
            other = by[peer]["insert"][key]
            ratio = other / base if base and base > 0 else None
            ok = ratio is not None and ratio >= TARGET_INSERT_RATIO
            verdict = (
                f"{'meets' if ok else 'misses'} the target of at least {TARGET_INSERT_RATIO:g}x"
                if peer in ("lightrag", "nano-graphrag")
                else "for reference: the target names LightRAG and nano-graphrag"
            )
            shown = "n/a" if ratio is None else f"{ratio:.1f}x"
            out.append(f"- insert {VIEWS[key]}: {label(by[peer])} {other:.2f} vs citegraph {base:.2f}: {shown} ({verdict})")
    p50 = cg.get("query", {}).get("query_p50_ms")
    for name, r in by.items():
        if name.startswith("citegraph") or "query" not in r:
            continue
        other = r["query"]["query_p50_ms"]
        ok = p50 is not None and p50 < other
        out.append(f"- query p50: citegraph {p50} ms vs {label(r)} {other} ms ({'meets' if ok else 'misses'} the target: below every peer)")
    return out


NOT_EQUAL = """\
What could not be made equal
----------------------------

* **Extraction.** The peers get citegraph's spaCy facts through their LLM hook, computed before the
  clock (a look-up table keyed by the chunk text); citegraph runs spaCy inside its ingest. To compare
  like with like, citegraph's time inside its sentence splitter and extractor is subtracted from its
  "framework" figure, as the peers' (near-zero) stand-in time is from theirs. A peer chunk that is
  not a whole passage (LightRAG splits passages longer than the embedder's 256 tokens) is extracted
  on the spot: counted as a miss and as model time. Graph *content* still differs: each peer merges,
  upper-cases, summarises and prunes names its own way, and GraphRAG's fast method does not use the
  spaCy facts at all (its own noun-phrase extractor, with spaCy's ``syntactic_parser`` because the
  default ``regex_english`` needs NLTK corpora that are downloaded at run time).
* **What is embedded.** Same embedder (MiniLM int8 ONNX, 256-token window), but each system embeds
  what its design calls for: citegraph every sentence and new entity key; LightRAG chunks, entities
  (name + description) and relations; nano-graphrag entities only (its naive chunk index is off by
  default); GraphRAG entity descriptions, community reports and text units. The embedder seconds are
  reported apart from the framework seconds for that reason.
* **Descriptions.** A real model writes a paraphrase; the stand-in describes an entity by the first
  sentence that mentions it and a relation by its sentence, so merged descriptions (and the text the
  peers embed and summarise) are longer than a terse model's would be.
* **Model calls.** Every system keeps its defaults: one gleaning pass (LightRAG, nano-graphrag,
  GraphRAG), description summaries (LightRAG on merge of 8+, nano-graphrag above 500 tokens,
  GraphRAG whenever an entity has several descriptions), community reports (nano-graphrag,
  GraphRAG). Those calls are counted; with no delay they cost only the framework's handling.
* **citegraph with a model.** citegraph's default calls no model at insert, so the delay does not
  touch it. The row "citegraph (LLM extractor)" shows its other mode: ``LLMExtractor``, one call
  per sentence, 4 at a time, behind a stand-in answering each sentence with its spaCy facts. There
  the spaCy parse for sentence boundaries and the extractor's checks on every name (a spaCy call
  each) are framework time.
* **Concurrency.** Defaults again: LightRAG 4 model calls at a time (3 documents in parallel),
  nano-graphrag 16, GraphRAG 25 threads. The embedder is one ONNX session: GraphRAG's threads take
  turns on it (a lock), the async peers call it on their event loop.
* **Query.** citegraph: its default mode (``bridge-embedded``), the ranked evidence spans (up to 200) mapped to
  their passages, as ``citegraph eval retrieval`` ranks them. LightRAG: ``local`` via ``aquery_data``
  (one keyword-extraction model call per question, answered from the question's spaCy entities;
  no answer generated). nano-graphrag: ``local`` with ``only_need_context`` (no model call).
  GraphRAG: the local search context builder, built once (no model call). The passages are the
  chunks/text units of each system's context in its own order; a peer's context may hold fewer
  than 8 passages, which counts against it at k=8.
* **Tokenizer.** All peers count tokens with tiktoken's cl100k_base (the only encoding shipped
  offline): LightRAG and GraphRAG through their settings, nano-graphrag by pointing tiktoken's
  "gpt-4o" entry at cl100k_base (its chunker hard-codes that model).
* **The machine.** A shared 2-core machine: other jobs ran at the same time (see the load averages
  in peers.json). CPU seconds are less disturbed by that than wall seconds.
"""


def shown_argv() -> list[str]:
    """The command line for the report, its --note (printed on its own) left out."""
    argv, out, skip = sys.argv[1:], [], False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
        elif arg == "--note":
            skip = i + 1 < len(argv)
        elif not arg.startswith("--note="):
            out.append(arg)
    return out


def write_report(
    out_dir: Path, plain: list[dict[str, Any]], delayed: dict[str, dict[str, Any]], args: argparse.Namespace, started: str
) -> None:
    info = machine()
    docs = next((r["documents"] for r in plain if "documents" in r), None)
    questions = next((r["questions"] for r in plain if "questions" in r), None)
    versions = ", ".join(f"{r['system']} {r['version']}" for r in plain if "version" in r and r.get("variant") in ("default", "standard"))
    subset = (
        "every question's two gold paragraphs first, then each question's first distractor, and so on (`--subset spread`)"
        if args.subset == "spread"
        else "the first paragraphs in question order (`--subset prefix`)"
    )
    lines = [
        "# citegraph and its peers: the same corpus, embedder and stand-in model",
        "",
        f"Run {started} with `python bench/peers/run.py {' '.join(shown_argv())}`."
        + (" Records already in `bench/peers/work/` from an earlier run with the same settings were reused." if args.reuse else ""),
        "",
        *([args.note, ""] if args.note else []),
        f"Machine: {info['cpu']}, {info['cpus']} CPUs, {info['memory_gb']} GB, {info['os']}, Python {info['python']}. Versions: {versions}.",
        f"Corpus: {docs} of the 1,000 HotpotQA paragraphs (one document each, title as id; "
        + (subset if docs is not None and docs < 1000 else "all of them")
        + f"), {questions} questions"
        + (f"; the delay runs insert the first {args.delay_docs} documents." if args.delay_docs else "."),
        "",
        *table(plain, delayed, args.llm_delay),
        "",
        "Columns: *insert wall/CPU s*: the one insert call (process CPU, all threads). *embedder s*: time inside citegraph's "
        "MiniLM embedder behind the system's hook. *framework s*: insert wall − time inside the stand-in model (citegraph: "
        "inside its spaCy splitter and extractor) − embedder time; *framework CPU s*: the same in CPU seconds. *model calls/doc*, "
        "*embed calls/doc*, *texts embedded/doc*: per inserted document. *peak RSS*: the child's maximum resident memory after the "
        "insert (models loaded: spaCy, ONNX). *store MB*: the system's files on disk. *s/doc, no delay / with delay*: insert wall per document, "
        "without and with every model call waiting that long. *query p50/p95*: one question at a time, warm, retrieval only. *all-gold@8*: both "
        "gold paragraphs among the first 8 distinct passages of the system's retrieved context.",
        "",
        *(
            [
                f"Reading the delay column: the delay runs inserted {args.delay_docs} documents, the others {docs}. The peers' cost per "
                "document grows with the corpus (each merge re-embeds, and may summarise, a longer description), so a delay run's "
                "s/doc is not comparable with the no-delay s/doc of the larger run; what it shows is how far each system's "
                "concurrency hides a model that takes that long per call.",
                "",
            ]
            if args.delay_docs and docs and args.delay_docs < docs
            else []
        ),
        "Targets (reported, not tuned for):",
        *verdicts(plain),
        "",
        NOT_EQUAL,
    ]
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "peers.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = [{k: v for k, v in r.items() if k != "_name"} for r in [*plain, *delayed.values()]]
    (out_dir / "peers.json").write_text(
        json.dumps({"started": started, "argv": sys.argv[1:], "machine": info, "records": records}, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    print("\n".join(lines[:-1]))  # all but the notes
    print(f"written: {out_dir / 'peers.md'}, {out_dir / 'peers.json'}", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="hotpotqa_distractor_sample100.json (or its folder)")
    ap.add_argument("--docs", type=int, default=None, help="insert only the first N unique paragraphs (default: all)")
    ap.add_argument("--questions", type=int, default=None, help="ask only the first N questions whose gold paragraphs are inserted")
    ap.add_argument(
        "--subset",
        choices=("spread", "prefix"),
        default="spread",
        help="which paragraphs --docs keeps: 'spread' (every question's gold paragraphs, then each one's first distractor, ...) or 'prefix'",
    )
    ap.add_argument("--llm-delay", type=float, default=0.5, help="seconds per model call in the delay runs (0: no delay runs)")
    ap.add_argument("--delay-docs", type=int, default=None, help="documents for the delay runs (default: --docs)")
    ap.add_argument("--systems", nargs="+", choices=list(SYSTEMS), default=list(SYSTEMS))
    ap.add_argument("--timeout", type=int, default=3600, help="seconds one child may run")
    ap.add_argument("--note", default="", help="a sentence for the report (e.g. why a subset was run)")
    ap.add_argument("--reuse", action="store_true", help="take a system's record from --work when one with the same settings is there")
    ap.add_argument("--work", type=Path, default=HERE / "work", help="stores and child logs (ignored by git)")
    ap.add_argument("--out-dir", type=Path, default=None, help="default: docs/results/<today>/peers")
    args = ap.parse_args()
    if args.data.is_dir():
        args.data = args.data / "hotpotqa_distractor_sample100.json"
    args.data = args.data.resolve()
    args.work = args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.delay_docs is None:
        args.delay_docs = args.docs
    out_dir = args.out_dir or REPO / "docs" / "results" / dt.date.today().isoformat() / "peers"
    started = dt.datetime.now().isoformat(timespec="seconds")

    plain: list[dict[str, Any]] = []
    delayed: dict[str, dict[str, Any]] = {}
    for name in args.systems:
        record = run_child(name, 0.0, args.docs, args.questions, args)
        record["_name"] = name
        plain.append(record)
    if args.llm_delay:
        for name in args.systems:
            if SYSTEMS[name][3]:  # citegraph's default insert calls no model: the delay changes nothing
                record = run_child(name, args.llm_delay, args.delay_docs, args.questions, args)
                record["_name"] = name
                delayed[name] = record
    write_report(out_dir, plain, delayed, args, started)


if __name__ == "__main__":
    main()
