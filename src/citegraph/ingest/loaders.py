"""File loaders: bytes in, document text out. One function per format."""

from __future__ import annotations

import codecs
import datetime as dt
import io
import logging
import re
import warnings
from typing import Any, NamedTuple

from citegraph.errors import InputFileError
from citegraph.sentences import front_matter_end
from citegraph.verify.text import MONTHS

__all__ = [
    "Metadata",
    "decode",
    "load_html",
    "load_pdf",
    "load_text",
    "parse_date",
    "plain_ligatures",
    "read_html",
    "read_pdf",
    "read_text",
    "stated_date",
    "table_rows",
]

# A byte order mark names its encoding. UTF-32 first: its little-endian mark begins with UTF-16's.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
_BINARY_FIX = (
    "give citegraph text, Markdown, HTML or PDF; if it is text in another encoding, convert it to UTF-8, "
    "e.g. iconv -f UTF-16 -t UTF-8 FILE > FILE.txt"
)


class Metadata(NamedTuple):
    """What a document says about itself: its date, and the documents it replaces."""

    dated: str | None = None  #: ISO 8601 day
    supersedes: tuple[str, ...] = ()


def decode(path: str, data: bytes) -> str:
    """Text of a file: UTF-8, or UTF-16/UTF-32 when a byte order mark says so; one newline convention."""
    codec, encoding = "utf-8", "UTF-8"
    for bom, name, label in _BOMS:
        if data.startswith(bom):
            codec, encoding, data = name, label, data[len(bom) :]
            break
    if codec == "utf-8" and b"\x00" in data[:8192]:
        raise InputFileError(path, "looks like a binary file (NUL bytes, no byte order mark)", _BINARY_FIX)
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        fix = (
            "convert it, e.g. iconv -f latin1 -t utf-8" if encoding == "UTF-8" else f"its byte order mark says {encoding}; save it as UTF-8"
        )
        raise InputFileError(path, f"not valid {encoding} (byte {exc.start})", fix) from exc
    if "\x00" in text[:8192]:  # a mark followed by binary data
        raise InputFileError(path, f"looks like a binary file (NUL characters after a {encoding} byte order mark)", _BINARY_FIX)
    # One newline convention, so offsets do not depend on the platform the file was written on.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_text(path: str, data: bytes) -> str:
    """Plain text and Markdown are stored as written (Markdown block markers are skipped later)."""
    return decode(path, data)


_BLOCK_TAGS = [
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "tr",
    "ul",
    "title",
]


def load_html(path: str, data: bytes) -> str:
    """Strip markup with a real parser; block elements become paragraph breaks."""
    return read_html(path, data)[0]


def read_html(path: str, data: bytes) -> tuple[str, Metadata]:
    """:func:`load_html`'s text and the page's ``<meta>`` date, from one parse."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(decode(path, data), "html.parser")
    meta = Metadata(_html_date(path, soup))  # before the head goes
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    # What the page marks as not asserted, written as Markdown writes it, so the structure is read
    # alike from both (citegraph.ingest.structure): struck-through text, preformatted code.
    for tag in soup.find_all(["del", "s", "strike"]):
        tag.insert_before("~~")
        tag.insert_after("~~")
    for tag in soup.find_all("pre"):
        tag.insert_before("\n\n```\n")
        tag.insert_after("\n```\n\n")
    # A table row is one line: under a header row of <th> cells, each cell after its column's heading
    # (table_rows, as a PDF's tables are written); without one, its cells joined by " | " as a
    # Markdown table writes them. A cell alone ("Deleted 30 days after cancellation") loses what it
    # is about.
    for table in soup.find_all("table"):
        rows = [row for row in table.find_all("tr") if row.find_parent("table") is table]
        cells = [row.find_all(["td", "th"], recursive=False) for row in rows]
        if len(rows) > 1 and cells[0] and all(cell.name == "th" for cell in cells[0]):
            header = [" ".join(cell.get_text(" ").split()) for cell in cells[0]]
            rows[0].decompose()
            for row, row_cells in zip(rows[1:], cells[1:], strict=True):
                written = table_rows(header, [[" ".join(cell.get_text(" ").split()) for cell in row_cells]])
                row.clear()
                row.append(written[0] if written else "")
            continue
        for row_cells in cells:
            for cell in row_cells[1:]:
                cell.insert_before(" | ")
    for tag in soup.find_all(_BLOCK_TAGS):
        tag.insert_before("\n\n")
        tag.insert_after("\n\n")
    text = soup.get_text()
    lines = [" ".join(line.split()) for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    text = "\n".join(out).strip() + "\n"
    return text, meta if meta.dated else Metadata(stated_date(text))


def load_pdf(path: str, data: bytes) -> str:
    """Text of each page, pages separated by a blank line (:func:`read_pdf`)."""
    return read_pdf(path, data)[0]


def read_pdf(path: str, data: bytes) -> tuple[str, Metadata]:
    """A PDF's text and its modification (or creation) date. The text is pdfplumber's, line by line
    in reading order, with each ruled table written row by row as its header reads it ("Office:
    Leeds; Room: Kelp; Seats: 4; Video conferencing: No.", :func:`table_rows`) and the running
    header and footer every page repeats left out (:func:`_running_lines`); a file pdfplumber
    cannot read is read by pypdf, as plain text. The readers' own warnings (a repaired
    cross-reference table, a missing font width) are silenced: they are about the file's syntax,
    not something the user can act on, and a PDF neither can read is reported as this file's reason."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    loggers = [logging.getLogger(name) for name in ("pypdf", "pdfminer", "pdfplumber")]
    levels = [logger.level for logger in loggers]
    try:
        for logger in loggers:
            logger.setLevel(logging.ERROR)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = PdfReader(io.BytesIO(data))
            dated = _pdf_date(reader)
            pages = _pdfplumber_pages(data)
            if pages is None:
                pages = [(page.extract_text() or "").splitlines() for page in reader.pages]
    except (PdfReadError, ValueError, KeyError) as exc:
        raise InputFileError(path, f"cannot read PDF: {exc}", "check that the file is a valid PDF") from exc
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)
    running = _running_lines(pages)
    texts = ["\n".join(line for i, line in enumerate(lines) if i not in drop).strip() for lines, drop in zip(pages, running, strict=True)]
    return plain_ligatures("\n\n".join(t for t in texts if t) + "\n"), Metadata(dated)


