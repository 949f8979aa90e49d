"""The same question typed another way: is it answered as well? (issue 35; held-out sets ask in
several framings.)

Each question of a development corpus (``corpora/NAME``, one split) is asked as written and in four
framings a person types, each judged against the same gold as the question (``citegraph eval
answers``' judge): without its question mark, in lower case without it, wrapped in "Can you tell me
…?", after a sentence of preamble that asks nothing ("Quick question from a new starter."), and
after a greeting ("Hi! Quick question: how many …?"). Added on 2026-12-06, after the methods above
had been tuned (so read them as a check that the message framings do not break, on the test split
too): after another preamble ("I'm new here and still finding my way around."), with "Thanks!"
after it, with a sentence after it ("I'm asking for a colleague."), written as an e-mail (a greeting
line, the question, "Thanks," and a name), and typed in capitals; then six ways of typing it: after
"Q:", with "??", with an emoji after it, in quotes, in Markdown bold, after "Please,".
Added on 2026-12-06 (seventh session), measured before any method was tuned on it: typed as the
words a person puts into a search box (``as keywords``: the question's words less spaCy's English
stop words and its punctuation, "vacation days employees year"). ``--framings`` runs only the named
ones (with "as written", which the others are compared with).
A summary question is left out (its form is what makes it one). The framings are written by rule,
before any method was tuned on them.

    python bench/question_framings.py --data corpora/brightwave --data corpora/riverside-libraries \
        --stores /tmp/framings --out docs/results/DATE/NAME

Stores are ``STORES/answers-NAME.db`` (those of an ``eval answers --out STORES`` run are reused;
missing ones are ingested with the default settings). Writes ``question-framings.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import Any

from citegraph.eval.corpus import judge
from common import corpus_graphs

PREAMBLE = "Quick question from a new starter."


def keywords(question: str) -> str:
    """``question`` as typed into a search box: its words less English stop words ("How many vacation
    days do employees get per year?" -> "vacation days employees year")."""
    from spacy.lang.en.stop_words import STOP_WORDS

    words = [w.strip(".,:") for w in re.findall(r"[\w'’£€$%.,:/-]+", question)]
    kept = [w for w in words if w and re.sub(r"['’](?:s|re|ll|d|ve|m|t)$", "", w.casefold()) not in STOP_WORDS]
    return " ".join(kept) or question


def framings(question: str) -> dict[str, str]:
    """The question as written and as a person might type it instead."""
    bare = question.rstrip().rstrip("?").rstrip()
    low = bare[:1].lower() + bare[1:]
    return {
        "as written": question,
        "no question mark": bare,
        "lower case, no mark": bare.lower(),
        "Can you tell me …?": f"Can you tell me {low}?",
        "after a preamble": f"{PREAMBLE} {question}",
        "after a greeting": f"Hi! Quick question: {low}" + ("" if low.endswith("?") else "?"),
        "after another preamble": f"I'm new here and still finding my way around. {question}",
        "thanks after it": f"{question} Thanks!",
        "a sentence after it": f"{question} I'm asking for a colleague.",
        "as an e-mail": f"Hello team,\n\n{question}\n\nThanks,\nSam",
        "in capitals": question.upper(),
        "after a Q: label": f"Q: {question}",
        "with ?? for ?": f"{bare}??",
        "an emoji after it": f"{question} 🙏",
        "in quotes": f'"{question}"',
        "in Markdown bold": f"**{question}**",
        "after Please,": f"Please, {low}",
        "as keywords": keywords(question),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", action="append", required=True, type=Path, help="a corpus folder (repeatable)")
    parser.add_argument("--stores", required=True, type=Path, help="folder of the stores, answers-NAME.db")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--framings", action="append", default=[], help="run only this framing (repeatable; 'as written' always runs)")
    args = parser.parse_args()
    chosen = set(args.framings) | {"as written"} if args.framings else None
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for folder, corpus, graph in corpus_graphs(args.data, args.stores):
        for q in corpus.questions:
            if q.split != args.split or q.kind == "summary":
                continue
            for name, text in framings(q.question).items():
                if chosen is not None and name not in chosen:
                    continue
                verdict = judge(q, graph.ask(text, labels=q.caller))
                rows.append({"corpus": folder.name, "id": q.id, "kind": q.kind, "framing": name, "asked": text, **verdict})
    seconds = time.perf_counter() - started
    names = [n for n in framings("?") if chosen is None or n in chosen]
    written = {r["id"]: r["right"] for r in rows if r["framing"] == names[0]}
    lines = [
        "# The same question typed another way (bench/question_framings.py)",
        "",
        f"Corpora: {', '.join(str(d) for d in args.data)}; split {args.split}, summary questions left out; "
        f"{len(written)} questions, {len(rows)} asks, {seconds:.0f} s.",
        "",
        "| framing | right | abstained | confidently wrong | right as written, wrong so | wrong as written, right so |",
        "|---|---|---|---|---|---|",
    ]
    for name in names:
        mine = [r for r in rows if r["framing"] == name]
        lost = [r["id"] for r in mine if written[r["id"]] and not r["right"]]
        won = [r["id"] for r in mine if not written[r["id"]] and r["right"]]
        lines.append(
            f"| {name} | {sum(r['right'] for r in mine) / len(mine):.3f} | {sum(r['abstained'] for r in mine) / len(mine):.3f} "
            f"| {sum(r['confidently_wrong'] for r in mine) / len(mine):.3f} | {', '.join(lost) or '–'} | {', '.join(won) or '–'} |"
        )
    (args.out / "question-framings.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    keep = ("corpus", "id", "kind", "framing", "asked", "status", "right", "abstained", "confidently_wrong")
    (args.out / "question-framings.json").write_text(json.dumps([{k: r[k] for k in keep} for r in rows], indent=1), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
