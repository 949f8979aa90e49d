"""Local language models: one chat interface; Ollama, OpenAI-compatible servers and in-process GGUF behind it."""

from citegraph.llm.base import ChatModel, ChatResult, FakeChatModel, Message
from citegraph.llm.spec import SCHEMES, ModelSpec, parse_spec

__all__ = ["SCHEMES", "ChatModel", "ChatResult", "FakeChatModel", "Message", "ModelSpec", "parse_spec"]
