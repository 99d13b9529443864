"""Commands that change files: new-queue, new-journal, init."""
