"""Check the Brightwave dev corpus: every gold quote and answer occurs in its document.

    /work/main/.venv/bin/python check.py          # needs pypdf for the two PDFs

Text is compared whitespace-normalised and case-insensitive. Markdown, plain text and JSON are
read as written; HTML is reduced to its visible text with the standard library's html.parser
(block elements become line breaks, <head>, <script> and <style> are dropped); PDFs are read
with pypdf, page by page. Exits 1 with a list of problems, 0 when everything holds.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

HERE = Path(__file__).resolve().parent

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
# Words that would answer an unanswerable question if they occurred in any document (checked
# below, on every document's text): a guard against a later edit quietly making one answerable.
PROBES = {
    "bw-076": ["revenue was £", "revenue of", "turnover"],
    "bw-077": ["founded", "established in", "since 20"],
    "bw-078": ["paris"],
    "bw-079": ["guest password is", "wi-fi password:", "password: "],
    "bw-080": ["dental", "dentist"],
    "bw-081": ["per user per month", "per seat", "a month per user", "/user"],
    "bw-082": ["match donation", "matched donation", "donation match", "gift aid", "match your donation"],
    "bw-083": ["motorbike", "motorcycle", "motor cycle", "24p per mile"],
    "bw-084": ["toronto the fire alarm", "in toronto the building runs its test", "toronto alarm test"],
    "bw-085": ["lisbon pension", "pension in portugal", "portuguese pension", "retirement plan", "pension contribution in lisbon"],
    "bw-086": ["retreat budget is", "budget for the retreat is", "retreat budget of", "budget for the retreat of", "per head for the retreat"],
    "bw-087": ["data protection officer", "dpo"],
}
MIN_QUESTIONS = 85
MIN_DOCUMENTS = 16
MIN_TRUE_CONFLICTS = 8
MIN_NON_CONFLICTS = 8

BLOCK = {
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure",
    "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p",
    "pre", "section", "table", "td", "th", "tr", "ul", "title",
}
HIDDEN = {"head", "script", "style", "noscript", "template"}


class VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in HIDDEN:
            self.hidden += 1
        elif tag in BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in BLOCK:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        if tag in BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_text(raw: str) -> str:
    parser = VisibleText()
    parser.feed(raw)
    parser.close()
    return "".join(parser.parts)


def pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    return "\n\n".join((page.extract_text() or "").strip() for page in reader.pages)


def document_text(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in {".html", ".htm"}:
        return html_text(path.read_text(encoding="utf-8"))
    if suffix == ".pdf":
        return pdf_text(path)
    return path.read_text(encoding="utf-8")  # .md .txt .json: as written


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def main() -> int:
    corpus = json.loads((HERE / "corpus.json").read_text(encoding="utf-8"))
    problems: list[str] = []

    def bad(msg: str) -> None:
        problems.append(msg)

    for key in ("name", "licence", "documents", "questions", "conflicts"):
        if key not in corpus:
            bad(f"corpus.json: missing top-level key {key!r}")

    texts: dict[str, str] = {}
    labels: dict[str, list[str]] = {}
    for doc in corpus["documents"]:
        path = doc["path"]
        if path in texts:
            bad(f"document listed twice: {path}")
        if not (HERE / path).is_file():
            bad(f"document missing on disk: {path}")
            continue
        if not doc.get("access"):
            bad(f"document without access label: {path}")
        texts[path] = norm(document_text(HERE / path))
        labels[path] = doc.get("access", [])
    on_disk = {str(p.relative_to(HERE)) for p in (HERE / "docs").rglob("*") if p.is_file()}
    for extra in sorted(on_disk - set(texts)):
        bad(f"file under docs/ not listed in corpus.json: {extra}")
    if len(texts) < MIN_DOCUMENTS:
        bad(f"only {len(texts)} documents, need at least {MIN_DOCUMENTS}")

    def check_quote(where: str, ref: dict) -> str | None:
        doc = ref.get("document")
        if doc not in texts:
            bad(f"{where}: unknown document {doc!r}")
            return None
        if not ref.get("quote") or norm(ref["quote"]) not in texts[doc]:
            bad(f"{where}: quote not found in {doc}: {ref.get('quote')!r}")
        return doc

    ids: set[str] = set()
    kinds: Counter[str] = Counter()
    splits: Counter[tuple[str, str]] = Counter()
    order: Counter[str] = Counter()
    required_fields = {"id", "kind", "split", "caller", "question", "answers", "gold", "stale"}
    for q in corpus["questions"]:
        qid = q.get("id", "?")
        missing = required_fields - set(q)
        if missing:
            bad(f"{qid}: missing fields {sorted(missing)}")
            continue
        if qid in ids:
            bad(f"{qid}: duplicate id")
        ids.add(qid)
        kind = q["kind"]
        if kind not in MINIMUMS:
            bad(f"{qid}: unknown kind {kind!r}")
        kinds[kind] += 1
        order[kind] += 1
        splits[(kind, q["split"])] += 1
        expected_split = "test" if order[kind] % 3 == 0 else "dev"
        if q["split"] != expected_split:
            bad(f"{qid}: split is {q['split']!r}, the rule (every third of its kind is test) says {expected_split!r}")
        caller = q["caller"]
        if not isinstance(caller, list) or not caller:
            bad(f"{qid}: caller must be a non-empty list")

        gold_docs: list[str] = []
        for i, ref in enumerate(q["gold"]):
            doc = check_quote(f"{qid} gold[{i}]", ref)
            if doc:
                gold_docs.append(doc)
                if not set(labels.get(doc, [])) & set(caller):
                    bad(f"{qid}: gold document {doc} is not readable by caller {caller}")

        answers = q["answers"]
        unanswerable = kind == "unanswerable" or (kind == "access" and not answers)
        if kind == "unanswerable" and (answers or q["gold"]):
            bad(f"{qid}: unanswerable question must have empty answers and gold")
        if unanswerable:
            if q["gold"]:
                bad(f"{qid}: unanswerable for its caller but has gold quotes")
            continue
        if not answers:
            bad(f"{qid}: no answers")
        for alias in answers:
            if not any(norm(alias) in texts[d] for d in gold_docs):
                bad(f"{qid}: answer {alias!r} is in none of its gold documents {gold_docs}")
        for group in q.get("required") or []:
            if not isinstance(group, list) or not group:
                bad(f"{qid}: each required group must be a non-empty list of aliases")
                continue
            for alias in group:
                if not any(norm(alias) in texts[d] for d in gold_docs):
                    bad(f"{qid}: required alias {alias!r} is in none of its gold documents")

        if kind == "two_hop" and len(set(gold_docs)) < 2:
            bad(f"{qid}: two_hop gold must come from at least two documents")
        if kind == "summary" and not 3 <= len(q.get("required") or []) <= 5:
            bad(f"{qid}: summary needs 3-5 required groups")
        if kind == "stale":
            s = q["stale"]
            if not s or not {"current", "old", "old_value"} <= set(s):
                bad(f"{qid}: stale question needs stale.current, stale.old and stale.old_value")
            else:
                check_quote(f"{qid} stale.current", s["current"])
                old_doc = check_quote(f"{qid} stale.old", s["old"])
                if old_doc and norm(s["old_value"]) not in norm(s["old"]["quote"]):
                    bad(f"{qid}: old_value {s['old_value']!r} not in the old quote")
                if not q.get("required"):
                    bad(f"{qid}: stale question needs the current value in required")
                for alias in answers:
                    if norm(alias) not in texts.get(s["current"]["document"], ""):
                        bad(f"{qid}: answer {alias!r} not in the current document")
        elif q["stale"] is not None:
            bad(f"{qid}: stale must be null for kind {kind}")

    # The access pairs: the same question asked by a public and a staff caller.
    access = [q for q in corpus["questions"] if q["kind"] == "access"]
    for q in access:
        if q["caller"] == ["public"] and q["answers"]:
            bad(f"{q['id']}: a public access question must be unanswerable")
    for q in [q for q in access if "staff" in q["caller"]]:
        if not any(p["question"] == q["question"] and p["caller"] == ["public"] for p in access):
            bad(f"{q['id']}: staff access question has no public twin")

    # Unanswerable questions: none of the probe phrases may occur in any document.
    for q in corpus["questions"]:
        if q["kind"] != "unanswerable":
            continue
        if q["id"] not in PROBES:
            bad(f"{q['id']}: unanswerable question without probe phrases in check.py")
        for phrase in PROBES.get(q["id"], []):
            for doc, text in texts.items():
                if re.search(r"(?<!\w)" + re.escape(norm(phrase)), text):
                    bad(f"{q['id']}: probe {phrase!r} occurs in {doc}; is the question still unanswerable?")
    # Public access questions: the staff twin's answers must not occur in any public document.
    staff_only = {d for d, lab in labels.items() if "public" not in lab}
    if not staff_only:
        bad("no staff-only document")
    public_docs = [d for d, lab in labels.items() if "public" in lab]
    for q in [q for q in access if "staff" in q["caller"]]:
        for alias in q["answers"] + [a for group in q.get("required") or [] for a in group]:
            for doc in public_docs:
                if norm(alias) in texts[doc]:
                    bad(f"{q['id']}: staff-only answer {alias!r} leaks into public document {doc}")

    for kind, minimum in MINIMUMS.items():
        if kinds[kind] < minimum:
            bad(f"kind {kind}: {kinds[kind]} questions, need at least {minimum}")
    total = sum(kinds.values())
    if total < MIN_QUESTIONS:
        bad(f"{total} questions, need at least {MIN_QUESTIONS}")

    true_c = false_c = 0
    for i, c in enumerate(corpus["conflicts"]):
        check_quote(f"conflicts[{i}].a", c["a"])
        check_quote(f"conflicts[{i}].b", c["b"])
        if c["conflict"] is True:
            true_c += 1
        elif c["conflict"] is False:
            false_c += 1
        else:
            bad(f"conflicts[{i}]: conflict must be true or false")
    if true_c < MIN_TRUE_CONFLICTS:
        bad(f"{true_c} true conflicts, need {MIN_TRUE_CONFLICTS}")
    if false_c < MIN_NON_CONFLICTS:
        bad(f"{false_c} non-conflicts, need {MIN_NON_CONFLICTS}")

    print(f"{'kind':<14}{'dev':>5}{'test':>6}{'total':>7}{'min':>5}")
    for kind in MINIMUMS:
        print(f"{kind:<14}{splits[(kind, 'dev')]:>5}{splits[(kind, 'test')]:>6}{kinds[kind]:>7}{MINIMUMS[kind]:>5}")
    dev = sum(v for (k, s), v in splits.items() if s == "dev")
    test = sum(v for (k, s), v in splits.items() if s == "test")
    print(f"{'all':<14}{dev:>5}{test:>6}{total:>7}{MIN_QUESTIONS:>5}")
    print(f"documents: {len(texts)} ({len(staff_only)} staff-only); conflicts: {true_c} true, {false_c} non-conflicts")

    if problems:
        print(f"\n{len(problems)} problem(s):")
        for p in problems:
            print("  - " + p)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
