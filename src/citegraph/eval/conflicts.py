"""``citegraph eval conflicts``: do sources that disagree get caught? Precision and recall of the
context conflict check.

``ask`` compares the sentences of its context that come from different documents
(:func:`citegraph.answer.citations.source_conflict_warnings`, through
:func:`citegraph.verify.conflicts.find_conflicts` with ``sources``): the rules (numbers in their
dimension, dates, polarity, timing against an event), then the fast checker's P(contradicted) at
``SOURCE_CONFLICT_THRESHOLD``. This harness measures exactly that function on pairs built from
multi-hop data (HotpotQA, 2WikiMultihopQA, MuSiQue) without writing new text: every sentence of
every context paragraph (6-50 words) is put beside

- a copy in another document with one thing changed (positives): a number (``number``), a year
  (``date``), ``not`` inserted (``negation``), a moment moved ("for 30 days after X" -> "until X",
  "at X" -> "30 days after X": ``timing``), using :mod:`citegraph.eval.makers`;
- and, as negatives: the unchanged copy (``same``), the copy with a number said in words or a
  duration in another unit (``equivalent``: "30 days" -> "a month"), the next sentence of its
  paragraph (``neighbour``), and the sentence of another paragraph of the same question that shares
  the most content words with it (``related``: on topic, another document, usually no conflict;
  now and then a real one, so its rate bounds false alarms from above).

The checker's threshold is the lowest whose precision on dev (rules included) reaches
:data:`PRECISION_AIM`, 0.98 rather than the issue's 0.9: in a real context the pairs that do not
conflict outnumber those that do far more than the 3:2 of this set, and every false alarm turns an
answer ``conflicting``.

Halves: the halves of ``citegraph eval support`` (a hash of the question's line,
:func:`citegraph.eval.support.is_dev`), so that no test sentence was ever in the checker's training
data (its training pairs came from the dev half only); a paragraph that also belongs to a dev
question is left out of test. Test is reported at the shipped threshold and at the dev choice.
Baselines in the same table: "the two sentences differ" (every edit is a conflict) and word
overlap (Jaccard of content words >= the dev threshold that maximises F1).

Written: ``conflicts-NAME.md`` and ``conflicts-NAME.json`` (the figures, and every miss and false
alarm to read).

A corpus folder (``corpus.json``: ``citegraph eval answers``'s corpora) gives its own pairs instead:
each of its ``conflicts`` names two quotes (a 2023 FAQ's "optional" against the 2025 policy's
"mandatory"; the salary bands of two roles, which are no conflict), and each quote is read as ingest
reads it: the sentences of its document that hold it, joined. Nothing was tuned on these pairs;
they are one measure, reported at the shipped threshold (:func:`corpus_pairs`).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from citegraph.errors import InputFileError
from citegraph.eval import Bars, no_bars, report_name
from citegraph.eval.corpus import Corpus, is_corpus, load_corpus
from citegraph.eval.formats import MultiHopRow, is_multihop, multihop_row, read_json
from citegraph.eval.makers import MAKERS, moved_moment, word_number
from citegraph.eval.support import is_dev
from citegraph.ingest.base import load_file
from citegraph.models import Span
from citegraph.sentences import SentenceSplitter, load_spacy, sentence_before
from citegraph.verify.base import Verifier
from citegraph.verify.cascade import CheckingVerifier
from citegraph.verify.conflicts import SOURCE_CONFLICT_THRESHOLD, find_conflicts, with_subject
from citegraph.verify.text import content_words

__all__ = ["PRECISION_AIM", "build", "corpus_pairs", "corpus_report", "evaluate", "flags", "run"]

PRECISION_AIM = 0.98
POSITIVE = ("number", "date", "negation", "timing")
NEGATIVE = ("same", "equivalent", "neighbour", "related")
_DURATION = re.compile(r"\b(\d+|one|two|three|six|twelve|thirty) (days?|weeks?|months?|years?)\b")
_IN_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_WORDS = {"one": 1, "two": 2, "three": 3, "six": 6, "twelve": 12, "thirty": 30}


def equivalent(sentence: str) -> str | None:
    """The same value said another way: a small number in words, or a duration in another unit."""
    found = _DURATION.search(sentence)
    if found:
        count = int(found.group(1)) if found.group(1).isdigit() else _WORDS[found.group(1)]
        unit = found.group(2).rstrip("s")
        if unit == "month" and count % 12 == 0:
            new = f"{count // 12} year" + ("s" if count > 12 else "")
        elif unit == "year":
            new = f"{count * 12} months"
        elif unit == "week":
            new = f"{count * 7} days"
        elif unit == "day" and count in (7, 14, 21):
            new = f"{count // 7} week" + ("s" if count > 7 else "")
        elif unit == "day" and count in (30, 60, 90):
            new = f"{count // 30} month" + ("s" if count > 30 else "")
        else:
            new = None
        if new:
            return sentence[: found.start()] + new + sentence[found.end() :]
    return word_number(sentence)


#: the events of encyclopaedic text a moment is moved from ("at his death" -> "two years after death")
_EVENTS = ("death", "birth", "launch", "release", "founding", "opening", "closing", "end", "start", "beginning", "retirement", "election")


def build(rows: Sequence[MultiHopRow]) -> list[dict[str, Any]]:
    """Every pair, each with its kind, half and label (True: a conflict)."""
    nlp = load_spacy()
    in_dev = {t for line, row in enumerate(rows) if is_dev(line) for t, _s in row.paragraphs}
    seen: set[str] = set()
    units: list[tuple[str, str, str, list[str], int, list[tuple[str, list[str]]]]] = []
    for line, row in enumerate(rows):
        half = "dev" if is_dev(line) else "test"
        paragraphs = [(title, list(sentences)) for title, sentences in row.paragraphs]
        for title, sentences in paragraphs:
            if title in seen or (half == "test" and title in in_dev):
                continue
            seen.add(title)
            clean = [s.strip() for s in sentences]
            for i, s in enumerate(clean):
                if 6 <= len(s.split()) <= 50:
                    units.append((half, title, s, clean, i, [(t, [x.strip() for x in xs]) for t, xs in paragraphs if t != title]))
    pairs: list[dict[str, Any]] = []
    for (half, title, sentence, clean, i, others), doc in zip(units, nlp.pipe(u[2] for u in units), strict=True):

        def add(kind: str, other: str, half: str = half, title: str = title, sentence: str = sentence) -> None:
            pairs.append({"title": title, "half": half, "kind": kind, "a": sentence, "b": other, "conflict": kind in POSITIVE})

        made = {kind: MAKERS[kind](doc) for kind in ("number", "date", "negation")}
        made["timing"] = moved_moment(sentence, _EVENTS, "two years")
        for kind in POSITIVE:
            if made[kind] and made[kind] != sentence:
                add(kind, made[kind])  # type: ignore[arg-type]
        add("same", sentence)
        rewrite = equivalent(sentence)
        if rewrite and rewrite != sentence:
            add("equivalent", rewrite)
        if i + 1 < len(clean) and len(clean[i + 1].split()) >= 5:
            add("neighbour", clean[i + 1])
        words = content_words(sentence)
        best = max(((len(words & content_words(s)), s) for _t, xs in others for s in xs if len(s.split()) >= 5), default=(0, ""))
        if best[0] >= 2:
            add("related", best[1])
    return pairs


_SPACE = re.compile(r"[\s|*_]+")


def _plain(text: str) -> str:
    """Text compared as a reader sees it: case, whitespace and Markdown table and emphasis marks dropped."""
    return _SPACE.sub(" ", text.casefold()).strip()


def corpus_pairs(corpus: Corpus, splitter: SentenceSplitter | None = None) -> list[dict[str, Any]]:
    """The corpus's planted pairs, each quote as the sentences of its document that hold it (what a
    context would hold), in the shape :func:`flags` reads (``half`` "corpus", ``kind`` its label)."""
    splitter = splitter or SentenceSplitter()
    sentences: dict[str, tuple[str, list[Span]]] = {}

    def held(document: str, quote: str) -> str:
        if document not in sentences:
            loaded = load_file(corpus.root / document)
            sentences[document] = (loaded.text, [s.span for s in splitter.split(document, "v", loaded.text, loaded.media_type)])
        text, spans = sentences[document]
        wanted = _plain(quote)
        hit = [
            # a sentence that opens with "It" is compared with the subject it stands for, as ask compares it
            with_subject(s.text, sentence_before(text, s.start))
            for s in spans
            if (plain := _plain(s.text)) and (plain in wanted or wanted in plain)
        ]
        if not hit:
            raise InputFileError(
                str(corpus.root / "corpus.json"), f"conflict quote not in {document}: {quote!r}", "quote the document's words"
            )
        return " ".join(hit)

    return [
        {
            "title": f"{a.document} / {b.document}",
            "half": "corpus",
            "kind": "planted conflict" if conflict else "planted agreement",
            "a": held(a.document, a.quote),
            "b": held(b.document, b.quote),
            "conflict": conflict,
        }
        for a, b, conflict in corpus.conflicts
    ]


def corpus_report(name: str, pairs: list[dict[str, Any]], seconds: float) -> tuple[dict[str, Any], str]:
    """Precision and recall of the shipped check on a corpus's planted pairs, beside the baselines."""
    overlap = 0.3  # the word-overlap baseline at a fixed, untuned threshold: these pairs choose nothing
    result: dict[str, Any] = {
        "pairs": len(pairs),
        "shipped_threshold": SOURCE_CONFLICT_THRESHOLD,
        "shipped": _pr(pairs, _at(SOURCE_CONFLICT_THRESHOLD)),
        "rules_only": _pr(pairs, lambda r: r["rule"] is not None),
        "baseline_differ": _pr(pairs, lambda r: r["a"] != r["b"]),
        "baseline_overlap": _pr(pairs, lambda r: _jaccard(r) >= overlap),
    }
    lines = [
        f"# Sources that disagree, on the pairs planted in {name}",
        "",
        f"{len(pairs)} pairs ({result['shipped']['positives']} conflicts); the shipped check (rules, then the checker at "
        f"{SOURCE_CONFLICT_THRESHOLD}); {seconds:.0f} s. Baselines: every differing pair flagged; word overlap (Jaccard of "
        f"content words) >= {overlap}.",
        "",
        "| detector | precision | recall | flagged | positives | pairs |",
        "|---|---|---|---|---|---|",
    ]
    for detector in ("shipped", "rules_only", "baseline_differ", "baseline_overlap"):
        r = result[detector]
        lines.append(f"| {detector} | {_fmt(r['precision'])} | {_fmt(r['recall'])} | {r['flagged']} | {r['positives']} | {r['pairs']} |")
    lines += [
        "",
        "Every pair (✓ flagged by the shipped check):",
        "",
        "| label | flagged | rule | checker P | a | b |",
        "|---|---|---|---|---|---|",
    ]
    for p in pairs:
        lines.append(
            f"| {'conflict' if p['conflict'] else 'no conflict'} | {'✓' if _at(SOURCE_CONFLICT_THRESHOLD)(p) else ''} | {p['rule'] or ''} "
            f"| {_fmt(p['p'])} | {p['a'][:90]} | {p['b'][:90]} |"
        )
    return result, "\n".join(lines) + "\n"


