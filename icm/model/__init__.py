"""What the checks and the writers both read, parsed from a Context: journal
entries, queue items and claims, links and anchors, handoff records, the
positions view. Below ``checks/`` and ``workflow/``; imports neither."""
