"""The data model: a scenario and its parts, field descriptions, problems, numbers as a person reads them.

Plain data (numpy and Python values): no torch, no kinds, no files.  Every other layer of
attention/ builds on it (docs/architecture.md)."""
