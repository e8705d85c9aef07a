"""Regenerate the migration samples: ``avgpool14_16_mixed`` (OpenVINO's own serializer) and
``legacy_v7_pooling.xml`` (written as text: no current tool writes IR v7).

Run ``python samples/make_migration_samples.py``; the output is byte-identical from run to run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset14 as ops14
import openvino.opset16 as ops16

HERE = Path(__file__).resolve().parent


def _named(node: ov.Node, name: str) -> ov.Node:
    node.set_friendly_name(name)
    node.output(0).get_tensor().set_names({name})
    return node


def avgpool14_16_mixed() -> ov.Model:
    """AvgPool-14 ceil_torch that drops a window on both axes, feeding AvgPool-16 with dilations.

    pool14: 1x2x7x9, kernel 3, stride 2, pads 1/2, exclude-pad false. ceil would give 5x6;
    ceil_torch gives 4x5 (the last window would start in the end padding). pool16: kernel 2,
    dilations 2, pads 1/1, exclude-pad true: 4x5 -> 4x5. Both are model outputs.
    """
    x = _named(ops1.parameter([1, 2, 7, 9], np.float32), "input")
    pool14 = _named(ops14.avg_pool(x, [2, 2], [1, 1], [2, 2], [3, 3], False, "ceil_torch"), "pool14")
    pool16 = _named(ops16.avg_pool(pool14, [1, 1], [1, 1], [1, 1], [2, 2], True, "floor", dilations=[2, 2]),
                    "pool16")
    results = [ops1.result(node, name=f"{node.get_friendly_name()}/sink") for node in (pool14, pool16)]
    return ov.Model(results, [x], "avgpool14_16_mixed")


def _port(port_id: int, dims: list[int]) -> str:
    body = "".join(f"\n\t\t\t\t\t<dim>{d}</dim>" for d in dims)
    return f'\t\t\t\t<port id="{port_id}">{body}\n\t\t\t\t</port>'


def _legacy_layer(lid: int, name: str, kind: str, attrs: dict[str, str], tag: str, out: list[int]) -> str:
    lines = [f'\t\t<layer id="{lid}" name="{name}" precision="FP32" type="{kind}">']
    if attrs:
        lines.append(f"\t\t\t<{tag} " + " ".join(f'{k}="{v}"' for k, v in attrs.items()) + "/>")
    if kind != "Input":
        lines += ["\t\t\t<input>", _port(0, LEGACY_INPUT), "\t\t\t</input>"]
    lines += ["\t\t\t<output>", _port(0 if kind == "Input" else 1, out), "\t\t\t</output>", "\t\t</layer>"]
    return "\n".join(lines)


LEGACY_INPUT = [1, 3, 11, 11]


def legacy_v7_pooling() -> str:
    """IR v7: one Input and three average Poolings, one per legacy attribute spelling.

    pool_a  kernel/strides/pads_begin/pads_end, ceil, pads 1/2, exclude-pad false: 6x6 (legacy
            ceil drops a window that would start in the end padding).
    pool_b  kernel-x/kernel-y/stride-x/stride-y, exclude-pad true, no rounding given (legacy
            default: ceil): 6x6, the last window half outside the data.
    pool_c  a <pooling_data> element with pad-x/pad-y and rounding-type floor, exclude-pad not
            given (legacy default: false): 11x11.
    """
    layers = [
        _legacy_layer(0, "data", "Input", {}, "data", LEGACY_INPUT),
        _legacy_layer(1, "pool_a", "Pooling", {
            "auto_pad": "", "exclude-pad": "false", "kernel": "3,3", "pads_begin": "1,1", "pads_end": "2,2",
            "pool-method": "avg", "rounding_type": "ceil", "strides": "2,2"}, "data", [1, 3, 6, 6]),
        _legacy_layer(2, "pool_b", "Pooling", {
            "exclude-pad": "true", "kernel-x": "2", "kernel-y": "2", "pool-method": "avg", "stride-x": "2",
            "stride-y": "2"}, "data", [1, 3, 6, 6]),
        _legacy_layer(3, "pool_c", "Pooling", {
            "kernel-x": "3", "kernel-y": "3", "pad-x": "1", "pad-y": "1", "stride-x": "1", "stride-y": "1",
            "rounding-type": "floor", "pool-method": "avg"}, "pooling_data", [1, 3, 11, 11]),
    ]
    edges = [f'\t\t<edge from-layer="0" from-port="0" to-layer="{i}" to-port="0"/>' for i in (1, 2, 3)]
    return "\n".join(['<?xml version="1.0" ?>', '<net batch="1" name="legacy_v7_pooling" version="7">',
                      "\t<layers>", *layers, "\t</layers>", "\t<edges>", *edges, "\t</edges>", "</net>", ""])


def main() -> None:
    ov.save_model(avgpool14_16_mixed(), HERE / "avgpool14_16_mixed.xml")
    (HERE / "legacy_v7_pooling.xml").write_text(legacy_v7_pooling(), encoding="utf-8")
    print(f"wrote avgpool14_16_mixed.xml/.bin and legacy_v7_pooling.xml in {HERE}")


if __name__ == "__main__":
    main()
