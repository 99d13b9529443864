"""Strip empty rows from CSV input, streaming.

Background: see src/context.md (why reading is streaming; what was rejected).
"""

import csv
import sys
from typing import Iterable, Iterator, List, TextIO


def is_blank(row: List[str]) -> bool:
    """A row is blank when every field is empty after trimming."""
    return all(not field.strip() for field in row)


def clean(rows: Iterable[List[str]]) -> Iterator[List[str]]:
    """Yield the rows that are not blank, one at a time."""
    for row in rows:
        if not is_blank(row):
            yield row


def main(argv: List[str], stdin: TextIO = sys.stdin) -> int:
    source = open(argv[0], newline="") if argv else stdin
    kept = dropped = 0
    writer = csv.writer(sys.stdout, lineterminator="\n")
    with source:
        for row in csv.reader(source):
            if is_blank(row):
                dropped += 1
                continue
            kept += 1
            writer.writerow(row)
    print(f"rowcleaner: kept {kept} rows, dropped {dropped}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
