import sys
sys.path.insert(0, "/work/main/src")
from citegraph.verify.cascade import CheckingVerifier
from citegraph.models import Span
v = CheckingVerifier(checker=True)
cases = [
 ("If you work more than 40 hours in a week, you are paid overtime at 1.5 times your hourly rate.", "You are paid overtime at 1.5 times your hourly rate.", False),
 ("Until March 2024, parking at the Leeds office was free for staff.", "Parking at the Leeds office is free for staff.", False),
 ("Staff in the Leeds office can park for free.", "Staff can park for free.", False),
 ("Only full-time employees receive private medical insurance.", "Employees receive private medical insurance.", False),
 ("Laptops are replaced every three years, except for engineers, whose laptops are replaced every two years.", "Laptops are replaced every three years.", False),
 ("The library offers free Wi-Fi, printing and scanning at every branch.", "The library offers free printing at every branch.", True),
 ("The library offers free Wi-Fi, printing and scanning at every branch.", "Every branch offers free Wi-Fi.", True),
 ("Expense claims must be submitted within 30 days of the trip.", "The Leeds office has a rooftop terrace.", False),
 ("The rooftop terrace is open to staff from 8:00 to 18:00.", "The Leeds office has a rooftop terrace.", False),
 ("Maria Lopez joined the company in 2015 and now leads the design team.", "Maria Lopez leads the design team.", True),
 ("Maria Lopez joined the company in 2015 and now leads the design team.", "Maria Lopez joined the company in 2016.", False),
 ("The ferry to Marr Island leaves at 07:15 and 16:40 on weekdays.", "The ferry to Marr Island leaves at 07:15 on weekdays.", True),
 ("The ferry to Marr Island leaves at 07:15 and 16:40 on weekdays.", "The ferry to Marr Island leaves at 07:15 on Sundays.", False),
 ("Refunds are issued within 14 days, but only for annual plans.", "Refunds are issued within 14 days.", False),
 ("Bikes travel free on all routes except the Brennock night crossing.", "Bikes travel free on all routes.", False),
 ("We no longer offer phone support; customers should use the chat.", "We offer phone support.", False),
 ("It is not possible to renew items reserved by someone else.", "You can renew items reserved by someone else.", False),
]
bad = 0
for p, c, exp in cases:
    s = v.verify(c, [Span("d", "v", 0, len(p), p)])
    ok = (s.label == "supported") == exp
    bad += not ok
    print("OK " if ok else "BAD", s.label, s.stage, (s.guards[:1] or [""])[0][:60], "|", c)
print("bad", bad, "of", len(cases))
for p, c, exp in [("Only full-time employees receive private medical insurance.", "Full-time employees receive private medical insurance.", True),
                  ("The café is only open on weekdays.", "The café is open on weekdays.", True),
                  ("Maria Lopez joined the company in 2015 and only later led the design team.", "Maria Lopez joined the company in 2015.", True)]:
    s = v.verify(c, [Span("d", "v", 0, len(p), p)])
    print("OK " if (s.label == "supported") == exp else "BAD", s.label, s.stage, (s.guards[:1] or [""])[0][:60], "|", c)
