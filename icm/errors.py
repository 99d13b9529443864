"""The one exception type that becomes a single line and exit code 2."""


class UsageError(Exception):
    """A usage, configuration or environment problem: one line, exit 2."""
