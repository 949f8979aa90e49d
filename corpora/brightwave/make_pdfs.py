"""Rebuild the two PDF documents of the Brightwave corpus (CC0, written for citegraph).

    python3 -m venv /tmp/corpus-venv && /tmp/corpus-venv/bin/pip install fpdf2
    /tmp/corpus-venv/bin/python make_pdfs.py

Writes docs/travel-and-expenses-guide.pdf and docs/office-facilities-guide.pdf with real text
layers (DejaVu Sans, embedded), headings on their own lines, tables and page breaks.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from fpdf import FPDF
from fpdf.fonts import FontFace

HERE = Path(__file__).resolve().parent
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")


class Doc(FPDF):
    def __init__(self, title: str, footer_text: str) -> None:
        super().__init__(format="A4")
        self.doc_title = title
        self.footer_text = footer_text
        self.add_font("DejaVu", "", str(FONT_DIR / "DejaVuSans.ttf"))
        self.add_font("DejaVu", "B", str(FONT_DIR / "DejaVuSans-Bold.ttf"))
        self.set_auto_page_break(auto=True, margin=20)
        self.set_margins(20, 20, 20)

    def header(self) -> None:
        if self.page_no() > 1:
            self.set_font("DejaVu", "", 8)
            self.set_text_color(110, 110, 110)
            self.cell(0, 6, self.doc_title, new_x="LMARGIN", new_y="NEXT")
            self.ln(2)
            self.set_text_color(0, 0, 0)

    def footer(self) -> None:
        self.set_y(-14)
        self.set_font("DejaVu", "", 8)
        self.set_text_color(110, 110, 110)
        self.cell(0, 6, f"{self.footer_text}    Page {self.page_no()}", align="C")
        self.set_text_color(0, 0, 0)

    def title_block(self, title: str, lines: list[str]) -> None:
        self.set_font("DejaVu", "B", 18)
        self.multi_cell(0, 9, title, new_x="LMARGIN", new_y="NEXT")
        self.ln(1)
        self.set_font("DejaVu", "", 9)
        for line in lines:
            self.multi_cell(0, 5, line, new_x="LMARGIN", new_y="NEXT")
        self.ln(4)

    def heading(self, text: str) -> None:
        if self.get_y() > 250:
            self.add_page()
        self.ln(2)
        self.set_font("DejaVu", "B", 12.5)
        self.multi_cell(0, 7, text, new_x="LMARGIN", new_y="NEXT")
        self.ln(1)

    def para(self, text: str) -> None:
        self.set_font("DejaVu", "", 10)
        self.multi_cell(0, 5.2, text, new_x="LMARGIN", new_y="NEXT")
        self.ln(2.2)

    def bullets(self, items: list[str]) -> None:
        self.set_font("DejaVu", "", 10)
        for item in items:
            self.set_x(self.l_margin + 4)
            self.multi_cell(0, 5.2, "•  " + item, new_x="LMARGIN", new_y="NEXT")
            self.ln(0.8)
        self.ln(1.5)

    def grid(self, rows: list[list[str]], widths: tuple[int, ...]) -> None:
        self.set_font("DejaVu", "", 9.5)
        with self.table(
            col_widths=widths,
            headings_style=FontFace(emphasis="BOLD", fill_color=(230, 236, 244)),
            line_height=5.5,
            text_align="LEFT",
        ) as table:
            for row in rows:
                r = table.row()
                for cell in row:
                    r.cell(cell)
        self.ln(3)


def travel_guide() -> None:
    pdf = Doc("Brightwave Travel and Expenses Guide", "Brightwave - Travel and Expenses Guide v2.3")
    pdf.set_title("Travel and Expenses Guide")
    pdf.set_author("Declan Furlong, Finance")
    pdf.set_creation_date(dt.datetime(2025, 3, 1, 9, 0, tzinfo=dt.UTC))
    pdf.add_page()
    pdf.title_block(
        "Travel and Expenses Guide",
        [
            "Version 2.3, effective 1 March 2025",
            "Owner: Declan Furlong, Finance Director. Questions: finance@brightwave.io or #ask-finance",
        ],
    )

    pdf.heading("1. Who this guide is for")
    pdf.para(
        "This guide applies to everyone who travels or spends money on behalf of Brightwave: employees, "
        "contractors and interview candidates whose travel we have agreed to pay. It explains what you may "
        "book, how much you may spend, and how to get your money back. The principle behind every rule is "
        "simple: spend the company's money as carefully as you would spend your own, and travel in a way "
        "that lets you arrive able to do your job."
    )

    pdf.heading("2. Before you book")
    pdf.para(
        "Every trip needs approval from your budget holder before anything is booked. Your budget holder is "
        "usually your manager; for the annual retreat and other company events it is the organiser. Trips "
        "costing more than £1,500 in total, including transport, accommodation and meals, also need approval "
        "from the Finance Director before booking. Ask in good time: approvals requested less than five "
        "working days before departure may be refused unless the trip is urgent for a customer."
    )
    pdf.para(
        "Book flights, trains and hotels through Roamwise, our travel booking tool, so that we know where "
        "everyone is if something goes wrong and so that the insurer has a record of the trip. Book flights "
        "at least 14 days ahead whenever you can; late bookings are often twice the price. If you find a "
        "cheaper fare outside Roamwise for exactly the same journey, you may book it yourself, but add the "
        "itinerary to Roamwise afterwards."
    )

    pdf.heading("3. Getting there")
    pdf.para(
        "Public transport is the default. Trains in the UK and Portugal are booked in standard class. First "
        "class is allowed only when the first-class ticket costs no more than the standard-class fare for "
        "the same journey, which sometimes happens with advance tickets."
    )
    pdf.para(
        "Flights are booked in economy. Premium economy may be booked when the scheduled flight time of a "
        "single leg is more than six hours, which in practice means flights between Europe and Toronto. "
        "Business class is never reimbursed, and neither are paid seat upgrades, except where a colleague "
        "needs a particular seat for medical reasons; Kwame Asante can arrange this confidentially."
    )
    pdf.para(
        "Taxis and ride-hailing are fine when public transport is not a reasonable option: late at night "
        "(after 21:00), when you are carrying heavy equipment, or when it saves significant time before a "
        "customer meeting. Airport transfers by taxi are reimbursed when the flight lands after 21:00."
    )
    pdf.para(
        "If you use your own car for business, we pay a mileage rate instead of fuel. In the UK the rate "
        "is 45p per mile for the first 10,000 business miles in the tax year and 25p per mile after that. "
        "In Portugal we pay €0.40 per km, and in Canada C$0.70 per km. Commuting to your usual office is "
        "not business mileage. Hire cars should be the smallest car that is practical for the trip, "
        "returned with a full tank."
    )

    pdf.heading("4. Hotels and meals")
    pdf.para(
        "The table below sets the most you may spend on a hotel room per night, including taxes and "
        "breakfast, and the daily allowance for meals, for the cities we visit most often. The meal "
        "allowance covers lunch, dinner and non-alcoholic drinks for each full day away; on the day you "
        "travel out and the day you come back, half the daily amount applies. It is a ceiling, not a "
        "per diem: claim what you actually spent, with receipts."
    )
    pdf.grid(
        [
            ["City", "Hotel per night", "Meals per day"],
            ["London", "£180", "£55"],
            ["Leeds", "£110", "£35"],
            ["Manchester", "£125", "£40"],
            ["Edinburgh", "£140", "£45"],
            ["Lisbon", "€130", "€40"],
            ["Porto", "€110", "€35"],
            ["Berlin", "€150", "€45"],
            ["Amsterdam", "€170", "€50"],
            ["Toronto", "C$240", "C$75"],
            ["New York", "US$320", "US$90"],
            ["San Francisco", "US$300", "US$85"],
        ],
        (60, 55, 55),
    )
    pdf.para(
        "During London Tech Week each June, hotel prices in London rise sharply, and the London hotel limit "
        "is raised to £230 per night for stays in that week only. For cities that are not in the table, "
        "agree a limit with Finance before you book. If a hotel within the limit is not available, book "
        "the cheapest suitable option and note the reason on your claim."
    )
    pdf.para(
        "When the company books accommodation centrally, for example for the annual retreat, you do not "
        "need to book anything yourself. If you need to arrive the night before because of flight times, "
        "book your own hotel for the extra night within the limit for that city and claim it as usual."
    )

    pdf.heading("5. Entertaining clients and team meals")
    pdf.para(
        "Client entertainment is allowed up to £75 per head, including drinks, when there is a clear "
        "business reason. Write the names of the guests and their company on the claim. Alcohol is "
        "reimbursed only as part of client entertainment, never on your own or with colleagues. Meals "
        "with colleagues during a trip come out of your daily meal allowance; team socials at home are paid "
        "from the team social budget described in the handbook."
    )

    pdf.heading("6. Claiming your expenses")
    pdf.bullets(
        [
            "Submit every claim in Spendbook, within 60 days of spending the money. Older claims are not paid.",
            "Photograph the receipt for every item over £10. Below that, a description of what you bought is enough.",
            "In Portugal, ask for a fatura with Brightwave's tax number (NIF 517 204 993) on it; without it we cannot recover the VAT.",
            "Claims in other currencies are repaid at the exchange rate on your card statement, including any fees your bank charged.",
            "Claims approved by the 15th of a month are paid with that month's salary; later claims are paid the following month.",
        ]
    )

    pdf.heading("7. Company cards")
    pdf.para(
        "Company cards are issued to people managers and to a few colleagues who buy things regularly for "
        "the company. The standard limit is £2,000 a month; Finance can raise it for a specific purpose, "
        "such as paying for the retreat venue. Reconcile every transaction in Spendbook, with its receipt, "
        "by the 5th of the following month. If receipts are missing twice in a year, the card is withdrawn. "
        "A company card must never be used for personal spending, even if you intend to pay it back."
    )

    pdf.heading("8. Insurance, safety and emergencies")
    pdf.para(
        "All business trips are covered by our travel insurance with Northwind Assure, including up to "
        "three days of personal travel added to the start or end of a business trip. The policy number "
        "and the 24-hour emergency assistance number, +44 20 7946 0321, are in Roamwise and on the back of "
        "your access card holder. If you are hurt, robbed or stranded, call the assistance line first and "
        "then let your manager know. For lost passports, contact the nearest embassy or consulate and tell "
        "Kwame Asante, who can rebook travel at any hour."
    )

    pdf.heading("9. What we do not pay for")
    pdf.bullets(
        [
            "Seat, cabin or room upgrades, unless agreed in advance for medical reasons.",
            "Minibar items, in-room films and laundry on trips shorter than five nights.",
            "Parking fines, speeding fines and other penalties.",
            "Lost or stolen personal belongings; claim these on your own insurance.",
            "Travel or accommodation for partners, friends or family.",
            "Extra nights added for personal reasons, except as covered by the insurance note above.",
        ]
    )
    pdf.output(str(HERE / "docs" / "travel-and-expenses-guide.pdf"))


def facilities_guide() -> None:
    pdf = Doc("Brightwave Office and Facilities Guide", "Brightwave - Office and Facilities Guide, April 2025")
    pdf.set_title("Office and Facilities Guide")
    pdf.set_author("Priya Raman")
    pdf.set_creation_date(dt.datetime(2025, 4, 7, 9, 0, tzinfo=dt.UTC))
    pdf.add_page()
    pdf.title_block(
        "Office and Facilities Guide",
        [
            "Leeds, Lisbon and Toronto. Updated 7 April 2025.",
            "Maintained by Priya Raman (Leeds) with Joana Ferreira (Lisbon) and Kwame Asante (Toronto).",
        ],
    )

    pdf.heading("Our offices at a glance")
    pdf.grid(
        [
            ["Office", "Address", "Opening hours", "Office manager"],
            ["Leeds", "3rd floor, Calder House, 14 Whitehall Quay, Leeds LS1 4HR", "Mon-Fri 07:30-20:00", "Priya Raman"],
            ["Lisbon", "Rua do Poço dos Negros 61, 1.º, 1200-336 Lisboa", "Mon-Fri 08:00-19:00", "Joana Ferreira"],
            ["Toronto", "Suite 410, 88 Spadina Avenue, Toronto ON M5V 2J4", "Mon-Fri 08:00-18:00", "Kwame Asante"],
        ],
        (24, 76, 36, 34),
    )
    pdf.para(
        "All three offices are closed at weekends and on local public holidays, and the whole company "
        "closes between Christmas Eve and New Year's Day. If you need to work in Leeds after 20:00, tell "
        "Priya in advance: the building's security desk is staffed until 22:00 and will expect you."
    )

    pdf.heading("Getting in")
    pdf.para(
        "You receive an access card on your first day. Wear it, or at least carry it; the doors lock "
        "automatically and reception cannot always let you in. If you lose your card, tell your office "
        "manager the same day so the card can be blocked. Replacement cards cost £15 in Leeds, where the "
        "building charges us for them; in Lisbon and Toronto there is no charge."
    )
    pdf.para(
        "Visitors sign in on the tablet at reception, wear a visitor badge and are collected by their host. "
        "Visitors must not be left alone in the office, and they must not see screens showing customer "
        "data. Contractors who need to work in the office for more than a day need an access card request "
        "from their Brightwave contact."
    )

    pdf.heading("Desks and meeting rooms")
    pdf.para(
        "Desks are shared. Book a desk in the Deskly app by 18:00 on the day before you come in; on anchor "
        "days most desks are taken by mid-morning. Leave your desk clear at the end of the day, and lock "
        "anything confidential in your locker. Lockers are allocated by the office manager."
    )
    pdf.grid(
        [
            ["Office", "Room", "Seats", "Video conferencing"],
            ["Leeds", "Kelp", "4", "No"],
            ["Leeds", "Coral", "8", "Yes"],
            ["Leeds", "Shoal", "14", "Yes"],
            ["Lisbon", "Maré", "6", "Yes"],
            ["Lisbon", "Onda", "10", "Yes"],
            ["Toronto", "Harbour", "8", "Yes"],
        ],
        (35, 45, 30, 60),
    )
    pdf.para(
        "Book rooms through the shared calendars. Shoal in Leeds is reserved for the all-hands on the first "
        "Monday of each month from 15:00 to 16:00. Phone booths cannot be booked; please keep calls in them "
        "under an hour."
    )

    pdf.heading("Travelling to the office")
    pdf.para(
        "In Leeds, Calder House has six parking spaces in the basement for Brightwave. They are allocated "
        "day by day by Priya, with priority for colleagues with a Blue Badge and for visitors. The building "
        "also has 20 bike racks and two showers on the ground floor. Leeds station is a ten-minute walk."
    )
    pdf.para(
        "In Lisbon there is no parking for staff or visitors. Cais do Sodré station and the riverside tram "
        "are an eight-minute walk, and bicycles can be left in the internal courtyard. In Toronto there is "
        "no staff parking either; there is a secure bike room in the basement, and the streetcar stops at "
        "the door."
    )

    pdf.heading("Kitchen, printing and post")
    pdf.para(
        "Coffee, tea, milk and fruit are provided in every office. Label anything you put in the fridge. In "
        "Leeds the fridge is cleared every Friday at 16:00 and anything left is thrown away; in Lisbon "
        "Joana clears it on Thursday evenings."
    )
    pdf.para(
        "There are printers in Leeds and Lisbon. Release your print job with your access card at the "
        "printer, and collect it straight away if it contains anything confidential. The Toronto office "
        "has no printer. Outgoing post in Leeds is collected from reception at 15:30 every weekday. Please "
        "do not have personal parcels delivered to the office."
    )

    pdf.heading("Fire safety and first aid")
    pdf.para(
        "Each office has trained fire wardens who check the extinguishers and escape routes every month, "
        "sweep the floor during an evacuation and report to the fire service, and first aiders who keep the "
        "first aid kits stocked. If the alarm sounds, leave by the nearest exit, do not use the lifts, and "
        "go to your office's assembly point."
    )
    pdf.grid(
        [
            ["Office", "Fire wardens", "First aiders", "Assembly point"],
            ["Leeds", "Dev Patel, Priya Raman", "Grace Whitfield, Tom Ashby", "Riverside path in front of Whitehall Quay"],
            ["Lisbon", "Mateus Costa", "Joana Ferreira", "Largo do Conde Barão"],
            ["Toronto", "Kwame Asante", "Maya Chen", "Corner of Spadina Avenue and Adelaide Street"],
        ],
        (24, 42, 42, 62),
    )
    pdf.para(
        "In Leeds the fire alarm is tested every Wednesday at 10:00; a short ring is a test and you do not "
        "need to leave. In Lisbon the building runs its test on the first Monday of each month at 11:00. "
        "A full evacuation drill takes place in every office twice a year, and the office manager announces "
        "the week but not the day."
    )

    pdf.heading("Wi-Fi and guests")
    pdf.para(
        "Company laptops connect automatically to the Brightwave network. Guests use Brightwave-Guest, whose "
        "password changes every month and is shown on the screen at reception. Never connect a company "
        "laptop to the guest network, and never give the main network's details to visitors."
    )

    pdf.heading("Accessibility")
    pdf.para(
        "The Leeds office has step-free access through the Whitehall Quay entrance, and an accessible toilet "
        "on our floor. The Lisbon building has a lift, but the street entrance has one step, and a portable "
        "ramp is kept at reception. The Toronto office is fully step-free. If you need adjustments to your "
        "desk, chair or lighting, tell your office manager; we will arrange them before your first day "
        "wherever we can."
    )

    pdf.heading("Lost property, cleaning and pets")
    pdf.para(
        "Lost property is kept at reception for one month and then donated. Cleaners come every weekday "
        "evening; leave desks clear so they can be cleaned. Dogs are allowed only in the Leeds office, only "
        "on Fridays and only at the dog-friendly desks, as described in the handbook."
    )
    pdf.output(str(HERE / "docs" / "office-facilities-guide.pdf"))


if __name__ == "__main__":
    travel_guide()
    facilities_guide()
    print("wrote docs/travel-and-expenses-guide.pdf and docs/office-facilities-guide.pdf")
