import sys
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "/work/main/src")
from citegraph.verify.cascade import CheckingVerifier
from citegraph.models import Span
v = CheckingVerifier(checker=True)
cases = [
 ("Eastbank Branch is open Monday to Saturday 9:30–17:30.", "Eastbank Branch opens at 9:30.", True),
 ("Eastbank Branch is open Monday to Saturday 9:30–17:30.", "Eastbank Branch closes at 17:30.", True),
 ("Eastbank Branch is open Monday to Saturday 9:30–17:30.", "Eastbank Branch closes at 18:00.", False),
 ("Eastbank Branch is open Monday to Saturday 9:30–17:30.", "Eastbank Branch opens at 9:00.", False),
 ("The Workshop is open Tuesday to Friday 14:00-20:00.", "The Workshop is open until 20:00 on Fridays.", True),
 ("The Workshop is open Tuesday to Friday 14:00-20:00.", "The Workshop is open until 21:00 on Fridays.", False),
 ("The last sailing leaves Kelso Quay at 21:15.", "The last sailing leaves Kelso Quay at 9:15pm.", True),
 ("The last sailing leaves Kelso Quay at 21:15.", "The last sailing leaves Kelso Quay at 8:15pm.", False),
 ("The café opens at noon.", "The café opens at 12:00.", True),
 ("Report suspected incidents within one hour.", "Report suspected incidents within 60 minutes.", True),
 ("Report suspected incidents within one hour.", "Report suspected incidents within two hours.", False),
 ("We pay 5% of your salary into the pension.", "We pay five percent of your salary into the pension.", True),
 ("Volunteer drivers must be 21 or over.", "Volunteer drivers must be at least 21.", True),
 ("Volunteer drivers must be 21 or over.", "Volunteer drivers must be at least 18.", False),
 ("Under 8s must bring an adult.", "Children under 8 must bring an adult.", True),
 ("Ring the bell between 9am and 5pm.", "Ring the bell between 9:00 and 17:00.", True),
 ("Staff on an opening shift arrive 15 minutes before the branch opens.", "Staff on an opening shift arrive a quarter of an hour before the branch opens.", True),
 ("Staff on an opening shift arrive 15 minutes before the branch opens.", "Staff on an opening shift arrive 30 minutes before the branch opens.", False),
]
bad = 0
for p, c, exp in cases:
    s = v.verify(c, [Span("d", "v", 0, len(p), p)])
    ok = (s.label == "supported") == exp
    bad += not ok
    print("OK " if ok else "BAD", s.label, s.stage, (s.guards[:1] or [""])[0][:70], "|", c)
print("wrong", bad, "of", len(cases))
