"""Check a development corpus (a folder with ``corpus.json``, read by ``citegraph eval answers``)
against the text citegraph itself reads from its documents (``citegraph.ingest.base.load_file``:
the same loaders as ingest, so a gold quote a loader would lose fails here):

    python bench/check_corpus.py corpora/brightwave corpora/riverside-libraries

- every document listed exists, has access labels, and every file under ``docs/`` is listed;
- ids are unique; every third question of each kind, in the order written, is ``test``;
- every gold quote is in its document, readable by the question's caller; every answer alias and
  ``required`` alias is in one of the gold documents; a ``two_hop`` question's gold spans two
  documents; a ``summary`` has 3-5 required groups;
- a ``stale`` question names its current and old quotes, the old document is dated before the
  current one (as citegraph reads their dates), the old value is in the old quote, and the answers
  are in the current document;
- a question its caller cannot answer (``unanswerable``, or ``access`` without answers) has no
  answers and no gold; a staff-only answer is in no document that question's caller may read;
- ``absent`` (``{label: [phrase, ...]}``, top level): phrases that would answer an unanswerable
  question occur in no document (a guard against an edit that quietly makes one answerable);
- a planted conflict's two quotes are in their documents, a true one between documents of
  different dates.

``--minimums`` also holds the corpus to the sizes issue 35 asks for (16 documents, 85 questions,
the per-kind counts, 8 conflicts and 8 non-conflicts). Exit 1 with the problems listed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from citegraph.ingest.base import load_file

MINIMUMS = {
    "long_fact": 15,
    "pdf_fact": 8,
    "chat_who": 6,
    "chat_when": 4,
    "chat_fact": 6,
    "two_hop": 10,
    "stale": 6,
    "unanswerable": 10,
    "summary": 5,
    "access": 4,
}
SIZES = {"documents": 16, "questions": 85, "conflicts": 8, "non_conflicts": 8}


def norm(text: str) -> str:
    """Text as a reader compares it: case and whitespace, and the "|" between a table's cells, ignored."""
    return " ".join(text.casefold().replace("|", " ").split())


