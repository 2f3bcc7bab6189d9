"""Every plain option of a scenario: the data model's own fields and each scoring kind's, composed
from the table of kinds, in the order the Parameters panel shows them.

The JSON schema (resources/scenario.schema.json) and the field table of docs/scenario-format.md
are checked against these records; ``python -m attention.registry.fields --write`` rewrites them.
"""
from __future__ import annotations

from typing import Optional

from attention.datamodel.fields import (
    COMPUTE_FIELDS,
    HEADS_FIELDS,
    MASK_FIELDS,
    SCORING_FIELDS,
    Field,
    docs_cells,
    docs_row,
    schema_node,
    schema_of,
)
from attention.registry import kinds


def scenario_fields() -> tuple[Field, ...]:
    """Every plain option of a scenario, in the order the Parameters panel shows them: the heads,
    the scoring choice and scale, each scoring kind's own plain options (from the kinds registry),
    the mask and the computation."""
    own: list[Field] = []
    for kind in kinds.SCORING.values():
        own += [f for f in kind.fields if f.type != "matrix" and f not in own]
    return (HEADS_FIELDS + (kinds.SCORING_FIELD,) + SCORING_FIELDS + tuple(own) + MASK_FIELDS + COMPUTE_FIELDS)


#: Every plain option of a scenario (the table's scoring kinds included).
SCENARIO_FIELDS: tuple[Field, ...] = scenario_fields()


def field(name: str) -> Field:
    """The scenario field called `name` (its last key part: "n_heads", "factor", "device")."""
    for f in scenario_fields():
        if f.name == name:
            return f
    raise KeyError(f"no scenario field {name!r}")


def rewritten(schema: dict, docs: str) -> tuple[dict, str]:
    """The schema and the docs with every plain field's node, type and default taken from its
    record (hand-written descriptions and meanings kept)."""
    for f in scenario_fields():
        node, new = schema_node(schema, f), schema_of(f)
        merged = {k: new.get(k, v) for k, v in node.items() if k in new or k == "description"}
        merged.update({k: v for k, v in new.items() if k not in merged})
        node.clear()
        node.update(merged)
    by_path = {f"`{f.file_path}`": f for f in scenario_fields()}
    lines = docs.split("\n")
    for i, line in enumerate(lines):
        cells = docs_cells(line)
        if cells and len(cells) == 4 and cells[0] in by_path:
            lines[i] = docs_row(by_path[cells[0]], cells[3])
    return schema, "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    """python -m attention.registry.fields [--write]: report (or rewrite) the schema and docs rows that
    differ from the records."""
    import json
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    schema_path, docs_path = root / "resources" / "scenario.schema.json", root / "docs" / "scenario-format.md"
    schema_text, docs_text = schema_path.read_text(encoding="utf-8"), docs_path.read_text(encoding="utf-8")
    schema, docs = rewritten(json.loads(schema_text), docs_text)
    new_schema = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    stale = [p for p, old, new in ((schema_path, schema_text, new_schema), (docs_path, docs_text, docs))
             if old != new]
    if "--write" in (argv if argv is not None else sys.argv[1:]):
        schema_path.write_text(new_schema, encoding="utf-8")
        docs_path.write_text(docs, encoding="utf-8")
    for p in stale:
        print(f"{p.relative_to(root)}: differs from the Field records (attention/registry/fields.py)")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
