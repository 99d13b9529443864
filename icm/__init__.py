"""icm: keep a repository's agent-facing context healthy. See icm/context.md."""

__version__ = "0.1.0"
