"""Does ``contradicted`` mean something? Precision and recall of the label on built contradictions.

From each HotpotQA question's supporting sentences (the premise, quoted as it is), claims are built
with spaCy:

- ``number``: a number that is not part of a date, doubled (or +3 when it is 0 or 1);
- ``date``: a year inside a date moved by 7;
- ``negation``: ``not`` put after the main verb's auxiliary (or after a copula at the root);
- ``swap``: two named entities of the same type (person, organisation, place, group) swapped;

and two controls that are not contradictions:

- ``same``: the sentence itself (supported);
- ``neighbour``: another sentence of the same paragraph (on topic, neither entailed nor denied; now
  and then it does conflict, so its rate is an upper bound on false alarms).

Each pair goes through :class:`CheckingVerifier` as ``ask`` runs it (contradiction check on), and the
table gives, per kind, the share labelled ``contradicted``, ``not_supported`` and ``supported``;
then precision and recall of ``contradicted`` (built kinds are positives, controls negatives), for
the whole label and for the part a guard proves (a conflict guard fired). Dev and test are halves
of the questions by a hash of the id, as elsewhere; nothing here was tuned on either.

    python bench/contradictions.py --data ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json \\
        --verifier gguf:qwen2.5-coder-1.5b --out docs/results/DATE/contradictions.md
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from citegraph.eval.makers import MAKERS
from citegraph.models import Span
from citegraph.sentences import load_spacy
from common import environment, read_questions, write_report

BUILT = ("number", "date", "negation", "swap")
CONTROLS = ("same", "neighbour")


def build(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pairs: per question, each built kind once (from the first supporting sentence it applies
    to) and the two controls from the first supporting sentence."""
    nlp = load_spacy()
    pairs = []
    for row in rows:
        half = "dev" if int(hashlib.sha256(row["id"].encode()).hexdigest(), 16) % 2 == 0 else "test"
        paragraphs = dict(zip(row["context"]["title"], row["context"]["sentences"], strict=True))
        facts = row["supporting_facts"]
        gold = [(t, i) for t, i in zip(facts["title"], facts["sent_id"], strict=True) if i < len(paragraphs.get(t, []))]
        sentences = [paragraphs[t][i].strip() for t, i in gold]
        docs = [nlp(s) for s in sentences]
        for kind, make in MAKERS.items():
            for premise, doc in zip(sentences, docs, strict=True):
                claim = make(doc)
                if claim and claim != premise:
                    pairs.append({"id": row["id"], "half": half, "kind": kind, "premise": premise, "claim": claim})
                    break
        if gold:
            title, i = gold[0]
            premise = sentences[0]
            pairs.append({"id": row["id"], "half": half, "kind": "same", "premise": premise, "claim": premise})
            others = [s.strip() for j, s in enumerate(paragraphs[title]) if j != i and len(s.split()) >= 5]
            if others:
                pairs.append({"id": row["id"], "half": half, "kind": "neighbour", "premise": premise, "claim": others[0]})
    return pairs


def _precision_recall(rows: list[dict[str, Any]], flag: Callable[[dict[str, Any]], bool]) -> tuple[float | None, float | None, int]:
    """Precision and recall of ``flag`` as a detector of the built contradictions (None where undefined), and how many it flagged."""
    flagged = [p for p in rows if flag(p)]
    hits = sum(1 for p in flagged if p["kind"] in BUILT)
    positives = sum(1 for p in rows if p["kind"] in BUILT)
    return (hits / len(flagged) if flagged else None), (hits / positives if positives else None), len(flagged)


