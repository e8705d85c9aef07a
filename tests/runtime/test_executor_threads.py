"""The reference's one BLAS thread is the process's limit: compares in two threads share it."""

from __future__ import annotations

import threading

from threadpoolctl import threadpool_info

from ir_tools.runtime.executor import one_blas_thread


def _blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_overlapping_callers_restore_the_limit_they_found() -> None:
    """A enters, B enters, A leaves, B leaves (two compares in two threads, found by a QA run of the library): each
    with a threadpool_limits of its own, B restored A's limit of one thread and left BLAS on one thread for good."""
    before = _blas_threads()
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, list[int]] = {}

    def a() -> None:
        with one_blas_thread():
            a_in.set()
            b_in.wait(10)
        a_out.set()

    def b() -> None:
        a_in.wait(10)
        with one_blas_thread():
            b_in.set()
            a_out.wait(10)
            seen["inside"] = _blas_threads()

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert seen["inside"] == [1] * len(before)  # (B still inside, after A left)
    assert _blas_threads() == before
