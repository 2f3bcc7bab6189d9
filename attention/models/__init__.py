"""Real trained attention layers: what a checkpoint holds, turned into a Scenario the engine runs.

`layer.LayerWeights` is the one record every importer (weights files, Hugging Face folders,
the capture of a running model) fills, and `layer.to_scenario` the one way such a record
becomes a scenario.  Plain torch/numpy: no `transformers` import at run time.
"""
