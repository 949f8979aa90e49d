"""Chat logs as a new user keeps them: LiHua-World (MiniRAG's benchmark for local RAG) through ``ask``.

442 documents, one chat session each (``Time: 20260506_12:00`` then one ``Speaker: message`` per
line), ingested as they come (``citegraph ingest FOLDER``); then every question of the shared dev
half (``query_set_dev.json``: Single, Multi and Null, where Null means the documents do not answer)
is asked through :meth:`CiteGraph.ask` as the CLI asks it. Per type:

- **contained**: the gold answer (casefolded, punctuation and "the" dropped) is inside what the
  answer shows: its lead (the reader's words in a cited sentence, "A: AdamSmith [1]", shown only on a
  green answer) and its cited claims (the claims alone beside it, as reported until 2026-12-05), or, for a yes/no answer, the answer is not ``not_found`` (a quote cannot say "yes");
- **evidence in context**: the gold evidence sessions (their timestamps name the files) are in the
  numbered context (all of them for Multi);
- **abstained**: the status is ``not_found`` or ``no_evidence`` (for Null, the right outcome; for the
  others, a miss);
- **confidently wrong**: shown green (``verified`` or ``quoted``) without the gold in what it shows
  (for Null, shown green at all): issue 35's "no green badge on a wrong answer" (target at most 0.05);
- beside them, the simplest baselines: "the gold answer is somewhere in the context" (what any
  answer picking from the context could reach at best), and "always answer" for Null;
- **written in the evidence**: whether the gold answer, so normalised, is written at all in its
  evidence sessions. Many are not ("20260118" for "Jan 18th", "Adam Smith" for the speaker
  "AdamSmith", "Li Hua thinks the rosemary focaccia is amazing"): no quoting answer can contain
  those, so "contained" is also given over the questions whose gold is written there, and the share
  written is the ceiling of any extractive answer on this measure.

The held-out half is not shipped; nothing here was tuned on this half. Written: ``lihua.md`` and
``lihua.json`` (every question's status, context documents and claims).

    python bench/lihua.py --data ../shared/data/lihua_world_dev --db /tmp/lihua.db --out docs/results/DATE/lihua/
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import zipfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from citegraph import CiteGraph
from citegraph.models import AnswerStatus
from common import environment

ABSTAINED = {AnswerStatus.NOT_FOUND, AnswerStatus.NO_EVIDENCE}
CHECKED = {AnswerStatus.VERIFIED, AnswerStatus.QUOTED}  #: the statuses shown green, read as "checked"


def norm(text: str) -> str:
    """Words to compare, as a person reads them: a handle's words apart ("WolfgangSchulz" is "Wolfgang
    Schulz", the gold's spelling), a time's "pm" apart ("2pm" is "2 PM"), a session stamp's day apart
    from its hour ("20260118_19:00"), case and punctuation gone."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    text = re.sub(r"(\d)\s*([ap])\.?m\b\.?", r"\1 \2m", text, flags=re.IGNORECASE)
    text = re.sub(r"[^\w\s]|_", " ", text.casefold().replace("’", "'"))
    return " ".join(w for w in text.split() if w not in {"the", "a", "an"})


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")
_DAY = re.compile(r"\b(20\d{2})(\d{2})(\d{2})\b")


def written(gold: str) -> list[str]:
    """``gold`` and, for a day written as the data set writes it ("20260118"), the same day as a chat
    says it: "January 18", "Jan 18th", "18 January"."""
    found = _DAY.search(gold)
    if found is None or not 1 <= int(found[2]) <= 12:
        return [gold]
    month, day = MONTHS[int(found[2]) - 1], int(found[3])
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    forms = [f"{m} {d}" for m in (month, month[:3]) for d in (day, f"{day}{suffix}")]
    forms += [f"{d} {m}" for m in (month, month[:3]) for d in (day, f"{day}{suffix}")]
    return [gold, *(gold[: found.start()] + form + gold[found.end() :] for form in forms)]


