"""Pyraformer's pyramidal attention mask (PAM-Naive), as Time-Series-Library's get_mask builds it.

TSL's ``layers/Pyraformer_EncDec.py`` (MIT, thuml).  The sequence the attention sees is the
input steps followed by coarser scales built by strided convolutions (Bottleneck_Construct):
    sizes[0] = input_size,  sizes[j + 1] = floor(sizes[j] / window_size[j])
and N = sum(sizes) nodes, scale j occupying positions start_j … start_j + sizes[j] - 1.
A query node i may attend to key node s (the mask is False) when:
  - same scale and |i - s| <= inner_size // 2            (intra-scale neighbours, itself included;
                                                          an even inner_size sees inner_size + 1)
  - s is i's parent: the node of the next scale whose children include i
  - s is one of i's children: node p of scale j + 1 has the children of scale j at positions
    p·w … (p + 1)·w - 1 (w = window_size[j]), and the LAST node of scale j + 1 also takes every
    leftover node after them (the library's right_side = start: nodes the floor() dropped).
True = masked everywhere (the library returns (1 - mask).bool() and fills -inf where True).
The links are symmetric: s is i's parent exactly when i is s's child.

`refer_points` is the library's gather index used after the layers: for every input step, the
node it belongs to at every scale (its ancestors), clamped to the last node of a scale.

Shapes: N = sum(sizes) nodes; the engine's (B, L, S) mask has L = S = N.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

import attention.words as words
from attention.datamodel.fields import INT_MAX, Field
from attention.datamodel.numbers import position

if TYPE_CHECKING:  # torch loads when first computing: the registry is read before torch has loaded
    import torch


def pyramid_sizes(input_size: int, window_size: Sequence[int]) -> list[int]:
    """[input_size, floor(input_size / w0), floor(that / w1), …] (one more entry than windows)."""
    if input_size < 1:
        raise ValueError(f"input_size must be at least 1, got {input_size}")
    sizes = [input_size]
    for j, w in enumerate(window_size):
        if w < 1:
            raise ValueError(f"window_size[{j}] must be at least 1, got {w}")
        sizes.append(sizes[-1] // w)
    return sizes


def starts(sizes: Sequence[int]) -> list[int]:
    """The first node position of every scale."""
    out, total = [], 0
    for n in sizes:
        out.append(total)
        total += n
    return out


@dataclass(frozen=True)
class Node:
    scale: int  # 0 = the input steps
    index: int  # position within its scale, from 0


def node_of(position: int, sizes: Sequence[int]) -> Node:
    """Which scale, and which node within it, sequence position `position` is."""
    for j, start in enumerate(starts(sizes)):
        if position < start + sizes[j]:
            return Node(j, position - start)
    raise ValueError(f"position {position} is outside the {sum(sizes)} pyramid nodes")


def parent_index(node: Node, sizes: Sequence[int], window_size: Sequence[int]) -> Optional[int]:
    """Index (within scale + 1) of node's parent, or None at the top or when that scale is empty."""
    j = node.scale
    if j >= len(window_size) or sizes[j + 1] == 0:
        return None
    return min(node.index // window_size[j], sizes[j + 1] - 1)


@dataclass(frozen=True)
class PyramidLink:
    """Why query node i may see key node s: kind is "self", "neighbour", "parent" or "child"."""

    kind: str
    query: Node
    key: Node
    distance: int = 0  # |i - s| within a scale, for "neighbour"


def check_inner(inner_size: int) -> None:
    """inner_size < 1 would mask a node from itself in the library (an empty slice): refused."""
    if inner_size < 1:
        raise ValueError(f"inner_size must be at least 1, got {inner_size}")


def link(i: int, s: int, sizes: Sequence[int], window_size: Sequence[int], inner_size: int
         ) -> Optional[PyramidLink]:
    """The reason cell (i, s) is visible, or None when it is masked (then it is none of these)."""
    check_inner(inner_size)
    qi, ks = node_of(i, sizes), node_of(s, sizes)
    if qi.scale == ks.scale:
        d = abs(qi.index - ks.index)
        if d == 0:
            return PyramidLink("self", qi, ks)
        return PyramidLink("neighbour", qi, ks, d) if d <= inner_size // 2 else None
    if ks.scale == qi.scale + 1 and parent_index(qi, sizes, window_size) == ks.index:
        return PyramidLink("parent", qi, ks)
    if qi.scale == ks.scale + 1 and parent_index(ks, sizes, window_size) == qi.index:
        return PyramidLink("child", qi, ks)
    return None


def pyramid_mask(input_size: int, window_size: Sequence[int], inner_size: int,
                 device: Optional[torch.device] = None) -> tuple[torch.Tensor, list[int]]:
    """(N, N) bool, True = masked, and the scale sizes (get_mask's two results)."""
    import torch

    check_inner(inner_size)
    sizes = pyramid_sizes(input_size, window_size)
    N = sum(sizes)
    scale = torch.cat([torch.full((n,), j) for j, n in enumerate(sizes)])  # (N,)
    index = torch.cat([torch.arange(n) for n in sizes])  # (N,)
    parent = torch.full((N,), -1)  # global position of each node's parent, -1 none
    first = starts(sizes)
    for j, w in enumerate(window_size):
        if sizes[j + 1] == 0:
            continue
        nodes = torch.arange(first[j], first[j] + sizes[j])
        parent[nodes] = first[j + 1] + torch.clamp(index[nodes] // w, max=sizes[j + 1] - 1)
    same = (scale[:, None] == scale[None, :]) & ((index[:, None] - index[None, :]).abs() <= inner_size // 2)
    pos = torch.arange(N)
    is_parent = parent[:, None] == pos[None, :]  # key s is query i's parent
    is_child = parent[None, :] == pos[:, None]  # key s's parent is query i
    visible = same | is_parent | is_child
    return (~visible).to(device), sizes


def batched(mask: torch.Tensor, B: int) -> torch.Tensor:
    """(N, N) -> (B, N, N), what the engine's mask rules return (the library repeats it per item)."""
    return mask.unsqueeze(0).expand(B, -1, -1)


def refer_points(sizes: Sequence[int], window_size: Sequence[int]) -> torch.Tensor:
    """(input_size, n_scales) int64: row t holds the global position of step t's node at every scale."""
    import torch

    first = starts(sizes)
    rows = []
    for t in range(sizes[0]):
        node, row = Node(0, t), [t]
        for j in range(1, len(sizes)):
            p = parent_index(node, sizes, window_size)
            # the library clamps to the scale's last node even when the scale is empty (-1): keep it
            idx = p if p is not None else sizes[j] - 1
            row.append(first[j] + idx)
            node = Node(j, idx)
        rows.append(row)
    return torch.tensor(rows, dtype=torch.long)


def _node_words(node: Node, lang: Optional[str]) -> str:
    return words.text("tsl.node", lang, scale=position(node.scale), index=position(node.index))


def why(i: int, s: int, sizes: Sequence[int], window_size: Sequence[int], inner_size: int,
        lang: Optional[str] = None) -> str:
    """One sentence for cell (query node i, key node s): the link that keeps it, or why it is masked."""
    found = link(i, s, sizes, window_size, inner_size)
    query, key = _node_words(node_of(i, sizes), lang), _node_words(node_of(s, sizes), lang)
    if found is None:
        return words.text("tsl.pyramid.masked", lang, query=query, key=key)
    return words.text(f"tsl.pyramid.{found.kind}", lang, query=query, key=key, distance=found.distance)


def mask_for(B: int, L: int, S: int, input_size: int, window_size: Sequence[int], inner_size: int,
             device: Optional[torch.device] = None) -> torch.Tensor:
    """The mask rule's (B, L, S) mask; the attention must run over all N pyramid nodes (L = S = N)."""
    mask, sizes = pyramid_mask(input_size, window_size, inner_size, device)
    N = sum(sizes)
    if L != N or S != N:
        raise ValueError(f"the pyramid of input_size={input_size} and window_size={list(window_size)} has {N} "
                         f"nodes ({' + '.join(str(n) for n in sizes)}): queries and keys must both be {N}, "
                         f"got {L} and {S}")
    return batched(mask, B)


def node_labels(sizes: Sequence[int], lang: Optional[str] = None) -> list[str]:
    """A token label per node, "scale 2 node 3" (both counted from 1; scale 1 = the input steps)."""
    return [_node_words(node_of(i, sizes), lang) for i in range(sum(sizes))]


# ---- the mask rule (attention/kinds/base.py MaskRule): Part("pyramid", {...}) ---------------------
# The scenario's queries and keys are the N pyramid nodes (the input steps, then each coarser
# scale), as Pyraformer's encoder runs its attention over the concatenated scales.

NAME = "pyramid"


def _words(key: str) -> dict[str, str]:
    return {lang: words.text(key, lang) for lang in words.LANGS}


class Pyramid:
    """Pyraformer's PAM mask: a node sees its near neighbours on its scale, its parent and its children."""

    name = NAME
    attribute = None  # a part of the scenario (Scenario.masks), not an attribute of its own
    fields = (
        Field("masks.input_size", "int", "field.masks.pyramid.input_size.label",
              "field.masks.pyramid.input_size.help", minimum=1, maximum=INT_MAX, group="masks"),
        Field("masks.window_size", "matrix", "field.masks.pyramid.window_size.label",
              "field.masks.pyramid.window_size.help", group="masks"),
        Field("masks.inner_size", "int", "field.masks.pyramid.inner_size.label",
              "field.masks.pyramid.inner_size.help", default=3, minimum=1, maximum=INT_MAX, group="masks"),
    )
    lesson_key = "lesson.extra.mask.pyramid"  # attention/teaching/lessons.py: a sentence when the rule applies
    formulas = {"extra.mask": "step.extra.mask.formula.pyramid"}  # the mask's formula says what the pyramid keeps

    def __repr__(self) -> str:
        return f"<mask rule {self.name}>"

    @staticmethod
    def settings(part: Any) -> tuple[int, list[int], int]:
        """(input_size, window_size, inner_size) of a part (a Part or a trace options entry)."""
        get = part.get
        windows = get("window_size")
        return (int(get("input_size")), [int(w) for w in _flat(windows)], int(get("inner_size", 3) or 3))

    def _parts(self, sc: Any) -> list:
        from attention.datamodel import parts

        return [p for p in parts.of(sc, "masks") if isinstance(p, parts.Part) and p.kind == NAME]

    def applies(self, sc: Any) -> bool:
        return bool(self._parts(sc))

    def applies_to(self, options: Mapping[str, Any]) -> bool:
        return any(m.get("kind") == NAME for m in options.get("masks") or ())

    def option_values(self, part: Any) -> dict[str, Any]:
        """The window sizes kept in the trace's options (a matrix field is not), for explain."""
        return {"window_size": [int(w) for w in _flat(part.get("window_size"))]}

    def mask(self, sc: Any, B: int, L: int, S: int, dev=None) -> "torch.Tensor":
        import torch

        out = torch.zeros(1, L, S, dtype=torch.bool, device=dev)
        for part in self._parts(sc):
            n, windows, inner = self.settings(part)
            out |= mask_for(1, L, S, n, windows, inner, dev)  # (1, N, N)
        return out

    def reason(self, options: Mapping[str, Any], b: int, l: int, s: int) -> Optional[tuple[bool, dict[str, str]]]:
        found = [m for m in options.get("masks") or () if m.get("kind") == NAME]
        if not found:
            return None
        n, windows, inner = self.settings(found[0])
        sizes = pyramid_sizes(n, windows)
        masked = link(l, s, sizes, windows, inner) is None

        def said(lang: str) -> str:
            if not masked:
                return words.text("tsl.pyramid.reason", lang, why=why(l, s, sizes, windows, inner, lang))
            query, key = _node_words(node_of(l, sizes), lang), _node_words(node_of(s, sizes), lang)
            return words.text("tsl.pyramid.reason", lang, why=words.text("tsl.pyramid.far", lang, query=query, key=key))
        return masked, {lang: said(lang) for lang in words.LANGS}

    def script(self, sc: Any) -> str:
        lines = []
        for part in self._parts(sc):
            n, windows, inner = self.settings(part)
            lines.append(_SCRIPT.format(n=n, windows=windows, inner=inner))
        return "".join(lines)

    def part_problems(self, sc: Any, part: Any, path: str, kinds: Any) -> list:
        """window_size: whole numbers >= 1, one per coarser scale, none of them empty; the queries
        and keys must be exactly the pyramid's N nodes."""
        import numpy as np

        from attention.datamodel.problem import Problem

        w = part.get("window_size")
        if w is None:
            return [Problem("required", f"{path}.window_size")]
        arr = np.asarray(w, dtype=np.float64)
        if arr.ndim != 1 or arr.size == 0:
            return [Problem("pyramid_windows", f"{path}.window_size", {"got": str(list(arr.shape))})]
        bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)) | (arr < 1))
        if bad.size:
            return [Problem("pyramid_window", f"{path}.window_size[{int(bad[0])}]", {"got": repr(float(arr[bad[0]]))})]
        n, windows, inner = self.settings(part)
        sizes = pyramid_sizes(n, windows)
        if 0 in sizes:
            j = sizes.index(0)
            return [Problem("pyramid_empty_scale", f"{path}.window_size[{j - 1}]",
                            {"sizes": " + ".join(map(str, sizes)), "scale": j + 1})]
        N = sum(sizes)
        if sc.L != N or sc.S != N:
            return [Problem("pyramid_nodes", f"{path}.input_size",
                            {"N": N, "sizes": " + ".join(map(str, sizes)), "L": sc.L, "S": sc.S})]
        return []

    def problems(self, sc: Any) -> list:
        return []  # checked per part (part_problems), after its fields


