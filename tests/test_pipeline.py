"""olearn.cli._pipeline: the reader thread hands blocks over in order, errors in file
order, and stops when the consumer leaves early (issue 37, item 3)."""
import threading
import time

import numpy as np
import pytest

from olearn.cli._pipeline import RING, read_ahead


def test_items_in_order_then_the_error_after_them():
    def blocks():
        yield from range(5)
        raise ValueError("line 6: bad")

    seen = []
    with pytest.raises(ValueError, match="line 6"):
        for item in read_ahead(blocks()):
            seen.append(item)
    assert seen == [0, 1, 2, 3, 4]


def test_leaving_early_stops_the_thread():
    produced = []

    def endless():
        k = 0
        while True:
            produced.append(k)
            yield k
            k += 1

    before = threading.active_count()
    stream = read_ahead(endless(), depth=2)
    assert [next(stream) for _ in range(3)] == [0, 1, 2]
    stream.close()
    time.sleep(0.05)
    assert threading.active_count() == before
    assert len(produced) <= 3 + 2 + 1   # at most depth blocks ahead, plus one being made


def test_ring_blocks_equal_fresh_blocks_through_the_thread(tmp_path):
    """Blocks parsed into a ring of reused arrays, read through the thread, hold
    the values of blocks with fresh arrays (each used before the next is taken)."""
    from olearn.datasets.libsvm import libsvm_blocks
    rng = np.random.default_rng(3)
    lines = [" ".join([str(rng.choice([-1, 1]))] + [f"{j}:{rng.standard_normal():.6g}"
                                                    for j in sorted(rng.choice(
                                                        range(1, 90), 7, replace=False))])
             for _ in range(3000)]
    path = tmp_path / "d.svm"
    path.write_text("\n".join(lines) + "\n")
    fresh = [(b.labels.copy(), b.indptr.copy(), b.indices.copy(), b.data.copy())
             for b in libsvm_blocks(path, "auto", 4096)]
    ring = [(b.labels.copy(), b.indptr.copy(), b.indices.copy(), b.data.copy())
            for b in read_ahead(libsvm_blocks(path, "auto", 4096, reuse=RING))]
    assert len(ring) == len(fresh) > 3 * RING
    for a, b in zip(fresh, ring):
        for x, z in zip(a, b):
            np.testing.assert_array_equal(x, z)
