import sys
sys.path.insert(0, "/work/main/src")
from citegraph.verify.cascade import CheckingVerifier
from citegraph.models import Span
v = CheckingVerifier(checker=True)
cases = [
 ("The Workshop is open on weekdays from 14:00.", "The Workshop is open on Sundays from 14:00.", False),
 ("The café opens at 9:00 on weekdays.", "The café opens at 9:00 on Saturdays.", False),
 ("Central Library is closed on Sundays.", "Central Library is closed on Mondays.", False),
 ("The fire alarm is tested every Wednesday at 10:00.", "The fire alarm is tested every Thursday at 10:00.", False),
 ("Book returns are emptied at weekends.", "Book returns are emptied on Tuesdays.", False),
 ("Payroll runs on the last working day of the month.", "Payroll runs on the last Friday of the month.", False),
 ("The team meets on Monday mornings.", "The team meets on Monday mornings.", True),
 ("The team meets on Mondays and Thursdays.", "The team meets on Thursdays.", True),
 ("The branch is open Monday to Saturday.", "The branch is open on Saturday.", True),
 ("Leeds staff work from the office on Tuesdays and Thursdays.", "Leeds staff work from the office on Wednesdays and Thursdays.", False),
 ("The late evening is on Wednesdays until 19:00.", "The late evening is on Fridays until 19:00.", False),
 ("Storytime is every Friday at 10:30 in the children's library.", "Storytime is every Saturday at 10:30 in the children's library.", False),
 ("Only members can book the Kestrel Room.", "Anyone can book the Kestrel Room.", False),
 ("Only staff may use the side entrance.", "Everyone may use the side entrance.", False),
 ("Only full-time employees receive private medical insurance.", "All employees receive private medical insurance.", False),
 ("Only members can book the Kestrel Room.", "Members can book the Kestrel Room.", True),
]
bad = 0
for p, c, exp in cases:
    s = v.verify(c, [Span("d", "v", 0, len(p), p)])
    ok = (s.label == "supported") == exp
    bad += not ok
    print("OK " if ok else "BAD", s.label, s.stage, (s.guards[:1] or [""])[0][:70], "|", c)
print("wrong", bad, "of", len(cases))
