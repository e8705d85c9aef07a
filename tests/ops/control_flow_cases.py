"""Seeded TensorIterator, Loop and If cases built with OpenVINO's Python API (opset8), for the control-flow conformance
suite and the compare tests: each case adds its own Parameters (fed by ``feed``) and returns the outer outputs it
made. Bodies hold only ops with rules and kernels of ours; static cases run on CPU, dynamic ones are for shape rules.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset8 as o

F32 = np.float32


class Ctx:
    """A batch being built: its random numbers, the outer Parameters made so far and what feeds them."""

    def __init__(self, rng: np.random.Generator):
        self.rng, self.params, self.feed = rng, [], {}

    def param(self, name: str, shape, dtype, static: list[int] | None = None, value: np.ndarray | None = None,
              ) -> ov.Node:
        node = o.parameter(shape, dtype, name=name)
        node.output(0).get_tensor().set_names({name})
        self.params.append(node)
        self.feed[name] = self.rng.standard_normal(static or shape).astype(dtype) if value is None else value
        return node


def tensor_iterator(k: int, ctx: Ctx, dynamic: bool = False) -> list[ov.Output]:
    """x [B, T, C] sliced along a random axis in parts of 1 or 2, forward or backward; a merged state; an invariant
    bias; the last state, the parts' means concatenated (along the axis, forward or backward) and the invariant
    passed through."""
    rng = ctx.rng
    axis = int(rng.integers(0, 3))
    part = int(rng.choice([1, 2]))
    shape = [int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 4))]
    shape[axis] = part * int(rng.integers(1, 4))
    backward = bool(rng.integers(0, 2))
    declared = [-1 if dynamic and i != axis and rng.random() < 0.5 else d for i, d in enumerate(shape)]
    x = ctx.param(f"ti{k}_x", declared, F32, shape)
    state = [d if i != axis else 1 for i, d in enumerate(shape)]
    h = ctx.param(f"ti{k}_h", state, F32)
    b = ctx.param(f"ti{k}_b", [shape[2] if axis != 2 else 1], F32)
    part_shape = [d if i != axis else part for i, d in enumerate(shape)]
    xi, hi, bi = o.parameter(part_shape, F32), o.parameter(state, F32), o.parameter(b.get_output_partial_shape(0), F32)
    mean = o.reduce_mean(xi, o.constant(np.array([axis], np.int64)), True)
    nh = o.add(o.add(o.multiply(hi, o.constant(F32(0.5))), mean), bi)
    body = ov.Model([o.result(nh), o.result(mean), o.result(bi)], [xi, hi, bi], f"ti{k}_body")
    ti = o.tensor_iterator()
    ti.set_friendly_name(f"ti{k}")
    ti.set_body(body)
    if backward:
        ti.set_sliced_input(xi, x.output(0), -1, -part, part, 0, axis)
    else:
        ti.set_sliced_input(xi, x.output(0), 0, part, part, -1, axis)
    ti.set_merged_input(hi, h.output(0), nh.output(0))
    ti.set_invariant_input(bi, b.output(0))
    stride = -1 if backward and rng.random() < 0.5 else 1
    start, end = (0, -1) if stride > 0 else (-1, 0)
    return [ti.get_iter_value(body.results[0].output(0), -1),
            ti.get_concatenated_slices(body.results[1].output(0), start, stride, 1, end, axis),
            ti.get_iter_value(body.results[2].output(0), -1)]


def loop(k: int, ctx: Ctx, dynamic: bool = False, kind: str | None = None, counter: str | None = None,
         ) -> list[ov.Output]:
    """x [2, C] carried through a body (0.75 x + 1, so that a comparison of its sum ends the loop) adding the
    iteration's number (i32 or i64, scalar or [1]) where one is given;
    the trip count constant (1 to 5) or -1; the body's condition constant true, a Parameter fed the execution condition,
    or a comparison of x's sum; outputs the last x and x of every iteration concatenated on a new axis 0 or 1."""
    rng = ctx.rng
    c = int(rng.integers(1, 4))
    declared = [2, -1 if dynamic and rng.random() < 0.5 else c]
    x = ctx.param(f"loop{k}_x", declared, F32, [2, c])
    kind = kind or str(rng.choice(["const", "param", "less"]))
    trip = int(rng.integers(1, 6)) if kind != "less" or rng.random() < 0.5 else -1
    counter = counter or str(rng.choice(["none", "i64", "i32", "i64[1]"]))
    xi = o.parameter([2, -1 if dynamic else c] if dynamic else [2, c], F32)
    params = [xi]
    value = o.add(o.multiply(xi, o.constant(F32(0.75 - 0.05 * k))), o.constant(F32(1.0)))  # drifts above 4: ends
    it = None
    if counter != "none":
        it = o.parameter([1] if counter.endswith("[1]") else [], np.int32 if counter == "i32" else np.int64)
        params.append(it)
        value = o.add(value, o.convert(it, "f32"))
    ci = None
    if kind == "const":
        cond = o.constant(True)
    elif kind == "param":
        ci = o.parameter([], np.bool_)
        params.append(ci)
        cond = ci
    else:
        cond = o.less(o.reduce_sum(value, o.constant(np.array([0, 1], np.int64)), False), o.constant(F32(6.0)))
    concat_axis = int(rng.integers(0, 2))
    body = ov.Model([o.result(value), o.result(o.unsqueeze(value, o.constant(np.array([concat_axis], np.int64)))),
                     o.result(cond)], params, f"loop{k}_body")
    lp = o.loop(o.constant(np.int64(trip)), o.constant(True))
    lp.set_friendly_name(f"loop{k}")
    lp.set_function(body)
    lp.set_special_body_ports([-1 if it is None else params.index(it), 2])
    lp.set_merged_input(xi, x.output(0), value.output(0))
    if ci is not None:
        lp.set_invariant_input(ci, lp.input_value(1))
    return [lp.get_iter_value(body.results[0].output(0), -1),
            lp.get_concatenated_slices(body.results[1].output(0), 0, 1, 1, -1, concat_axis)]


