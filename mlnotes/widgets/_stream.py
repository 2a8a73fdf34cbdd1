"""Optimisation runs that show themselves as they go: cached runs that can also be stepped.

An explorer whose new setting is a new optimisation run (t-SNE, metric MDS, the autoencoder)
cannot finish that run within an update's budget. Live, it shows the run's first snapshot (its
start) at once and the later ones as the optimiser records them, between chunks of the run; a
control moved meanwhile abandons the run at the next chunk. The pieces:

* :func:`streamed_run` turns a generator function (yielding the run's results so far after each
  snapshot, returning the whole run) into a cached function, like ``functools.lru_cache``, that
  can also be stepped with ``.stream(*args)``;
* :func:`partial_results`: within it, a run being stepped returns its results so far, so that
  the explorer's drawing function draws the run's latest snapshot unchanged;
* :func:`callback_steps` steps an optimiser that reports by a callback (``TSNE``, the
  autoencoder): a worker thread runs it, in lockstep with the caller (one of them computes at a
  time), so that each step is one chunk of the run.
"""

import asyncio
import collections
import contextlib
import contextvars
import functools
import queue
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

STOP_TIMEOUT_S = 30.0  # how long an abandoned optimiser may take to reach its next callback
# After a new run's first picture the run waits this long: the picture's way through the
# Jupyter server to the page (its decoding, drawing) is not slowed by the run taking a core
FIRST_PICTURE_PAUSE_S = 0.1
_PARTIAL: contextvars.ContextVar[bool] = contextvars.ContextVar("mlnotes_widgets_partial",
                                                                default=False)


@contextlib.contextmanager
def partial_results() -> Iterator[None]:
    """Within the block, a run being stepped (:func:`streamed_run`) returns its results so far
    instead of running to its end."""
    token = _PARTIAL.set(True)
    try:
        yield
    finally:
        _PARTIAL.reset(token)


def is_partial() -> bool:
    """Whether a drawing is of a run still going (:func:`partial_results`): its axes may be
    set for the whole run rather than for the snapshots so far."""
    return _PARTIAL.get()


class StreamedRun:
    """A cached run that can also be stepped (made by :func:`streamed_run`)."""

    def __init__(self, steps: Callable[..., Generator[Any, None, Any]], maxsize: int):
        functools.update_wrapper(self, steps)
        self._steps, self._maxsize = steps, maxsize
        self._done: collections.OrderedDict = collections.OrderedDict()
        self._partial: dict = {}
        self._lock = threading.RLock()

    def __call__(self, *args):
        with self._lock:
            if _PARTIAL.get() and args in self._partial:
                return self._partial[args]
            if args in self._done:
                self._done.move_to_end(args)
                return self._done[args]
        for _ in self.stream(*args):
            pass
        return self._done[args]

    def stream(self, *args) -> Iterator[Any]:
        """Step the run: yield its results so far after each snapshot (nothing if the run is
        cached); the whole run is cached when the last step is done. Closing the generator
        abandons the run."""
        with self._lock:
            if args in self._done:
                self._done.move_to_end(args)
                return
        steps = self._steps(*args)
        try:
            while True:
                try:
                    so_far = next(steps)
                except StopIteration as stop:
                    result = stop.value
                    break
                with self._lock:
                    self._partial[args] = so_far
                yield so_far
        finally:
            steps.close()
            with self._lock:
                self._partial.pop(args, None)
        with self._lock:
            self._done[args] = result
            while len(self._done) > self._maxsize:
                self._done.popitem(last=False)

    def cache_clear(self) -> None:
        """Forget every finished run (as ``functools.lru_cache``)."""
        with self._lock:
            self._done.clear()


def streamed_run(maxsize: int = 16) -> Callable[[Callable[..., Generator[Any, None, Any]]],
                                                StreamedRun]:
    """Cache a run written as a generator function (like ``functools.lru_cache(maxsize)``).

    The function yields the run's results so far after each snapshot and returns the whole
    run; called, the decorated function returns the whole run (computed once per arguments),
    and ``.stream(*args)`` steps it (:class:`StreamedRun`).
    """
    def decorate(steps):
        return StreamedRun(steps, maxsize)
    return decorate


class _Stop(Exception):
    """Raised in a stepped optimiser's thread when its caller abandons the run."""


def callback_steps(fit: Callable[[Callable[..., Any]], Any]) -> Generator[tuple, None, Any]:
    """Step an optimiser that reports through a callback, one callback at a time.

    ``fit(callback)`` runs the optimiser, calling ``callback(*args)`` wherever the caller may
    look at it (return True from the callback to stop; the optimisers of :mod:`mlnotes` take
    that convention). The generator yields each call's ``args`` and returns ``fit``'s value.
    ``fit`` runs in a worker thread in lockstep with the caller: between two steps the
    optimiser waits, so a step is the work from one callback to the next. Closing the
    generator stops the optimiser at its next callback. Errors in ``fit`` are raised in the
    caller. ``fit`` sees the caller's context variables (progress hooks).
    """
    to_caller: queue.Queue = queue.Queue(maxsize=1)
    to_worker: queue.Queue = queue.Queue(maxsize=1)

    def callback(*args):
        to_caller.put(("step", args))
        if to_worker.get() == "stop":
            raise _Stop
        return False

    def work():
        try:
            to_caller.put(("done", context.run(fit, callback)))
        except _Stop:
            to_caller.put(("stopped", None))
        except BaseException as exc:  # handed to the caller, raised there
            to_caller.put(("error", exc))

    context = contextvars.copy_context()
    threading.Thread(target=work, daemon=True, name="mlnotes-run").start()
    finished = False
    try:
        while True:
            kind, value = to_caller.get()
            if kind == "step":
                yield value
                to_worker.put("go")
                continue
            finished = True
            if kind == "error":
                raise value
            return value
    finally:
        if not finished:  # abandoned: stop the optimiser at its callback, wait for its thread
            to_worker.put("stop")
            with contextlib.suppress(queue.Empty):  # (a daemon thread frozen at exit: go on)
                while to_caller.get(timeout=STOP_TIMEOUT_S)[0] == "step":
                    to_worker.put("stop")