def _at(threshold: float) -> Callable[[dict[str, Any]], bool]:
    return lambda p: (p.get("p_contradiction") or 0.0) >= threshold


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _threshold_table(pairs: list[dict[str, Any]]) -> list[str]:
    """The judge's contradiction prompt on every pair, alone: precision and recall at 0.5 and at the
    lowest threshold reaching precision 0.8 on dev (none when no threshold does)."""
    dev = [p for p in pairs if p["half"] == "dev"]
    test = [p for p in pairs if p["half"] == "test"]
    candidates = sorted({round(p["p_contradiction"], 4) for p in dev if p.get("p_contradiction") is not None})
    chosen = None
    for t in candidates:
        precision, _recall, flagged = _precision_recall(dev, _at(t))
        if (precision or 0) >= 0.8 and flagged >= 5:
            chosen = t
            break
    lines = ["", "The judge's contradiction prompt on every pair (P(yes) ≥ threshold flags it):", ""]
    lines += ["| threshold | half | precision | recall | flagged |", "|---|---|---|---|---|"]
    for name, t in (("0.5 (the product's)", 0.5), (f"{chosen} (lowest with precision ≥ 0.8 on dev)" if chosen is not None else "", chosen)):
        if t is None:
            lines.append("| no threshold reaches precision 0.8 on dev (with ≥ 5 flagged) | | | | |")
            continue
        for half, rows in (("dev", dev), ("test", test)):
            precision, recall, flagged = _precision_recall(rows, _at(t))
            lines.append(f"| {name} | {half} | {_fmt(precision)} | {_fmt(recall)} | {flagged} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="HotpotQA distractor JSON (a list of rows)")
    parser.add_argument("--verifier", default="guards", help="'guards' (no model) or a judge model spec")
    parser.add_argument("--out", type=Path, help="write the markdown table here (and the labels beside it as .json)")
    args = parser.parse_args()
    from citegraph.components import make_verifier

    pairs = build(read_questions(args.data))
    verifier = make_verifier(args.verifier)
    start = time.perf_counter()
    for p in pairs:
        span = Span("bench", "pair", 0, len(p["premise"]), p["premise"])
        support = verifier.verify(p["claim"], [span])
        p["label"], p["stage"] = support.label, str(support.stage)
        p["proof"] = any(" conflict: " in g for g in support.guards)
    seconds = time.perf_counter() - start
    judge = getattr(verifier, "judge", None)
    if judge is not None:  # the raw P(contradiction) of every pair, for a threshold chosen on dev
        for p in pairs:
            p["p_contradiction"] = judge.contradiction(p["claim"], p["premise"])
    lines = [
        f"# `contradicted` on built contradictions from {args.data.name}",
        "",
        f"{environment()}. `python bench/contradictions.py --data {args.data.name} --verifier {args.verifier}`;"
        f" {len(pairs)} pairs, {seconds / max(len(pairs), 1):.2f} s per pair.",
        "",
        "| half | kind | pairs | contradicted | not_supported | supported | unverified | a guard proves a conflict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for half in ("dev", "test"):
        for kind in (*BUILT, *CONTROLS):
            rows = [p for p in pairs if p["half"] == half and p["kind"] == kind]
            c = Counter(p["label"] for p in rows)
            n = len(rows)
            cells = [f"{c[label] / n:.2f}" if n else "–" for label in ("contradicted", "not_supported", "supported", "unverified")]
            proof = f"{sum(p['proof'] for p in rows) / n:.2f}" if n else "–"
            lines.append(f"| {half} | {kind} | {n} | " + " | ".join(cells) + f" | {proof} |")
    lines += ["", "Precision and recall of `contradicted` (built kinds: contradictions; controls: not):", ""]
    lines += ["| half | label | precision | recall | flagged |", "|---|---|---|---|---|"]
    for half in ("dev", "test"):
        rows = [p for p in pairs if p["half"] == half]
        for name, flag in (
            ("contradicted (as labelled)", lambda p: p["label"] == "contradicted"),
            ("a guard's proof only", lambda p: p["proof"]),
        ):
            precision, recall, flagged = _precision_recall(rows, flag)
            lines.append(f"| {half} | {name} | {_fmt(precision)} | {_fmt(recall)} | {flagged} |")
    if judge is not None:
        lines += _threshold_table(pairs)
    text = "\n".join(lines) + "\n"
    print(text)
    write_report(args.out, text)
    if args.out:
        labels = [{k: p.get(k) for k in ("id", "half", "kind", "label", "stage", "proof", "p_contradiction")} for p in pairs]
        args.out.with_suffix(".json").write_text(json.dumps(labels, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
