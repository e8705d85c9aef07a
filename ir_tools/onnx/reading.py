"""Reading an ONNX file: onnx.load + onnx.checker, with diagnostics a person can act on."""

from __future__ import annotations

from pathlib import Path

import onnx

from ..base.errors import ReadError, SourceLoc

#: The ONNX node types ir_tools converts itself, with ONNX's exact numbers.
OWNED = ("AveragePool", "GlobalAveragePool")


def is_owned(node: onnx.NodeProto) -> bool:
    return node.domain in ("", "ai.onnx") and node.op_type in OWNED


def require_file(path: Path) -> None:
    if not path.is_file():
        raise ReadError(f"no such file: {path}", SourceLoc(str(path)), code="E-ONNX-READ")


def unreadable(path: Path, exc: Exception) -> ReadError:
    """E-ONNX-READ; one that is an XML document (an IR, most likely) says so."""
    try:
        with open(path, "rb") as f:
            head = f.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        head = b""
    if head.startswith(b"<"):
        return ReadError("not an ONNX model: an XML document (an IR? `ir-tools check` reads it)", SourceLoc(str(path)),
                         code="E-ONNX-READ")
    return ReadError(f"not a readable ONNX model ({type(exc).__name__}: {exc})", SourceLoc(str(path)),
                     code="E-ONNX-READ")


def load_checked(path: Path) -> onnx.ModelProto:
    """The model, read whole and accepted by ``onnx.checker``."""
    require_file(path)
    try:
        model = onnx.load(str(path))
    except Exception as exc:  # protobuf raises several unrelated types for a bad file
        raise unreadable(path, exc) from None
    check_file(path)
    return model


def check_file(path: Path) -> None:
    """``onnx.checker`` on the file (read by its C++ side, not copied through Python); ReadError if it objects."""
    loc = SourceLoc(str(path))
    try:
        onnx.checker.check_model(str(path))
    except onnx.checker.ValidationError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        context = [line.strip() for line in str(exc).splitlines() if "Context" in line or "Name:" in line]
        raise ReadError(f"invalid ONNX model: {first}" + (f" ({context[-1]})" if context else ""), loc,
                        code="E-ONNX-INVALID") from None


def default_opset(model: onnx.ModelProto, path: Path) -> int:
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return entry.version
    raise ReadError("the model imports no version of the default ONNX domain", SourceLoc(str(path)),
                    code="E-ONNX-INVALID")


def node_label(node: onnx.NodeProto, index: int) -> str:
    return node.name or (node.output[0] if node.output else f"#{index}")