#: typeset ligatures a PDF's text may hold as single characters ("ﬁnance"), and the letters they stand for
_LIGATURES = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"}
)


def plain_ligatures(text: str) -> str:
    """``text`` with typeset ligatures written as their letters: a PDF set with them gives "ﬁnance",
    which no question's "finance" matches (by word, by name, or in the reader's word pieces)."""
    return text.translate(_LIGATURES)


def _pdfplumber_pages(data: bytes) -> list[list[str]] | None:
    """Each page's lines (pdfplumber), tables written by :func:`table_rows` where they stand; None
    when pdfplumber is not installed or cannot read the file (pypdf's text is used then)."""
    try:
        import pdfplumber
    except ImportError:
        return None
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            return [_page_lines(page) for page in pdf.pages]
    except Exception:  # pdfminer fails in many ways (syntax, encodings, broken streams): pypdf reads it then
        return None


def _page_lines(page: Any) -> list[str]:
    """A page's lines top to bottom: text outside its ruled tables as pdfplumber lays it out, each
    table's rows at the table's place."""
    tables = page.find_tables()
    boxes = [table.bbox for table in tables]

    def outside(obj: dict[str, Any]) -> bool:
        if obj.get("object_type") != "char":
            return True
        x, y = (obj["x0"] + obj["x1"]) / 2, (obj["top"] + obj["bottom"]) / 2
        return not any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in boxes)

    placed: list[tuple[float, int, str]] = []
    for line in page.filter(outside).extract_text_lines(return_chars=False) if boxes else page.extract_text_lines(return_chars=False):
        placed.append((line["top"], 0, line["text"]))
    for table in tables:
        rows = [[" ".join((cell or "").split()) for cell in row] for row in table.extract()]
        rows = [row for row in rows if any(row)]
        header = rows[0] if len(rows) > 1 and _header_row(page, table, rows[0]) else None
        for i, text in enumerate(table_rows(header, rows[1:] if header else rows)):
            placed.append((table.bbox[1], i + 1, text))
    return [text for _, _, text in sorted(placed, key=lambda p: (p[0], p[1]))]


def _header_row(page: Any, table: Any, cells: list[str]) -> bool:
    """The table's first row (``cells``) is its header: printed in a bold face, or it has three or more
    columns and no cell of it is a number (a two-column table without a bold header reads as key and value)."""
    first = table.rows[0]
    if first.bbox is not None:
        chars = page.crop(first.bbox).chars
        if chars and all(re.search(r"bold|black|heavy|semibold", c.get("fontname", ""), re.IGNORECASE) for c in chars if c["text"].strip()):
            return True
    return len(cells) >= 3 and all(cells) and not any(re.fullmatch(r"[\d.,%+-]+", c) for c in cells)