def contained(gold: str, claims: str) -> bool:
    said = f" {norm(claims)} "
    return any(bool(g) and f" {g} " in said for g in (norm(w) for w in written(gold)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="the lihua_world_dev folder (LiHuaWorld.zip, query_set_dev.json)")
    parser.add_argument("--db", type=Path, required=True, help="the store (made on the first run, reused)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--generator", default="extractive")
    parser.add_argument("--limit", type=int, help="the first N questions")
    parser.add_argument("--per-type", type=int, help="the first N questions of each type (Single, Multi, Null)")
    args = parser.parse_args()
    started = time.perf_counter()
    questions = json.loads((args.data / "query_set_dev.json").read_text(encoding="utf-8"))
    items = sorted(questions.items(), key=lambda kv: int(kv[0]))[: args.limit]
    if args.per_type:
        taken: dict[str, int] = defaultdict(int)
        kept = []
        for qid, q in items:
            taken[q["type"]] += 1
            if taken[q["type"]] <= args.per_type:
                kept.append((qid, q))
        items = kept
    with tempfile.TemporaryDirectory() as tmp, CiteGraph.open(args.db, generator=args.generator) as graph:
        if not graph.store.documents(None):
            with zipfile.ZipFile(args.data / "LiHuaWorld.zip") as z:
                z.extractall(tmp)
            folder = next(Path(tmp).rglob("week*")).parent
            report = graph.ingest([folder])
            print(f"ingested {len(report.documents)} documents in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        with zipfile.ZipFile(args.data / "LiHuaWorld.zip") as z:
            sessions = {Path(n).stem: z.read(n).decode("utf-8") for n in z.namelist() if n.endswith(".txt")}
        stems = {Path(d.document.id).stem: d.document.id for d in graph.store.documents(None)}
        rows = []
        for n, (qid, q) in enumerate(items, 1):
            answer = graph.ask(q["question"])
            docs = {item.span.document for item in answer.context}
            evidence = [stems.get(e.strip().replace(":", "")) for e in q["evidence"].split("<and>")] if q["type"] != "Null" else []
            # what the answer shows: its lead ("A: AdamSmith [1]", the reader's words in a cited sentence) and its claims
            shown = " ".join([answer.lead.text if answer.lead is not None else "", *(c.text for c in answer.claims)])
            claims = " ".join(c.text for c in answer.claims)
            context = " ".join(item.span.text for item in answer.context)
            yes_no = norm(q["answer"]) in {"yes", "no"}
            written = (
                " ".join(sessions.get(e.strip().replace(":", ""), "") for e in q["evidence"].split("<and>")) if q["type"] != "Null" else ""
            )
            rows.append(
                {
                    "id": qid,
                    "type": q["type"],
                    "question": q["question"],
                    "gold": q["answer"],
                    "status": answer.status.value,
                    "abstained": answer.status in ABSTAINED,
                    "contained": (answer.status not in ABSTAINED) if yes_no else contained(q["answer"], shown),
                    "in_claims": (answer.status not in ABSTAINED) if yes_no else contained(q["answer"], claims),
                    # green, and not holding the gold (for Null, green at all): the status promises more than was found
                    "confidently_wrong": answer.status in CHECKED
                    and (q["type"] == "Null" or not (yes_no or contained(q["answer"], shown))),
                    "lead": answer.lead.text if answer.lead is not None else None,
                    "in_context_answer": True if yes_no else contained(q["answer"], context),
                    "written": q["type"] != "Null" and (yes_no or contained(q["answer"], written)),
                    "evidence_in_context": bool(evidence) and all(e in docs for e in evidence),
                    "context_documents": sorted(docs),
                    "claims": [c.text for c in answer.claims],
                    "features": dict(answer.answerability.features) if answer.answerability else {},
                    "reading": list(answer.answerability.reading) if answer.answerability and answer.answerability.reading else None,
                }
            )
            print(f"\r asked {n}/{len(items)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_type[r["type"]].append(r)

    def rate(rs: list[dict[str, Any]], key: str) -> float:
        return sum(1 for r in rs if r[key]) / len(rs) if rs else 0.0

    result = {
        kind: {
            "n": len(rs),
            "contained": rate(rs, "contained"),
            "in_claims": rate(rs, "in_claims"),
            "evidence_in_context": rate(rs, "evidence_in_context"),
            "abstained": rate(rs, "abstained"),
            "confidently_wrong": rate(rs, "confidently_wrong"),
            "answer_in_context": rate(rs, "in_context_answer"),
            "written": rate(rs, "written"),
            "contained_of_written": rate(w, "contained") if (w := [r for r in rs if r["written"]]) else None,
        }
        for kind, rs in sorted(by_type.items())
    }
    seconds = time.perf_counter() - started
    lines = [
        f"# LiHua-World, dev half of the questions ({args.generator})",
        "",
        f"Command: `python bench/lihua.py {' '.join(sys.argv[1:])}`  ",
        f"Machine: {environment()}; {seconds:.0f} s in all (ingest included when the store was new).",
        "",
        "| type | n | gold in the answer (lead or claims) | in the claims alone | gold anywhere in the context (ceiling) | evidence sessions in the context | abstained "
        "| gold written in its evidence (ceiling of any quoting answer) | gold in the answer, of those written | confidently wrong |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for kind, r in result.items():
        lines.append(
            f"| {kind} | {r['n']} | {r['contained']:.3f} | {r['in_claims']:.3f} | {r['answer_in_context']:.3f} | {r['evidence_in_context']:.3f} "
            f"| {r['abstained']:.3f} | {r['written']:.3f} | {'–' if r['contained_of_written'] is None else format(r['contained_of_written'], '.3f')} "
            f"| {r['confidently_wrong']:.3f} |"
        )
    lines += ["", "Null: abstained is the right outcome (always answering abstains on 0.000). For Single and Multi it is a miss."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        name = "lihua" if args.generator == "extractive" else "lihua-" + args.generator.replace(":", "-")
        (args.out / f"{name}.md").write_text(text, encoding="utf-8")
        (args.out / f"{name}.json").write_text(json.dumps({"result": result, "rows": rows}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