def flags(pairs: list[dict[str, Any]], verifier: Verifier, advance: Callable[..., None] = lambda *_a: None) -> None:
    """For each pair, what the rules say and the checker's P(contradicted) where the product would ask it."""
    rules_only = CheckingVerifier(checker=False, screen=False)
    for n, pair in enumerate(pairs, 1):
        if n % 200 == 0 or n == len(pairs):
            advance(n, len(pairs))
        rules = find_conflicts([pair["a"], pair["b"]], rules_only, sources=["A", "B"])
        pair["rule"] = rules.conflicts[0].kind if rules.conflicts else None
        model = find_conflicts([pair["a"], pair["b"]], verifier, sources=["A", "B"], threshold=0.0)
        pair["p"] = max((c.score for c in model.conflicts if c.kind == "checker" and c.score is not None), default=None)


def _pr(rows: list[dict[str, Any]], flagged: Any) -> dict[str, Any]:
    tp = sum(1 for r in rows if r["conflict"] and flagged(r))
    fp = sum(1 for r in rows if not r["conflict"] and flagged(r))
    pos = sum(1 for r in rows if r["conflict"])
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / pos if pos else None
    return {"precision": precision, "recall": recall, "flagged": tp + fp, "positives": pos, "pairs": len(rows)}


def _at(threshold: float) -> Any:
    return lambda r: r["rule"] is not None or (r["p"] is not None and r["p"] >= threshold)


