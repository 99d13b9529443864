"""One module per check; each exposes NAME and run(ctx) -> Report."""