class Streaming:
    """For an explorer whose new setting is a new run: the run shown as it goes.

    ``stream(**params)`` steps the run (an iterator yielding the results so far after each
    snapshot, the same object again while no new snapshot is recorded); the explorer shows the
    run's first snapshot at once (then the run waits :data:`FIRST_PICTURE_PAUSE_S`, while the
    picture reaches the page) and the later ones as the optimiser records them (at most half
    of the time goes to drawing: after a picture that took t to draw, the run goes on for at
    least t before the next one), one chunk of the run between the kernel's messages; a control
    moved meanwhile abandons the run at its next chunk. Headless (tests, a notebook run without
    a reader) the run goes to its end at once. The explorer class provides ``_replay_run`` (a
    counter of runs), ``_replay_lock``, and the hooks ``_stream_began()``,
    ``_stream_failed()``, ``_stream_ended(values, start, first_s)`` (False if it failed),
    ``_show_live(png)`` and ``_live_params(values)``.
    """

    stream = None
    _live_steps = None

    def _stream_run(self, values, hook):
        """Start the run of the setting ``values`` (the caller has counted it in
        ``_replay_run``); ``hook(done, total)`` hears its progress."""
        run, start = self._replay_run, time.perf_counter()
        self._close_stream()
        loop = self._event_loop()
        with self._reporting_errors():
            self._live_steps = iter(self.stream(**{**self._run_params(), **values}))
        if self._live_steps is None:  # a setting the run refuses (said so)
            self._stream_failed()
            return
        self._stream_began()
        state = {"first_s": None, "drawn_at": start, "drawing_s": 0.0, "recorded": 0,
                 "live": loop is not None}
        while self._stream_step(run, values, hook, start, state):
            if loop is not None:
                loop.call_later(state.pop("pause", 0.001), self._stream_chunk, loop, run,
                                values, hook, start, state)
                return

    def _stream_chunk(self, loop, run, values, hook, start, state):
        with self._replay_lock:
            if self._stream_step(run, values, hook, start, state):
                loop.call_later(state.pop("pause", 0.001), self._stream_chunk, loop, run,
                                values, hook, start, state)

    def _stream_step(self, run, values, hook, start, state):
        """One chunk of the run (up to its next step), and its picture if it is time for one;
        whether there is more to do."""
        from ._core import reporting_progress

        if run != self._replay_run:  # a newer run took over
            return False
        ok, ended, so_far = False, False, None
        with self._reporting_errors(), reporting_progress(hook):
            try:
                so_far = next(self._live_steps)
            except StopIteration:
                ended = True
            ok = True
        if ok and ended:
            self._live_steps = None
            if self._stream_ended(values, start, state["first_s"]):
                return False
            ok = False
        if not ok:  # the run failed (the status line says why)
            self._close_stream()
            self._stream_failed()
            return False
        now = time.perf_counter()
        if not state["live"] or so_far is state.get("so_far"):  # no new snapshot to show
            return True
        state["so_far"], state["recorded"] = so_far, state["recorded"] + 1
        if state["first_s"] is None or now - state["drawn_at"] >= state["drawing_s"]:
            with self._reporting_errors(), partial_results():
                self._show_live(self._partial_png(self._live_params(values)))
            state["drawing_s"] = time.perf_counter() - now
            state["drawn_at"] = time.perf_counter()
            if state["first_s"] is None:
                state["first_s"] = state["drawn_at"] - start
                state["pause"] = FIRST_PICTURE_PAUSE_S
            self._status.value = f"<small>running… (the run so far: {state['recorded']} " \
                                 f"snapshots; a control moved now starts another run)</small>"
        return True

    def _partial_png(self, params):
        """The picture of the run under way so far: the explorer's kept figure updated (its
        setting marked unseen before and after, as the run's snapshots have one setting), or
        a new figure drawn."""
        from ._core import encode_png, figure_png

        if getattr(self, "live", None) is None:
            return figure_png(self.draw(**params))
        return encode_png(self._rgba(params, partial=True))

    def _close_stream(self):
        steps, self._live_steps = self._live_steps, None
        if steps is not None and hasattr(steps, "close"):
            steps.close()  # the optimiser stops at its next step

    @staticmethod
    def _event_loop():
        """The kernel's event loop, in a reader's kernel (elsewhere: None, do it all now)."""
        from ._core import in_jupyter_server

        if in_jupyter_server():
            with contextlib.suppress(RuntimeError):
                return asyncio.get_running_loop()
        return None


# --- a snapshot drawn into the figure of the last one (``redraw``) ---------------------------
# The height (in axes units) of the title of a panel redrawn whole for every snapshot: fixed,
# where matplotlib would put it for an axes with nothing above it, rather than found by
# measuring the axis (a fifth of the cost of drawing such a panel)
TITLE_Y = 1.0


def by_gid(ax, gid):
    """The artist of ``ax`` with this gid (the drawing functions name the ones that change)."""
    return next(a for a in ax.get_children() if a.get_gid() == gid)


def moved(ax, gid, Z):
    """Put the scatter ``gid`` of ``ax`` at the points ``Z`` (N x 2), and rescale the axes to
    them as drawing them anew would (for a figure updated from snapshot to snapshot)."""
    points = by_gid(ax, gid)
    points.set_offsets(Z)
    ax.ignore_existing_data_limits = True
    ax.relim()
    ax.autoscale_view()
