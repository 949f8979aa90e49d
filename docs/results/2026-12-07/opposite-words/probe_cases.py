import sys
sys.path.insert(0, "/work/main/src")
from citegraph.verify.cascade import CheckingVerifier
from citegraph.models import Span
v = CheckingVerifier(checker=True)
cases = [
 ("The 2025 retreat will be held near Porto in September.", "The 2025 retreat will be held near Lisbon in September.", False),
 ("The Leeds office opens at 8:00.", "The Toronto office opens at 8:00.", False),
 ("Staff must wear their badges at all times.", "Staff may wear their badges at all times.", False),
 ("You can renew most items up to three times.", "You must renew most items up to three times.", False),
 ("The review happens next week.", "The review happened last week.", False),
 ("The meeting is tomorrow at 10:00.", "The meeting is yesterday at 10:00.", False),
 ("Invoices are sent on 4 March 2025.", "Invoices are sent on March 4, 2025.", True),
 ("Invoices are sent on 4 March 2025.", "Invoices are sent on 2025-03-04.", True),
 ("The policy was approved by the Board in June.", "The Board approved the policy in June.", True),
 ("Aisha Mensah leads the Summer Reading Challenge at Eastbank.", "Aisha Mensah leads the Summer Reading Challenge.", True),
 ("Exports stay available for 30 days after cancellation.", "Exports stay available for a month after cancellation.", True),
 ("Exports stay available for 30 days after cancellation.", "Exports stay available for thirty days after cancellation.", True),
 ("Bikes travel free on all routes.", "Bikes travel for free on every route.", True),
 ("The café in Central Library opens at 9:00 on weekdays.", "The café in Central Library opens at 9:00 on weekends.", False),
 ("Dogs are not allowed in the reading room.", "Dogs are allowed in the reading room.", False),
 ("Only members can book the Kestrel Room.", "Anyone can book the Kestrel Room.", False),
 ("Helen Okafor chairs the Board; Colin Hart is its treasurer.", "Colin Hart chairs the Board.", False),
]
for p, c, exp in cases:
    s = v.verify(c, [Span("d", "v", 0, len(p), p)])
    ok = (s.label == "supported") == exp
    print("OK " if ok else "BAD", s.label, s.stage, (s.guards[:1] or [""])[0][:70], "|", c)
