"""Writing a run's output: the one way text reaches stdout. Light on
purpose: ``icm --version`` answers with this alone, before typer loads."""

import os
import sys
from typing import Any

from icm.errors import UsageError


def emit(text: str) -> None:
    """Write ``text`` to stdout in one go. A reader that went away (``| head``)
    ends the run quietly; any other write failure is one line, exit 2."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        detach_stdout()
    except OSError as exc:
        detach_stdout()
        raise UsageError(f"cannot write output: {exc.strerror or exc}") from None


def detach_stdout() -> None:
    # Point fd 1 at /dev/null so the interpreter's final flush of what is
    # still buffered cannot fail a second time and print a traceback.
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def version() -> int:
    """Print ``icm <version>``; 0."""
    from icm import __version__

    emit(f"icm {__version__}\n")
    return 0


class Progress:
    """``icm: parsing N/M markdown files`` on a terminal's stderr, redrawn in
    place and wiped when the run ends; checks only call it."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.shown = 0

    def __call__(self, done: int, total: int) -> None:
        if done != total and done % max(1, total // 100):
            return
        text = f"icm: parsing {done}/{total} markdown files"
        self.stream.write("\r" + text)
        self.stream.flush()
        self.shown = len(text)

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.stream.flush()
