"""Store locations: a SQLite file path, or a ``postgresql://`` URL, and how to name one in a message.

A URL may carry a password (``postgresql://user:secret@host/db``); every message that names a store
uses :func:`redact_url`, so the password never reaches a terminal, a log or an HTTP response.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

__all__ = ["POSTGRES_SCHEMES", "is_postgres_url", "redact_url"]

POSTGRES_SCHEMES = ("postgresql", "postgres")


def is_postgres_url(location: object) -> bool:
    """Whether ``location`` (a ``--db`` value) names a PostgreSQL store rather than a SQLite file."""
    return isinstance(location, str) and location.split("://", 1)[0].lower() in POSTGRES_SCHEMES and "://" in location


def redact_url(location: object) -> str:
    """``location`` as text, with the password of a URL (``user:PASSWORD@`` or ``?password=``)
    replaced by ``***``."""
    text = str(location)
    if "://" not in text:
        return text
    text = re.sub(r"(?i)([?&]password=)[^&#]*", r"\1***", text)
    try:
        parts = urlsplit(text)
        password = parts.password
    except ValueError:  # a malformed URL: keep only its scheme
        return text.split("://", 1)[0] + "://…"
    if not password:
        return text
    user, _, host = parts.netloc.rpartition("@")
    name = user.split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{name}:***@{host}"))
