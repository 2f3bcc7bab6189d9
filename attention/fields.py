"""Field descriptions: one record per plain option of a scenario, the one home of its type,
range, default and words.

Why a description and not widgets or schema written by hand: the Parameters panel builds its
plain controls from these records (as pyqtgraph's parametertree builds a tree from a list of
dicts), the JSON schema and the field table of docs/scenario-format.md are generated from (or
checked against) them, and a kind (attention/kinds/) declares the fields it adds in its own
module, so a new kind needs no edit to the panel, the schema or the docs.

A record names its value by ``key``, a dotted path in the composed scenario (``heads.query``,
``scoring.factor``); ``label`` and ``help`` are catalogue keys (attention/words/).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Optional

#: "matrix": not a plain control (an array edited in a matrix editor or recorded); plain controls skip it.
FieldType = Literal["int", "float", "bool", "choice", "matrix"]


@dataclass(frozen=True)
class Field:
    key: str  # dotted path in the composed scenario, e.g. "heads.query", "scoring.factor"
    type: FieldType
    label: str  # catalogue key of the control's label
    help: str  # catalogue key of its tooltip / the docs' description
    default: Any = None
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    choices: tuple = ()  # type "choice": the allowed values, in the order a menu lists them
    choice_words: tuple = ()  # type "choice": a catalogue key per choice (same order)
    nullable: bool = False  # None is allowed and means "auto" (the default is computed)
    group: str = ""  # where the control sits in the Parameters panel ("heads", "scoring", "mask", ...)
    file_key: Optional[str] = None  # where a version-1 file keeps it, where that differs from `key`

    @property
    def name(self) -> str:
        """The last part of the key: the field's name inside its part."""
        return self.key.rsplit(".", 1)[-1]
