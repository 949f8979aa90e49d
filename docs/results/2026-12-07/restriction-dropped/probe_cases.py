"""Hand probes, written before the rule they test: a claim that quotes its cited sentence but leaves
out what restricts the sentence's subject to a named place, group or body ("Staff can park for free."
of "Staff in the Leeds office can park for free.") says more than its source; a trim that leaves out
anything else is still a quote. Each is run through the default verifier (guards, quote stage, checker).

    python docs/results/2026-12-07/restriction-dropped/probe_cases.py
"""

from __future__ import annotations

from citegraph.components import make_verifier
from citegraph.models import Span

#: (should it be supported?, claim, cited sentence)
CASES = [
    (False, "Staff can park for free.", "Staff in the Leeds office can park for free."),
    (False, "Colleagues receive a private health plan.", "Colleagues in Portugal receive a private health plan."),
    (False, "Volunteers must be at least 14 years old.", "Volunteers at Millbrook must be at least 14 years old."),
    (False, "Members can borrow up to 20 items at a time.", "Members of Riverside Libraries can borrow up to 20 items at a time."),
    (False, "Engineers join the on-call rotation after three months.", "Engineers on the Platform team join the on-call rotation after three months."),
    (False, "The team meets every Monday at 10:00.", "The team in Toronto meets every Monday at 10:00."),
    (True, "Staff in the Leeds office can park for free.", "Staff in the Leeds office can park for free in the basement car park."),
    (True, "Colleagues in Portugal receive a private health plan.", "Colleagues in Portugal receive a private health plan from their first day."),
    (True, "The Kestrel Room seats 40 people.", "The Kestrel Room at Central seats 40 people and has a projector."),
    (True, "Volunteers must be at least 14 years old.", "All volunteers must be at least 14 years old."),
    (True, "The minimum age for volunteering is 14.", "The minimum age for volunteering is 14."),
    (True, "Members can borrow up to 20 items.", "Members can borrow up to 20 items at any one time."),
]


def main() -> None:
    verifier = make_verifier("checker")
    wrong = 0
    for supported, claim, sentence in CASES:
        support = verifier.verify(claim, [Span("doc.md", "v1", 0, len(sentence), sentence)])
        ok = (support.label.value == "supported") == supported
        wrong += not ok
        print("ok   " if ok else "WRONG", support.label.value.ljust(14), claim, "|", sentence, "|", ", ".join(support.guards))
    print(f"{wrong} of {len(CASES)} wrong")


if __name__ == "__main__":
    main()
