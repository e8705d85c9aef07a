"""Pattern matching on graphs: op type, version, attributes and small subgraphs with wildcards.

In the spirit of OpenVINO's ``WrapType`` / ``AnyInput``: ``Op("Transpose", Op("Transpose", AnyInput("x")),
Const("order"))`` matches a Transpose whose first input is another Transpose's output and whose second is
a Const; a named part of the pattern is found in the ``Match`` by its name. An ``Op`` given no inputs
accepts any; given some, it needs exactly that many, each matched against the layer feeding that input.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.errors import AttrError, IrToolsError, did_you_mean
from ..ir.model import Graph, Layer, require_graph
from ..ops import attrs as A
from ..ops.opsets import lookup, openvino_opsets_of, opsets_of, specs, type_key, type_query

#: An output of a layer: (layer id, output port id).
Output = tuple[str, int]


class Pattern:
    """Something that may match the output ``out`` of a graph; subclasses say what."""

    name: str | None = None

    def bind(self, graph: Graph, out: Output, found: Match) -> bool:
        """Whether the output ``out`` matches; records what it binds in ``found`` (what ``matches`` calls per input)."""
        raise NotImplementedError


class AnyInput(Pattern):
    """Any output (OpenVINO's ``AnyInput``), optionally one ``where(layer)`` accepts; binds the output by name."""

    def __init__(self, name: str | None = None, where: Callable[[Layer], bool] | None = None):
        self.name = name
        self.where = where

    def bind(self, graph: Graph, out: Output, found: Match) -> bool:
        """Whether ``out`` is an output ``where`` accepts (any, without it); binds it to ``name``."""
        if self.where is not None and not self.where(graph.layer(out[0])):
            return False
        return found.record(self.name, out)


class Op(Pattern):
    """A layer of one of ``types`` (spelled in any case, as OpenVINO reads types: "Relu" is ReLU; an op ir_tools does
    not model, as written), optionally of one op ``version`` (an int: the op version, ``AvgPool-14`` is 14; a string:
    an opset, meaning the op version it holds, as OpenVINO's ``WrapType("opset13.Add")`` matches an Add written
    ``opset1``: both are Add-1; of an op ir_tools does not model, the layer's version as written), with ``attrs``
    (typed values, as the op's attribute class decodes them, or predicates on them), fed by ``inputs``, and
    accepted by ``where(layer)``. Binds the layer by name. E-USAGE for a version no layer of ``types`` can have, and
    for an argument of another kind (an input that is no pattern), which matched nothing or failed inside."""

    def __init__(self, types: str | tuple[str, ...], *inputs: Pattern, version: int | str | None = None,
                 attrs: Mapping[str, Any] | None = None, name: str | None = None,
                 where: Callable[[Layer], bool] | None = None):
        self.types = (types,) if isinstance(types, str) else tuple(types) if isinstance(types, tuple | list) else ()
        wrong = [(what, value) for what, value, ok in (
            ("types", types, self.types and all(isinstance(t, str) and t for t in self.types)),
            *((f"input {i}", p, isinstance(p, Pattern)) for i, p in enumerate(inputs)),
            ("version", version, version is None or isinstance(version, str) or type(version) is int),
            ("attrs", attrs, attrs is None or isinstance(attrs, Mapping)),
            ("name", name, name is None or isinstance(name, str)),
            ("where", where, where is None or callable(where))) if not ok]
        if wrong:
            what, value = wrong[0]
            raise IrToolsError(f"Op(...): {what} {value!r} is not {_KINDS[what.split()[0]]}", code="E-USAGE")
        self._keys = frozenset(type_query(t) for t in self.types)
        self.inputs = inputs
        self.version = version
        if version is not None:
            _check_version(self.types, version)
        self.attrs = dict(attrs or {})
        if not any(opsets_of(t) for t in self.types):  # (no typed view: the IR's strings, which a number never equals)
            for key, want in self.attrs.items():
                if not isinstance(want, str) and not callable(want):
                    raise IrToolsError(f"Op({', '.join(map(repr, self.types))}, attrs=...): ir_tools does not model "
                                       f"it, so its attributes are the IR's strings: give {key!r} a string or a "
                                       f"predicate on one, not {want!r}", code="E-USAGE")
        self.name = name
        self.where = where

    def bind(self, graph: Graph, out: Output, found: Match) -> bool:
        """Whether the layer of ``out`` is this op (``accepts``); binds it to ``name``."""
        return self.accepts(graph, graph.layer(out[0]), found)

    def accepts(self, graph: Graph, layer: Layer, found: Match) -> bool:
        """True if ``layer`` is this op with matching inputs; records the bindings in ``found``."""
        if type_key(layer.type) not in self._keys or not self._version_matches(layer):
            return False
        if self.attrs and not self._attrs_match(layer):
            return False
        if self.where is not None and not self.where(layer):
            return False
        if self.inputs:
            ids = layer.input_ids()
            if len(ids) != len(self.inputs):
                return False
            for port_id, pattern in zip(ids, self.inputs, strict=True):
                source = graph.producer_key(layer.id, port_id)
                if source is None or not pattern.bind(graph, source, found):
                    return False
        return found.record(self.name, layer)

    def _version_matches(self, layer: Layer) -> bool:
        """Whether the layer is of the op version asked: an int one's, or the one the opset asked holds (an op ir_tools
        does not model, whose op versions it does not know: the layer's version spelt as asked)."""
        if self.version is None:
            return True
        spec = lookup(layer.type, layer.version)
        if isinstance(self.version, int):
            return spec is not None and spec.label.rsplit("-", 1)[-1] == str(self.version)
        wanted = lookup(layer.type, self.version)
        return layer.version == self.version if wanted is None else spec is wanted

    def _attrs_match(self, layer: Layer) -> bool:
        """Each of ``attrs`` as the layer has it: by the typed field's name or the IR's spelling of it; a string
        in any case (the IR's "ERF" is the typed "erf"), a list as the typed tuple. E-ATTR for a name the op has
        no attribute of (a misspelt one matched nothing, silently)."""
        spec = lookup(layer.type, layer.version)
        if spec is None:
            values: Mapping[str, Any] = layer.attrs
        else:
            fields = A.field_names(spec.attrs, self.attrs, f"Op({spec.type!r}, attrs=...): {spec.label}",
                                   ir_spellings=True)
            try:
                typed = A.decode(spec.attrs, layer.attrs, layer.loc)
            except Exception:  # noqa: BLE001 (attributes check would refuse: not a match)
                return False
            values = {key: getattr(typed, fields[key], None) for key in self.attrs}
        return all(want(values.get(key)) if callable(want) else _same(values.get(key), want)
                   for key, want in self.attrs.items())


#: What each argument of ``Op`` is, as its refusal says.
_KINDS = {"types": "a type or a tuple of types (strings: Op(\"Add\"), Op((\"Add\", \"Subtract\")))",
          "input": "a pattern (Op, AnyInput, Const): an Op's inputs are what feeds the layer",
          "version": "an op version (an int: 14) or an opset (a string: \"opset14\")",
          "attrs": "a mapping of attribute names to values or predicates", "name": "a string",
          "where": "a callable taking the Layer"}


def _check_version(types: tuple[str, ...], version: int | str) -> None:
    """IrToolsError (E-USAGE, as for a type no layer can have) for a ``version`` no layer of ``types`` can have (a
    misspelt one matched nothing, silently): an op version ir_tools does not model for any of them, an opset none of
    them is in."""
    possible: set[int | str] = set()
    for op_type in types:
        for spec in specs():
            if type_key(spec.type) == type_query(op_type):
                possible.add(int(spec.label.rsplit("-", 1)[-1]))
        possible.update(opsets_of(op_type), openvino_opsets_of(op_type))
        if not opsets_of(op_type) and not openvino_opsets_of(op_type) and isinstance(version, str):
            return  # (an extension's op: its layers' version names its own opset)
    if version not in possible:
        ints = sorted(v for v in possible if isinstance(v, int))
        sets = sorted((v for v in possible if isinstance(v, str)), key=lambda v: int(v[5:]))
        what = (f"op versions {', '.join(map(str, ints))}" if ints else "no op version ir_tools models") + (
            f"; opsets {sets[0]}..{sets[-1]}" if sets else "")
        raise IrToolsError(f"Op({', '.join(map(repr, types))}, version={version!r}): no layer of it has that version "
                           f"(an int is an op version, a string an opset: {what})", code="E-USAGE")


def _same(have: Any, want: Any) -> bool:
    """A typed attribute value against one a pattern gives: strings in any case, a list as a tuple."""
    if isinstance(have, str) and isinstance(want, str):
        return have.lower() == want.lower()
    return have == (tuple(want) if isinstance(want, list) else want)


def Const(name: str | None = None) -> Op:  # noqa: N802 (reads as a pattern class, like Op)
    """A Const layer, bound by ``name`` (its value: ``Match.value(name)``)."""
    return Op("Const", name=name)


@dataclass
class Match:
    """One match: the root layer, and what the named parts of the pattern bound (layers for ``Op``, outputs
    ``(layer id, port id)`` for ``AnyInput``)."""

    graph: Graph
    root: Layer | None = None
    bound: dict[str, Layer | Output] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Layer | Output:
        """What the pattern's part named ``name`` bound; IrToolsError (E-PASS) for a name no part has."""
        if name not in self.bound:
            raise IrToolsError(f"the match binds no '{name}'{did_you_mean(name, list(self.bound))}; it binds: "
                               f"{', '.join(self.bound) or 'nothing (name a part: Op(..., name=...))'}",
                               code="E-PASS")
        return self.bound[name]

    def record(self, name: str | None, what: Layer | Output) -> bool:
        """Bind ``name``; a name bound twice must bind the same thing (a pattern may share a part)."""
        if name is None:
            return True
        if name in self.bound:
            return self.bound[name] is what or self.bound[name] == what
        self.bound[name] = what
        return True

    def value(self, name: str) -> np.ndarray:
        """The value of the Const bound to ``name``; IrToolsError (E-PASS) for a part bound to anything else."""
        layer = self._layer(name)
        if not layer.is_a("Const"):
            raise IrToolsError(f"value({name!r}): '{name}' binds layer '{layer.name}', a {layer.type}, not a Const",
                               code="E-PASS")
        return self.graph.const_array(layer)

    def attrs(self, name: str) -> Any:
        """The typed attributes of the layer bound to ``name`` (``typed_attrs``)."""
        return typed_attrs(self._layer(name))

    def _layer(self, name: str) -> Layer:
        """The layer an ``Op`` named ``name`` bound; IrToolsError (E-PASS) for an ``AnyInput``'s, which binds an
        output ``(layer id, port id)``."""
        bound = self[name]
        if not isinstance(bound, Layer):
            raise IrToolsError(f"'{name}' binds an output {bound!r} (an AnyInput), not a layer: name an Op (Const, "
                               "Op(...)) to read its value or attributes", code="E-PASS")
        return bound


def typed_attrs(layer: Layer) -> Any:
    """A layer's attributes decoded into its op version's attribute class (an op ir_tools models; AttrError for
    another, whose attributes are the strings of ``layer.attrs``)."""
    spec = lookup(layer.type, layer.version)
    if spec is None:
        raise AttrError(f"ir_tools does not model {layer.type}@{layer.version}: its attributes are the strings of "
                        "layer.attrs", layer.loc)
    return A.decode(spec.attrs, layer.attrs, layer.loc)


def matches(graph: Graph, pattern: Op) -> Iterator[Match]:
    """Every match of ``pattern`` rooted at a layer of the graph, in topological order (its top level: a body of a
    TensorIterator, Loop or If is matched as the graph ``ir_tools.bodies`` gives).

    Lazy: each root is matched when it is reached, so a pass may rewrite the graph between matches and
    later roots see the rewritten graph (a chain folds in one sweep); a removed root is skipped. E-USAGE for a pattern
    that is no ``Op`` (an ``AnyInput`` binds an output, not a layer: inside an Op only).
    """
    require_graph(graph, "matches")
    if not isinstance(pattern, Op):
        raise IrToolsError(f"matches(graph, pattern) takes an Op pattern (its root is a layer; AnyInput inside one), "
                           f"not {pattern!r}", code="E-USAGE")
    return _matches(graph, pattern)


def _matches(graph: Graph, pattern: Op) -> Iterator[Match]:
    """``matches``, its arguments checked (a generator: refused before the first match is asked for)."""
    for layer in graph.topological_order():
        if not graph.has_layer(layer.id):
            continue
        found = Match(graph, layer)
        if pattern.accepts(graph, layer, found):
            yield found
