"""Training scripts of the trained presets (resources/scenarios/09_*, 10_*): seeded, a few minutes
on two CPU cores, each exporting its attention layer through attention.capture."""
