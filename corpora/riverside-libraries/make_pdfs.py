"""Rebuild the two PDF documents of the riverside-libraries corpus.

    python3 -m venv /tmp/corpus-venv2 && /tmp/corpus-venv2/bin/pip install fpdf2
    /tmp/corpus-venv2/bin/python make_pdfs.py

Writes docs/annual-report-2024-25.pdf and docs/makerspace-safety-guide.pdf with real
text layers (core Helvetica font, so the text is Latin-1 only: no en dashes or curly quotes).
All text is original, CC0, written for citegraph.
"""
from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF
from fpdf.fonts import FontFace

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"

GREEN = (22, 94, 74)


class Doc(FPDF):
    def __init__(self, running_title, date_line):
        super().__init__(format="A4")
        self.running_title = running_title
        self.date_line = date_line
        self.set_auto_page_break(True, margin=20)
        self.set_margins(20, 20, 20)
        self.set_creation_date(datetime(2025, 7, 1, tzinfo=UTC))  # reproducible output

    def header(self):
        if self.page_no() == 1:
            return
        self.set_font("Helvetica", "I", 8)
        self.set_text_color(110)
        self.cell(0, 6, self.running_title, new_x="LMARGIN", new_y="NEXT", align="R")
        self.ln(2)
        self.set_text_color(0)

    def footer(self):
        self.set_y(-14)
        self.set_font("Helvetica", "", 8)
        self.set_text_color(110)
        self.cell(0, 6, f"{self.date_line}    Page {self.page_no()} of {{nb}}", align="C")
        self.set_text_color(0)

    def title_block(self, title, subtitle):
        self.set_font("Helvetica", "B", 22)
        self.set_text_color(*GREEN)
        self.multi_cell(0, 10, title, new_x="LMARGIN", new_y="NEXT")
        self.set_font("Helvetica", "", 12)
        self.set_text_color(60)
        self.multi_cell(0, 6, subtitle, new_x="LMARGIN", new_y="NEXT")
        self.set_text_color(0)
        self.ln(4)

    def h1(self, text):
        if self.get_y() > 240:
            self.add_page()
        self.ln(3)
        self.set_font("Helvetica", "B", 14)
        self.set_text_color(*GREEN)
        self.multi_cell(0, 8, text, new_x="LMARGIN", new_y="NEXT")
        self.set_text_color(0)
        self.ln(1)

    def h2(self, text):
        if self.get_y() > 250:
            self.add_page()
        self.ln(1)
        self.set_font("Helvetica", "B", 11)
        self.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")

    def para(self, text):
        self.set_font("Helvetica", "", 10)
        self.multi_cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")
        self.ln(2)

    def bullets(self, items):
        self.set_font("Helvetica", "", 10)
        for item in items:
            self.set_x(self.l_margin + 4)
            self.multi_cell(0, 5, "- " + item, new_x="LMARGIN", new_y="NEXT")
        self.ln(2)

    def grid(self, rows, widths, caption=None, align_right_from=1):
        if caption:
            self.set_font("Helvetica", "I", 9)
            self.multi_cell(0, 5, caption, new_x="LMARGIN", new_y="NEXT")
        self.set_font("Helvetica", "", 9.5)
        heading = FontFace(emphasis="BOLD", color=(255, 255, 255), fill_color=GREEN)
        aligns = ["LEFT"] + ["RIGHT" if i >= align_right_from else "LEFT" for i in range(1, len(widths))]
        with self.table(col_widths=widths, headings_style=heading, text_align=tuple(aligns),
                        line_height=6, width=sum(widths)) as table:
            for r in rows:
                row = table.row()
                for cell in r:
                    row.cell(cell)
        self.ln(4)


