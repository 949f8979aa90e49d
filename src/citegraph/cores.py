"""How one process's threads share the machine's cores.

citegraph's models (the embedder, the reader, the support checker) are onnxruntime sessions, each
running on every core. numpy's BLAS (OpenBLAS) keeps a thread per core too, and those threads spin
for a while after each matrix product, waiting for the next one. On 2 cores they took the cores from
the model run that follows a product: embedding a question inside ``retrieve`` took 10 ms instead of
the 5 ms it takes alone, and the whole retrieval on HotpotQA-100's store went from a warm p50 of
15-16 ms with one BLAS thread to 24-34 ms without (docs/results/2026-12-07/one-blas-thread/).

A question's products are small (a question against each sentence vector, a matrix times a vector),
so one BLAS thread loses little on them. An application that answers questions gives BLAS one thread
with :func:`one_blas_thread`: the ``citegraph`` command and each worker of ``citegraph serve`` do. A
program that imports citegraph as a library keeps its own setting unless it calls this function.
"""

from __future__ import annotations

__all__ = ["one_blas_thread"]


def one_blas_thread() -> None:
    """Limit numpy's BLAS to one thread for the rest of the process (threadpoolctl, which finds the
    BLAS library numpy loaded and sets its thread count)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
