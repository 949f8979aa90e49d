import sys
sys.path.insert(0, "/work/main/src")
from citegraph.verify.cascade import CheckingVerifier
from citegraph.models import Span
v = CheckingVerifier(checker=True)
cases = [
 ("The branch is open Monday to Friday 9:00–17:00.", "The branch is open on Wednesday.", True),
 ("Northgate is open Tuesday to Saturday.", "Northgate is open on Thursdays.", True),
 ("Eastbank Branch is open Monday to Saturday 9:30–17:30.", "Eastbank Branch is open on Wednesdays.", True),
 ("The Workshop is open Tuesday to Friday 14:00-20:00.", "The Workshop is open on Wednesdays from 14:00.", True),
 ("The Workshop is open Tuesday to Friday 14:00-20:00.", "The Workshop is open on Mondays from 14:00.", False),
 ("Leeds staff are in the office Monday–Thursday.", "Leeds staff are in the office on Tuesdays.", True),
 ("The helpdesk answers from Monday through Friday.", "The helpdesk answers on Fridays.", True),
]
bad=0
for p, c, exp in cases:
    s = v.verify(c, [Span("d", "v", 0, len(p), p)])
    ok = (s.label == "supported") == exp
    bad+=not ok
    print("OK " if ok else "BAD", s.label, s.stage, (s.guards[:1] or [""])[0][:70], "|", c)
print("wrong",bad,"of",len(cases))
