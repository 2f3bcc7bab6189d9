"""Bad scenario files: every problem is one line naming the field path and what was expected,
raised as ScenarioError (never another exception, never a traceback)."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import Scenario, ScenarioError
from attention.files import scenario_io
from resources import list_presets

TOY_DOC = json.loads(list_presets()[0][0].read_text(encoding="utf-8"))
I4 = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]


def toy() -> dict:
    return copy.deepcopy(TOY_DOC)


def lines_for(doc=None, text=None) -> list[str]:
    with pytest.raises(ScenarioError) as err:
        scenario_io.loads(text if text is not None else json.dumps(doc, ensure_ascii=False))
    assert err.value.lines, "a ScenarioError must say what is wrong"
    return err.value.lines


def edit(fn) -> dict:
    doc = toy()
    fn(doc)
    return doc


def test_the_toy_itself_loads():
    assert isinstance(scenario_io.loads(json.dumps(toy())), Scenario)


def test_invalid_json_names_line_and_column():
    assert lines_for(text='{\n  "format": \n}') == ["file: invalid JSON at line 3, column 1: Expecting value"]


@pytest.mark.parametrize("text, expected", [
    ("[1, 2]", "file: expected a JSON object {...} at the top level, got a list"),
    ('"hello"', 'file: expected a JSON object {...} at the top level, got the string "hello"'),
    ("", "file: invalid JSON at line 1, column 1: Expecting value"),
    ("[" * 100_000, "file: invalid JSON: nested too deeply"),
])
def test_not_an_object(text, expected):
    assert lines_for(text=text) == [expected]


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d.pop("format"), 'format: missing; expected "attention-explorer/scenario"'),
    (lambda d: d.update(format="something/else"),
     'format: expected "attention-explorer/scenario", got the string "something/else"'),
    (lambda d: d.pop("version"), "version: missing; expected a whole number from 1 to 2"),
    (lambda d: d.update(version="1"), 'version: expected a whole number from 1 to 2, got the string "1"'),
    (lambda d: d.update(version=3), "version: this file is version 3, but this program reads versions 1 to 2"),
])
def test_format_and_version_stop_before_anything_else(mutate, expected):
    doc = edit(mutate)
    doc["queries"] = "garbage"  # not reported: the file is not (this version of) our format
    lines = lines_for(doc)
    assert len(lines) == 1 and lines[0].startswith(expected)


def test_missing_required_fields_are_all_listed():
    lines = lines_for(edit(lambda d: (d.pop("queries"), d.pop("values"))))
    assert lines == ["queries: missing (required)", "values: missing (required)"]


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d["mask"].update(causl=True),
     "mask.causl: unknown field; expected one of causal, valid_lens, fill_value"),
    (lambda d: d.update(heads=2), "heads: unknown field; expected one of format, version, title, notes"),
    (lambda d: d["projections"].update(qurey=None),
     "projections.qurey: unknown field; expected one of query, key, value, out"),
    (lambda d: d["projections"]["query"].update(bais=[0, 0, 0, 0]),
     "projections.query.bais: unknown field; expected one of weight, bias"),
    (lambda d: d["title"].update(fr="Jouet"), "title.fr: unknown field; expected one of en, zh"),
    (lambda d: d.update(prob_sparse={"factr": 3}), "prob_sparse.factr: unknown field; expected one of factor, mix"),
    (lambda d: d.update(queries={"generate": "normal", "shape": [1, 4, 4], "seed": 0, "sd": 2}),
     "queries.sd: unknown field; expected one of generate, shape, repeat, seed, mean, std"),
])
def test_unknown_fields_name_their_path(mutate, expected):
    assert any(line.startswith(expected) for line in lines_for(edit(mutate)))


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d.update(n_heads="2"), 'n_heads: expected a whole number >= 1, got the string "2"'),
    (lambda d: d.update(n_heads=2.0), "n_heads: expected a whole number >= 1, got 2.0"),
    (lambda d: d.update(n_heads=True), "n_heads: expected a whole number >= 1, got true"),
    (lambda d: d.update(d_keys=0), "d_keys: expected a whole number >= 1, got 0"),
    (lambda d: d.update(seed=-1), "seed: expected a whole number >= 0"),
    (lambda d: d.update(scale="big"), 'scale: expected a finite number or null, got the string "big"'),
    (lambda d: d.update(scale=10**400), "scale: expected a finite number or null, got a very long number"),
    (lambda d: d["values"][0][0].__setitem__(0, -(10**309)),
     "values[0][0][0] (batch item 1, row 1, column 1): expected a finite number, got a number too large for float64"),
    (lambda d: d["mask"].update(causal=1), "mask.causal: expected true or false, got 1"),
    (lambda d: d.update(scoring=3),
     "scoring: expected one of scaled_dot, dot, additive, prob_sparse, ds_attention, autocorrelation, got 3"),
    (lambda d: d.update(device=None, dtype=64), "dtype: expected one of float32, float64, got 64"),
    (lambda d: d.update(title="Toy"), 'title: expected an object {"en": "...", "zh": "..."}, got the string "Toy"'),
    (lambda d: d["notes"].update(en=5), "notes.en: expected a string, got 5"),
    (lambda d: d.update(query_tokens=["a", 2, "c", "d"]), "query_tokens[1] (token 2): expected a string, got 2"),
    (lambda d: d.update(queries="1 0 2 1"), "queries: expected a 3-D nested list of numbers"),
    (lambda d: d.update(mask=[]),
     "mask: expected an object with fields causal, valid_lens, fill_value (or null), got a list"),
    (lambda d: d["projections"].update(key=I4),
     'projections.key: expected {"weight": ..., "bias": ... or null} or null (identity), got a list'),
    (lambda d: d["projections"]["key"].pop("weight"), "projections.key.weight: missing"),
])
def test_wrong_types(mutate, expected):
    assert any(line.startswith(expected) for line in lines_for(edit(mutate)))


def test_ragged_matrix_names_the_row():
    lines = lines_for(edit(lambda d: d["queries"][0][2].pop()))
    # the file's path counts from 0; the positions a person reads, from 1
    assert lines == ["queries[0][2] (batch item 1, row 3): expected 4 numbers, got 3"]
    lines = lines_for(edit(lambda d: d["values"].append(d["values"][0][:3])))  # 2nd batch item short
    assert lines == ["values[1] (batch item 2): expected 4 items, got 3"]
    lines = lines_for(edit(lambda d: d["keys"][0].__setitem__(1, 7)))
    assert lines == ["keys[0][1] (batch item 1, row 2): expected a list of 4 numbers, got 7"]


def test_non_numbers_and_wrong_depth():
    lines = lines_for(edit(lambda d: (d["queries"][0][2].__setitem__(1, "a"), d["keys"][0][0].__setitem__(0, None),
                                      d["values"][0][3].__setitem__(3, False))))
    assert lines == ['queries[0][2][1] (batch item 1, row 3, column 2): expected a number, got the string "a"',
                     "keys[0][0][0] (batch item 1, row 1, column 1): expected a number, got null",
                     "values[0][3][3] (batch item 1, row 4, column 4): expected a number, got false"]
    lines = lines_for(edit(lambda d: d.update(queries=d["queries"][0])))
    assert lines == ["queries: expected a 3-D nested list of numbers (batch, queries L, features), got 2-D"]


def test_non_finite_literals_are_refused_with_their_cell():
    text = json.dumps(toy(), ensure_ascii=False)
    text = text.replace('"queries": [[[1, 0, 2, 1]', '"queries": [[[1, NaN, 2, Infinity]')
    text = text.replace('"scale": null', '"scale": -Infinity')
    lines = lines_for(text=text)
    assert lines == ["queries[0][0][1] (batch item 1, row 1, column 2): expected a finite number, got NaN",
                     "queries[0][0][3] (batch item 1, row 1, column 4): expected a finite number, got Infinity",
                     "scale: expected a finite number or null, got -Infinity"]


def test_fill_value_accepts_only_the_string_minus_inf():
    sc = scenario_io.loads(json.dumps(edit(lambda d: d["mask"].update(fill_value="-inf"))))
    assert sc.fill_value == float("-inf")
    text = json.dumps(toy()).replace('"fill_value": -1000000.0', '"fill_value": -Infinity')
    assert lines_for(text=text) == ['mask.fill_value: write minus infinity as the string "-inf" '
                                    '(a bare -Infinity is not standard JSON)']
    assert lines_for(edit(lambda d: d["mask"].update(fill_value="inf"))) == [
        'mask.fill_value: expected a finite number or "-inf", got the string "inf"']


def test_wrong_shapes_come_from_the_engine_checks_with_file_paths():
    lines = lines_for(edit(lambda d: d["projections"]["query"].update(weight=[r[:3] for r in I4])))
    assert "projections.query.weight: expected shape [4, 4], got [4, 3]" in lines
    lines = lines_for(edit(lambda d: d["projections"]["out"].update(bias=[0, 0])))
    assert "projections.out.bias: expected shape [4], got [2]" in lines


def test_heads_that_do_not_divide_d_model():
    (line,) = lines_for(edit(lambda d: d.update(n_heads=3)))
    assert line.startswith("n_heads: 3 heads do not divide d_model = 4")


@pytest.mark.parametrize("valid_lens, expected", [
    ([-1], "mask.valid_lens[0] (batch item 1): expected a length between 0 and S = 4, got -1"),
    ([5], "mask.valid_lens[0] (batch item 1): expected a length between 0 and S = 4, got 5"),
    ([[1, 2, 3, 9]], "mask.valid_lens[0][3] (batch item 1, query 4): expected a length between 0 and S = 4, got 9"),
    ([1, 2], "mask.valid_lens: expected shape [1] (one length per batch item) or [1, 4] (one per query row), got [2]"),
    ([1.5], "mask.valid_lens[0] (batch item 1): expected a whole number (a count of keys), got 1.5"),
    ([[[1]]], "mask.valid_lens: expected a 1-D or 2-D nested list of numbers"),
])
def test_bad_valid_lengths(valid_lens, expected):
    lines = lines_for(edit(lambda d: d["mask"].update(valid_lens=valid_lens)))
    assert any(line.startswith(expected) for line in lines), lines


def test_unknown_scoring_kind():
    assert lines_for(edit(lambda d: d.update(scoring="cosine"))) == [
        "scoring: unknown kind 'cosine'; expected one of scaled_dot, dot, additive, prob_sparse, ds_attention, "
        "autocorrelation"]


def test_additive_without_its_section():
    (line,) = lines_for(edit(lambda d: d.update(scoring="additive")))
    assert line.startswith('additive: missing; the additive scoring needs at least {"hidden": N}')
    (line,) = lines_for(edit(lambda d: d.update(scoring="additive", additive={"hidden": None})))
    assert line.startswith("additive.hidden: missing")


@pytest.mark.parametrize("spec, expected", [
    ({"generate": "gauss", "shape": [1, 4, 4]},
     "queries.generate: unknown generator kind 'gauss'; "
     "expected one of normal, uniform, zeros, ones, identity, arange"),
    ({"shape": [1, 4, 4]}, "queries.generate: missing"),
    ({"generate": "normal", "shape": [1, 4, 4]}, "queries.seed: missing; normal needs a seed"),
    ({"generate": "ones", "shape": [1, 0, 4]}, "queries.shape: expected a list of 1 to 8 whole numbers >= 1"),
    ({"generate": "ones", "shape": [1, 4, 4], "repeat": [2, 1]},
     "queries.repeat: needs at least as many numbers as shape has dimensions (3), got 2"),
    ({"generate": "normal", "shape": [100000, 100000, 100000], "seed": 0},
     "queries: this generator would make 1,000,000,000,000,000 numbers (shape [100000, 100000, 100000]); at most"),
    ({"generate": "ones", "shape": [4], "repeat": [1, 1]},
     "queries: expected a 3-D array (batch, queries L, features), but the generator makes shape [1, 4]"),
    ({"generate": "uniform", "shape": [1, 4, 4], "seed": 0, "low": 1, "high": 0}, "queries.high: expected high >= low"),
    ({"generate": "normal", "shape": [1, 4, 4], "seed": 0, "std": -1}, "queries.std: expected a number >= 0"),
    ({"generate": "arange", "shape": [1, 4, 4], "step": "1"}, "queries.step: expected a finite number"),
    ({"generate": "normal", "shape": [1, 4, 4], "seed": 0, "mean": 1e308},
     "queries.mean: expected a finite number between -1e300 and 1e300"),
    ({"generate": "zeros", "shape": [2, 4]},
     "queries: expected a 3-D array (batch, queries L, features), but the generator makes shape [2, 4]"),
])
def test_bad_generators(spec, expected):
    lines = lines_for(edit(lambda d: d.update(queries=spec)))
    assert any(line.startswith(expected) for line in lines), lines


def test_generator_total_is_bounded_across_the_file(monkeypatch):
    """Each generator below is allowed alone; together they exceed the per-file budget."""
    from attention.files import generators

    monkeypatch.setattr(generators, "MAX_ELEMENTS", 70)  # read when a file starts loading
    doc = edit(lambda d: d.update(queries={"generate": "zeros", "shape": [1, 4, 4]},
                                  keys={"generate": "zeros", "shape": [1, 4, 4]},
                                  values={"generate": "zeros", "shape": [1, 4, 4]},
                                  projections={"query": {"weight": {"generate": "identity", "shape": [4, 4]}},
                                               "key": {"weight": {"generate": "identity", "shape": [4, 4]}}}))
    lines = lines_for(doc)  # 16 * 3 + 16 = 64 fit in 70; the last 16 do not
    assert lines == ["projections.key.weight: this generator would make 16 numbers (shape [4, 4]); "
                     "at most 6 are allowed (what is left of the 70 a file's generators may make)"]


def test_trace_too_large_is_refused_before_running():
    big = {"generate": "zeros", "shape": [1, 40000, 4]}
    doc = edit(lambda d: d.update(queries=big, keys=big, values=big, projections=None, query_tokens=None,
                                  key_tokens=None))
    (line,) = lines_for(doc)
    assert line.startswith("sizes: this trace would need about") and "GiB" in line


def test_all_problems_are_collected_at_once():
    def many(d):
        d["mask"]["causl"] = True
        d["queries"][0][2].pop()
        d["n_heads"] = "two"
        d["projections"]["out"]["bias"] = [0, "x", 0, 0]
    lines = lines_for(edit(many))
    assert sorted(lines) == sorted([
        "mask.causl: unknown field; expected one of causal, valid_lens, fill_value",
        "queries[0][2] (batch item 1, row 3): expected 4 numbers, got 3",
        'n_heads: expected a whole number >= 1, got the string "two"',
        'projections.out.bias[1] (entry 2): expected a number, got the string "x"',
    ])


def test_duplicate_keys_are_reported():
    text = json.dumps(toy())[:-1] + ', "seed": 3}'
    assert lines_for(text=text) == ["seed: this key appears more than once in one object; keep one"]


def test_load_reports_unreadable_files(tmp_path):
    with pytest.raises(ScenarioError) as err:
        scenario_io.load(tmp_path / "absent.json")
    assert err.value.lines == ["file: cannot read: No such file or directory"]
    bad = tmp_path / "latin1.json"
    bad.write_bytes(b'{"format": "caf\xe9"}')
    with pytest.raises(ScenarioError) as err:
        scenario_io.load(bad)
    assert err.value.lines == ["file: not UTF-8 text (byte 0xe9 at offset 15)"]


def test_check_false_skips_only_the_engine_checks():
    doc = edit(lambda d: d.update(n_heads=3))
    assert scenario_io.loads(json.dumps(doc), check=False).n_heads == 3
    with pytest.raises(ScenarioError):
        scenario_io.loads(json.dumps(edit(lambda d: d["queries"][0][2].pop())), check=False)


@pytest.mark.slow
@settings(max_examples=150)
@given(st.text())
def test_arbitrary_text_raises_only_scenario_errors(text):
    with pytest.raises(ScenarioError) as err:
        scenario_io.loads(text)
    assert err.value.lines and all(isinstance(l, str) and "\n" not in l for l in err.value.lines)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
FIELD_PATHS = [("queries",), ("keys",), ("n_heads",), ("d_keys",), ("projections",), ("projections", "query"),
               ("projections", "query", "weight"), ("scoring",), ("scale",), ("additive",), ("mask",),
               ("mask", "valid_lens"), ("mask", "fill_value"), ("prob_sparse",), ("seed",), ("title",),
               ("query_tokens",), ("values", 0, 1)]


@pytest.mark.slow
@settings(max_examples=200)
@given(st.sampled_from(FIELD_PATHS), JSON, st.sampled_from(["scaled_dot", "additive", "prob_sparse"]))
def test_any_value_in_any_field_gives_a_scenario_or_clear_lines(path, value, scoring):
    doc = toy()
    doc["scoring"] = scoring
    if scoring == "additive":
        doc["additive"] = {"hidden": 2}
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    try:
        sc = scenario_io.loads(json.dumps(doc))
    except ScenarioError as e:
        assert e.lines and all(isinstance(l, str) and "\n" not in l for l in e.lines)
    else:
        assert isinstance(sc, Scenario)


def test_additive_problems_are_collected_with_the_others():
    def bad(d):
        d["queries"][0][0].pop()
        d.update(scoring="additive", additive={"hidden": 0, "W_Q": [], "w_v": [[1, "a"]]})
    assert sorted(lines_for(edit(bad))) == sorted([
        "queries[0][0] (batch item 1, row 1): expected 4 numbers, got 3",
        "additive.W_Q: unknown field; expected one of hidden, W_q, W_k, w_v",
        'additive.w_v[0][1] (head 1, entry 2): expected a number, got the string "a"',
        "additive.hidden: expected a whole number >= 1, got 0",
    ])


def test_additive_weights_given_in_the_file_are_used_and_the_rest_drawn():
    doc = edit(lambda d: d.update(scoring="additive", projections=None, additive={"hidden": 3}))
    drawn = scenario_io.loads(json.dumps(doc)).additive
    assert drawn.W_q.shape == (2, 3, 2) and drawn.W_k.shape == (2, 3, 2) and drawn.w_v.shape == (2, 3)
    assert abs(drawn.W_q).max() <= 2 ** -0.5 and abs(drawn.w_v).max() <= 3 ** -0.5  # nn.Linear bounds
    doc["additive"]["W_k"] = [[[1, 2]] * 3] * 2
    mixed = scenario_io.loads(json.dumps(doc)).additive
    assert mixed.W_k.tolist() == doc["additive"]["W_k"]
    assert (mixed.W_q == drawn.W_q).all() and (mixed.w_v == drawn.w_v).all()  # the others unchanged
    doc["seed"] = 1
    assert not (scenario_io.loads(json.dumps(doc)).additive.W_q == drawn.W_q).all()


def test_the_odd_row_out_is_the_one_reported():
    lines = lines_for(edit(lambda d: d["queries"][0][0].pop()))  # the FIRST row is the short one
    assert lines == ["queries[0][0] (batch item 1, row 1): expected 4 numbers, got 3"]
