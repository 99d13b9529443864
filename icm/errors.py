"""The exception type that becomes a single line and exit code 2, and the one
way an interrupt ends a run."""

import signal
import sys


class UsageError(Exception):
    """A usage, configuration or environment problem: one line, exit 2."""


INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C


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
