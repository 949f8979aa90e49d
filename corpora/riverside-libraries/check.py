"""Check the riverside-libraries corpus: every gold quote and answer is really in its document.

Run with an interpreter that has pypdf, e.g.:

    /work/main/.venv/bin/python corpora/riverside-libraries/check.py

Exits 0 when every check passes, 1 otherwise, and prints question counts per kind and split.
Only the standard library and pypdf are used; nothing here calls citegraph or a model.
"""
from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path

HERE = Path(__file__).resolve().parent

MINIMUMS = {
    "long_fact": 15, "pdf_fact": 8, "chat_who": 6, "chat_when": 4, "chat_fact": 6,
    "two_hop": 10, "stale": 6, "unanswerable": 10, "summary": 5, "access": 4,
}
MIN_QUESTIONS = 85
MIN_DOCUMENTS = 16
MIN_TRUE_CONFLICTS = 8
MIN_NON_CONFLICTS = 8

# Unanswerable questions are plausible things the documents never state. These are strings
# whose presence in any document the caller may read would suggest the fact is stated after
# all (checked case-insensitively). A hit fails the check; remove the question or the text.
UNANSWERABLE_PROBES = {
    "parking": ["parking", "car park"],
    "passport": ["passport"],
    "deputy manager": ["deputy manager", "deputy branch manager", "assistant manager"],
    "vice-chair": ["vice-chair", "vice chair", "deputy chair"],
    "per gram": ["per gram", "a gram", "/g "],
    "postcode": ["postcode", "post code"],
    "employ": ["we employ", "employs", "staff in total", "headcount"],
    "opened in": ["opened in 19", "opened in 20", "built in", "was built in"],
    "Head of Libraries grade": ["head of libraries | rl", "head of libraries | £"],
}


# ---------------------------------------------------------------- text extraction

