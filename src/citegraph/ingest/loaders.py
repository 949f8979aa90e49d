"""File loaders: bytes in, document text out. One function per format."""

from __future__ import annotations

import codecs
import io
import logging
import warnings

from citegraph.errors import InputFileError

__all__ = ["decode", "load_html", "load_pdf", "load_text"]

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
    "td",
    "th",
    "tr",
    "ul",
    "title",
]


def load_html(path: str, data: bytes) -> str:
    """Strip markup with a real parser; block elements become paragraph breaks."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(decode(path, data), "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    for tag in soup.find_all(_BLOCK_TAGS):
        tag.insert_before("\n\n")
        tag.insert_after("\n\n")
    text = soup.get_text()
    lines = [" ".join(line.split()) for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip() + "\n"


def load_pdf(path: str, data: bytes) -> str:
    """Text of each page, pages separated by a blank line. pypdf's own warnings (a repaired cross-
    reference table, a missing font width) are silenced: they are about the file's syntax, not
    something the user can act on, and a PDF it cannot read is reported as this file's reason."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    logger = logging.getLogger("pypdf")
    level = logger.level
    try:
        logger.setLevel(logging.ERROR)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = PdfReader(io.BytesIO(data))
            pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError) as exc:
        raise InputFileError(path, f"cannot read PDF: {exc}", "check that the file is a valid PDF") from exc
    finally:
        logger.setLevel(level)
    return "\n\n".join(p.strip() for p in pages if p.strip()) + "\n"
