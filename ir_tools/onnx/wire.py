"""An ONNX file edited as protobuf bytes: its graph's nodes, inputs and outputs, without parsing the weights.

``onnx.load`` copies every weight into Python and ``SerializeToString`` copies them back. Cutting
the graph (``network``) only removes a few nodes and adds a few inputs and outputs, so it is done on
the bytes: the protobuf wire format is a sequence of ``(field number, wire type, payload)`` records,
and a message's fields may be dropped or appended freely. Only the small messages (nodes, inputs,
outputs, opsets) are parsed, with onnx's classes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import onnx

# Field numbers of onnx.proto3.
_MODEL_OPSET, _MODEL_GRAPH = 8, 7
_GRAPH_NODE, _GRAPH_NAME, _GRAPH_INITIALIZER, _GRAPH_INPUT, _GRAPH_OUTPUT, _GRAPH_VALUE_INFO = 1, 2, 5, 11, 12, 13
_TENSOR_DATA = frozenset({4, 5, 6, 7, 9, 10, 11})  # float/int32/string/int64/raw/double/uint64 data
_LENGTH_DELIMITED = 2


@dataclass(frozen=True, slots=True)
class Field:
    number: int
    start: int  # where the record (its key) starts
    payload: tuple[int, int]  # [begin, end) of a length-delimited payload, or of the raw value
    end: int


def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def fields(buf: memoryview, start: int = 0, end: int | None = None) -> Iterator[Field]:
    """The records of the message in ``buf[start:end]``; ValueError on bytes that are not one."""
    pos, end = start, len(buf) if end is None else end
    while pos < end:
        first = pos
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, after = _varint(buf, pos)
        elif wire == 1:
            after = pos + 8
        elif wire == _LENGTH_DELIMITED:
            length, pos = _varint(buf, pos)
            after = pos + length
        elif wire == 5:
            after = pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire} at byte {first}")
        if after > end:
            raise ValueError(f"a field at byte {first} runs past its message")
        yield Field(number, first, (pos, after), after)
        pos = after


def record(number: int, payload: bytes) -> bytes:
    """A length-delimited field."""
    return _encode_varint(number << 3 | _LENGTH_DELIMITED) + _encode_varint(len(payload)) + payload


class OnnxBytes:
    """An ONNX model file's bytes, with the graph's records indexed."""

    def __init__(self, data: bytes, directory: Path | None = None):
        self.data = data
        self.directory = directory  # the file's folder, where its external data's locations start
        view = memoryview(data)
        top = list(fields(view))
        graphs = [f for f in top if f.number == _MODEL_GRAPH]
        if len(graphs) != 1:
            raise ValueError(f"{len(graphs)} graph fields, expected 1")
        self.graph = graphs[0]
        self.opsets = [onnx.OperatorSetIdProto.FromString(view[f.payload[0]:f.payload[1]])
                       for f in top if f.number == _MODEL_OPSET]
        self.graph_fields = list(fields(view, *self.graph.payload))
        self.nodes = [onnx.NodeProto.FromString(self._payload(f)) for f in self._graph(_GRAPH_NODE)]
        self.inputs = [onnx.ValueInfoProto.FromString(self._payload(f)) for f in self._graph(_GRAPH_INPUT)]
        self.outputs = [onnx.ValueInfoProto.FromString(self._payload(f)) for f in self._graph(_GRAPH_OUTPUT)]
        names = [self._payload(f) for f in self._graph(_GRAPH_NAME)]
        self.name = bytes(names[-1]).decode("utf-8", "replace") if names else ""

    @classmethod
    def read(cls, path: Path) -> OnnxBytes:
        return cls(path.read_bytes(), path.resolve().parent)

    def _graph(self, number: int) -> list[Field]:
        return [f for f in self.graph_fields if f.number == number]

    def _payload(self, f: Field) -> memoryview:
        return memoryview(self.data)[f.payload[0]:f.payload[1]]

    def rebuilt(self, drop_nodes: set[int], inputs: list[onnx.ValueInfoProto] = (),
                outputs: list[onnx.ValueInfoProto] = (), light: int | None = None) -> bytes:
        """The model with the graph's nodes at ``drop_nodes`` (indexes) removed and ``inputs``/``outputs``
        appended. ``light``: also leave out every initializer larger than that many bytes, declaring it a
        typed graph input instead, and the exporter's ``value_info`` (for shape inference, which needs no
        weights, and whose own results a wrong ``value_info`` would override)."""
        view = memoryview(self.data)
        parts: list[bytes | memoryview] = []
        declared = {value.name for value in self.inputs}
        node = 0
        for f in self.graph_fields:
            if f.number == _GRAPH_NODE:
                node += 1
                if node - 1 in drop_nodes:
                    continue
            if light is not None and f.number == _GRAPH_VALUE_INFO:
                continue
            if light is not None and f.number == _GRAPH_INITIALIZER and f.end - f.start > light:
                typed = _typed_input(self._payload(f))
                if typed.name not in declared:  # an initializer may also be listed as an input
                    parts.append(record(_GRAPH_INPUT, typed.SerializeToString()))
                continue
            parts.append(view[f.start:f.end])
        parts += [record(_GRAPH_INPUT, v.SerializeToString()) for v in inputs]
        parts += [record(_GRAPH_OUTPUT, v.SerializeToString()) for v in outputs]
        key = _encode_varint(_MODEL_GRAPH << 3 | _LENGTH_DELIMITED) + _encode_varint(sum(map(len, parts)))
        return b"".join([view[:self.graph.start], key, *parts, view[self.graph.end:]])  # the weights copied once


def _typed_input(tensor: memoryview) -> onnx.ValueInfoProto:
    """A graph input with an initializer's name, element type and dims (its data left unread)."""
    header = b"".join(tensor[f.start:f.end] for f in fields(tensor) if f.number not in _TENSOR_DATA)
    t = onnx.TensorProto.FromString(header)
    return onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
