"""Every word a person reads that the Qt-free code writes, in English and Chinese: one catalogue.

The catalogue is plain Python: one module per topic (``attention/words/<topic>.py``), each
holding two dicts, ``EN`` and ``ZH``, keyed by the same message ids.  ``text(key, **args)``
looks a key up in the current language and fills its ``{placeholders}`` with ``str.format``.
Why plain tables and not gettext: see docs/words.md.  Qt's .ts/.qm files stay for widget
strings only (menus, buttons, dialogs); the engine, the CLI, the panes and the window all read
step titles, formulas, problems, explanations and lessons from here.

The current language is process-wide (the window sets it when the user switches; the CLI from
``--lang``); every call may also name its language explicitly.
"""
from __future__ import annotations

import importlib
import string
from functools import lru_cache
from typing import Optional

LANGS: tuple[str, ...] = ("en", "zh")

#: The topic modules.  A new topic is one more module here and one more name in this tuple.
TOPICS: tuple[str, ...] = (
    "steps", "panes", "teaching", "lessons", "explain", "problems", "capture", "models", "importing", "cli", "cli_args",
    "by_hand", "scales", "positions",
    "pipeline_map", "fields", "time_series", "kinds",
    "tiles",
    "masks",
    "rope", "qk_norm",
    "alibi", "softcap", "sinks",
    "decoders",
    "tsl_models",
    "inner_attention",
    "model_view",
    "heads",
    "gemma",
)

_language = "en"


def set_language(lang: str) -> None:
    """Make `lang` ("en" or "zh"; "zh_CN" and friends count as "zh") the current language."""
    global _language
    _language = normalize(lang)


def language() -> str:
    return _language


def normalize(lang: Optional[str]) -> str:
    if not lang:
        return _language
    code = str(lang).lower().replace("-", "_").split("_")[0]  # zh_CN, zh-TW -> zh
    return code if code in LANGS else "en"


@lru_cache(maxsize=None)
def table(lang: str) -> dict[str, str]:
    """The whole catalogue of one language, every topic merged (a key lives in one topic only)."""
    merged: dict[str, str] = {}
    for topic in TOPICS:
        module = importlib.import_module(f"{__name__}.{topic}")
        part = getattr(module, lang.upper())  # EN, ZH: one dict per language in every topic
        clash = merged.keys() & part.keys()
        if clash:
            raise KeyError(f"message ids defined in two topics: {sorted(clash)}")
        merged.update(part)
    return merged


def has(key: str) -> bool:
    return key in table("en")


def text(key: str, lang: Optional[str] = None, /, **args) -> str:
    """The words for `key` in `lang` (default: the current language), placeholders filled.

    A key missing from the catalogue raises KeyError: the completeness test guarantees that
    every key used exists in both languages, so a miss is a programming error, not user input."""
    template = table(normalize(lang))[key]
    return template.format(**args) if args else template


def placeholders(template: str) -> set[str]:
    """The names of a template's ``{placeholders}`` (format specs ignored)."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(template) if name}