class _VisibleText(HTMLParser):
    """Visible text of an HTML page: <head>, <script>, <style> dropped; block tags break lines."""

    HIDDEN = {"head", "script", "style", "noscript", "template"}
    BLOCK = {"p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th",
             "table", "caption", "thead", "tbody", "section", "article", "main", "header", "footer",
             "nav", "br", "dd", "dt", "dl", "blockquote", "pre", "hr", "figure", "figcaption"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag in self.BLOCK:
            self.parts.append("\n")

    def handle_startendtag(self, tag, attrs):
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in self.HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def html_text(raw: str) -> str:
    parser = _VisibleText()
    parser.feed(raw)
    parser.close()
    return "".join(parser.parts)


def pdf_text(path: Path) -> str:
    from pypdf import PdfReader  # imported here so the error names the missing package clearly

    return "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)


def document_text(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return pdf_text(path)
    raw = path.read_text(encoding="utf-8")
    if suffix in (".html", ".htm"):
        return html_text(raw)
    return raw  # Markdown, plain text and JSON are checked as read


def norm(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    return re.sub(r"\s+", " ", text).strip().casefold()


def document_date(path: Path, raw_text: str) -> str | None:
    """Date of a document from YAML front matter (date:) or <meta name="date">."""
    if path.suffix.lower() in (".md", ".markdown"):
        m = re.match(r"---\n(.*?)\n---", raw_text, re.S)
        if m:
            d = re.search(r"^date:\s*['\"]?(\d{4}-\d{2}-\d{2})", m.group(1), re.M)
            if d:
                return d.group(1)
    if path.suffix.lower() in (".html", ".htm"):
        d = re.search(r'<meta\s+name="date"\s+content="(\d{4}-\d{2}-\d{2})"', raw_text)
        if d:
            return d.group(1)
    return None


# ---------------------------------------------------------------- checks

def main() -> int:
    corpus = json.loads((HERE / "corpus.json").read_text(encoding="utf-8"))
    errors: list[str] = []

    def err(msg: str) -> None:
        errors.append(msg)

    if corpus.get("name") != "riverside-libraries":
        err("name must be 'riverside-libraries'")
    if corpus.get("licence") != "CC0-1.0, written for citegraph":
        err("licence must be 'CC0-1.0, written for citegraph'")

    # documents
    texts: dict[str, str] = {}
    dates: dict[str, str | None] = {}
    access: dict[str, set[str]] = {}
    for doc in corpus["documents"]:
        p = doc["path"]
        if p in texts:
            err(f"document listed twice: {p}")
            continue
        path = HERE / p
        if not path.is_file():
            err(f"missing document: {p}")
            continue
        if not doc.get("access"):
            err(f"document without access labels: {p}")
        access[p] = set(doc.get("access", []))
        texts[p] = norm(document_text(path))
        raw = path.read_text(encoding="utf-8") if path.suffix.lower() != ".pdf" else ""
        dates[p] = document_date(path, raw)
    if len(texts) < MIN_DOCUMENTS:
        err(f"only {len(texts)} documents, need {MIN_DOCUMENTS}")
    on_disk = {str(f.relative_to(HERE)) for f in (HERE / "docs").rglob("*") if f.is_file()}
    for extra in sorted(on_disk - set(texts)):
        err(f"file under docs/ not listed in corpus.json: {extra}")

    def readable(caller: list[str]) -> list[str]:
        return [p for p, labels in access.items() if labels & set(caller)]

    def has(doc: str, s: str) -> bool:
        return doc in texts and norm(s) in texts[doc]

    def check_ref(where: str, ref: dict) -> str | None:
        d, q = ref.get("document"), ref.get("quote", "")
        if d not in texts:
            err(f"{where}: unknown document {d!r}")
            return None
        if not q.strip():
            err(f"{where}: empty quote")
        elif not has(d, q):
            err(f"{where}: quote not found in {d}: {q!r}")
        return d

    # questions
    questions = corpus["questions"]
    ids = Counter(q["id"] for q in questions)
    for i, n in ids.items():
        if n > 1:
            err(f"duplicate id {i}")
    per_kind_seen: Counter = Counter()
    counts: dict[str, Counter] = defaultdict(Counter)
    required_keys = {"id", "kind", "split", "caller", "question", "answers", "gold", "stale"}
    for q in questions:
        qid = q.get("id", "?")
        missing = required_keys - set(q)
        if missing:
            err(f"{qid}: missing keys {sorted(missing)}")
            continue
        kind = q["kind"]
        if kind not in MINIMUMS:
            err(f"{qid}: unknown kind {kind!r}")
        per_kind_seen[kind] += 1
        want_split = "test" if per_kind_seen[kind] % 3 == 0 else "dev"
        if q["split"] != want_split:
            err(f"{qid}: split is {q['split']!r}, the every-third rule says {want_split!r}")
        counts[kind][q["split"]] += 1
        if not q["caller"]:
            err(f"{qid}: empty caller")
        if not q["question"].strip():
            err(f"{qid}: empty question")
        answers = q["answers"]
        gold = q["gold"]
        required = q.get("required") or []
        gold_docs = []
        for j, g in enumerate(gold):
            d = check_ref(f"{qid} gold[{j}]", g)
            if d:
                gold_docs.append(d)
                if not access.get(d, set()) & set(q["caller"]):
                    err(f"{qid}: caller {q['caller']} cannot read gold document {d}")

        if kind == "unanswerable" or (kind == "access" and not answers):
            if answers or gold or required or q["stale"]:
                err(f"{qid}: an unanswerable question needs answers [], gold [], no required, stale null")
            continue

        if not answers:
            err(f"{qid}: answerable question without answers")
        if not gold:
            err(f"{qid}: answerable question without gold")
        for a in answers:
            if not any(has(d, a) for d in gold_docs):
                err(f"{qid}: answer alias {a!r} not in any gold document {sorted(set(gold_docs))}")
        for k, group in enumerate(required):
            if not group:
                err(f"{qid}: required[{k}] is empty")
            for a in group:
                if not any(has(d, a) for d in gold_docs):
                    err(f"{qid}: required[{k}] alias {a!r} not in any gold document")

        if kind == "two_hop":
            if len(set(gold_docs)) < 2:
                err(f"{qid}: two_hop needs gold quotes from two documents")
            if len(required) < 2:
                err(f"{qid}: two_hop needs a required group for each hop")
        if kind == "summary" and not 3 <= len(required) <= 5:
            err(f"{qid}: summary needs 3-5 required groups, has {len(required)}")
        if kind == "stale":
            st = q["stale"]
            if not st:
                err(f"{qid}: stale question without stale object")
            else:
                cur = check_ref(f"{qid} stale.current", st["current"])
                old = check_ref(f"{qid} stale.old", st["old"])
                if cur and old:
                    if not has(old, st["old_value"]):
                        err(f"{qid}: old_value {st['old_value']!r} not in {old}")
                    if norm(st["old_value"]) not in norm(st["old"]["quote"]):
                        err(f"{qid}: old_value {st['old_value']!r} not inside the old quote")
                    if any(norm(st["old_value"]) == norm(a) for a in answers):
                        err(f"{qid}: the stale value is listed as an answer")
                    dc, do = dates.get(cur), dates.get(old)
                    if not (dc and do and do < dc):
                        err(f"{qid}: old document must be dated before the current one ({do} vs {dc})")
                    if cur not in gold_docs:
                        err(f"{qid}: stale.current document should also be in gold")
                if not required:
                    err(f"{qid}: stale question needs required (the current value)")
        elif q["stale"] is not None:
            err(f"{qid}: stale must be null for kind {kind}")

    # access pairs: a question asked by a caller who may not read the answer must not be able to
    # find the answer in anything it can read.
    by_text = defaultdict(list)
    for q in questions:
        if q["kind"] == "access":
            by_text[norm(q["question"])].append(q)
    for _text, group in by_text.items():
        answered = [q for q in group if q["answers"]]
        blocked = [q for q in group if not q["answers"]]
        if not answered or not blocked:
            err(f"access question without its pair (one answerable, one not): {group[0]['id']}")
        for b in blocked:
            for a_q in answered:
                if set(a_q["caller"]) == set(b["caller"]):
                    err(f"{b['id']} and {a_q['id']}: same caller, different answers")
                for d in readable(b["caller"]):
                    for a in a_q["answers"]:
                        if has(d, a):
                            err(f"{b['id']}: caller {b['caller']} can read the answer {a!r} in {d}")

    # unanswerable probes
    for label, probes in UNANSWERABLE_PROBES.items():
        for d in texts:
            for s in probes:
                if norm(s) in texts[d]:
                    err(f"unanswerable probe {label!r}: {s!r} occurs in {d}")

    # conflicts
    conflicts = corpus.get("conflicts", [])
    n_true = n_false = 0
    for k, c in enumerate(conflicts):
        a = check_ref(f"conflicts[{k}].a", c["a"])
        b = check_ref(f"conflicts[{k}].b", c["b"])
        if not c.get("note"):
            err(f"conflicts[{k}]: missing note")
        if c["conflict"] is True:
            n_true += 1
            if a and b and (dates.get(a) == dates.get(b)):
                err(f"conflicts[{k}]: a true conflict should be between differently dated documents")
        elif c["conflict"] is False:
            n_false += 1
        else:
            err(f"conflicts[{k}]: conflict must be true or false")
    if n_true < MIN_TRUE_CONFLICTS:
        err(f"only {n_true} true conflicts, need {MIN_TRUE_CONFLICTS}")
    if n_false < MIN_NON_CONFLICTS:
        err(f"only {n_false} non-conflicts, need {MIN_NON_CONFLICTS}")

    # counts
    for kind, minimum in MINIMUMS.items():
        total = sum(counts[kind].values())
        if total < minimum:
            err(f"kind {kind}: {total} questions, need {minimum}")
    if len(questions) < MIN_QUESTIONS:
        err(f"{len(questions)} questions, need {MIN_QUESTIONS}")

    print(f"{len(texts)} documents, {len(questions)} questions, "
          f"{n_true} conflicts + {n_false} non-conflicts")
    print(f"{'kind':<14}{'dev':>5}{'test':>6}{'total':>7}")
    for kind in MINIMUMS:
        c = counts[kind]
        print(f"{kind:<14}{c['dev']:>5}{c['test']:>6}{c['dev'] + c['test']:>7}")
    tot_dev = sum(c["dev"] for c in counts.values())
    tot_test = sum(c["test"] for c in counts.values())
    print(f"{'all':<14}{tot_dev:>5}{tot_test:>6}{tot_dev + tot_test:>7}")

    if errors:
        print(f"\n{len(errors)} problem(s):")
        for e in errors:
            print("  -", e)
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