def _jaccard(r: dict[str, Any]) -> float:
    a, b = content_words(r["a"]), content_words(r["b"])
    return len(a & b) / len(a | b) if a | b else 0.0


def evaluate(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    dev = [p for p in pairs if p["half"] == "dev"]
    test = [p for p in pairs if p["half"] == "test"]
    grid = [round(0.5 + 0.01 * k, 2) for k in range(50)]
    chosen = next((t for t in grid if (_pr(dev, _at(t))["precision"] or 0) >= PRECISION_AIM), 1.0)
    overlap = max(grid, key=lambda t: _f1(_pr(dev, lambda r, t=t: _jaccard(r) >= t)))
    out: dict[str, Any] = {"dev_threshold": chosen, "shipped_threshold": SOURCE_CONFLICT_THRESHOLD, "overlap_threshold": overlap}
    for name, rows in (("dev", dev), ("test", test)):
        out[name] = {
            "shipped": _pr(rows, _at(SOURCE_CONFLICT_THRESHOLD)),
            "dev_choice": _pr(rows, _at(chosen)),
            "rules_only": _pr(rows, lambda r: r["rule"] is not None),
            "baseline_differ": _pr(rows, lambda r: r["a"] != r["b"]),
            "baseline_overlap": _pr(rows, lambda r, t=overlap: _jaccard(r) >= t),
            "by_kind": {
                kind: {
                    "pairs": sum(1 for r in rows if r["kind"] == kind),
                    "flagged_shipped": sum(1 for r in rows if r["kind"] == kind and _at(SOURCE_CONFLICT_THRESHOLD)(r)),
                    "flagged_rules": sum(1 for r in rows if r["kind"] == kind and r["rule"] is not None),
                }
                for kind in (*POSITIVE, *NEGATIVE)
            },
        }
    return out


def _f1(pr: dict[str, Any]) -> float:
    p, r = pr["precision"] or 0.0, pr["recall"] or 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.3f}"


