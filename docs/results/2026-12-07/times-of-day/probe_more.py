import sys
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "/work/main/src")
from citegraph.verify.cascade import CheckingVerifier
from citegraph.models import Span
v = CheckingVerifier(checker=True)
cases = [
 ("Volunteer drivers must be 21 or over.", "Volunteer drivers must be at least 18.", False),
 ("The minimum age for volunteering is 14.", "The minimum age for volunteering is 16.", False),
 ("You can have up to 20 items on an adult card.", "You can have up to 25 items on an adult card.", False),
 ("The Kestrel Room seats 40 people.", "The Kestrel Room seats 60 people.", False),
 ("The Kestrel Room seats 40 people.", "The Kestrel Room seats forty people.", True),
 ("Children aged 12 and over can use the 3D printers.", "Children aged 10 and over can use the 3D printers.", False),
 ("Claims must be submitted within 60 days of spending the money.", "Claims must be submitted within two months of spending the money.", True),
 ("Claims must be submitted within 60 days of spending the money.", "Claims must be submitted within 30 days of spending the money.", False),
 ("Passenger numbers rose 8% to 412,000.", "Passenger numbers rose 8% to 412 thousand.", True),
 ("Passenger numbers rose 8% to 412,000.", "Passenger numbers rose 12% to 412,000.", False),
 ("MV Solan carries 320 passengers and 40 cars.", "MV Solan carries 320 passengers and 45 cars.", False),
 ("Version 4.12.1 fixed the sync delays.", "Version 4.12.2 fixed the sync delays.", False),
]
bad = 0
for p, c, exp in cases:
    s = v.verify(c, [Span("d", "v", 0, len(p), p)])
    ok = (s.label == "supported") == exp
    bad += not ok
    print("OK " if ok else "BAD", s.label, s.stage, (s.guards[:1] or [""])[0][:70], "|", c)
print("wrong", bad, "of", len(cases))
more = [
 ("The SAML certificate rotation bug was fixed in 4.12.0.", "Tidepool 4.12.2 fixed the SAML certificate rotation bug.", False),
 ("The SAML certificate rotation bug was fixed in 4.12.0.", "Tidepool 4.12.0 fixed the SAML certificate rotation bug.", True),
 ("## [4.12.1] - 2025-03-03\n\nFixed: sync events were slow to arrive after the release.", "Release 4.12.1 fixed slow sync events.", True),
 ("Tidepool v5.0.0 adds a Gantt view.", "Tidepool 5.0.0 adds a Gantt view.", True),
]
bad = 0
for p, c, exp in more:
    s = v.verify(c, [Span("d", "v", 0, len(p), p)])
    ok = (s.label == "supported") == exp
    bad += not ok
    print("OK " if ok else "BAD", s.label, s.stage, (s.guards[:1] or [""])[0][:70], "|", c)
print("wrong", bad, "of", len(more))
