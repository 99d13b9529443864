"""Exported agent sessions in the AGENTS layout: the files a session
folder holds."""

from __future__ import annotations

REQUIRED = ("AGENT.md", "POSITIONS.md")
OPTIONAL = ("PROGRESSION.md", "TOOLS.md", "ASSETS.md", "CHATS.md")