def annual_report():
    pdf = Doc("Riverside Libraries - Annual Report 2024/25", "Published July 2025")
    pdf.set_title("Riverside Libraries Annual Report 2024/25")
    pdf.set_author("Riverside Libraries")
    pdf.add_page()
    pdf.title_block("Riverside Libraries\nAnnual Report 2024/25",
                    "1 April 2024 to 31 March 2025. Approved by the Riverside Libraries Board on 18 June 2025.")

    pdf.h1("Foreword")
    pdf.para("This has been a year of steady growth for Riverside Libraries. More people came through our doors, "
             "borrowed more, and took part in more events than in any year since 2019. Sunday opening at Central "
             "Library, trialled from April 2024, proved so popular that the Board made it permanent in January. "
             "The refurbished children's library at Eastbank, opened in September, has brought hundreds of new "
             "families to the branch.")
    pdf.para("None of this would be possible without our staff and our volunteers, who gave their time and ideas "
             "generously all year, and without the Friends of Riverside Libraries, whose book sales paid for new "
             "stock and for the garden at Eastbank. Thank you all.")
    pdf.para("Margaret Osei, Chair of the Board, and Fiona Grant, Head of Libraries")

    pdf.h1("The year in numbers")
    pdf.bullets([
        "427,164 visits to our four branches, up 3.9% on 2023/24",
        "703,750 loans, including e-books and e-audiobooks, up 6% on 2023/24",
        "318 housebound patrons served by Books on Wheels",
        "146 volunteers gave 9,870 hours of their time",
        "1,284 bookings in The Workshop, our makerspace",
        "1,930 events with 38,400 attendances",
        "2,415 children took part in the Summer Reading Challenge 2024, and 61% of them finished it",
    ])

    pdf.h1("Visits by branch")
    pdf.para("Visits are counted by the door counters at each branch. The table shows both years, as the Board "
             "asked, so that the trend at each branch can be seen.")
    pdf.grid([
        ["Branch", "2023/24", "2024/25", "Change"],
        ["Central Library", "204,110", "212,480", "+4.1%"],
        ["Northgate", "91,200", "88,915", "-2.5%"],
        ["Eastbank", "93,050", "104,362", "+12.2%"],
        ["Millbrook", "22,890", "21,407", "-6.5%"],
        ["All branches", "411,250", "427,164", "+3.9%"],
    ], widths=(60, 35, 35, 30), caption="Table 1. Visits per branch, 2023/24 and 2024/25")
    pdf.para("Eastbank's growth came almost entirely after the children's library reopened in September. "
             "Northgate was closed for nine days in February 2025 while the building was rewired, which accounts "
             "for most of its fall. Millbrook lost eleven afternoon sessions during the year because a second member "
             "of staff could not be found, and the branch cannot open with only one person on duty.")

    pdf.h1("Loans")
    pdf.grid([
        ["Where borrowed", "Loans 2024/25"],
        ["Central Library", "301,200"],
        ["Northgate", "118,430"],
        ["Eastbank", "142,905"],
        ["Millbrook", "30,115"],
        ["Books on Wheels", "14,760"],
        ["E-books and e-audiobooks", "96,340"],
        ["Total", "703,750"],
    ], widths=(80, 40), caption="Table 2. Loans by branch and service, 2024/25")
    pdf.para("Total loans rose from 663,900 in 2023/24. E-audiobooks were the fastest-growing part of the "
             "collection, up 21%, and children's picture books remain the most borrowed items in every branch.")

    pdf.h1("Where the money went")
    pdf.para("Riverside Libraries is funded by Riverside Town Council, with income from charges, room hire and "
             "The Workshop, and gifts from the Friends. Income from charges, room hire and The Workshop was "
             "£96,400. The table compares what we planned to spend with what we spent.")
    pdf.grid([
        ["Budget line", "Budget 2024/25", "Actual 2024/25"],
        ["Staff", "£1,860,000", "£1,842,000"],
        ["Stock (books, e-books and media)", "£280,000", "£286,500"],
        ["Buildings and utilities", "£385,000", "£402,300"],
        ["Digital services and IT", "£120,000", "£118,700"],
        ["The Workshop (makerspace)", "£30,000", "£34,200"],
        ["Home delivery (Books on Wheels)", "£40,000", "£41,800"],
        ["Events and outreach", "£25,000", "£27,900"],
        ["Total", "£2,740,000", "£2,753,400"],
    ], widths=(80, 40, 40), caption="Table 3. Spending by budget line, 2024/25")
    pdf.para("Buildings and utilities were overspent because of the rewiring at Northgate and repairs to the "
             "heating at Millbrook. Staff costs were underspent because two posts were vacant for part of the year. "
             "The Workshop overspent on replacement parts for the laser cutter and the 3D printers.")

    pdf.h1("Books on Wheels")
    pdf.para("Books on Wheels brings books, audiobooks and films to people who cannot get to a branch. In 2024/25 "
             "it served 318 patrons, made 4,120 home visits and delivered 14,760 items. The rounds are driven by a "
             "team of 38 volunteer drivers. The waiting list peaked at 14 people in November, when several drivers "
             "stepped down, and was cleared in May 2025 after a recruitment campaign.")

    pdf.h1("Volunteers")
    pdf.para("146 volunteers gave 9,870 hours in 2024/25. They drove the Books on Wheels rounds, read with children "
             "as Reading Buddies, helped with homework clubs, ran the Repair Café with the Workshop team, looked "
             "after the Eastbank garden and shelved many thousands of books. Twelve volunteers have been with us "
             "for more than ten years.")

    pdf.h1("The Workshop")
    pdf.para("The Workshop had 1,284 bookings and ran 212 inductions. The 3D printers accounted for 61% of bookings. "
             "The monthly Repair Café fixed 418 items, from kettles to school bags, a repair rate of 72%. "
             "In March 2025 the laser cutter was out of use for seventeen days after its tube failed; the safety "
             "guide has since been revised.")

    pdf.h1("Events and children")
    pdf.para("We held 1,930 events with 38,400 attendances: rhyme times, Lego and Code Clubs, author talks, "
             "digital drop-ins, conversation cafés and the local history day. 2,415 children took part in the "
             "Summer Reading Challenge 2024 and 61% finished it, reading at least six books over the summer.")

    pdf.h1("Looking ahead to 2025/26")
    pdf.bullets([
        "Online joining with an instant e-card, launched in March 2025.",
        "New borrowing rules and lower overdue charges from 1 April 2025.",
        "A trial of Saturday Books on Wheels deliveries from September 2025.",
        "A full safety and equipment review of The Workshop, reporting to the Board in September 2025.",
    ])
    pdf.output(str(DOCS / "annual-report-2024-25.pdf"))