def _flat(values: Any) -> list:
    """A window list as numbers, whether a list, a tuple or an array (of any nesting)."""
    import numpy as np

    return [] if values is None else np.asarray(values, dtype=np.float64).reshape(-1).tolist()


#: the exported script's lines: TSL's get_mask (Pyraformer_EncDec.py, MIT, thuml) as it is
_SCRIPT = '''# Pyraformer's pyramid mask (TSL get_mask): input_size={n}, window_size={windows}, inner_size={inner}
all_size = [{n}]
for w in {windows}:
    all_size.append(all_size[-1] // w)  # math.floor(all_size[-1] / w) in the library
keep = torch.zeros(S, S)  # 1 = visible
inner_window = {inner} // 2
for j in range(len(all_size)):  # intra-scale: near neighbours on the same scale
    start = sum(all_size[:j])
    for i in range(start, start + all_size[j]):
        keep[i, max(i - inner_window, start):min(i + inner_window + 1, start + all_size[j])] = 1
for j in range(1, len(all_size)):  # inter-scale: parent and children
    start = sum(all_size[:j])
    for i in range(start, start + all_size[j]):
        left = (start - all_size[j - 1]) + (i - start) * {windows}[j - 1]
        if i == start + all_size[j] - 1:
            right = start  # the last node of a scale also adopts the leftover steps
        else:
            right = (start - all_size[j - 1]) + (i - start + 1) * {windows}[j - 1]
        keep[i, left:right] = 1
        keep[left:right, i] = 1
mask |= (1 - keep).bool()[None]  # True = masked
'''

PYRAMID = Pyramid()
