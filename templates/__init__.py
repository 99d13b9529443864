"""Templates shipped with icm; installed as the ``icm.templates`` package."""
