"""The reader thread of ``olearn train``: blocks parsed ahead while the pass learns.

A streamed file is parsed block by block in a second thread and handed to
the main thread through a queue of at most :data:`DEPTH` blocks.  The
compiled LIBSVM pass runs without the GIL (numba's ``nogil``), so on two
cores the parsing of the next block overlaps the learning of this one, as
SOL's reader thread does; the blocks' arrays are a ring of
:data:`RING` sets used in turn (``libsvm_blocks(..., reuse=RING)``), so
memory stays flat and no new pages are touched after the first few blocks
(``DEPTH`` blocks queued, one being filled and one being learned, fewer than
``RING``).  An error of the reader (a bad line, a corrupt ``.gz``) is
re-raised in the main thread when the blocks before it have been consumed,
so it is reported in file order; leaving the loop early (an error while
learning, Ctrl-C) stops the thread before the next block.
"""
import queue
import threading

#: blocks parsed ahead of the one being learned
DEPTH = 2
#: sets of block arrays in turn: more than DEPTH + 2 (queued, being filled, being learned)
RING = DEPTH + 3

_DONE = object()


class _Raised:
    def __init__(self, error):
        self.error = error


def read_ahead(blocks, depth=DEPTH):
    """The items of the iterable ``blocks``, produced in a thread ``depth`` ahead."""
    items = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item):
        while not stop.is_set():
            try:
                items.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce():
        try:
            for block in blocks:
                if not put(block):
                    return
            put(_DONE)
        except BaseException as error:  # noqa: BLE001 - handed to the main thread
            put(_Raised(error))
        finally:
            close = getattr(blocks, "close", None)
            if close is not None:
                close()  # the generator's file is closed in its own thread

    thread = threading.Thread(target=produce, name="olearn-reader", daemon=True)
    thread.start()
    try:
        while True:
            item = items.get()
            if item is _DONE:
                return
            if isinstance(item, _Raised):
                raise item.error
            yield item
    finally:
        stop.set()
        thread.join()