def table_rows(header: list[str] | None, rows: list[list[str]]) -> list[str]:
    """A table's rows as sentences a reader and the embedder take whole: each cell after its
    column's heading ("Office: Leeds; Room: Kelp; Seats: 4."), or the cells joined by "; " when the
    table has no header row (a two-column table then reads as "Key: value"). An empty cell is left
    out; a row ends as a sentence does."""
    out = []
    for row in rows:
        if header is not None and len(header) == len(row):
            parts = [f"{h}: {c}" if h else c for h, c in zip(header, row, strict=True) if c]
        elif len(row) == 2 and all(row):
            parts = [f"{row[0]}: {row[1]}"]
        else:
            parts = [c for c in row if c]
        text = "; ".join(parts)
        if text:
            out.append(text if text.endswith((".", "!", "?")) else text + ".")
    return out


_PAGE_NUMBER = re.compile(r"(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?", re.IGNORECASE)


def _shape(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.split()).lower())


def _running_lines(pages: list[list[str]]) -> list[set[int]]:
    """Per page, the positions of its lines that are a running header or footer: among its first two
    and last two lines, one whose shape (digits as #) stands at the same place (from the top, or
    from the bottom) on at least two pages and half of them, or a bare page number ("12", "Page 3 of 9")."""

    def ends(lines: list[str]) -> list[tuple[int, tuple[int, str]]]:
        n = len(lines)
        return [(i, (i - n if i >= n - 2 else i, _shape(lines[i]))) for i in sorted({0, 1, n - 2, n - 1} & set(range(n)))]

    seen: dict[tuple[int, str], int] = {}
    for lines in pages:
        for _i, key in ends(lines):
            seen[key] = seen.get(key, 0) + 1
    repeated = {key for key, count in seen.items() if count >= max(2, (len(pages) + 1) // 2)}
    return [{i for i, key in ends(lines) if key in repeated or _PAGE_NUMBER.fullmatch(" ".join(lines[i].split()))} for lines in pages]


# -- what a document says about itself: its date, and the documents it replaces ---------------------
_DATE_FIX = "write the date as YYYY-MM-DD (e.g. 2024-05-01)"


def parse_date(value: object, where: str, field: str = "") -> str:
    """An ISO 8601 day from a date, a datetime or a string starting with YYYY-MM-DD; otherwise
    :class:`InputFileError` naming ``where`` (the file or option), the ``field`` and the fix."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value).strip()
    found = re.match(r"(\d{4})-?(\d{2})-?(\d{2})(?:$|[T _])", text)  # 2026-05-06, 20260506_12:00
    if found:
        try:
            return dt.date(int(found.group(1)), int(found.group(2)), int(found.group(3))).isoformat()
        except ValueError:
            pass
    raise InputFileError(where, f"{field + ': ' if field else ''}{text!r} is not a date", _DATE_FIX)


def _front_matter(path: str, text: str) -> Metadata:
    end = front_matter_end(text)
    if not end:
        return Metadata()
    import yaml

    block = text[4:end]
    block = block[: block.rstrip("\n").rfind("\n") + 1]  # without its closing line
    try:
        fields = yaml.safe_load(block) or {}
    except yaml.YAMLError as exc:
        raise InputFileError(
            path, f"front matter is not valid YAML: {str(exc).splitlines()[0]}", "fix the block between the --- lines"
        ) from exc
    if not isinstance(fields, dict):
        return Metadata()
    fields = {str(k).lower(): v for k, v in fields.items()}
    dated = None
    for key in ("updated", "date"):  # the latest the document says of itself
        if fields.get(key) not in (None, ""):
            dated = parse_date(fields[key], path, f"front matter '{key}'")
            break
    raw: Any = fields.get("supersedes") or ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list | tuple) or not all(isinstance(x, str | int) for x in raw):
        raise InputFileError(path, "front matter 'supersedes' must be a document id or a list of ids", "e.g. supersedes: [faq-2023.md]")
    return Metadata(dated, tuple(str(x).strip() for x in raw if str(x).strip()))


_HEADER = re.compile(r"(?:time|date|updated)[ \t]*:[ \t]*(\d{4}-?\d{2}-?\d{2})(?=$|[T _\s])", re.IGNORECASE)


def _header_date(text: str) -> str | None:
    """A chat log's or a note's first line giving its date (``Time: 20260506_12:00``, ``Date: 2024-05-01``)."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    found = _HEADER.match(first)
    if not found:
        return None
    try:
        return parse_date(found.group(1), "", "")
    except InputFileError:
        return None


_META_DATES = ("dcterms.modified", "article:modified_time", "last-modified", "date", "dcterms.date", "dc.date", "article:published_time")


def _html_date(path: str, soup: Any) -> str | None:
    found: dict[str, str] = {}
    for meta in soup.find_all("meta"):
        name = str(meta.get("name") or meta.get("property") or meta.get("http-equiv") or "").lower()
        content = meta.get("content")
        if name in _META_DATES and content:
            found.setdefault(name, str(content))
    for name in _META_DATES:
        if name in found:
            return parse_date(found[name], path, f"<meta name={name!r}>")
    return None


def _pdf_date(reader: Any) -> str | None:
    try:
        info = reader.metadata
        when = info and (info.modification_date or info.creation_date)
    except Exception:  # a PDF's metadata is optional and often damaged: no date, never a failed document
        return None
    return when.date().isoformat() if when else None


def read_text(path: str, data: bytes) -> tuple[str, Metadata]:
    """:func:`load_text`'s text, and what its front matter (``date:``/``updated:``, ``supersedes:``)
    or, without a date there, its first line ``Time:``/``Date:`` (a chat log's), or a line of its
    opening that states its date (:func:`stated_date`) says of it."""
    text = load_text(path, data)
    meta = _front_matter(path, text)
    return text, meta if meta.dated else Metadata(_header_date(text) or stated_date(text), meta.supersedes)


_MONTH = r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_WEEKDAY = r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|wed|thu|fri|sat|sun),?\s+"
_DAYS_WRITTEN = (
    re.compile(r"(?P<year>\d{4})-(?P<mon>\d{2})-(?P<day>\d{2})\b"),  # 2025-07-01
    re.compile(rf"(?:{_WEEKDAY})?(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+(?P<year>\d{{4}})\b", re.IGNORECASE),
    re.compile(rf"(?:{_WEEKDAY})?{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})\b", re.IGNORECASE),
    re.compile(rf"{_MONTH},?\s+(?P<year>\d{{4}})\b", re.IGNORECASE),  # "March 2024": its first day
)
#: a line of a document's opening, or a part of one after a full stop, a comma or a "·" ("Version
#: 2.3, effective 1 March 2025", "Leeds and Lisbon. Updated 7 April 2025."), that says when the
#: document was written, revised or took effect; not the same words inside a sentence ("The policy is
#: effective 1 July 2025 for all staff.")
_STATES_DATE = re.compile(
    r"(?:^|[.,;·|]\s+)(?:last\s+)?(?:updated|revised|reviewed|modified|effective(?:\s+(?:from|date|as\s+of))?|valid\s+from"
    r"|in\s+force\s+from|published|dated?|as\s+of)\b(?:\s+on)?\s*[:\-–—]?\s*(?P<when>.+)$",
    re.IGNORECASE,
)
OPENING_LINES = 12  #: the lines of a document's opening where it may state its date


def stated_date(text: str) -> str | None:
    """The date a document states of itself in its opening (its first :data:`OPENING_LINES` lines
    with words, past any front matter): a line that opens with "Last updated", "Revised",
    "Effective", "Published", "Date" and the like followed by a day ("Last updated: 2 September
    2025", "**Date:** 10 March 2025", "Effective 1 July 2025.", "Updated March 2024": the month's
    first day); the latest, where it states several. None where it states none. A policy that gives
    its date only so (no front matter, no HTML meta date) is then dated, so that a dated FAQ that
    disagrees with it is named the older side (:mod:`citegraph.answer.currency`)."""
    start = front_matter_end(text) or 0
    lines = [line for line in (raw.strip() for raw in text[start:].splitlines()) if re.search(r"\w", line)][:OPENING_LINES]
    found = []
    for line in lines:
        plain = re.sub(r"[*_`]+", "", line).lstrip("#>-•· \t")
        for stated in _STATES_DATE.finditer(plain):
            day = _day_written(stated.group("when").strip())
            if day is not None:
                found.append(day)
    return max(found) if found else None


def _day_written(text: str) -> str | None:
    """The day ``text`` opens with (ISO, "2 September 2025", "September 2, 2025", a weekday before
    either, or "March 2024" as its first day), as an ISO 8601 day; None without one."""
    for pattern in _DAYS_WRITTEN:
        day = pattern.match(text)
        if day is None:
            continue
        fields = day.groupdict()
        month = int(fields["mon"]) if fields.get("mon") else [m[:3] for m in MONTHS].index(fields["month"][:3].casefold()) + 1
        try:
            return dt.date(int(fields["year"]), month, int(fields.get("day") or 1)).isoformat()
        except ValueError:  # "31 February": no day, no date
            return None
    return None
