"""The kinds: one module per scoring, position encoding, score modifier, mask rule and block around attention.

Each kind imports only the data model, the tensor math and its own words; the table of kinds is
composed above them (attention/registry/kinds.py), and no kind imports it."""