def safety_guide():
    pdf = Doc("The Workshop - Makerspace Safety Guide", "Version 2.1, April 2025")
    pdf.set_title("The Workshop: Makerspace Safety Guide")
    pdf.set_author("Riverside Libraries")
    pdf.add_page()
    pdf.title_block("The Workshop\nMakerspace Safety Guide",
                    "Riverside Libraries. Version 2.1, April 2025. Replaces version 2.0 (January 2024).")

    pdf.h1("1. About this guide")
    pdf.para("The Workshop is the makerspace of Riverside Libraries, on the lower ground floor. It is open to "
             "library members who have completed the inductions for the machines they want to use. Everyone who "
             "uses The Workshop, including volunteers, must read this guide and sign the register to say they have "
             "done so. Version 2.1 follows the failure of the laser cutter tube in March 2025 and a review of all "
             "equipment by the Workshop team.")

    pdf.h1("2. Opening hours and booking")
    pdf.para("The Workshop is open Tuesday to Friday 14:00-20:00 and Saturday 10:00-16:00. It is closed on "
             "Sundays and Mondays, even when the rest of the building is open. Machines must be booked in advance "
             "online, in the app or at the desk; walk-in use is allowed only if a machine is free and a member of "
             "the Workshop team agrees. Please arrive on time: a booking is released to the next person if you are "
             "more than 15 minutes late.")

    pdf.h1("3. Inductions")
    pdf.para("You must complete an induction for each machine before you use it on your own. Inductions run on "
             "Tuesdays at 18:00 and Saturdays at 10:00 and take about an hour. Sewing machines need only a short "
             "demonstration, and hand tools can be used without an induction under supervision.")
    pdf.para("Laser cutter inductions completed before 1 January 2024 are no longer valid. If you were inducted "
             "before then, you must take the new induction, which includes a supervised first cut.")

    pdf.h1("4. Equipment, ages and booking limits")
    pdf.grid([
        ["Equipment", "Minimum age", "Induction", "Longest booking"],
        ["3D printers (3)", "12 (under 16 with an adult)", "Yes", "4 hours"],
        ["Laser cutter", "16", "Yes, with supervised first cut", "90 minutes"],
        ["Vinyl cutter", "12", "Yes", "2 hours"],
        ["Sewing machines (4)", "10 (under 14 with an adult)", "Short demonstration", "3 hours"],
        ["Soldering stations (4)", "14", "Yes", "2 hours"],
        ["Hand tools", "8 (with an adult)", "No", "Not bookable"],
    ], widths=(42, 48, 48, 32), caption="Table 1. Who can use each machine and for how long", align_right_from=9)

    pdf.h1("5. General rules")
    pdf.bullets([
        "Wear closed-toe shoes. Tie back long hair and remove scarves, lanyards and loose jewellery near moving parts.",
        "No food or drink on the benches. Water bottles with lids can be left on the shelf by the door.",
        "Nobody works in The Workshop unless a member of the Workshop team is present.",
        "Stop work and start cleaning up 10 minutes before the end of your booking.",
        "Report any damaged or faulty equipment straight away. Do not try to repair machines yourself.",
    ])

    pdf.h1("6. Laser cutter")
    pdf.para("Never leave the laser cutter running unattended, not even for a minute. Stay beside the machine "
             "and watch the whole job. The extraction fan must be switched on before you start and left running "
             "for two minutes after the job ends.")
    pdf.para("Materials you may cut: plywood and MDF up to 6 mm, acrylic up to 5 mm, card, paper, cork and "
             "vegetable-tanned leather. Never cut PVC, vinyl, polycarbonate or any material containing chlorine: "
             "they give off toxic and corrosive gases. If you are not sure what a material is, do not cut it.")
    pdf.para("If you see flames, keep the lid closed and press the red emergency stop button on the right of the "
             "machine. Most flare-ups go out within seconds once the air supply stops. Call a member of the "
             "Workshop team. If the fire does not go out, and only if it is safe, use the CO2 extinguisher "
             "beside the laser cutter; never use water. The CO2 extinguisher beside the laser cutter is inspected "
             "by the Building Safety Lead on the first Monday of every month, together with the fire blanket.")

    pdf.h1("7. 3D printers")
    pdf.para("Use PLA or PETG filament only; ABS and resin are not allowed because of the fumes. Do not touch the "
             "nozzle or remove prints while the bed is hot. Prints longer than 4 hours must be arranged with the "
             "Workshop team as overnight prints. You pay for the filament you use, by weight; current prices are "
             "on the board next to the printers.")

    pdf.h1("8. Soldering")
    pdf.para("Use lead-free solder only, switch on the fume extractor before you heat the iron, and wear the "
             "safety glasses provided. Always return the iron to its stand, and switch it off at the end of your "
             "booking. Wash your hands after soldering.")

    pdf.h1("9. Sewing machines and vinyl cutter")
    pdf.para("Keep fingers clear of the needle and the cutting blade. Change needles and blades only with the "
             "machine switched off. Used blades go in the sharps box on the wall, not in the bin.")

    pdf.h1("10. Accidents and incidents")
    pdf.para("The first aid kit is by the door and the eyewash station is next to the sink. For burns, cool the "
             "burn under cool running water for 20 minutes. Report every accident and every near miss to the "
             "Workshop team, however small. The Workshop team must complete incident form MS-3 within 24 hours "
             "and send a copy to the Building Safety Lead.")

    pdf.h1("11. Fire alarm")
    pdf.para("When the fire alarm sounds, stop your machine with its emergency stop if it is safe to do so, leave "
             "everything and go up the main stairs and out of the building. Do not use the lift. The assembly point "
             "is in Market Square, by the clock. Do not go back in until you are told it is safe.")
    pdf.output(str(DOCS / "makerspace-safety-guide.pdf"))


if __name__ == "__main__":
    annual_report()
    safety_guide()
    print("wrote", DOCS / "annual-report-2024-25.pdf", "and", DOCS / "makerspace-safety-guide.pdf")
