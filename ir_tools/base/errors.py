"""One exception family; every error knows where in which file it happened."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from .codes import known


@dataclass(frozen=True, slots=True)
class SourceLoc:
    """Where something came from: file, line, and the layer it belongs to (if any)."""

    file: str | None = None
    line: int | None = None
    layer_id: str | None = None
    layer_name: str | None = None
    layer_kind: str | None = None  # "AvgPool-1", "Parameter", ...

    def prefix(self) -> str:
        """``file:line`` as compilers print it (empty parts left out)."""
        if self.file is None:
            return ""
        return f"{self.file}:{self.line}" if self.line else self.file

    def layer_text(self) -> str:
        """``layer 'NAME' (id ID, KIND)`` as messages name a layer; empty without one."""
        if self.layer_id is None:
            return ""
        kind = f", {self.layer_kind}" if self.layer_kind else ""
        return f"layer '{self.layer_name}' (id {self.layer_id}{kind})"


class IrToolsError(Exception):
    """Base of every error ir_tools raises on purpose; carries a stable code (one of ``codes.CODES``, which a
    subclass's ``code`` and the ``code`` argument are checked against) and a location."""

    code = "E-IR"

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        known(cls.code)

    def __init__(self, message: str, loc: SourceLoc | None = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc or SourceLoc()
        if code is not None:
            self.code = known(code)

    def __str__(self) -> str:
        where = self.loc.prefix()
        layer = self.loc.layer_text()
        text = f"{layer}: {self.message}" if layer else self.message
        return f"{where}: {text}" if where else text


class ReadError(IrToolsError):
    """The file cannot be read as an IR at all (malformed XML, unsafe XML, missing file)."""

    code = "E-READ"


class AttrError(IrToolsError):
    """An attribute is missing or has a value of the wrong type."""

    code = "E-ATTR"


class OpValidationError(IrToolsError):
    """An op rejects its inputs or attributes, as OpenVINO's shape inference would."""

    code = "E-OP"


class ExecutionError(IrToolsError):
    """Running a layer failed; names the layer."""

    code = "E-EXEC"


class UnsupportedError(IrToolsError):
    """A valid construct that this tool cannot handle (named, never silently skipped)."""

    code = "E-UNSUPPORTED"


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean X?)`` with the closest of ``choices``, or "" when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


#: The modules the ``onnx`` extra installs (``pip install 'ir_tools[onnx]'``): onnx, its protobuf, onnxruntime.
_ONNX_EXTRA = frozenset({"onnx", "google", "onnxruntime"})


def needs_onnx(what: str, exc: ImportError) -> IrToolsError:
    """E-USAGE for ``what`` ("convert-onnx") where a module of the ``onnx`` extra is missing: how to install it (the
    module's own name only if the extra does not provide it: "No module named 'google'" says nothing to a user)."""
    top = (exc.name or "").split(".")[0]
    missing = "" if top in _ONNX_EXTRA else f" ({exc})"
    return IrToolsError(f"{what} needs the onnx extra: pip install 'ir_tools[onnx]'{missing}", code="E-USAGE")
