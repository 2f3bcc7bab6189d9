"""Next token the way the model view makes it for a GGUF decoder (attention.models.cached_steps and
app.viewmodel.decoder_session): the model's own float32 KV cache, the grid grown by each new row, undo-safe
forks.  Checked against test_gguf_files.py's llama.cpp-layout float64 reference (file rows, adjacent RoPE pairs),
written apart from the code under test, on a tiny random Llama written with gguf's own GGUFWriter."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gguf")
pytest.importorskip("tokenizers")

from test_gguf_files import LAYERS, file_rows, random_model, reference, write  # noqa: E402

from attention.models import gguf_model  # noqa: E402


@pytest.fixture
def tiny(tmp_path):
    hf = random_model(5)
    return hf, gguf_model.load(write(tmp_path / "tiny.gguf", hf))


def test_greedy_steps_grow_the_grid_as_a_full_pass(tiny):
    from app.viewmodel.decoder_session import DecoderSession

    hf, model = tiny
    s = DecoderSession(model, model.tokenizer, "tiny", sentences=(" the 12 the",), engine_layers=False)
    s.accept(s.compute(s.sentences))
    first = s.run
    assert s.sync_tokens == 0 and s.weights_note("en") == ""  # float32 file weights: nothing dequantized
    for _ in range(3):
        g, run = s.prepare_next()
        ids = list(run.ids)
        attns, logits = reference(file_rows(hf), ids)
        assert ids[-1] == int(np.argmax(logits[-2]))  # the greedy token after the previous position
        assert run.top[0][0] == int(np.argmax(logits[-1]))
        for k in range(LAYERS):  # the grid: earlier rows kept, the new row from the cache
            np.testing.assert_allclose(run.forward.attentions[k, 0], attns[k], rtol=0, atol=1e-5)
            np.testing.assert_allclose(g.last.rows[k][0, :, 0], attns[k][:, -1], rtol=0, atol=1e-5)
        assert [h.shape for h in run.forward.hidden] == [(1, len(ids), 32)] * LAYERS
        s.accept_next(g)
        s.accept(run)
    from attention.models.cached_steps import check_step

    assert check_step(*s.generation.check_input()) <= 1e-4
    assert first.cache.length == len(first.ids)  # steps worked on copies: undo finds the first run's cache intact
    longer = list(s.run.ids)
    s.accept(first)  # as undo does
    assert s.generation is None
    again, _ = s.prepare_next()
    assert again.ids == longer[: len(first.ids) + 1]


def test_sampling_is_seeded_and_the_generation_forks(tiny):
    from attention.models.cached_steps import CachedGeneration

    _, model = tiny
    g = CachedGeneration.start(model, [7, 99, 256])
    a, b = g.fork(), g.fork()
    a.next(sample=True, seed=3)
    b.next(sample=True, seed=3)
    assert a.ids == b.ids and len(a.ids) == 4 and g.ids == [7, 99, 256] and g.cache.length == 3
    assert a.keys[0].shape == (1, 4, 16) and a.rope_applied  # (1, S, H_kv·E) of the model's rotated cache


def test_a_prompt_longer_than_the_model_view_takes_is_named(tiny, monkeypatch):
    from app.viewmodel import decoder_session
    from attention.models.errors import ModelError

    _, model = tiny
    monkeypatch.setattr(decoder_session, "WINDOW_TOKENS", 4)
    s = decoder_session.DecoderSession(model, model.tokenizer, "tiny", engine_layers=False)
    with pytest.raises(ModelError) as e:
        s.compute((" the the the the the",))
    # " the" is two tokens of this vocabulary (Ġt, he): 5 x 2
    assert e.value.text("en") == ("prompt: 10 tokens; the model view shows at most 4 (each layer's 4 x 4 weights "
                                  "per head)")
    assert "最多显示 4 个" in e.value.text("zh")


def test_last_logits_only(tiny):
    hf, model = tiny
    ids = [7, 99, 256, 31]
    _, logits = reference(file_rows(hf), ids)
    f = model.forward(ids, last_logits=True)
    assert f.logits.shape == (1, 1, logits.shape[1]) and len(f.weights) == LAYERS
    np.testing.assert_allclose(f.logits[0, 0].double().numpy(), logits[-1], rtol=0, atol=1e-4)
