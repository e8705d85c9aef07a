"""The one place the tests build ONNX models: every model a test writes declares :data:`IR_VERSION`.

``onnx.helper.make_model`` stamps the newest IR version the installed onnx knows (IR 14 in onnx 1.23), and an
onnxruntime older than that onnx refuses the file ("Unsupported model IR version: 14, max supported IR version:
13"). So no test calls ``make_model`` itself nor sets ``ir_version`` by hand: tests/onnx/test_models.py fails on
a test module that does.
"""

from __future__ import annotations

import onnx
from onnx import helper

#: The ONNX IR version of every model the tests write: the oldest that opset 22 (the newest opset the tests use)
#: allows. onnxruntime reads IR 10 since 1.20, so every onnxruntime pyproject.toml admits (>= 1.29) reads it;
#: the newest onnx stamps IR 14, which onnxruntime up to 1.31 refuses.
IR_VERSION = 10

#: The newest default-domain opset a model at :data:`IR_VERSION` may import.
MAX_OPSET = max(row[2] for row in helper.VERSION_TABLE if row[1] <= IR_VERSION)


def make_model(graph: onnx.GraphProto, opset: int, *domains: tuple[str, int]) -> onnx.ModelProto:
    """``helper.make_model`` at :data:`IR_VERSION`: the default domain at ``opset``, and each (domain, version) of
    ``domains`` (custom ops)."""
    if opset > MAX_OPSET:
        raise ValueError(f"opset {opset} needs an ONNX IR version above {IR_VERSION}: raise IR_VERSION to the oldest "
                         "that allows it, if the oldest onnxruntime pyproject.toml admits reads that (else raise the "
                         "floor too)")
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(domain, version) for domain, version in domains]
    return helper.make_model(graph, opset_imports=imports, ir_version=IR_VERSION)
