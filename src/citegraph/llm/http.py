"""One place that turns HTTP failures into citegraph errors, for every HTTP backend."""

from __future__ import annotations

from typing import Any

import httpx

from citegraph.errors import BackendUnavailable, ModelOutputError, ModelUnavailable

__all__ = ["RequestRejected", "post_json"]


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
    try:
        data = response.json()
    except ValueError as exc:
        raise ModelOutputError(f"{backend}: response from {url} is not JSON") from exc
    if not isinstance(data, dict):
        raise ModelOutputError(f"{backend}: response from {url} is not a JSON object")
    return data