def if_of(condition: ov.Output | ov.Node, x: ov.Output, then: ov.Model, orelse: ov.Model,
          name: str | None = None) -> ov.Output:
    """An If on ``condition``: ``x`` fed to the first Parameter of each body, its output the first Result of each."""
    node = o.if_op(condition)
    if name is not None:
        node.set_friendly_name(name)
    node.set_then_body(then)
    node.set_else_body(orelse)
    node.set_input(x, then.get_parameters()[0], orelse.get_parameters()[0])
    return node.set_output(then.results[0], orelse.results[0])


def if_op(k: int, ctx: Ctx, dynamic: bool = False, kind: str | None = None) -> list[ov.Output]:
    """x [2, C]; then gives 2x, else exp(x) or x concatenated with itself (another first dim); the condition a constant
    or a Parameter."""
    rng = ctx.rng
    c = int(rng.integers(1, 4))
    x = ctx.param(f"if{k}_x", [2, -1 if dynamic and rng.random() < 0.5 else c], F32, [2, c])
    kind = kind or str(rng.choice(["true", "false", "param"]))
    if kind == "param":
        cond = ctx.param(f"if{k}_c", [], np.bool_, value=np.array(bool(rng.integers(0, 2))))
    else:
        cond = o.constant(kind == "true")
    tx, ex = o.parameter(x.get_output_partial_shape(0), F32), o.parameter(x.get_output_partial_shape(0), F32)
    then = ov.Model([o.result(o.multiply(tx, o.constant(F32(2.0))))], [tx], f"if{k}_then")
    other = o.exp(ex) if rng.random() < 0.5 else o.concat([ex, ex], 0)
    orelse = ov.Model([o.result(other)], [ex], f"if{k}_else")
    return [if_of(cond.output(0), x.output(0), then, orelse, f"if{k}")]


def each_kind(seed: int) -> tuple[ov.Model, dict[str, np.ndarray]]:
    """One model holding a TensorIterator, a Loop with a trip count and the current iteration, a Loop ended by its
    body's condition, and Ifs on a constant and on a runtime condition."""
    ctx = Ctx(np.random.default_rng(seed))
    outputs = [*tensor_iterator(0, ctx), *loop(0, ctx, kind="const", counter="i64"), *loop(1, ctx, kind="less"),
               *if_op(0, ctx, kind="true"), *if_op(1, ctx, kind="param")]
    return ov.Model([o.result(out) for out in outputs], ctx.params, "control_flow"), ctx.feed


BUILDERS = {"TensorIterator": tensor_iterator, "Loop": loop, "If": if_op}


def batch(seed: int, per_op: int, dynamic: bool = False) -> tuple[ov.Model, dict[str, np.ndarray]]:
    """``per_op`` cases of each op in one model (every outer output a Result), and what feeds its inputs."""
    ctx = Ctx(np.random.default_rng(seed))
    outputs = []
    for build in BUILDERS.values():
        for k in range(per_op):
            outputs += build(k, ctx, dynamic)
    return ov.Model([o.result(out) for out in outputs], ctx.params, "control_flow"), ctx.feed
