"""``citegraph eval citations``: ALCE's citation recall and precision, judged by citegraph's own check.

ALCE (Gao et al., 2023, "Enabling Large Language Models to Generate Text with Citations") scores an
answer's ``[N]`` markers against the documents it was given. The data, read from a path:

* ALCE's layout: items ``{question, docs: [{title, text}], output | answer}``, as a JSON list, as
  ``{"data": [...]}`` (how ALCE saves a system's generations: the answer is ``output``) or as
  ``{"demos": [...]}`` (its prompt files, whose ``answer`` the authors wrote with citations).
  ``[N]`` names the N-th document, from 1.

The scores, as ALCE defines them (its ``compute_autoais``, described in ``../shared/data/alce``):

* the answer is split into claims (citegraph's splitter, pysbd, where ALCE used NLTK); for a list
  answer (QAMPARI, or ``--list``), every comma-separated item is a claim, prefixed by the question;
* **citation recall** of a claim is 1 when it has a citation, every cited number names a document,
  and the cited documents together (``Title: t`` and the text) entail it; an answer's recall is the
  mean over its claims;
* **citation precision**: a citation of a claim whose cited documents together do not entail it is
  imprecise; of a claim with one citation, precise when that one entails it; of a claim with several
  that together entail it, precise when it alone entails the claim, or when the others without it do
  not (it is needed), imprecise when they do (an over-citation). An answer's precision is its
  precise citations over its citations that name a document (0 when it has none);
* a data set's figures are the means over answers.

Where this differs from ALCE's script: markers are read as citegraph reads them (``[1, 2]`` cites
both, a repeated marker counts once; ALCE reads the first number of a group and counts repeats), the
answer is not cut at its first line break, and QAMPARI's rule is chosen by ``--list`` or the file's
name. As in ALCE, a claim that cites a missing document has recall 0 and adds nothing to precision,
and only a claim's first :data:`MAX_CITATIONS` citations are checked and counted.

"Entails" is citegraph's :class:`~citegraph.verify.cascade.CheckingVerifier` (guards, near quote,
screen, judge at its calibrated threshold) answering ``supported``, where ALCE asks T5-XXL TRUE. An
``unverified`` verdict (no stage settled it: no judge) counts as not entailed, and how many there were
is reported. Nothing is fitted or chosen on these files, so there is no dev/test split here.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citegraph.answer.citations import MARKER, parse_markers, split_claims
from citegraph.errors import InputFileError
from citegraph.eval import Bars, no_bars, report_name
from citegraph.eval.formats import read_json
from citegraph.models import Span, Support
from citegraph.verify.base import Verifier

__all__ = ["MAX_CITATIONS", "AnswerScore", "CitationItem", "ClaimScore", "evaluate", "load", "report", "score_answer"]

MAX_CITATIONS = 3  #: citations of one claim checked and counted (ALCE's at_most_citations, and citegraph's own joint check)
_FIX = "ALCE items {question, docs: [{title, text}], output or answer}, as a list, {data: [...]} or {demos: [...]}"


@dataclass(frozen=True)
class CitationItem:
    id: str
    question: str
    answer: str
    docs: tuple[tuple[str, str], ...]  #: (title, text), in marker order: [1] is the first


@dataclass(frozen=True)
class ClaimScore:
    text: str
    markers: tuple[int, ...]  #: as written, each once
    invalid: tuple[int, ...]  #: markers naming no document
    recall: float  #: 1.0 when the cited documents together entail the claim
    precise: tuple[bool, ...]  #: per counted citation (the first 3, none when a marker is invalid), in ``markers`` order
    joint: Support | None  #: the verdict on the cited documents together (None: nothing to check)


@dataclass(frozen=True)
class AnswerScore:
    item: CitationItem
    claims: tuple[ClaimScore, ...]
    seconds: float

    @property
    def recall(self) -> float:
        return statistics.fmean(c.recall for c in self.claims) if self.claims else 0.0

    @property
    def precision(self) -> float:
        marks = [p for c in self.claims for p in c.precise]
        return sum(marks) / len(marks) if marks else 0.0


def load(path: Path, limit: int | None = None) -> tuple[str, list[CitationItem]]:
    """``(name, items)``: the first ``limit`` items of an ALCE file (see the module docstring)."""
    raw = read_json(path)
    rows = raw.get("data", raw.get("demos")) if isinstance(raw, dict) else raw
    if not isinstance(rows, list) or not rows:
        raise InputFileError(str(path), "no items found", _FIX)
    items = []
    for i, row in enumerate(rows[:limit]):
        answer = row.get("output", row.get("answer")) if isinstance(row, dict) else None
        docs = row.get("docs") if isinstance(row, dict) else None
        if isinstance(answer, list):  # ALCE keeps some answers as a list of sentences
            answer = " ".join(str(a) for a in answer)
        if not isinstance(answer, str) or not isinstance(docs, list) or not all(isinstance(d, dict) and "text" in d for d in docs):
            raise InputFileError(f"{path}: item {i}", "needs a cited answer ('output' or 'answer') and docs [{title, text}]", _FIX)
        pairs = tuple((str(d.get("title") or ""), str(d["text"])) for d in docs)
        items.append(CitationItem(str(row.get("id", row.get("qid", i))), str(row.get("question", "")), answer, pairs))
    if not any(MARKER.search(item.answer) for item in items):
        raise InputFileError(
            str(path),
            "no answer cites anything ([N] markers)",
            "ALCE's eval files hold gold answers without citations: score a system's saved generations ('output')",
        )
    return path.stem, items


def _claims(item: CitationItem, as_list: bool) -> list[str]:
    if not as_list:
        return split_claims(item.answer)
    body = item.answer.strip().rstrip(".").rstrip(",")
    return [f"{item.question} {part.strip()}" for part in body.split(",") if part.strip()]


def _span(item: CitationItem, marker: int) -> Span:
    title, text = item.docs[marker - 1]
    premise = f"Title: {title}\n{text}" if title else text
    return Span(f"doc {marker}", "given", 0, len(premise), premise)


def score_answer(item: CitationItem, verifier: Verifier, *, as_list: bool = False) -> AnswerScore:
    """ALCE's recall and precision of one answer's citations, every check made by ``verifier``."""
    start = time.perf_counter()
    parsed = []
    for raw in _claims(item, as_list):
        text, markers = parse_markers(raw)
        if not text:
            continue
        unique = tuple(dict.fromkeys(markers))
        invalid = tuple(m for m in unique if not 1 <= m <= len(item.docs))
        # ALCE: a claim citing a missing document is not entailed and adds no citation to precision;
        # otherwise its first MAX_CITATIONS citations are the ones checked and counted
        checked = () if invalid else unique[:MAX_CITATIONS]
        parsed.append((text, unique, invalid, checked))
    # 1. the cited documents together, for every claim with citations that all name a document
    joint_jobs = [(text, [_span(item, m) for m in valid]) for text, unique, invalid, valid in parsed if unique and not invalid]
    joint = iter(verifier.verify_many(joint_jobs))
    verdicts = [next(joint) if unique and not invalid else None for _, unique, invalid, _ in parsed]
    # 2. each citation alone, where several together entail the claim
    several = [i for i, (_, _, _, valid) in enumerate(parsed) if len(valid) > 1 and _entails(verdicts[i])]
    alone_jobs = [(parsed[i][0], [_span(item, m)]) for i in several for m in parsed[i][3]]
    alone_iter = iter(verifier.verify_many(alone_jobs))
    alone = {(i, m): _entails(next(alone_iter)) for i in several for m in parsed[i][3]}
    # 3. the others without it, for a citation that does not entail the claim alone: is it needed?
    rest_keys = [(i, m) for (i, m), ok in alone.items() if not ok]
    rest_jobs = [(parsed[i][0], [_span(item, o) for o in parsed[i][3] if o != m]) for i, m in rest_keys]
    rest = dict(zip(rest_keys, (_entails(v) for v in verifier.verify_many(rest_jobs)), strict=True))
    claims = []
    for i, (text, unique, invalid, valid) in enumerate(parsed):
        entailed = _entails(verdicts[i])
        # several citations that together entail: each is precise alone, or when the others need it
        precise = tuple(alone[i, m] or not rest[i, m] for m in valid) if i in several else tuple(entailed for _ in valid)
        claims.append(ClaimScore(text, unique, invalid, 1.0 if entailed else 0.0, precise, verdicts[i]))
    return AnswerScore(item, tuple(claims), time.perf_counter() - start)


def _entails(support: Support | None) -> bool:
    return support is not None and support.label == "supported"


def evaluate(
    items: Sequence[CitationItem], verifier: Verifier, progress: Callable[[int, int], None] = lambda i, n: None, *, as_list: bool = False
) -> list[AnswerScore]:
    scored = []
    for n, item in enumerate(items):
        scored.append(score_answer(item, verifier, as_list=as_list))
        progress(n + 1, len(items))
    return scored


def report(name: str, verifier: str, scored: Sequence[AnswerScore], out_dir: Path) -> dict[str, Any]:
    """Write ``{name}.md`` and ``{name}.json`` (every claim's verdict); return the summary."""
    claims = [c for a in scored for c in a.claims]
    verdicts = [c.joint for c in claims if c.joint is not None]
    stages: dict[str, int] = {}
    for v in verdicts:
        stages[str(v.stage)] = stages.get(str(v.stage), 0) + 1
    summary: dict[str, Any] = {
        "data": name,
        "verifier": verifier,
        "answers": len(scored),
        "claims": len(claims),
        "citation_recall": statistics.fmean(a.recall for a in scored) if scored else None,
        "citation_precision": statistics.fmean(a.precision for a in scored) if scored else None,
        "uncited_claims": sum(1 for c in claims if not c.markers),
        "claims_with_invalid_markers": sum(1 for c in claims if c.invalid),
        "unverified_checks": sum(1 for v in verdicts if v.label == "unverified"),
        "joint_checks_by_stage": dict(sorted(stages.items())),
        "seconds_per_answer": statistics.fmean(a.seconds for a in scored) if scored else None,
    }
    out_dir.mkdir(parents=True, exist_ok=True)

    def cell(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.3f}"

    lines = [
        f"# Citation recall and precision (ALCE's definitions): {name}",
        "",
        f"verifier: `{verifier}`; {len(scored)} answers, {len(claims)} claims; nothing fitted on this file",
        "",
        "| citation recall | citation precision | uncited claims | claims with invalid markers | unverified checks | s per answer |",
        "|---|---|---|---|---|---|",
        f"| {cell(summary['citation_recall'])} | {cell(summary['citation_precision'])} | {summary['uncited_claims']} | "
        f"{summary['claims_with_invalid_markers']} | {summary['unverified_checks']} | {cell(summary['seconds_per_answer'])} |",
        "",
        "The stage that decided each joint check: "
        + (", ".join(f"{k} {v}" for k, v in summary["joint_checks_by_stage"].items()) or "none"),
        "",
        *(
            [
                f"{summary['unverified_checks']} of {len(verdicts)} joint checks were left `unverified` (no stage settled them; "
                "without a judge model only near-quotes and the screen can) and count as not entailed: the figures are a floor.",
                "",
            ]
            if summary["unverified_checks"]
            else []
        ),
        "| answer | claims | recall | precision |",
        "|---|---|---|---|",
        *[f"| {a.item.id} | {len(a.claims)} | {a.recall:.2f} | {a.precision:.2f} |" for a in scored],
    ]
    (out_dir / f"{name}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    detail = {
        **summary,
        "items": [
            {
                "id": a.item.id,
                "question": a.item.question,
                "recall": a.recall,
                "precision": a.precision,
                "claims": [
                    {
                        "text": c.text,
                        "markers": list(c.markers),
                        "invalid": list(c.invalid),
                        "recall": c.recall,
                        "precise": list(c.precise),
                        "label": c.joint.label if c.joint else None,
                        "score": c.joint.score if c.joint else None,
                        "stage": str(c.joint.stage) if c.joint else None,
                    }
                    for c in a.claims
                ],
            }
            for a in scored
        ],
    }
    (out_dir / f"{name}.json").write_text(json.dumps(detail, indent=2, ensure_ascii=False), encoding="utf-8")
    return summary


def run(
    paths: Sequence[Path],
    verifier: str,
    *,
    threshold: float,
    timeout: float,
    limit: int | None,
    as_list: bool | None,
    out: Path,
    bars: Bars = no_bars,
    each: Callable[[Path], None] = lambda report: None,
) -> list[dict[str, Any]]:
    """``citegraph eval citations``: each file's cited answers scored with the verifier ``verifier``
    names, one report per file under ``out``. ``as_list`` None applies ALCE's list rule to a file
    whose name says qampari. Returns the reports' summaries."""
    from citegraph.components import make_verifier

    checker = make_verifier(verifier, threshold=threshold, timeout=timeout)
    summaries = []
    taken: set[str] = set()
    try:
        for path in paths:
            name, items = load(path, limit)
            name = report_name(name, taken, path)
            listed = as_list if as_list is not None else "qampari" in path.name.lower()
            with bars(name) as advance:
                scored = evaluate(items, checker, advance, as_list=listed)
            summaries.append(report(name, verifier, scored, out))
            each(out / f"{name}.md")
    finally:
        checker.close()
    return summaries
