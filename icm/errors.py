"""The exception type that becomes a single line and exit code 2, and the one
way an interrupt ends a run: ``interrupted`` says it, ``held_signals`` keeps
a signal from cutting a writer's changes in half."""

import contextlib
import os
import signal
import sys
import threading
from typing import Iterator, List


class UsageError(Exception):
    """A usage, configuration or environment problem: one line, exit 2."""


INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C

# The signals that end a run (Ctrl-C, ``kill``/``timeout``/a CI runner, the
# terminal closing). SIGKILL cannot be held: see ``held_signals``.
ENDING = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
               if hasattr(signal, name))


def interrupted() -> int:
    """Say ``icm: interrupted`` on stderr, with a further Ctrl-C ignored while
    saying it (a second one must not become a traceback); return 130."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are not ours to set
        previous = None
    try:
        sys.stderr.write("icm: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # stderr closed: the exit code still says it
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return INTERRUPTED


class Held:
    """The ending signals that arrived while held, each once, in order."""

    def __init__(self) -> None:
        self.signals: List[int] = []

    def __bool__(self) -> bool:
        return bool(self.signals)

    def record(self, signum: int, _frame: object) -> None:
        if signum not in self.signals:
            self.signals.append(signum)


@contextlib.contextmanager
def _blocked() -> Iterator[None]:
    """The ending signals blocked (pending, not lost) for the block, so
    handlers change as one step; unblocking delivers what is pending."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, ENDING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@contextlib.contextmanager
def held_signals() -> Iterator[Held]:
    """Hold SIGINT, SIGTERM and SIGHUP for the block: one that arrives is
    recorded in the ``Held`` yielded and nothing else happens, so the block
    can make or undo all of its changes (it asks ``bool(held)`` between
    them). On leaving, each is sent again to the handler it would have met:
    SIGINT raises KeyboardInterrupt (``icm: interrupted``, 130), SIGTERM and
    SIGHUP end the process by that signal. An ignored signal stays ignored;
    nested holds hand theirs to the outer one; off the main thread nothing
    is held (signals are not ours to set).

    Handling SIGTERM and SIGHUP like SIGINT was chosen over journalling a
    plan for the next run to finish: nothing is left for anyone to find. It
    cannot cover SIGKILL, which ends the process between two changes."""
    held = Held()
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    previous = {}
    with _blocked():
        for sig in ENDING:
            handler = signal.getsignal(sig)
            # None: set outside Python, so it could not be put back.
            if handler is not signal.SIG_IGN and handler is not None:
                previous[sig] = signal.signal(sig, held.record)
    try:
        yield held
    finally:
        with _blocked():
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            for sig in held.signals:
                os.kill(os.getpid(), sig)  # pending: met once unblocked
