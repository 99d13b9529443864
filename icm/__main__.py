"""``python -m icm`` and the ``icm`` console script.

Kept light: the CLI (and typer) is imported inside the interrupt guard, so
a Ctrl-C during start-up ends like one later, not as a traceback.
"""

import signal
import sys

from icm.errors import interrupted


def _version() -> int:
    """``icm --version`` alone, answered before typer loads (its import was
    most of the time); the same line and failure handling as the option."""
    from icm.errors import UsageError
    from icm.output import version

    try:
        return version()
    except UsageError as exc:
        sys.stderr.write(f"icm: {exc}\n")
        return 2


def run() -> None:
    try:
        if sys.argv[1:] == ["--version"]:
            code = _version()
        else:
            from icm.cli import main

            code = main(sys.argv[1:])
    except KeyboardInterrupt:
        code = interrupted()
    # The answer is decided: a late Ctrl-C must not turn the exit into a
    # traceback while the interpreter shuts down.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)


if __name__ == "__main__":
    run()
