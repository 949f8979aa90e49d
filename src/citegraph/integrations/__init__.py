"""citegraph inside LangChain and LlamaIndex applications: a retriever whose documents are the exact
source sentences (each with its span, the labels of its document and the graph route that found it),
and a tool that checks an answer's citations against them.

- :mod:`citegraph.integrations.langchain`: ``CiteGraphRetriever`` (a ``BaseRetriever``) and
  ``citation_check_tool`` (a ``StructuredTool``); needs ``pip install 'citegraph[integrations]'``.
- :mod:`citegraph.integrations.llamaindex`: the same as a LlamaIndex ``BaseRetriever`` (``TextNode``
  with scores) and a ``FunctionTool``.

Both read through :mod:`citegraph.integrations.evidence`, which asks the graph as ``citegraph ask``
does, with the caller's labels: nothing the caller may not read reaches the application.
"""
