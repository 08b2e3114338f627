"""The GIL is released while the engine works (BINDINGS.md "Fast paths").

Observed with a counter, never with a clock: Python's switch interval is set so long that a
thread holding the GIL is never preempted, so while a worker thread is inside one
``encode_json`` / ``present`` call, another Python thread can advance a counter
only if the call released the GIL. The worker reads the counter right before and right
after each call; with the GIL held throughout, the two reads are always equal. Whether two
threads encoding at once are also faster is a speed claim: the bench measures it
(``bench/bench.py``, "2 threads").
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any, Callable

import pytest

import toolwire
from toolwire import toon

ROWS = [{"id": i, f"k{i % 7}": "x" * (i % 13), "v": [i, i + 1, {"n": i}]} for i in range(60_000)]
B = json.dumps(ROWS).encode()


def progress_during(call: Callable[[], Any], attempts: int = 30) -> tuple[int, Any]:
    """Runs `call` on a worker thread up to `attempts` times while this thread counts; the
    most the counter advanced inside one call, and the call's last result."""
    counter = 0
    done = threading.Event()
    seen: list[int] = []
    result: list[Any] = []

    def worker() -> None:
        try:
            for _ in range(attempts):
                before = counter
                result[:] = [call()]
                seen.append(counter - before)
                if seen[-1] > 0:
                    break
        finally:
            done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)  # no preemption: only a released GIL lets the other run
    try:
        t = threading.Thread(target=worker)
        t.start()
        while not done.is_set():
            counter += 1
            time.sleep(0)  # releases the GIL, so the worker gets it back between calls
        t.join()
    finally:
        sys.setswitchinterval(old)
    return max(seen), result[0]


@pytest.mark.parametrize(
    "name,call",
    [
        ("encode_json(bytes)", lambda: toon.encode_json(B)),
        ("encode_json(str)", lambda: toon.encode_json(B.decode())),
        ("present(bytes)", lambda: toolwire.present(B, format="toon-comma")["content"][0]["text"]),
    ],
)
def test_another_thread_runs_inside_an_engine_call(name: str, call: Callable[[], Any]) -> None:
    advanced, out = progress_during(call)
    assert out == toon.encode_json(B), name
    assert advanced > 0, f"{name}: no other thread ran during the call: the GIL was held"


def test_the_probe_sees_a_call_that_holds_the_gil() -> None:
    # The same probe around a call that never releases the GIL (pure Python work of about
    # the same length) sees no progress: the test above can fail.
    def busy() -> int:
        n = 0
        for i in range(300_000):
            n += i
        return n

    advanced, out = progress_during(busy, attempts=3)
    assert out == sum(range(300_000))
    assert advanced == 0
