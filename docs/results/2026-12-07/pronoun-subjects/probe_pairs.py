"""Hand probes for sources that disagree when one of them says "It" (written before the rules they
test): each side is a sentence and the sentence before it in its document; the check compares the
two sides as the product does (`find_conflicts` with two sources), after the subject a pronoun
stands for is read from the sentence before it.

    python docs/results/2026-12-07/pronoun-subjects/probe_pairs.py [--before]
"""

from __future__ import annotations

import sys

from citegraph.components import make_verifier
from citegraph.verify.conflicts import SOURCE_CONFLICT_THRESHOLD, find_conflicts

#: (conflict?, (previous, sentence) of side a, (previous, sentence) of side b)
PAIRS = [
    (True, ("Central Library, 2 Market Street, is the largest branch.", "It is open Monday to Friday 9:00–20:00 and Sunday 12:00–16:00."), ("", "Central Library is closed on Sundays.")),
    (True, ("The Leeds office is on the third floor of Wellington House.", "It is open from 8:00 to 18:00 on weekdays."), ("", "The Leeds office is open from 9:00 to 17:00 on weekdays.")),
    (True, ("The support desk handles customer tickets.", "It is closed on Saturdays."), ("", "The support desk is open on Saturdays from 10:00 to 14:00.")),
    (True, ("Replacement cards are issued at any branch.", "They cost £2.50 each."), ("", "Replacement cards cost £1.50 each.")),
    (True, ("", "The Kestrel Room seats 40 people."), ("The Kestrel Room is on the first floor.", "It seats 30 people.")),
    (True, ("", "Our Lisbon office is closed on Fridays."), ("Our Lisbon office is in Alfama.", "It is open Monday to Friday.")),
    (False, ("The Workshop is our makerspace.", "It is closed on Sundays and Mondays."), ("Central Library is the largest branch.", "It is open Monday to Friday 9:00–20:00 and Sunday 12:00–16:00.")),
    (False, ("The Heron Room is at Northgate.", "It seats 24 people."), ("", "The Kestrel Room seats 40 people.")),
    (False, ("Eastbank Branch is on Ferry Lane.", "It is closed on Sundays."), ("", "Central Library is open on Sundays from 12:00.")),
    (False, ("", "Central Library is closed on Mondays."), ("", "Central Library is open Tuesday to Saturday.")),
    (False, ("", "The café is closed on Sundays."), ("Central Library is the largest branch.", "It is open on Sundays 12:00–16:00.")),
    (False, ("Northgate Branch has one step at the entrance.", "It is open on Sundays."), ("", "Northgate Branch is open on Sundays from 10:00.")),
]


def main() -> None:
    verifier = make_verifier("checker")
    wrong = 0
    for conflict, (pa, a), (pb, b) in PAIRS:
        if "--before" in sys.argv:  # each sentence read alone, as before the change
            texts = [a, b]
        else:
            from citegraph.verify.conflicts import with_subject

            texts = [with_subject(a, pa), with_subject(b, pb)]
        found = find_conflicts(texts, verifier, sources=["A", "B"], threshold=SOURCE_CONFLICT_THRESHOLD).conflicts
        ok = bool(found) == conflict
        wrong += not ok
        print("ok   " if ok else "WRONG", "conflict" if conflict else "none    ", texts, [c.detail for c in found])
    print(f"{wrong} of {len(PAIRS)} wrong")


if __name__ == "__main__":
    main()
