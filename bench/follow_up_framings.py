"""A follow-up typed after a thanks: is it read, and answered, as the bare follow-up? (issue 35;
held-out sets ask in several framings, and people thank a chat before they ask on.)

Each conversation of a development corpus (``corpora/NAME/conversations.json``, every split) is asked
turn by turn as ``citegraph eval answers`` asks it (each earlier turn with the ones before it); its
last turn is then asked as written and after each of three openings a person types before going on
("Thanks! ", "Great, thanks. ", "OK. "), with the same earlier turns, and judged against the gold of
the corpus question it stands for (``eval answers``' judge). Per opening: the share right, and the
share read as the bare follow-up is read (the same question once the opening is set aside). The
openings were written by rule before the rules that read them.

    python bench/follow_up_framings.py --data corpora/brightwave --data corpora/riverside-libraries \\
        --stores /tmp/framings --out docs/results/DATE/NAME

Stores are ``STORES/answers-NAME.db`` (those of an ``eval answers --out STORES`` run are reused;
missing ones are ingested with the default settings). Writes ``follow-up-framings.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from citegraph.conversation import Turn
from citegraph.eval.corpus import judge
from common import corpus_graphs

OPENINGS = {"as written": "", "after 'Thanks!'": "Thanks! ", "after 'Great, thanks.'": "Great, thanks. ", "after 'OK.'": "OK. "}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", action="append", required=True, type=Path, help="a corpus folder with conversations (repeatable)")
    parser.add_argument("--stores", required=True, type=Path, help="folder of the stores, answers-NAME.db")
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for folder, corpus, graph in corpus_graphs(args.data, args.stores):
        by_id = {q.id: q for q in corpus.questions}
        for conversation in corpus.conversations:
            q = by_id[conversation.standalone]
            history: list[Turn] = []
            for text in conversation.turns[:-1]:
                history.append(Turn.of(graph.ask(text, labels=q.caller, conversation=tuple(history))))
            last = conversation.turns[-1]
            for name, opening in OPENINGS.items():
                answer = graph.ask(opening + last, labels=q.caller, conversation=tuple(history))
                rows.append(
                    {
                        "corpus": folder.name,
                        "id": conversation.id,
                        "split": q.split,
                        "framing": name,
                        "asked": opening + last,
                        "read_as": answer.question,
                        **{k: v for k, v in judge(q, answer).items() if k not in ("id", "split")},
                    }
                )
    seconds = time.perf_counter() - started
    bare = {(r["corpus"], r["id"]): r for r in rows if r["framing"] == "as written"}
    lines = [
        "# A follow-up typed after a thanks (bench/follow_up_framings.py)",
        "",
        f"Corpora: {', '.join(str(d) for d in args.data)}; {len(bare)} conversations, every split; {len(rows)} last turns asked, {seconds:.0f} s.",
        "",
        "| opening | right | read as the bare follow-up | confidently wrong | right bare, wrong so | wrong bare, right so |",
        "|---|---|---|---|---|---|",
    ]
    for name, opening in OPENINGS.items():
        mine = [r for r in rows if r["framing"] == name]
        same = sum(
            r["read_as"] == bare[(r["corpus"], r["id"])]["read_as"] or r["read_as"] == opening + bare[(r["corpus"], r["id"])]["read_as"]
            for r in mine
        )
        lost = [r["id"] for r in mine if bare[(r["corpus"], r["id"])]["right"] and not r["right"]]
        won = [r["id"] for r in mine if not bare[(r["corpus"], r["id"])]["right"] and r["right"]]
        n = len(mine)
        lines.append(
            f"| {name} | {sum(r['right'] for r in mine) / n:.3f} | {same / n:.3f} | {sum(r['confidently_wrong'] for r in mine) / n:.3f} "
            f"| {', '.join(lost) or '–'} | {', '.join(won) or '–'} |"
        )
    lines += ["", "Read as the bare follow-up: the question asked is the bare follow-up's, or it with the opening still before it."]
    (args.out / "follow-up-framings.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (args.out / "follow-up-framings.json").write_text(json.dumps({"seconds": seconds, "rows": rows}, indent=1) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
