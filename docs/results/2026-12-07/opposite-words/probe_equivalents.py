import sys
sys.path.insert(0, "/work/main/src")
from citegraph.verify.cascade import CheckingVerifier
from citegraph.models import Span
v = CheckingVerifier(checker=True)
cases = [
 ("The office opens at 9:00 on weekdays.", "The office opens at 9 am on weekdays."),
 ("The office closes at 17:30.", "The office closes at 5:30 pm."),
 ("Staff get a 25% discount in the café.", "Staff get a 25 per cent discount in the café."),
 ("A replacement card costs £5.", "A replacement card costs 5 pounds."),
 ("The budget is £1,000 per person.", "The budget is £1000 per person."),
 ("The review is on 4 Jan 2025.", "The review is on 4 January 2025."),
 ("Claims must be filed within two weeks.", "Claims must be filed within 14 days."),
 ("The hotel limit is EUR 160 per night.", "The hotel limit is €160 per night."),
 ("The hall seats 40 people.", "The hall seats forty people."),
 ("Loans last three weeks.", "Loans last 21 days."),
 ("The meeting starts at noon.", "The meeting starts at 12:00."),
 ("The Kestrel Room seats 40 people and has a projector.", "The Kestrel Room has a projector and seats 40 people."),
]
for p, c in cases:
    s = v.verify(c, [Span("d", "v", 0, len(p), p)])
    print("OK " if s.label == "supported" else "BAD", s.label, s.stage, (s.guards[:1] or [""])[0][:70], "|", c)