def report(name: str, result: dict[str, Any], seconds: float) -> str:
    lines = [
        f"# Sources that disagree, on pairs built from {name}",
        "",
        f"{result['pairs']} pairs; {seconds:.0f} s in all.",
        "",
        f"Checker threshold shipped: {result['shipped_threshold']}; chosen on dev (lowest with precision >= {PRECISION_AIM}): "
        f"{result['dev_threshold']}; word-overlap baseline threshold (best F1 on dev): {result['overlap_threshold']}.",
        "",
        "| half | detector | precision | recall | flagged | positives | pairs |",
        "|---|---|---|---|---|---|---|",
    ]
    for half in ("dev", "test"):
        for name in ("shipped", "dev_choice", "rules_only", "baseline_differ", "baseline_overlap"):
            r = result[half][name]
            lines.append(
                f"| {half} | {name} | {_fmt(r['precision'])} | {_fmt(r['recall'])} | {r['flagged']} | {r['positives']} | {r['pairs']} |"
            )
    lines += [
        "",
        "Flagged per kind (test half; positives first):",
        "",
        "| kind | pairs | flagged (shipped) | flagged (rules) |",
        "|---|---|---|---|",
    ]
    for kind, row in result["test"]["by_kind"].items():
        lines.append(f"| {kind} | {row['pairs']} | {row['flagged_shipped']} | {row['flagged_rules']} |")
    return "\n".join(lines) + "\n"


def run(
    paths: Sequence[Path],
    *,
    out: Path,
    limit: int | None = None,
    bars: Bars = no_bars,
    each: Callable[[Path], None] = lambda _path: None,
) -> list[dict[str, Any]]:
    """Pairs built from each multi-hop data set of ``paths``, through the product's conflict check
    (rules, then the shipped checker); the reports under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    summaries = []
    for path in paths:
        if is_corpus(path):
            name = report_name(path.name, taken, path)
            started = time.perf_counter()
            pairs = corpus_pairs(load_corpus(path))
            with bars(f"{name}: pairs") as advance:
                flags(pairs, CheckingVerifier(checker=True), advance)
            result, text = corpus_report(name, pairs, time.perf_counter() - started)
            md = out / f"conflicts-{name}.md"
            md.write_text(text, encoding="utf-8")
            (out / f"conflicts-{name}.json").write_text(json.dumps({"result": result, "pairs": pairs}, indent=1) + "\n", encoding="utf-8")
            each(md)
            summaries.append({"name": name, "corpus": result["shipped"]})
            continue
        raw = read_json(path)
        if not isinstance(raw, list) or not raw or not is_multihop(raw[0]):
            raise InputFileError(str(path), "not multi-hop questions", "give HotpotQA, 2WikiMultihopQA or MuSiQue questions")
        rows = [multihop_row(r, i, str(path)) for i, r in enumerate(raw[:limit])]
        name = report_name(path.stem, taken, path)
        started = time.perf_counter()
        pairs = build(rows)
        with bars(f"{name}: pairs") as advance:
            flags(pairs, CheckingVerifier(checker=True), advance)
        result = {**evaluate(pairs), "pairs": len(pairs), "data": str(path)}
        text = report(name, result, time.perf_counter() - started)
        md = out / f"conflicts-{name}.md"
        md.write_text(text, encoding="utf-8")
        errors = [p for p in pairs if _at(SOURCE_CONFLICT_THRESHOLD)(p) != p["conflict"]]
        (out / f"conflicts-{name}.json").write_text(json.dumps({"result": result, "errors": errors}, indent=1) + "\n", encoding="utf-8")
        each(md)
        summaries.append({"name": name, "dev": result["dev"]["shipped"], "test": result["test"]["shipped"]})
    return summaries
