"""Files: scenario files (JSON in, Scenario out), generator recipes, trace files and caches, safe writes."""
