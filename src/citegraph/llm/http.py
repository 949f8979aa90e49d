"""One place that turns HTTP failures into citegraph errors, for every HTTP backend."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from citegraph.errors import BackendUnavailable, ModelOutputError, ModelUnavailable

__all__ = ["RequestRejected", "post_json", "stream_json", "stream_lines"]


class RequestRejected(BackendUnavailable):
    """The server does not accept something in the request (400, 422, or a validation error)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def post_json(client: httpx.Client, url: str, payload: dict[str, Any], *, backend: str, model: str) -> dict[str, Any]:
    try:
        response = client.post(url, json=payload)
    except httpx.TimeoutException as exc:
        raise BackendUnavailable(f"{backend}: timed out after {client.timeout.read}s at {url}") from exc
    except httpx.HTTPError as exc:
        raise BackendUnavailable(f"{backend}: cannot reach {url} ({type(exc).__name__}: {exc})") from exc
    _raise_for(response, url, backend=backend, model=model)
    try:
        data = response.json()
    except ValueError as exc:
        raise ModelOutputError(f"{backend}: response from {url} is not JSON") from exc
    if not isinstance(data, dict):
        raise ModelOutputError(f"{backend}: response from {url} is not a JSON object")
    return data


def stream_lines(client: httpx.Client, url: str, payload: dict[str, Any], *, backend: str, model: str) -> Iterator[str]:
    """POST ``payload`` and yield the response's lines as they arrive (NDJSON, or server-sent events),
    with the same errors as :func:`post_json`."""
    try:
        with client.stream("POST", url, json=payload) as response:
            if response.status_code >= 400:
                response.read()
                _raise_for(response, url, backend=backend, model=model)
            yield from response.iter_lines()
    except httpx.TimeoutException as exc:
        raise BackendUnavailable(f"{backend}: timed out after {client.timeout.read}s at {url}") from exc
    except httpx.HTTPError as exc:
        raise BackendUnavailable(f"{backend}: cannot reach {url} ({type(exc).__name__}: {exc})") from exc


def _raise_for(response: httpx.Response, url: str, *, backend: str, model: str) -> None:
    if response.status_code >= 400:
        try:
            message = str(response.json().get("error", response.text))
        except ValueError:
            message = response.text
        if isinstance(message, dict):  # OpenAI-style {"error": {"message": ...}}
            message = str(message.get("message", message))
        if response.status_code == 404 or "not found" in message.lower():
            raise ModelUnavailable(f"{backend}: model {model!r} not available: {message.strip()[:300]}")
        text = f"{backend}: HTTP {response.status_code} from {url}: {message.strip()[:300]}"
        # llama-cpp-python's server reports a request it cannot validate as HTTP 500.
        if response.status_code in (400, 422) or "response_format" in message:
            raise RequestRejected(text, response.status_code)
        raise BackendUnavailable(text)


def stream_json(text: str, backend: str) -> dict[str, Any]:
    """One piece of a model server's stream (an Ollama line, an OpenAI event's data) as the JSON object
    it must be; ModelOutputError for anything else, and for a piece that reports an error."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ModelOutputError(f"{backend}: a streamed piece is not JSON: {text[:200]!r}") from exc
    if not isinstance(data, dict):
        raise ModelOutputError(f"{backend}: a streamed piece is not a JSON object: {text[:200]!r}")
    if data.get("error"):
        raise ModelOutputError(f"{backend}: {data['error']}")
    return data
