"""Every diagnostic code ir_tools reports: the one table the modules, the CLI's exit codes and the README follow.

A code is stable (tools match on it) and means one thing. Its severity says what it does to a command:

- ``fatal``: the input could not be checked, or the command could not act on it: exit 2 (``FATAL_CODES``);
- ``error``: a problem in the model: among ``check``'s findings exit 1, and every other command refuses the model
  (exit 1); raised while a command acts on a valid model (``run`` meeting a case its kernel does not compute),
  it ends the command with exit 2, as whatever a command raises does;
- ``warning``: reported, changes no exit code.

``stage`` says who reports the code: ``check``'s stages (``reader``, ``checks``, ``shapes``, ``validate``) each
report theirs on every file; ``openvino`` is OpenVINO's own verdict;
``target`` is ``check --target``'s table of releases; ``onnx`` is ``convert-onnx``'s reading and
conversion; ``commands`` are raised by a command as it acts (a bad option, an input that does not fit, a kernel the
reference lacks) and end it. ``Diagnostic`` and ``IrToolsError`` refuse a code missing here, so a new one cannot be
reported before it is described; ``scripts/make_codes_table.py`` writes the README's table from this one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

CodeSeverity = Literal["fatal", "error", "warning"]
Stage = Literal["reader", "checks", "shapes", "validate", "openvino", "target", "onnx", "commands"]


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    severity: CodeSeverity
    stage: Stage
    meaning: str


_TABLE = (
    Code("E-READ", "fatal", "reader",
         "not readable: missing file, malformed XML (that OpenVINO's parser refuses too: else W-XML), root not "
         "`<net>`"),
    Code("E-XML-UNSAFE", "fatal", "reader",
         "a DOCTYPE before the root (entities, DTD: XXE, billion laughs): refused before parsing, never expanded or "
         "fetched"),
    Code("W-TRAILING", "warning", "reader",
         "text, elements or a DOCTYPE after `</net>`, which OpenVINO reads past and ignores (a second model appended, "
         "a file written twice?); what it refuses there (an unclosed element, a bare `<`) is E-READ"),
    Code("W-XML", "warning", "reader",
         "not well-formed XML that OpenVINO's parser (pugixml) reads: a comment holding `--`, `&` or an unknown "
         "`&name;`, `<` in a value, a repeated attribute (the first is read), `]]>` in text, an XML declaration "
         "inside, text before `<net>`; read as OpenVINO reads it, and written well-formed by a command that writes "
         "the model"),
    Code("E-IR-VERSION", "fatal", "reader",
         "`<net version>` is not 10 or 11 (v7 and older: legacy IR that current OpenVINO cannot read, which "
         "`migrate` converts; v12; not a number)"),
    Code("E-LAYER", "error", "reader",
         "a `<layer>` without id or type (ignored, with its edges), without name, or whose id is not a "
         "non-negative int64"),
    Code("E-PORT", "error", "reader",
         "a port id that is not a non-negative int64, or repeated; an output port without a precision, or with one "
         "spelled otherwise than OpenVINO reads it ('f32' or 'FP32', not 'fp32' or 'F32')"),
    Code("E-DUP-ID", "error", "reader", "two layers share an id (the second is ignored)"),
    Code("E-DIM", "error", "reader", "a `<dim>` that is not an integer >= -1 that fits int64"),
    Code("E-EDGE", "error", "reader", "an `<edge>` with missing or non-integer attributes, or repeated"),
    Code("E-EDGE-LAYER", "error", "reader", "an edge names a layer that does not exist"),
    Code("E-EDGE-PORT", "error", "checks", "an edge names a port its layer does not have"),
    Code("W-INPUT-UNFED", "warning", "checks",
         "an optional input port after the last fed one, unconnected, of an op whose OpenVINO class fills its default "
         "(Pad, Slice, StridedSlice, Broadcast-1, NonMaxSuppression-1/3/4, LSTMCell-1; of an op ir_tools does not "
         "model, OpenVINO's verdict tells): OpenVINO creates the op without it"),
    Code("E-INPUT-UNFED", "error", "checks",
         "an input port with no producer; an optional one too, of another op: OpenVINO refuses to read it ('node "
         "index is out of range')"),
    Code("E-INPUT-MULTI", "error", "checks", "an input port with several producers"),
    Code("E-CYCLE", "error", "checks", "the layers form a cycle (shape propagation is then skipped)"),
    Code("W-DEAD", "warning", "checks", "no Result depends on the layer"),
    Code("E-NO-RESULT", "error", "checks", "the model has no Result (or no layers at all): it computes nothing"),
    Code("W-ATTR-UNKNOWN", "warning", "checks",
         "an attribute the op version does not have (OpenVINO ignores it; a later version may have it)"),
    Code("W-ATTR-SKIPPED", "warning", "checks",
         "a flag written neither true nor false (nor 1 or 0, in any case): OpenVINO's reader skips it for the default"),
    Code("E-SIZE", "error", "checks", "a tensor whose element count or byte size overflows int64"),
    Code("E-EDGE-PRECISION", "error", "checks",
         "the precisions of an edge's two ends differ (an input port without one takes its producer's, as in "
         "OpenVINO)"),
    Code("E-EDGE-DIMS", "error", "checks", "the declared dims of an edge's two ends differ; inside a body too "
         "(`LAYER/BODY/INNER`)"),
    Code("E-BIN-MISSING", "error", "checks",
         "Const layers but no `.bin` file, or one that cannot be read or is a git LFS pointer (reported at the first)"),
    Code("E-CONST-BOUNDS", "error", "checks",
         "a Const's [offset, offset+size) lies outside the `.bin` (one finding, at the first, for all)"),
    Code("E-CONST-SIZE", "error", "checks", "a Const's size is smaller than its element type x shape"),
    Code("E-OPSET", "error", "checks",
         "the layer's opset does not exist or lacks its type (a typo gets the nearest of OpenVINO's spellings), the "
         "layer has no version, or its type is spelled in another case than the one OpenVINO reads"),
    Code("E-EXTENSION", "error", "checks",
         "a layer of an extension domain (`version=\"extension\"` or a custom opset), reported once per domain: "
         "OpenVINO reads it only with that extension loaded, and ir_tools cannot check or run it"),
    Code("E-NAME-COLLISION", "error", "checks",
         "IR v10: the name OpenVINO gives an input or output (after its layer) already belongs to another input or "
         "output tensor; OpenVINO refuses the file"),
    Code("W-NAME-DUP", "warning", "checks",
         "a tensor name on several ports: OpenVINO keeps it on one and renames the others (`name_1`)"),
    Code("E-STATE", "error", "checks",
         "a variable read by a ReadValue that no Assign writes (OpenVINO reads and compiles the model, then CPU "
         "inference fails), or written by an Assign that no ReadValue reads (OpenVINO refuses to read it)"),
    Code("W-EMPTY-WINDOW", "warning", "checks",
         "ceil rounding makes a pooling window with no data (OpenVINO CPU outputs NaN, -0.0 or 0 there)"),
    Code("E-ATTR", "error", "shapes",
         "an attribute missing or of the wrong type, or a value OpenVINO reads but crashes compiling (MaxPool-14's "
         "empty dilations with ceil_torch)"),
    Code("E-OP", "error", "shapes",
         "the op rejects its inputs or attributes, as OpenVINO would (also where a value it waits for is unknown "
         "but a Const it reads already refuses), or OpenVINO CPU refuses to compile or run it by a Const it reads or "
         "its input types (TopK's k of 0)"),
    Code("E-BODY-SHAPE", "error", "shapes",
         "a layer inside a body refuses the shapes its Parameters declare, where the body's layer feeds them others: "
         "OpenVINO's reader validates each body as declared before its layer feeds it, and refuses the file "
         "(`LAYER/BODY/INNER`); `shapes --fix` writes the shapes fed"),
    Code("E-ARITY", "error", "shapes",
         "wrong number of inputs for the op, or more outputs than it has (a layer may declare its first outputs "
         "only, or none: OpenVINO counts declared outputs by position)"),
    Code("E-SHAPE", "error", "shapes", "declared output dims differ from the re-inferred ones"),
    Code("E-TYPE", "error", "shapes", "declared output precision differs from the re-inferred one"),
    Code("E-INTERNAL", "fatal", "validate",
         "a bug in ir_tools: a stage of `check` failed (the other stages' findings stand), or a command failed "
         "unexpectedly; please report it"),
    Code("E-OPENVINO", "error", "openvino",
         "OpenVINO refuses the model (read, compile or infer), in its own words: `check` asks it on a file "
         "otherwise clean (exit 1); `compare` and `migrate --check` stop there (exit 2)"),
    Code("E-TARGET", "error", "target",
         "`check --target RELEASE`: a layer that OpenVINO release cannot create (its op version, the oldest release "
         "that does, whether ir_tools rewrites it), or an IR version it does not read"),
    Code("W-TARGET", "warning", "openvino",
         "a layer whose weights the installed OpenVINO reads or computes otherwise, as `check --target` would say "
         "of its release: a file `migrate --target` repaired for an older one (its rt_info says so); with "
         "`check --target`, an f16 model input that release reads otherwise only if an infinity is fed (written as "
         "it is)"),
    Code("E-ONNX-READ", "fatal", "onnx", "convert-onnx: a missing file, or not a readable ONNX model"),
    Code("E-ONNX-INVALID", "fatal", "onnx",
         "convert-onnx: a model `onnx.checker` refuses, or one without a version of the default domain"),
    Code("E-ONNX-UNSUPPORTED", "fatal", "onnx",
         "convert-onnx: an op (or a custom domain) OpenVINO's ONNX frontend cannot convert; one per op type, "
         "naming its first node and how many more"),
    Code("E-ONNX-CONVERT", "fatal", "onnx",
         "convert-onnx: OpenVINO's conversion failed for another reason (its words)"),
    Code("E-ONNXRUNTIME", "fatal", "onnx", "onnxruntime cannot run the ONNX model (`convert-onnx --check`)"),
    Code("E-USAGE", "fatal", "commands",
         "the command line cannot be carried out: an option missing or out of range, no model file where one was "
         "named, an optional dependency not installed; from Python, a call given what it does not take (a path where "
         "a Graph is changed, a layer or edge the graph does not hold, a layer's field set to what the IR cannot hold: "
         "an attribute an int, a port's names a list)"),
    Code("E-OVERWRITE", "fatal", "commands",
         "writing would replace a file the command reads (the model, its weights, --inputs, --load-outputs, --against) "
         "or another of its outputs; only `--in-place` writes over the input model"),
    Code("E-CRASH", "fatal", "commands",
         "the command died of a signal (a crash in OpenVINO's or another library's native code, or killed when memory "
         "ran out): the signal and the call it happened in; nothing written"),
    Code("E-WRITE", "fatal", "commands",
         "an output cannot be written there (a folder without write permission, a path through a file, a full disk): "
         "checked before the command reads anything where it can be, and nothing is left half-written"),
    Code("E-INPUT", "fatal", "commands",
         "the inputs given to `run` or `compare` cannot be read or do not fit the model (names, shapes, element "
         "types, a dynamic dim without a default and without `--shape`)"),
    Code("E-PASS", "fatal", "commands",
         "a transformation pass failed, or left a graph `check` rejects (its diagnostics follow)"),
    Code("E-CUT", "fatal", "commands",
         "`extract`: a tensor name the model does not have (with the nearest one), or a cut that makes no model of its "
         "own: no outputs, an input the part needs left unfed, a cut input nothing reads, a constant or the model's "
         "state (ReadValue, Assign) inside the part"),
    Code("E-REDUCE", "fatal", "commands",
         "`reduce`: the model does not fail as `--until` asks (compare passes, or OpenVINO runs it): nothing to "
         "reduce"),
    Code("E-UNSUPPORTED", "error", "commands",
         "a valid construct ir_tools cannot handle (a case a reference kernel does not compute, a legacy layer "
         "without a conversion, an ONNX input type): named, never skipped"),
    Code("E-EXEC", "error", "commands", "a layer's shape rule or kernel failed on its values (the error is quoted)"),
    Code("E-IR", "error", "commands", "any other error ir_tools reports, without a more specific code"),
)

#: Every code by name, in the order of the README's table.
CODES: dict[str, Code] = {entry.code: entry for entry in _TABLE}

#: The codes that make a command exit 2: the input could not be checked (fully), or the command could not act.
FATAL_CODES = frozenset(entry.code for entry in _TABLE if entry.severity == "fatal")


def known(code: str) -> str:
    """``code``, if the table has it; ValueError otherwise (a code reported without being described is a bug)."""
    if code not in CODES:
        raise ValueError(f"diagnostic code {code!r} is not in ir_tools/base/codes.py")
    return code
