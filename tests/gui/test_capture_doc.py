"""docs/capture.md's example runs as written, and the files it writes open in the window
(File ▸ Open's path) with every pane showing the engine's trace."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from attention import run
from attention.files import scenario_io

DOC = Path(__file__).resolve().parents[2] / "docs" / "capture.md"


def test_the_documented_example_runs_and_its_files_open(make_window, check_panes, tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) == 1
    work = tmp_path / "example"
    work.mkdir()
    monkeypatch.chdir(work)
    namespace: dict = {"__name__": "capture_example"}
    exec(compile(blocks[0], str(DOC), "exec"), namespace)
    printed = capsys.readouterr().out
    assert "[('encoder.0', 'tsl'), ('encoder.1', 'tsl')]" in printed
    files = sorted((work / "captures").iterdir())
    assert [p.name for p in files] == ["encoder.0.call1.json", "encoder.1.call1.json"]
    assert sorted(p.name for p in work.iterdir()) == ["captures"]  # nothing else written
    # the second layer's file, run by the engine, gives that layer's own output on its input
    model = namespace["model"]
    sc = scenario_io.load(files[1])
    assert sc.causal and not scenario_io.load(files[0]).causal
    x = namespace["torch"].tensor(sc.queries, dtype=namespace["torch"].float32)
    want, _ = model.encoder[1](x, x, x, attn_mask=None)
    assert np.abs(run(sc).array("output") - want.detach().double().numpy()).max() <= 1e-6
    window = make_window()
    for path in files:
        assert window.open_file(str(path))
        window.recompute.recompute_now()
        check_panes(window)
        assert window.document.path == path
