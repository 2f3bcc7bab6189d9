"""The main pipeline's steps (projections ... output): how each is computed, explained, taught and exported.

Described the way a kind describes its own steps; the registry (attention/registry/) joins these
records with the kinds' into one step graph."""
