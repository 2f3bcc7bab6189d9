"""`torch.save(model)` (a whole nn.Module, not its state_dict) is refused without unpickling it, and
the refusal says what to do instead: save `model.state_dict()`.  Both torch.save formats, a torch.nn
class and a user's own model class; a checkpoint that pickles some other object keeps the plain refusal."""
from __future__ import annotations

import argparse
import contextlib
import io

import pytest
import torch
from torch import nn

from attention.cli import main
from attention.models.checkpoint import CheckpointError
from attention.models.readers import open_source


class Forecaster(nn.Module):
    """A user's own model class: its pickle names this module's class, not a torch.nn one."""

    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(8, 2)
        self.head = nn.Linear(8, 1)


def _refusal(path) -> CheckpointError:
    with pytest.raises(CheckpointError) as caught:
        open_source(path)
    return caught.value


@pytest.mark.parametrize("zipped", [True, False])
@pytest.mark.parametrize("make", [lambda: nn.MultiheadAttention(8, 2), Forecaster])
def test_a_whole_pickled_model_is_refused_with_the_state_dict_hint(tmp_path, make, zipped):
    path = tmp_path / "model.pt"
    torch.save(make(), path, _use_new_zipfile_serialization=zipped)
    e = _refusal(path)
    assert e.key == "models.error.pickled_module"
    en, zh = e.line("en"), e.line("zh")
    assert en.startswith("model.pt: a whole model saved with torch.save(model) (")
    assert "torch.save(model.state_dict(), path)" in en and "nothing was run" in en
    assert "torch.save(model.state_dict(), path)" in zh and "整个模型" in zh
    # and the state dict it asks for imports
    good = tmp_path / "weights.pt"
    torch.save(make().state_dict(), good)
    assert open_source(good).keys()


def test_other_pickled_objects_keep_the_plain_refusal(tmp_path):
    """{'state_dict': ..., 'args': Namespace(...)} is not a model: the hint would be wrong there."""
    path = tmp_path / "ckpt.pt"
    torch.save({"state_dict": nn.Linear(2, 2).state_dict(), "args": argparse.Namespace(d_model=8)}, path)
    e = _refusal(path)
    assert e.key == "models.error.pickle_code" and "argparse" in e.line()


def test_the_cli_says_it_in_one_line(tmp_path):
    path = tmp_path / "informer.pth"
    torch.save(Forecaster(), path)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(["layers", str(path), "--lang", "zh"])
    assert rc == 2 and len(err.getvalue().strip().splitlines()) == 1
    assert "model.state_dict()" in err.getvalue() and "整个模型" in err.getvalue()
