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

import math
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
    undo: str = ""  # catalogue key of the undo command's words ({label}, {value}); "" = "Change {label}"

    @property
    def name(self) -> str:
        """The last part of the key: the field's name inside its part."""
        return self.key.rsplit(".", 1)[-1]

    @property
    def file_path(self) -> str:
        """Where a version-1 file keeps the value (``prob_sparse.factor``, ``n_heads``)."""
        return self.file_key or self.key

    @property
    def required(self) -> bool:
        """No default and no "auto": a file that has the part must give the value."""
        return self.default is None and not self.nullable


#: The largest whole number of the format (scenario_io.INT_MAX): the controls hold exactly this
#: range, so whatever a file holds shows unclamped and whatever is typed saves.
INT_MAX = 2**31 - 1

# ---- the scenario's plain options --------------------------------------------------------------
# The `key` is the value's path in the composed scenario; `file_key` its place in a version-1
# file; the last part of the key (`Field.name`) is the scenario's attribute of the same name and
# the key of the control in the Parameters panel.

def plain(key: str, type: FieldType, *, undo: bool = True, **kw) -> Field:
    """A scenario field whose words are field.<name>, field.<name>.help (and field.<name>.undo
    unless `undo` is False: then the undo command reads "Change <label>")."""
    name = key.rsplit(".", 1)[-1]
    return Field(key, type, f"field.{name}", f"field.{name}.help", undo=f"field.{name}.undo" if undo else "", **kw)


HEADS_FIELDS: tuple[Field, ...] = (
    plain("heads.n_heads", "int", default=1, minimum=1, maximum=INT_MAX, group="heads", file_key="n_heads"),
    # grouped-query / multi-query attention: auto (None) = one key/value head per query head
    plain("heads.n_kv_heads", "int", minimum=1, maximum=INT_MAX, nullable=True, group="heads",
          file_key="n_kv_heads"),
    plain("heads.d_keys", "int", undo=False, minimum=1, maximum=INT_MAX, nullable=True, group="heads",
           file_key="d_keys"),
    plain("heads.d_values", "int", undo=False, minimum=1, maximum=INT_MAX, nullable=True, group="heads",
           file_key="d_values"),
)

#: The scale, whatever the scoring (the scoring choice itself and each kind's own options come from
#: the kinds registry: attention/registry/kinds.py SCORING_FIELD and each kind's ``fields``).
SCORING_FIELDS: tuple[Field, ...] = (
    plain("scoring.scale", "float", nullable=True, group="scoring", file_key="scale"),
)

MASK_FIELDS: tuple[Field, ...] = (
    plain("mask.causal", "bool", default=False, group="mask"),
    # a float offered as a menu of these values; a file may hold any other number (shown as a
    # further entry); -inf is written "-inf" in a file (JSON has no infinity)
    plain("mask.fill_value", "float", default=-1e6, choices=(-1e6, -math.inf), group="mask"),
)

COMPUTE_FIELDS: tuple[Field, ...] = (
    plain("compute.device", "choice", default="cpu", choices=("cpu", "cuda"),
           choice_words=("field.device.cpu", "field.device.cuda"), group="compute", file_key="device"),
    plain("compute.dtype", "choice", default="float64", choices=("float64", "float32"), group="compute",
           file_key="dtype"),
)


# ---- the JSON schema and the docs table, from the records --------------------------------------
def schema_of(f: Field) -> dict:
    """The JSON-schema node of `f` in a version-1 file (its "description" stays hand-written).

    A file may write null for any value that has a default ("null means the default"); a required
    value (no default, no auto) must be given."""
    def typed(name: str) -> dict:
        return {"type": name if f.required else [name, "null"]}

    if f.type == "choice":
        node: dict = {"enum": [*f.choices, None]}
    elif f.type == "float" and any(isinstance(c, float) and math.isinf(c) for c in f.choices):
        node = {"anyOf": [{"type": "number"}, *({"const": _infinity(c)} for c in f.choices if math.isinf(c)),
                          {"type": "null"}]}
    else:
        node = typed({"int": "integer", "float": "number", "bool": "boolean"}[f.type])
    if f.minimum is not None:
        node["minimum"] = f.minimum
    if f.maximum is not None:
        node["maximum"] = f.maximum
    if not f.required:
        node["default"] = f.default
    return node


def _infinity(x: float) -> str:
    return "-inf" if x < 0 else "inf"


def _bound(x: float) -> str:
    return "2^31−1" if x == INT_MAX else f"{x:g}"


def docs_type(f: Field) -> str:
    """The "type" column of the field table in docs/scenario-format.md."""
    if f.type == "choice":
        quoted = [f'`"{c}"`' for c in f.choices]
        text = ", ".join(quoted[:-1]) + " or " + quoted[-1] if len(quoted) > 1 else quoted[0]
    elif f.type == "int":
        text = "integer" if f.minimum is None else f"integer {_bound(f.minimum)} … {_bound(f.maximum or INT_MAX)}"
    elif f.type == "float":
        text = "number" + "".join(f' or `"{_infinity(c)}"`' for c in f.choices if math.isinf(c))
    else:
        text = "boolean"
    return text + (" or null" if f.nullable else "")


def docs_default(f: Field) -> str:
    """The "default" column: the value a file that leaves the field out gets (numbers and null
    plain, strings and booleans as JSON in code)."""
    if f.required:
        return "**required**"
    if f.default is None:
        return "null"
    if isinstance(f.default, bool):
        return f"`{str(f.default).lower()}`"
    if isinstance(f.default, str):
        return f'`"{f.default}"`'
    if isinstance(f.default, float) and f.default.is_integer() and abs(f.default) >= 1e5:
        mantissa, exponent = f"{f.default:.0e}".split("e")
        return f"{mantissa}e{int(exponent)}"  # -1e6, as a person writes it
    return str(f.default)


def docs_row(f: Field, meaning: str) -> str:
    return f"| `{f.file_path}` | {docs_type(f)} | {docs_default(f)} | {meaning} |"


# ---- keeping resources/scenario.schema.json and docs/scenario-format.md in step ---------------
def schema_node(schema: dict, f: Field) -> dict:
    """The node of `f` in the version-1 schema (nested parts: mask, prob_sparse, additive)."""
    *parts, last = f.file_path.split(".")
    props = schema["properties"]
    for part in parts:
        props = props[part]["properties"]
    return props[last]


def docs_cells(line: str) -> Optional[list[str]]:
    """The cells of one row of a markdown table (None: the line is not a row)."""
    line = line.strip()
    if not (line.startswith("|") and line.endswith("|")):
        return None
    return [cell.strip() for cell in line[1:-1].split(" | ")]


