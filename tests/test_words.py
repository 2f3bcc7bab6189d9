"""The catalogue of words (attention.words): every message id exists in both languages, with the
same placeholders, and no text is empty.  One test for the whole catalogue, whatever the topic."""
from __future__ import annotations

import importlib
import re

import pytest

from attention import words


def _topics():
    return [(t, importlib.import_module(f"attention.words.{t}")) for t in words.TOPICS]


def test_every_topic_has_both_languages_with_the_same_ids():
    missing = {}
    for name, module in _topics():
        en, zh = module.EN, module.ZH
        if set(en) != set(zh):
            missing[name] = {"no zh": sorted(set(en) - set(zh)), "no en": sorted(set(zh) - set(en))}
    assert missing == {}


def test_placeholders_agree_and_no_text_is_empty():
    bad = []
    for name, module in _topics():
        for key, en in module.EN.items():
            zh = module.ZH.get(key, "")
            if not en.strip() or not zh.strip():
                bad.append(f"{name}:{key}: empty")
            elif words.placeholders(en) != words.placeholders(zh):
                bad.append(f"{name}:{key}: {sorted(words.placeholders(en))} != {sorted(words.placeholders(zh))}")
    assert bad == []


def test_ids_are_unique_across_topics():
    for lang in words.LANGS:
        words.table.cache_clear()
        words.table(lang)  # raises KeyError on a clash


def test_text_fills_placeholders_and_follows_the_language():
    key = next((k for k, v in words.table("en").items() if words.placeholders(v)), None)
    if key is None:
        pytest.skip("no template with placeholders yet")
    args = {p: "⟨x⟩" for p in words.placeholders(words.table("en")[key])}
    before = words.language()
    try:
        words.set_language("zh_CN")
        assert words.language() == "zh"
        assert "⟨x⟩" in words.text(key, **args)
        assert words.text(key, **args) == words.text(key, "zh", **args)
        assert words.text(key, "en", **args) != words.text(key, "zh", **args)
    finally:
        words.set_language(before)


#: Chinese texts allowed to read exactly as the English: Python's own words, and names (a device,
#: a model) that the Chinese writes the same (with Chinese parentheses)
SAME_IN_BOTH = {"True", "False", "CPU", "CUDA", "ProbSparse（Informer）"}
_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[A-Za-z]{3,}")
_CODE_TOKEN = re.compile(r"\S*[_=^(){}\[\]/.\d]\S*")  # K.view(B,, W_q, d_model, topk(M, ...: code, not words


def test_the_chinese_is_chinese():
    """A Chinese text with no Chinese in it is an English text left untranslated, unless it is
    code or a formula (nothing but code tokens and short symbols) or one of SAME_IN_BOTH."""
    bad = []
    for name, module in _topics():
        for key, zh in module.ZH.items():
            if _CJK.search(zh) or zh in SAME_IN_BOTH:
                continue
            if _WORD.findall(_CODE_TOKEN.sub(" ", zh)):
                bad.append(f"{name}:{key}: {zh!r}")
    assert bad == []


# ---- problems: every code the code base can raise has words -------------------------------------

def _problem_codes() -> set[str]:
    """Every code written in a Problem(...) or Phrase(...) call under attention/ and app/: the
    string constants of its first argument (an `x if c else y`, a dict look-up), and of every
    `code = ...` assignment (a code chosen first, then passed by name)."""
    import ast
    from pathlib import Path

    root = Path(words.__file__).resolve().parents[2]
    codes: set[str] = set()

    def strings(node) -> set[str]:
        """The codes an expression can give: a string, either side of `a if c else b`, the values
        of a dict literal it looks up."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, ast.IfExp):
            return strings(node.body) | strings(node.orelse)
        if isinstance(node, ast.Subscript):
            return strings(node.value)
        if isinstance(node, ast.Dict):
            return set().union(*(strings(v) for v in node.values))
        return set()

    for path in [*(root / "attention").rglob("*.py"), *(root / "app").rglob("*.py")]:
        if "words" in path.parts or path.name == "problem.py":  # the catalogue and the mechanism
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("Problem", "Phrase") and node.args:
                codes |= strings(node.args[0])
            elif isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "code" for t in node.targets):
                codes |= strings(node.value)
    return codes


def test_every_problem_code_the_code_raises_has_words_in_both_languages():
    from attention.datamodel.problem import PREFIX
    from attention.files import scenario_io

    codes = _problem_codes()
    # codes picked from tables rather than written in the call
    codes |= set(scenario_io._DIMS_MEANING.values())
    codes |= {scenario_io._kind(m) for m in (0o040000, 0o010000, 0o020000, 0o060000, 0o140000, 0o100000)}
    assert len(codes) > 80  # the scan found the calls (a broken scan cannot pass by finding none)
    for lang in words.LANGS:
        missing = sorted(c for c in codes if PREFIX + c not in words.table(lang))
        assert missing == [], (lang, missing)