def check(folder: Path, *, minimums: bool = False, split_rule: bool = True) -> tuple[list[str], Counter[tuple[str, str]]]:
    """The problems of the corpus in ``folder``, and its question counts by (kind, split); with
    ``split_rule``, every third question of a kind must be ``test`` (this project's corpora's rule)."""
    corpus: dict[str, Any] = json.loads((folder / "corpus.json").read_text(encoding="utf-8"))
    problems: list[str] = []
    texts: dict[str, str] = {}
    labels: dict[str, set[str]] = {}
    dated: dict[str, str | None] = {}
    for doc in corpus.get("documents", []):
        path = doc["path"]
        if not (folder / path).is_file():
            problems.append(f"document missing on disk: {path}")
            continue
        if not doc.get("access"):
            problems.append(f"document without access labels: {path}")
        loaded = load_file(folder / path)
        texts[path], labels[path], dated[path] = norm(loaded.text), set(doc.get("access", [])), loaded.dated
    docs = folder / "docs"
    listed = {str(p.relative_to(folder)) for p in docs.rglob("*") if p.is_file()} if docs.is_dir() else set()
    problems += [f"file under docs/ not listed in corpus.json: {extra}" for extra in sorted(listed - set(texts))]

    def quoted(where: str, ref: dict[str, Any]) -> str | None:
        doc = ref.get("document")
        if doc not in texts:
            problems.append(f"{where}: unknown document {doc!r}")
            return None
        if not ref.get("quote") or norm(ref["quote"]) not in texts[doc]:
            problems.append(f"{where}: quote not found in {doc}: {ref.get('quote')!r}")
        return str(doc)

    ids: set[str] = set()
    order: Counter[str] = Counter()
    counts: Counter[tuple[str, str]] = Counter()
    questions = corpus.get("questions", [])
    for q in questions:
        qid, kind = q["id"], q["kind"]
        if qid in ids:
            problems.append(f"{qid}: duplicate id")
        ids.add(qid)
        order[kind] += 1
        counts[(kind, q["split"])] += 1
        if split_rule and q["split"] != ("test" if order[kind] % 3 == 0 else "dev"):
            problems.append(f"{qid}: split {q['split']!r} breaks the rule (every third question of a kind is test)")
        caller = set(q.get("caller") or ["public"])
        gold = [d for i, ref in enumerate(q.get("gold") or []) if (d := quoted(f"{qid} gold[{i}]", ref))]
        problems += [f"{qid}: gold document {d} is not readable by caller {sorted(caller)}" for d in gold if not labels[d] & caller]
        answers, required = q.get("answers") or [], q.get("required") or []
        if kind == "unanswerable" or (kind == "access" and not answers):
            if answers or q.get("gold"):
                problems.append(f"{qid}: its caller cannot answer it, but it has answers or gold")
            continue
        if not answers:
            problems.append(f"{qid}: no answers")
        for alias in [*answers, *(a for group in required for a in group)]:
            if not any(norm(alias) in texts[d] for d in gold):
                problems.append(f"{qid}: {alias!r} is in none of its gold documents {gold}")
        if kind == "two_hop" and len(set(gold)) < 2:
            problems.append(f"{qid}: a two-hop question's gold must span two documents")
        if kind == "summary" and not 3 <= len(required) <= 5:
            problems.append(f"{qid}: a summary needs 3-5 required groups")
        stale = q.get("stale")
        if kind == "stale":
            if not stale or not {"current", "old", "old_value"} <= set(stale):
                problems.append(f"{qid}: a stale question needs stale.current, stale.old and stale.old_value")
                continue
            current = quoted(f"{qid} stale.current", stale["current"])
            old = quoted(f"{qid} stale.old", stale["old"])
            if current and old and not (dated.get(old) or "") < (dated.get(current) or ""):
                problems.append(
                    f"{qid}: the old document ({old}, {dated.get(old)}) is not dated before the current one ({dated.get(current)})"
                )
            if norm(stale["old_value"]) not in norm(stale["old"]["quote"]):
                problems.append(f"{qid}: old_value {stale['old_value']!r} is not in the old quote")
            problems += [f"{qid}: {a!r} is not in the current document" for a in answers if current and norm(a) not in texts[current]]
    for q in questions:  # a staff-only answer must not be readable by the caller of the same question without it
        if q["kind"] != "access" or not q.get("answers"):
            continue
        for twin in (t for t in questions if t["kind"] == "access" and t["question"] == q["question"] and not t.get("answers")):
            readable = [d for d, lab in labels.items() if lab & set(twin.get("caller") or ["public"])]
            problems += [
                f"{twin['id']}: its caller can read the answer {a!r} in {d}" for a in q["answers"] for d in readable if norm(a) in texts[d]
            ]
    for label, phrases in (corpus.get("absent") or {}).items():
        for phrase in phrases:
            pattern = re.compile(r"(?<!\w)" + re.escape(norm(phrase)))
            problems += [f"absent {label!r}: {phrase!r} occurs in {d}" for d, text in texts.items() if pattern.search(text)]
    conflicts = Counter()
    for i, c in enumerate(corpus.get("conflicts") or []):
        a, b = quoted(f"conflicts[{i}].a", c["a"]), quoted(f"conflicts[{i}].b", c["b"])
        conflicts[bool(c["conflict"])] += 1
        if c["conflict"] and a and b and dated.get(a) == dated.get(b):
            problems.append(f"conflicts[{i}]: a true conflict must be between documents of different dates ({a}, {b})")
    if minimums:
        kinds = Counter(q["kind"] for q in questions)
        problems += [f"kind {k}: {kinds[k]} questions, need {n}" for k, n in MINIMUMS.items() if kinds[k] < n]
        found = {"documents": len(texts), "questions": len(questions), "conflicts": conflicts[True], "non_conflicts": conflicts[False]}
        problems += [f"{what}: {found[what]}, need {n}" for what, n in SIZES.items() if found[what] < n]
    return problems, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", type=Path, nargs="+")
    parser.add_argument("--minimums", action="store_true", help="also require issue 35's sizes")
    parser.add_argument("--any-split", action="store_true", help="do not hold the questions to the every-third-is-test rule")
    args = parser.parse_args()
    failed = False
    for folder in args.corpora:
        problems, counts = check(folder, minimums=args.minimums, split_rule=not args.any_split)
        kinds = sorted({k for k, _ in counts})
        print(f"{folder}: " + ", ".join(f"{k} {counts[(k, 'dev')]}/{counts[(k, 'test')]}" for k in kinds) + " (dev/test)")
        for problem in problems:
            print(f"  - {problem}")
        print(f"  {'OK' if not problems else f'{len(problems)} problem(s)'}")
        failed |= bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
