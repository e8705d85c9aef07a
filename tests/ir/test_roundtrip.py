"""read -> write -> read must give the same graph, and OpenVINO must compute the same numbers.

The models are every IR v10/v11 file in samples/ plus a few saved here by
``openvino.save_model`` (f16 compression, layers we do not model, dynamic dims, awkward names,
If and Loop bodies). Each is written as IR v11
and v10; the written file has to load in OpenVINO and give bit-identical outputs on the same
seeded inputs, because a writer that silently changes a model is worse than none.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset8 as ops8
import pytest

from ir_tools import Graph, IrToolsError, Layer, Port, read_ir, write_ir
from ir_tools.ir.model import RtNode, Weights
from ir_tools.runtime.openvino import CPU_CONFIG
from tests.conftest import ROOT
from tests.ops.control_flow_cases import if_of

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier


def _ir_version(xml: Path) -> int | None:
    found = re.search(rb"<net\b[^>]*\bversion=\"(\d+)\"", xml.read_bytes()[:512])
    return int(found.group(1)) if found else None


def _make_samples_names() -> list[str]:
    """The samples samples/make_samples.py writes with ``ov.save_model`` (others' samples may not be)."""
    spec = importlib.util.spec_from_file_location("make_samples", ROOT / "samples" / "make_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [*module.SAMPLES, "wrong_dims"]


#: Every sample OpenVINO can load (legacy IR v7 samples are for `migrate`, not for round trips).
SAMPLES = {p.stem: p for p in sorted((ROOT / "samples").glob("*.xml")) if _ir_version(p) in (10, 11)}
OV_SAMPLES = _make_samples_names()


# -- comparing graphs ---------------------------------------------------------------------------
def _port_key(port: Port) -> tuple:
    return (port.id, port.precision, port.dims, port.names, list(port.extra.items()), port.rt_info)


def _tree_key(graph: Graph, nodes: tuple[RtNode, ...], in_const: bool = False) -> tuple:
    """Verbatim children (subgraph bodies, port maps) with body Consts' offset/size replaced by their bytes."""
    keys = []
    for node in nodes:
        attrs = node.attrs
        if in_const and node.tag == "data":
            raw = dict(attrs)
            payload = bytes(graph.weights.read(int(raw["offset"]), int(raw["size"])))
            attrs = (*((k, v) for k, v in attrs if k not in ("offset", "size")), ("payload", payload))
        const = node.tag == "layer" and dict(node.attrs).get("type", "").lower() == "const"
        keys.append((node.tag, attrs, node.text, _tree_key(graph, node.children, const)))
    return tuple(keys)


def _layer_key(graph: Graph, layer: Layer) -> tuple:
    """Everything a layer means; a Const's offset/size are replaced by its payload bytes."""
    attrs = list(layer.attrs.items())
    payload = None
    if layer.type.lower() == "const":
        attrs = [(k, v) for k, v in attrs if k not in ("offset", "size")]
        payload = bytes(graph.const_bytes(layer))
    return (
        layer.id, layer.name, layer.type, layer.version, list(layer.extra.items()), attrs,
        [_port_key(p) for p in layer.inputs], [_port_key(p) for p in layer.outputs], layer.rt_info, payload,
        _tree_key(graph, layer.children),
    )


def graph_diff(a: Graph, b: Graph) -> list[str]:
    """Human-readable differences between two graphs (empty when equal); IR version not compared."""
    diffs = []
    if (a.name, list(a.net_extra.items()), a.rt_info) != (b.name, list(b.net_extra.items()), b.rt_info):
        diffs.append(f"net: {a.name!r} {a.net_extra} {a.rt_info} != {b.name!r} {b.net_extra} {b.rt_info}")
    layers_a, layers_b = list(a.layers()), list(b.layers())
    if len(layers_a) != len(layers_b):
        diffs.append(f"{len(layers_a)} layers != {len(layers_b)} layers")
    for la, lb in zip(layers_a, layers_b, strict=False):  # a length mismatch is reported above
        ka, kb = _layer_key(a, la), _layer_key(b, lb)
        if ka != kb:
            diffs.append(f"layer {la.id} '{la.name}': {ka} != {kb}")
    edges_a = [(e.from_layer, e.from_port, e.to_layer, e.to_port) for e in a.edges()]
    edges_b = [(e.from_layer, e.from_port, e.to_layer, e.to_port) for e in b.edges()]
    if edges_a != edges_b:
        diffs.append(f"edges: {edges_a} != {edges_b}")
    return diffs


def graphs_equal(a: Graph, b: Graph) -> bool:
    return not graph_diff(a, b)


def test_graph_diff_sees_changes():
    """The helper the round trip relies on must notice a changed dim, attribute or payload."""
    original = read_ir(SAMPLES["mixed_network"])
    assert graph_diff(original, read_ir(SAMPLES["mixed_network"])) == []
    mutations: list[Callable[[Graph], None]] = [
        lambda g: setattr(g.layer("5").outputs[0], "dims", (1, 8, 15, 16)),
        lambda g: g.layer("5").attrs.update(kernel="3, 3"),
        lambda g: setattr(g.layer("1"), "data", bytes(432)),
        lambda g: g.remove_edge(g.edges()[-1]),
    ]
    for mutate in mutations:
        changed = read_ir(SAMPLES["mixed_network"])
        mutate(changed)
        assert graph_diff(original, changed)


# -- models saved by OpenVINO in the test -------------------------------------------------------
def _f16_compressed() -> ov.Model:
    """Default ``save_model`` compression: every f32 Const becomes an f16 Const + Convert."""
    rng = np.random.default_rng(1)
    x = ops1.parameter([1, 4, 10, 10], np.float32, name="x")
    w = ops1.constant(rng.standard_normal((6, 4, 3, 3)).astype(np.float32), name="w")
    conv = ops1.convolution(x, w, [1, 1], [0, 0], [0, 0], [1, 1], name="conv")
    scale = ops1.constant(rng.standard_normal((1, 6, 1, 1)).astype(np.float32), name="scale")
    pool = ops1.avg_pool(ops1.multiply(conv, scale, name="mul"), [2, 2], [0, 0], [0, 0], [2, 2], True, name="pool")
    return ov.Model([ops1.result(pool, name="y")], [x], "f16_compressed")


def _unmodelled() -> ov.Model:
    """Ops ir_tools does not model (Convolution, Relu, Multiply, Add, Concat, Split), a shared payload, f32 kept."""
    rng = np.random.default_rng(2)
    x = ops1.parameter([1, 3, 8, 8], np.float32, name="x")
    w = ops1.constant(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), name="w")
    conv = ops1.relu(ops1.convolution(x, w, [1, 1], [1, 1], [1, 1], [1, 1], name="conv"), name="relu")
    two_a = ops1.constant(np.full((1, 4, 1, 1), 2, np.float32), name="two_a")
    two_b = ops1.constant(np.full((1, 4, 1, 1), 2, np.float32), name="two_b")  # same bytes: shared in the .bin
    mul = ops1.multiply(conv, two_a, name="mul")
    add = ops1.add(mul, two_b, name="add")
    halves = ops1.split(add, ops1.constant(np.int64(1), name="axis"), 2, name="split")
    cat = ops1.concat([halves.output(1), halves.output(0), x], 1, name="concat")
    return ov.Model([ops1.result(cat, name="y"), ops1.result(halves.output(0), name="z")], [x], "unmodelled")


def _dynamic() -> ov.Model:
    """Dynamic batch, an interval and a dynamic width through modelled and unmodelled ops."""
    shape = ov.PartialShape([ov.Dimension(), ov.Dimension(3), ov.Dimension(8, 32), ov.Dimension(-1)])
    x = ops1.parameter(shape, np.float32, name="x")
    pool = ops8.avg_pool(ops1.relu(x, name="relu"), [2, 2], [1, 1], [0, 0], [3, 3], False, "ceil", name="pool")
    size = ops1.constant(np.array([3, 5], np.int32), name="size")
    adaptive = ops8.adaptive_avg_pool(pool, size, name="adaptive")
    return ov.Model([ops1.result(adaptive, name="y")], [x], "dynamic")


def _awkward_names() -> ov.Model:
    """Names needing XML escaping, several tensor names, model rt_info, an integer input."""
    x = ops1.parameter([2, 6], np.float32, name='in "q" & <a>')
    x.output(0).get_tensor().set_names({"t\\,comma", "ü'apos"})
    k = ops1.parameter([2, 6], np.int32, name="k\ttab")
    mixed = ops1.add(x, ops1.convert(k, "f32", name="k/f32"), name="sum\nline")
    model = ov.Model([ops1.result(ops1.relu(mixed, name="relu"), name="y")], [x, k], 'net "q"')
    model.set_rt_info("v&l<ue>", ["framework", "key"])
    return model


def _large_weight() -> ov.Model:
    """A weight of 2.4 MB, which the writer writes in slices (``_WRITE_SLICE``), not a whole number of them."""
    rng = np.random.default_rng(2)
    x = ops1.parameter([3, 600], np.float32, name="x")
    w = ops1.constant(rng.standard_normal((600, 1001)).astype(np.float32), name="w")
    return ov.Model([ops1.result(ops1.matmul(x, w, False, False, name="mm"), name="y")], [x], "large_weight")


def _subgraphs() -> ov.Model:
    """A Loop feeding an If: bodies, port maps, back edges and body Consts (distinct payloads)."""
    x = ops8.parameter([2, 3], np.float32, name="x")
    cond = ops8.parameter([], np.bool_, name="cond")
    step = ops8.parameter([2, 3], np.float32, name="step")
    body_sum = ops8.add(step, ops8.constant(np.full((2, 3), 0.5, np.float32), name="half"), name="body_sum")
    body = ov.Model([ops8.result(body_sum), ops8.result(ops8.constant(True, name="again"))], [step], "body")
    loop = ops8.loop(ops8.constant(np.int64(3), name="trips"), ops8.constant(True, name="start"))
    loop.set_friendly_name("loop")
    loop.set_function(body)
    loop.set_special_body_ports([-1, 1])
    loop.set_merged_input(step, x.output(0), body_sum.output(0))
    looped = loop.get_iter_value(body_sum.output(0), -1)
    branches = []
    for op, value in ((ops8.multiply, 2.0), (ops8.add, 3.0)):
        inner = ops8.parameter([2, 3], np.float32, name=f"{op.__name__}_in")
        out = op(inner, ops8.constant(np.full((2, 3), value, np.float32), name=f"{op.__name__}_k"))
        branches.append(ov.Model([ops8.result(out)], [inner], op.__name__))
    out = if_of(cond, looped, *branches, "if")
    return ov.Model([ops8.result(out, name="y")], [x, cond], "subgraphs")


BUILT: dict[str, tuple[Callable[[], ov.Model], bool]] = {  # name -> (builder, compress_to_fp16)
    "f16_compressed": (_f16_compressed, True),
    "unmodelled": (_unmodelled, False),
    "dynamic": (_dynamic, True),
    "awkward_names": (_awkward_names, True),
    "subgraphs": (_subgraphs, False),
    "large_weight": (_large_weight, False),
}
MODELS = [*SAMPLES, *BUILT]


@pytest.fixture(scope="module")
def core() -> ov.Core:
    return ov.Core()


@pytest.fixture(scope="module")
def model_paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("saved")
    paths = dict(SAMPLES)
    for name, (build, compress) in BUILT.items():
        paths[name] = folder / f"{name}.xml"
        ov.save_model(build(), paths[name], compress_to_fp16=compress)
    return paths


# -- running models ------------------------------------------------------------------------------
def _concrete(shape: ov.PartialShape) -> list[int]:
    """A static shape inside the partial one: dynamic dims become 5 clipped to their bounds."""
    dims = []
    for d in shape:
        if d.is_static:
            dims.append(d.get_length())
        else:
            hi = d.get_max_length()
            dims.append(max(d.get_min_length(), 5) if hi < 0 else min(max(d.get_min_length(), 5), hi))
    return dims


def _inputs(model: ov.Model, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = []
    for port in model.inputs:
        dtype = port.get_element_type().to_dtype()
        shape = _concrete(port.get_partial_shape())
        if np.issubdtype(dtype, np.floating):
            arrays.append(rng.standard_normal(shape).astype(dtype))
        else:
            arrays.append(rng.integers(-5, 6, shape).astype(dtype))
    return arrays


def run(core: ov.Core, xml: Path) -> list[np.ndarray]:
    """Outputs of ``xml`` on CPU in f32 for the seeded inputs."""
    model = core.read_model(xml)
    compiled = core.compile_model(model, "CPU", CPU_CONFIG)
    result = compiled(_inputs(model))
    return [np.asarray(result[out]) for out in compiled.outputs]


def assert_identical(expected: list[np.ndarray], actual: list[np.ndarray]) -> None:
    assert len(expected) == len(actual)
    for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
        assert e.dtype == a.dtype and e.shape == a.shape, f"output {i}: {e.dtype}{e.shape} != {a.dtype}{a.shape}"
        nan_ok = np.issubdtype(e.dtype, np.floating)
        assert np.array_equal(e, a, equal_nan=nan_ok), f"output {i} differs"


# -- the round trip ------------------------------------------------------------------------------
@pytest.mark.parametrize("ir_version", [11, 10])
@pytest.mark.parametrize("model", MODELS)
def test_roundtrip(model: str, ir_version: int, model_paths: dict[str, Path], core: ov.Core, tmp_path: Path):
    source = model_paths[model]
    graph = read_ir(source)
    written, _ = write_ir(graph, tmp_path / "rt.xml", ir_version=ir_version)
    back = read_ir(written)
    assert back.ir_version == ir_version
    assert graph_diff(graph, back) == []
    assert_identical(run(core, source), run(core, written))


@pytest.mark.parametrize("model", MODELS)
def test_write_is_deterministic(model: str, model_paths: dict[str, Path], tmp_path: Path):
    """Same graph, same bytes; and writing what we wrote changes nothing."""
    graph = read_ir(model_paths[model])
    first = write_ir(graph, tmp_path / "a.xml")
    second = write_ir(graph, tmp_path / "b.xml")
    third = write_ir(read_ir(first[0]), tmp_path / "c.xml")
    for a, b, c in zip(first, second, third, strict=True):
        assert a.read_bytes() == b.read_bytes() == c.read_bytes()


@pytest.mark.parametrize("model", [*OV_SAMPLES, "f16_compressed", "unmodelled", "dynamic", "subgraphs",
                                   "awkward_names", "large_weight"])
def test_reproduces_openvino_bytes(model: str, model_paths: dict[str, Path], tmp_path: Path):
    """A model OpenVINO serialized comes back byte for byte, escapes included."""
    source = model_paths[model]
    xml, bin_ = write_ir(read_ir(source), tmp_path / "out.xml")
    assert xml.read_bytes() == source.read_bytes()
    assert bin_.read_bytes() == source.with_suffix(".bin").read_bytes()


# -- safety of writing ----------------------------------------------------------------------------
def _copy_sample(name: str, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in (".xml", ".bin"):
        shutil.copyfile(SAMPLES[name].with_suffix(suffix), (folder / name).with_suffix(suffix))
    return (folder / name).with_suffix(".xml")


def test_refuses_to_overwrite_input(tmp_path: Path):
    xml = _copy_sample("mixed_network", tmp_path)
    bin_ = xml.with_suffix(".bin")
    before = (xml.read_bytes(), bin_.read_bytes())
    graph = read_ir(xml)
    attempts = [
        {"xml_path": xml},
        {"xml_path": tmp_path / "sub" / ".." / xml.name},  # another spelling of the same file
        {"xml_path": tmp_path / "other.xml", "bin_path": bin_},  # only the weights collide
    ]
    for kwargs in attempts:
        with pytest.raises(IrToolsError) as info:
            write_ir(graph, **kwargs)
        assert info.value.code == "E-OVERWRITE"
    assert (xml.read_bytes(), bin_.read_bytes()) == before
    assert not (tmp_path / "other.xml").exists()

    write_ir(graph, xml, overwrite_input=True)
    assert graph_diff(graph, read_ir(xml)) == []


def test_failed_write_leaves_nothing(tmp_path: Path):
    """A Const past the end of a truncated .bin aborts the write before any file appears."""
    xml = _copy_sample("mixed_network", tmp_path / "src")
    bin_ = xml.with_suffix(".bin")
    bin_.write_bytes(bin_.read_bytes()[:100])
    graph = read_ir(xml)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(IrToolsError) as info:
        write_ir(graph, out / "model.xml")
    assert info.value.code == "E-CONST-BOUNDS"
    assert list(out.iterdir()) == []

    (out / "model.xml").write_text("old xml")  # an existing pair survives a failed write untouched
    (out / "model.bin").write_text("old bin")
    with pytest.raises(IrToolsError):
        write_ir(graph, out / "model.xml")
    assert sorted(p.name for p in out.iterdir()) == ["model.bin", "model.xml"]
    assert (out / "model.xml").read_text() == "old xml" and (out / "model.bin").read_text() == "old bin"


def test_failed_rename_keeps_old_pair(tmp_path: Path):
    """If the .xml cannot be put in place, the .bin beside it must not have been replaced either."""
    graph = read_ir(SAMPLES["mixed_network"])
    (tmp_path / "model.xml").mkdir()  # os.replace onto a directory fails
    (tmp_path / "model.bin").write_text("old bin")
    with pytest.raises(IrToolsError, match="cannot write .*model.xml: Is a directory") as caught:
        write_ir(graph, tmp_path / "model.xml")
    assert caught.value.code == "E-WRITE"
    assert (tmp_path / "model.bin").read_bytes() == b"old bin"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bin", "model.xml"]  # nothing left beside them


def test_an_existing_pair_is_replaced_and_nothing_left_beside_it(tmp_path: Path):
    """Writing over a pair moves the old one aside, the new one in, and removes the old one."""
    graph = read_ir(SAMPLES["mixed_network"])
    (tmp_path / "model.xml").write_text("old xml")
    (tmp_path / "model.bin").write_text("old bin")
    write_ir(graph, tmp_path / "model.xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bin", "model.xml"]
    assert read_ir(tmp_path / "model.xml").name == graph.name
    assert (tmp_path / "model.bin").read_bytes() != b"old bin"


@pytest.mark.parametrize("damage", ["truncated", "missing"])
def test_body_const_errors_name_the_owning_layer(damage: str, model_paths: dict[str, Path], tmp_path: Path):
    """A Const inside a Loop/If body that cannot be read fails the write with the outer layer named."""
    graph = read_ir(model_paths["subgraphs"])
    for layer in graph.by_type("Const"):  # top-level payloads in memory: only the bodies need the .bin
        layer.data = bytes(graph.const_bytes(layer))
    damaged = tmp_path / "damaged.bin"
    if damage == "truncated":
        damaged.write_bytes(model_paths["subgraphs"].with_suffix(".bin").read_bytes()[:8])
    graph.weights = Weights(damaged)
    with pytest.raises(IrToolsError) as info:
        write_ir(graph, tmp_path / "out.xml")
    assert info.value.code == ("E-CONST-BOUNDS" if damage == "truncated" else "E-BIN-MISSING")
    assert info.value.loc.layer_name in ("loop", "if") and info.value.loc.line
    assert not (tmp_path / "out.xml").exists() and not (tmp_path / "out.bin").exists()


def test_identical_weights_are_written_once_and_only_they(tmp_path: Path):
    """The writer shares a payload between Consts only where the bytes are equal: among payloads of one size, those
    that differ in the bytes it samples (start, middle, end) and those that differ elsewhere are each written."""
    from ir_tools.base.dims import shape_from_ints
    from ir_tools.passes.builder import GraphBuilder

    rng = np.random.default_rng(7)
    base = rng.standard_normal(1000).astype(np.float32)
    at_start, elsewhere = base.copy(), base.copy()
    at_start[1] += 1  # within the first 16 bytes
    elsewhere[300] += 1  # outside every sampled byte: the size and sample of ``base``
    graph = Graph("dedup")
    builder = GraphBuilder(graph)
    weights = [base, base.copy(), at_start, elsewhere]
    parts = [builder.parameter("x", "f32", shape_from_ints([1000]))]
    parts += [builder.const(value, f"w{i}") for i, value in enumerate(weights)]
    builder.result(builder.add("Concat", "opset1", builder.attrs("Concat", "opset1", axis=0), parts, "all"), "out")
    xml, bin_path = write_ir(graph, tmp_path / "dedup.xml")
    assert bin_path.stat().st_size == 3 * base.nbytes  # base once, at_start, elsewhere
    feed = rng.standard_normal(1000).astype(np.float32)
    got = ov.Core().compile_model(xml, "CPU", CPU_CONFIG)([feed])[0]
    assert np.array_equal(got, np.concatenate([feed, *weights]))  # each Const reads its own bytes
