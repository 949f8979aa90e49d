"""Who a request reads as: the API's bearer tokens, shared by the HTTP API, the chat endpoint and the
MCP server's HTTP transport."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Header, Request

from citegraph.errors import CitegraphError

if TYPE_CHECKING:
    from citegraph.serve.tokens import TokenStore

__all__ = ["Unauthorised", "bearer_labels", "caller", "chat_caller"]


class Unauthorised(CitegraphError):
    """No usable token: answered 401."""


def bearer_labels(tokens: TokenStore, authorization: str | None) -> tuple[str, ...]:
    """The labels an ``Authorization`` header reads with: ``public`` without one, the token's with
    ``Bearer TOKEN``; :class:`Unauthorised` for a malformed header or an unknown or revoked token."""
    if authorization is None:
        return ("public",)
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorised("the Authorization header must be 'Bearer TOKEN'")
    labels = tokens.labels(token.strip())
    if labels is None:
        raise Unauthorised("unknown or revoked token; make one with: citegraph token add NAME --labels LABELS")
    return labels


def caller(request: Request, authorization: Annotated[str | None, Header()] = None) -> tuple[str, ...]:
    """The labels the request reads with: ``public`` without a token, the token's with one."""
    return bearer_labels(request.app.state.tokens, authorization)


def chat_caller(request: Request, authorization: Annotated[str | None, Header()] = None) -> tuple[str, ...]:
    """:func:`caller` for OpenAI clients, which always send a key: the key ``public`` reads as a request
    without a token does (no more; it never writes)."""
    if authorization is not None and authorization.partition(" ")[2].strip() == "public":
        return ("public",)
    return caller(request, authorization)
