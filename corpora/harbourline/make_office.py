"""Writes this corpus's Office files (docs/*.docx, *.xlsx, *.pptx) from the text below, with the
dates their properties give. Run from this folder with python-docx, openpyxl and python-pptx
installed (citegraph's own dependencies): ``python make_office.py``. The files are kept in the
repository as written by it; the text here is their source."""

from __future__ import annotations

import datetime as dt

import docx
import openpyxl
import pptx
from pptx.util import Inches


def handbook() -> None:
    d = docx.Document()
    d.add_heading("Harbourline Ferries crew handbook", level=0)
    d.add_paragraph("This handbook applies to everyone who works on board or at the quays for Harbourline Ferries. It was last revised in April 2025.")
    d.add_heading("Shifts and rest", level=1)
    d.add_paragraph("Deck crew work 12-hour shifts, four days on and four days off.")
    d.add_paragraph("After a night crossing, crew must have at least 10 hours of rest before their next shift starts.")
    d.add_heading("Leave", level=1)
    d.add_paragraph("Leave is booked through the crew rota. The table below gives each role's annual leave and the notice a request needs.")
    rows = [["Role", "Annual leave", "Notice needed"], ["Deck crew", "28 days", "4 weeks"], ["Engineers", "30 days", "6 weeks"], ["Office staff", "25 days", "2 weeks"]]
    t = d.add_table(rows=len(rows), cols=3)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            t.cell(r, c).text = text
            if r == 0:
                t.cell(r, c).paragraphs[0].runs[0].bold = True
    d.add_heading("Uniform", level=1)
    d.add_paragraph("Each crew member receives two uniform sets a year.")
    old = d.add_paragraph()
    old.add_run("Replacement uniforms are requested by email to the office.").font.strike = True
    d.add_paragraph("Replacement uniforms are ordered from the stores at Kelso Quay; bring the worn item with you.")
    d.add_heading("Safety", level=1)
    d.add_paragraph("The muster drill is held every Monday at 07:30, before the first sailing.")
    d.add_paragraph("Lifejacket checks are signed off by the duty officer at the start of each shift.")
    d.add_heading("Contacts", level=1)
    pairs = d.add_table(rows=2, cols=2)
    for r, (k, v) in enumerate([("Operations desk", "01632 960 201"), ("Crew welfare line", "0808 157 0192")]):
        pairs.cell(r, 0).text, pairs.cell(r, 1).text = k, v
    d.core_properties.title = "Harbourline Ferries crew handbook"
    d.core_properties.modified = dt.datetime(2025, 4, 1, 9, 0)
    d.save("docs/crew-handbook.docx")


def fares() -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Fares"
    for row in (
        ["Route", "Adult single", "Child single", "Bike"],
        ["Kelso Quay – Marr Island", "£6.50", "£3.20", "£1.50"],
        ["Kelso Quay – Brennock", "£9.80", "£4.90", "£2.00"],
        ["Marr Island – Brennock", "£4.40", "£2.20", "£1.00"],
    ):
        sheet.append(row)
    times = book.create_sheet("Timetable")
    for row in (
        ["Route", "First sailing", "Last sailing", "Crossing time (minutes)"],
        ["Kelso Quay – Marr Island", "06:15", "22:40", 25],
        ["Kelso Quay – Brennock", "07:00", "21:30", 50],
        ["Marr Island – Brennock", "08:10", "19:45", 30],
    ):
        times.append(row)
    book.save("docs/fares-and-timetable-2025.xlsx")


def board_update() -> None:
    deck = pptx.Presentation()
    s1 = deck.slides.add_slide(deck.slide_layouts[1])
    s1.shapes.title.text = "Q2 2025 board update"
    s1.placeholders[1].text_frame.text = "Passenger numbers rose 8% on the same quarter of 2024, to 412,000."
    s1.notes_slide.notes_text_frame.text = "Almost all of the rise is on the Brennock routes, after the new evening sailing."
    s2 = deck.slides.add_slide(deck.slide_layouts[1])
    s2.shapes.title.text = "New vessel"
    body = s2.placeholders[1].text_frame
    body.text = "MV Solan enters service on 1 September 2025."
    body.add_paragraph().text = "She carries 320 passengers and 40 cars."
    s2.notes_slide.notes_text_frame.text = "Captain Ines Okafor will command the Solan."
    s3 = deck.slides.add_slide(deck.slide_layouts[5])
    s3.shapes.title.text = "Fuel"
    table = s3.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(1.5)).table
    for (r, c), text in {(0, 0): "Quarter", (0, 1): "Fuel cost", (1, 0): "Q1 2025", (1, 1): "£1.21m", (2, 0): "Q2 2025", (2, 1): "£1.34m"}.items():
        table.cell(r, c).text = text
    deck.core_properties.modified = dt.datetime(2025, 7, 10, 12, 0)
    deck.save("docs/board-update-q2-2025.pptx")


if __name__ == "__main__":
    handbook()
    fares()
    board_update()
