"""The Qt-free view-model: what the panes and editors show, computed from a Trace or Scenario
without Qt (pane matrices and their words, cell formats, compare and quiz pictures, clipboard
text, CSV, scenario addressing and reshaping).  tests/test_architecture.py keeps it Qt-free."""
