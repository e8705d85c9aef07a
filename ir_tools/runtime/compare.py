"""Comparison semantics users trust (Polygraphy's): per-output atol/rtol, an element fails only
when it exceeds both, NaN against a number fails, and every report prints the smallest
tolerances that would have passed.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields

import numpy as np

from ..base.dtypes import F32_MAX
from ..base.errors import IrToolsError

#: Version of the JSON report ``compare --format json`` prints; see README "compare report".
REPORT_SCHEMA_VERSION = 2

DEFAULT_ATOL = 1e-5
DEFAULT_RTOL = 1e-5


def tolerance(value: object, what: str, given: str | None = None) -> float:
    """``value`` as a tolerance: a finite number of at least 0 (NaN and inf would pass every tensor: a check that
    cannot fail); IrToolsError (E-USAGE) naming ``what`` and what was ``given`` (``value``'s repr) otherwise."""
    shown = repr(value) if given is None else f"'{given}'"
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise IrToolsError(f"{what} expects a number, got {shown}", code="E-USAGE") from None
    if not 0 <= number < math.inf:
        raise IrToolsError(f"{what} must be a finite number of at least 0, got {shown}", code="E-USAGE")
    return number


@dataclass(frozen=True)
class Tolerances:
    """Default atol/rtol plus per-name overrides (``--atol out:1e-3``); every value a finite number of at least 0
    (IrToolsError, E-USAGE)."""

    atol: float = DEFAULT_ATOL
    rtol: float = DEFAULT_RTOL
    atol_by_name: Mapping[str, float] = field(default_factory=dict)
    rtol_by_name: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for what in ("atol", "rtol"):
            object.__setattr__(self, what, tolerance(getattr(self, what), what))
            by_name = getattr(self, f"{what}_by_name")
            object.__setattr__(self, f"{what}_by_name", {name: tolerance(value, f"{what} of '{name}'")
                                                         for name, value in by_name.items()})

    def for_name(self, name: str) -> tuple[float, float]:
        """The (atol, rtol) an output or layer of ``name`` is held to: its own (``--atol NAME:V``), else the
        defaults."""
        return self.atol_by_name.get(name, self.atol), self.rtol_by_name.get(name, self.rtol)

    def unknown_names(self, names: set[str]) -> Iterator[tuple[str, str]]:
        """Each (``atol``/``rtol``, name) of a per-name value that is none of ``names`` (a model's outputs and layers:
        a misspelt one would silently leave the default in force)."""
        for what in ("atol", "rtol"):
            yield from ((what, name) for name in getattr(self, f"{what}_by_name") if name not in names)

    @staticmethod
    def given(value: object, where: str) -> Tolerances:
        """``value``, a Tolerances that ``where`` (``CompareOptions(tolerances=...)``) was given; E-USAGE for anything
        else (a tuple (atol, rtol) failed deep inside the comparison: AttributeError)."""
        if not isinstance(value, Tolerances):
            raise IrToolsError(f"{where} takes a Tolerances (Tolerances(atol=1e-4, rtol=1e-4)), not "
                               f"{type(value).__name__}", code="E-USAGE")
        return value

    @classmethod
    def parse(cls, atols: list[str], rtols: list[str], atol: float = DEFAULT_ATOL,
              rtol: float = DEFAULT_RTOL) -> Tolerances:
        """From CLI values ``V`` or ``NAME:V`` (the last plain value is the default, else ``atol``, ``rtol``)."""
        def split(values: list[str], default: float, flag: str) -> tuple[float, dict[str, float]]:
            by_name = {}
            for v in values:
                name, sep, number = v.rpartition(":")
                try:
                    float(number)
                except ValueError:
                    raise IrToolsError(f"{flag} expects V or NAME:V with a number V, got '{v}'",
                                       code="E-USAGE") from None
                value = tolerance(number, flag, v)
                if sep:
                    by_name[name] = value
                else:
                    default = value
            return default, by_name

        atol, atol_by = split(atols, atol, "--atol")
        rtol, rtol_by = split(rtols, rtol, "--rtol")
        return cls(atol, rtol, atol_by, rtol_by)


@dataclass
class TensorComparison:
    """How one actual tensor (OpenVINO) compares with the expected one (the numpy reference)."""

    name: str
    passed: bool
    shape: list[int] | None
    atol: float
    rtol: float
    elements: int = 0
    mismatches: int = 0
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    nan_expected: int = 0
    nan_actual: int = 0
    inf_expected: int = 0
    inf_actual: int = 0
    min_atol_to_pass: float | None = 0.0  # with this rtol and the bound; None: no atol passes (NaN or Inf mismatch)
    min_rtol_to_pass: float | None = 0.0  # with this atol and the bound
    first_mismatch: list[int] | None = None  # index of the first failing element
    note: str | None = None  # e.g. shape mismatch
    bound_max: float | None = None  # the largest rounding bound of an element (None: no bound known)
    error_to_bound: float | None = None  # the largest error / bound over the elements (how close to failing)
    comparable: bool = True  # False: the reference and OpenVINO differ by design upstream (``note`` says where)
    #: what passed it: TOLERANCES (every element within atol or rtol), BOUND (an element beyond both, within its own
    #: bound: the bound decided, and no atol is needed, min_atol_to_pass 0); None where it failed or was not compared
    passed_by: str | None = None

    def to_dict(self) -> dict:
        """Every field in order, as ``dataclasses.asdict`` gives it (its lists copied), without asdict's recursive
        deep copy of each value (a tenth of the time: vit_b_16's 519 tensors)."""
        return {name: list(value) if isinstance(value, list) else value
                for name in _FIELDS for value in (getattr(self, name),)}


_FIELDS = tuple(f.name for f in fields(TensorComparison))


#: Two f32 implementations of one model (OpenVINO against onnxruntime, against another OpenVINO graph of it, or one
#: compile of a model against another) round differently (accumulation order, fused or decomposed ops): up to this
#: fraction of max|tensor|, as ``migrate --check-with`` allows another release's kernels.
IMPLEMENTATION = 1e-4


def peak(value: np.ndarray) -> float:
    """max|value| over the finite elements (0 for none): the scale of a tensor, for tolerances relative to it. An
    element of its type's largest magnitude, or f32's, is a sentinel, not a scale, and left out: the start of an
    empty ReduceMax or SegmentMax, a mask's lowest (with it, 1e-4 x max|value| passed every other element wrong)."""
    if value.dtype.kind not in "fc":
        magnitudes = np.abs(value)
    else:
        magnitudes = np.abs(value[np.isfinite(value)])
        sentinel = magnitudes == np.finfo(value.dtype).max
        if value.dtype.itemsize > 4:  # (f64 of a kernel computed in f32)
            sentinel |= magnitudes == F32_MAX
        magnitudes = magnitudes[~sentinel]
    return float(magnitudes.max()) if magnitudes.size else 0.0


#: Elements compared at a time: the float64 temporaries of one chunk stay in cache (a comparison makes some twenty
#: passes over them: 4x faster than chunks of 1M elements), and large tensors are never copied whole.
CHUNK_ELEMENTS = 1 << 16


def compare_tensors(name: str, actual: np.ndarray, expected: np.ndarray, atol: float, rtol: float,
                    bound: np.ndarray | None = None, sides: tuple[str, str] = ("OpenVINO", "reference")
                    ) -> TensorComparison:
    """Compare elementwise: fail where |a - e| > atol and |a - e| > rtol * |e| and, when ``bound`` (the rounding
    error an f32 implementation may legitimately have, per element) is given, |a - e| > bound; or where
    NaN/Inf disagree. Large tensors are compared a chunk at a time. ``sides`` names what ``actual`` and ``expected``
    are, in a note on shapes that differ."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape:
        return TensorComparison(name, False, list(expected.shape), atol, rtol, min_atol_to_pass=None,
                                min_rtol_to_pass=None, note=f"shape {list(actual.shape)} ({sides[0]}) != "
                                                            f"{list(expected.shape)} ({sides[1]})")
    result = TensorComparison(name, True, list(expected.shape), atol, rtol, elements=int(expected.size),
                              bound_max=None if bound is None else 0.0, error_to_bound=None if bound is None else 0.0)
    flat_a, flat_e = actual.reshape(-1), expected.reshape(-1)
    flat_b = None if bound is None else np.broadcast_to(np.asarray(bound, np.float64), expected.shape).reshape(-1)
    special_bad = False
    for start in range(0, max(flat_e.size, 1), CHUNK_ELEMENTS):
        part = slice(start, start + CHUNK_ELEMENTS)
        special_bad |= _compare_chunk(result, flat_a[part], flat_e[part], None if flat_b is None else flat_b[part],
                                      start, expected.shape)
    result.passed = result.mismatches == 0
    result.passed_by = None if not result.passed else result.passed_by or TOLERANCES
    if special_bad:
        result.min_atol_to_pass = result.min_rtol_to_pass = None
    return result


#: ``TensorComparison.passed_by``: within atol or rtol everywhere, or only within the per-element bound somewhere.
TOLERANCES, BOUND = "tolerances", "bound"


#: What a comparison with ``--load-outputs`` is named after: OpenVINO now against the saved file.
VS_SAVED = " (vs saved)"


def compare_saved(name: str, actual: np.ndarray, saved: np.ndarray, atol: float, rtol: float) -> TensorComparison:
    """OpenVINO's ``actual`` now against the one a saved file holds (``--load-outputs``), named ``NAME (vs saved)``."""
    return compare_tensors(name + VS_SAVED, actual, saved, atol, rtol, sides=("OpenVINO", "saved file"))


def inputs_may_differ(outputs: list[TensorComparison], layers: list[LayerComparison]) -> str | None:
    """What to say when an output differs from the saved one but no saved activation inside the model does: a model
    changed inside would diverge at its layer, so the inputs may be other than the saved run's (which the file does
    not hold: a --seed or --shape of its own gives other inputs). None otherwise."""
    if all(t.passed for t in outputs if t.name.endswith(VS_SAVED)):
        return None
    inside = [t for lay in layers for t in lay.outputs if t.name.endswith(VS_SAVED)]
    if not all(t.passed for t in inside):
        return None
    compared = "no saved activation inside the model does" if inside else \
        "no activation inside was saved to tell where (--per-layer --save-outputs saves them)"
    return (f"the outputs differ from the saved ones, and {compared}: the inputs may differ from the saved run's "
            "(the saved file holds no inputs: give that run's --inputs, or its --seed and --shape)")


def _compare_chunk(result: TensorComparison, actual: np.ndarray, expected: np.ndarray, bound: np.ndarray | None,
                   start: int, shape: tuple[int, ...]) -> bool:
    """Fold one chunk of flat elements into ``result``; True if a NaN or Inf disagrees in it. A chunk whose elements
    are all equal and finite (most of a per-layer walk's: a layer fed OpenVINO's inputs often rounds as it does) adds
    no error, only its largest bound. Otherwise the difference is taken in float64 straight from the two element
    types (no float64 copy of either), and its largest magnitude, NaN where one is NaN and infinite where one is
    infinite, both tells whether the chunk is all finite and is the chunk's max_abs_error."""
    if np.array_equal(actual, expected) and not (expected.dtype.kind == "f" and np.isinf(expected).any()):
        _fold_bound(result, bound)  # (NaN is never equal: a chunk with one is compared below)
        return False
    with np.errstate(all="ignore"):  # inf - inf: NaN, sent to _compare_special
        if _beyond_float64(actual) or _beyond_float64(expected):  # (exact in Python integers, then rounded: not 0)
            diff = np.abs(actual.astype(object) - expected.astype(object)).astype(np.float64)
        else:
            diff = np.subtract(actual, expected, dtype=np.float64)
            np.abs(diff, out=diff)
        top = float(diff.max()) if diff.size else 0.0
    if not np.isfinite(top):  # a NaN or Inf on either side (or a difference beyond f64)
        return _compare_special(result, actual.astype(np.float64), expected.astype(np.float64), bound, start, shape)
    _fold(result, diff, np.abs(expected, dtype=np.float64), bound, start, shape, top=top)
    return False


def _beyond_float64(value: np.ndarray) -> bool:
    """Whether ``value`` holds 64-bit integers beyond +-2^53, which float64 does not hold exactly (two of them that
    differ may convert to the same float64)."""
    limit = 1 << 53
    return value.dtype.kind in "iu" and value.dtype.itemsize == 8 and bool(value.size) and (
        int(value.max()) > limit or int(value.min()) < -limit)


def _compare_special(result: TensorComparison, a: np.ndarray, e: np.ndarray, bound: np.ndarray | None, start: int,
                     shape: tuple[int, ...]) -> bool:
    """A chunk with NaN or Inf: they are counted and judged here, the finite elements by ``_fold``."""
    nan_a, nan_e = np.isnan(a), np.isnan(e)
    inf_a, inf_e = np.isinf(a), np.isinf(e)
    special = nan_a | nan_e | inf_a | inf_e
    special_bad = special & ~((nan_a & nan_e) | (inf_a & inf_e & (a == e)))
    finite = ~special
    a, e = np.where(finite, a, 0.0), np.where(finite, e, 0.0)  # specials are judged above
    if bound is not None:
        bound = np.where(special, 0.0, bound)
    _fold(result, np.abs(a - e), np.abs(e), bound, start, shape, special_bad)
    result.nan_expected += int(np.count_nonzero(nan_e))
    result.nan_actual += int(np.count_nonzero(nan_a))
    result.inf_expected += int(np.count_nonzero(inf_e))
    result.inf_actual += int(np.count_nonzero(inf_a))
    return bool(special_bad.any())


def _fold(result: TensorComparison, diff: np.ndarray, scale: np.ndarray, bound: np.ndarray | None, start: int,
          shape: tuple[int, ...], special_bad: np.ndarray | None = None, top: float | None = None) -> None:
    """Fold |actual - expected| and |expected| of finite elements into ``result``; ``special_bad`` marks the
    NaN/Inf disagreements (zeros here) that fail whatever the tolerances; ``top``, max(diff) if known. An element
    within its bound needs no tolerance: where every element is (the usual case), the tolerances are not even
    looked at. That case is read from the largest error / bound: diff > bound exactly where diff / bound rounds
    above 1 (for diff > bound, diff / bound is at least 1 + 2^-52 / m with m < 2 the bound's significand: above
    the midpoint 1 + 2^-53, so it rounds above 1; 0 / 0 is NaN, which the maximum skips, as diff > bound is False)."""
    atol, rtol = result.atol, result.rtol
    if diff.size:
        result.max_abs_error = max(result.max_abs_error, float(diff.max()) if top is None else top)
        result.max_rel_error = max(result.max_rel_error, _max_ratio(diff, scale))
    beyond = None
    if bound is not None:
        _fold_bound(result, bound)
        ratio = _max_ratio(diff, bound)
        result.error_to_bound = max(result.error_to_bound or 0.0, ratio)
        if not ratio > 1.0 and (special_bad is None or not special_bad.any()):
            if result.passed_by is None and diff.size and float(diff.max()) > atol:  # (the bound decides?)
                with np.errstate(invalid="ignore"):
                    if np.any((diff > atol) & (diff > rtol * scale)):
                        result.passed_by = BOUND
            return
        beyond = diff > bound
        if not beyond.any() and (special_bad is None or not special_bad.any()):
            return
    with np.errstate(invalid="ignore"):
        over_rtol = diff > rtol * scale  # inf * 0 is NaN: compares False, i.e. within an infinite rtol
    over_atol = diff > atol
    if beyond is not None:
        over_rtol &= beyond
        over_atol &= beyond
    failing = over_atol & over_rtol
    if special_bad is not None:
        failing |= special_bad
    count = int(np.count_nonzero(failing))
    if count and result.first_mismatch is None:
        index = start + int(np.argmax(failing))
        result.first_mismatch = [int(i) for i in np.unravel_index(index, shape)] if shape else []
    result.mismatches += count
    if result.min_atol_to_pass is not None and over_rtol.any():
        result.min_atol_to_pass = max(result.min_atol_to_pass, float(diff[over_rtol].max()))
    if result.min_rtol_to_pass is not None:
        result.min_rtol_to_pass = max(result.min_rtol_to_pass, _min_rtol(diff[over_atol], scale[over_atol]))


def _fold_bound(result: TensorComparison, bound: np.ndarray | None) -> None:
    """Fold a chunk's largest bound into ``result.bound_max``."""
    if bound is not None:
        result.bound_max = max(result.bound_max or 0.0, float(bound.max()) if bound.size else 0.0)


def _max_ratio(diff: np.ndarray, scale: np.ndarray) -> float:
    """max(diff / scale) over the elements (0/0 counts 0, an error over a zero scale inf)."""
    if not diff.size:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        found = float(np.fmax.reduce(np.divide(diff, scale), axis=None))  # fmax skips the NaNs of 0/0
    return 0.0 if np.isnan(found) else found


def _min_rtol(diff: np.ndarray, scale: np.ndarray) -> float:
    """The smallest rtol with ``diff <= rtol * scale`` everywhere (rounding-safe)."""
    if not diff.size:
        return 0.0
    if np.any((scale == 0) & (diff > 0)):
        return float("inf")
    with np.errstate(divide="ignore", invalid="ignore"):
        rtol = float(np.max(np.where(scale > 0, diff / scale, 0.0)))
    while np.any(diff > rtol * scale):
        rtol = float(np.nextafter(rtol, np.inf))
    return rtol


@dataclass
class LayerComparison:
    """One layer compared (``--per-layer``, or where an output failed): fed OpenVINO's activations, each of its
    outputs computed by the reference and compared with OpenVINO's."""

    layer_id: str
    name: str
    kind: str
    line: int | None
    outputs: list[TensorComparison]

    @property
    def passed(self) -> bool:
        """Whether every output of the layer passed."""
        return all(o.passed for o in self.outputs)


@dataclass
class CompareReport:
    """What ``compare`` (and ``compare_against``, ``compare_steps``) found: the configuration, each output's and
    each compared layer's ``TensorComparison``, the layers not checked and why, the first diverging layer, and the
    arrays compared; ``passed`` is the verdict, ``to_dict()`` the JSON report."""

    model: str
    config: dict
    outputs: list[TensorComparison] = field(default_factory=list)
    layers: list[LayerComparison] = field(default_factory=list)
    not_checked: list[dict] = field(default_factory=list)  # layers we do not execute
    first_divergence: dict | None = None
    folded: int = 0  # layers of constant subgraphs computed by the reference, not compared
    inputs: list[dict] = field(default_factory=list)  # each input: name, element type, shape, dims, values (inputs.py)
    reference_outputs: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    openvino_outputs: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    openvino_layers: dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # "layer:port" -> value
    against: dict | None = None  # compare --against: the other model, its runner, the tolerance, the tensors matched
    steps: list[dict] | None = None  # compare --steps: per step, its number, its inputs' shapes, whether it passed
    deployment: dict | None = None  # compare --config: the settings, and what they moved beyond its bound
    #: outputs whose end-to-end bound is too loose to fail (``too_loose``): compare then checked every layer by itself
    too_loose: list[dict] = field(default_factory=list)
    #: per body of a TensorIterator, Loop or If compared inside (layer, body, iterations, compared, layers_compared)
    bodies: list[dict] = field(default_factory=list)
    #: where the layers were checked in a run with every layer an output: each float output of the model as OpenVINO
    #: compiles it as it is against that run's (name, max_abs_difference, limit, passed; ``numeric_check
    #: .compiled_as_is``)
    compiled_as_is: list[dict] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        """An output compared (an output not comparable is not counted) or a layer failed, or the model compiled as
        it is computes an output otherwise than the run whose layers were checked (``compiled_as_is``)."""
        return not (all(o.passed or not o.comparable for o in self.outputs) and all(lay.passed for lay in self.layers)
                    and all(t["passed"] for t in self.compiled_as_is))

    @property
    def compared(self) -> bool:
        """Whether anything was compared: an output, or a layer."""
        return any(o.comparable for o in self.outputs) or bool(self.layers)

    @property
    def passed(self) -> bool:
        """The verdict: something compared, and nothing failed. A run that compared nothing has not passed (as
        Polygraphy fails when every output was skipped): the CLI exits 1, and a library user's ``if report.passed``
        is never taken for nothing."""
        return self.compared and not self.failed

    def to_dict(self) -> dict:
        """The report as ``compare --format json`` prints it (``compare-report.schema.json``), non-finite numbers as
        strings."""
        return {
            "schema_version": REPORT_SCHEMA_VERSION,
            "model": self.model,
            "passed": self.passed,
            "compared": self.compared,
            "config": self.config,
            "inputs": self.inputs,
            "outputs": [o.to_dict() for o in self.outputs],
            "layers": [
                {"layer_id": lay.layer_id, "name": lay.name, "type": lay.kind, "line": lay.line,
                 "passed": lay.passed, "outputs": [o.to_dict() for o in lay.outputs]}
                for lay in self.layers
            ],
            "not_checked": self.not_checked,
            "folded_constants": self.folded,
            "first_divergence": self.first_divergence,
            **({"against": self.against} if self.against is not None else {}),
            **({"steps": self.steps} if self.steps is not None else {}),
            **({"deployment": self.deployment} if self.deployment is not None else {}),
            **({"too_loose": self.too_loose} if self.too_loose else {}),
            **({"bodies": self.bodies} if self.bodies else {}),
            **({"compiled_as_is": self.compiled_as_is} if self.compiled_as_is else {}),
            **({"inputs_may_differ": hint} if (hint := inputs_may_differ(self.outputs, self.layers)) else {}),
        }


def _tensor_line(t: TensorComparison) -> str:
    status = "NOT COMPARABLE" if not t.comparable else "PASS" if t.passed else "FAIL"
    if t.note:
        return f"  [{status}] {t.name}: {t.note}"
    if t.passed:
        need = ""
    elif t.min_atol_to_pass is None or t.min_rtol_to_pass is None:
        need = "; no tolerance passes"
    else:
        need = f"; would pass with atol >= {t.min_atol_to_pass:.3g} or rtol >= {t.min_rtol_to_pass:.3g}"
    where = f", first at {t.first_mismatch}" if t.first_mismatch is not None else ""
    bound = "" if t.bound_max is None else f", rounding bound {t.bound_max:.3g} (error/bound {t.error_to_bound:.3g})"
    if t.passed_by == BOUND:  # (the tolerances printed did not decide: the per-element bound did)
        bound += ": elements beyond atol and rtol, each within its own bound, which decided"
    return (f"  [{status}] {t.name} {t.shape}: max abs {t.max_abs_error:.3g}, max rel {t.max_rel_error:.3g}, "
            f"{t.mismatches}/{t.elements} mismatched{where}{specials(t, '(OpenVINO/reference)')} (atol {t.atol:g}, "
            f"rtol {t.rtol:g}{bound}{need})")


def specials(t: TensorComparison, sides: str) -> str:
    """The NaN and Inf counts of each side (``sides`` says which is which), where there are any: the max abs error
    is of the finite elements, and says 0 where only they differ."""
    nan = f", NaN {t.nan_actual}/{t.nan_expected} {sides}" if t.nan_actual or t.nan_expected else ""
    inf = f", Inf {t.inf_actual}/{t.inf_expected}" if t.inf_actual or t.inf_expected else ""
    return nan + inf


#: An end-to-end bound above atol and this many times the largest difference is called loose in the text report.
LOOSE = 100.0


def _loose_bounds(outputs: list[TensorComparison]) -> list[str]:
    """A note on outputs whose end-to-end rounding bound is loose: bounds grow through every layer (each adds its
    worst case), so on a deep network the bound, not atol/rtol, decides, and it would let a wrong result pass. Not of
    an output with no difference at all: nothing passed there on the bound (the note stood beside most CNNs')."""
    loose = [t for t in outputs if t.passed and t.bound_max is not None and t.bound_max > t.atol
             and t.error_to_bound is not None and t.error_to_bound * LOOSE < 1 and t.max_abs_error > 0]
    if not loose:
        return []
    names = ", ".join(f"{t.name} (infinite: no difference can fail)" if np.isinf(t.bound_max) else
                      f"{t.name} ({t.bound_max:.3g}, {1 / t.error_to_bound:.2g} times its largest difference)"
                      for t in loose)
    return [f"note: the rounding bound of {names} is loose: propagated through every layer, it lets differences "
            "far above OpenVINO's own pass end to end; --per-layer checks each layer against its own bound"]


def too_loose(comparison: TensorComparison, expected: np.ndarray) -> dict | None:
    """Whether an output passed on a bound too loose to fail, and by how much: where its largest rounding bound is
    above atol and at least the output's own largest magnitude, a wrong value as large as the output itself passes
    there (the bound, propagated end to end, is worst cases compounded: vit_b_16's reaches 9 times its logits).
    None where the bound could fail (or the output failed, or has no bound); else the output's name, its largest
    bound and its largest magnitude."""
    bound = comparison.bound_max
    if not comparison.passed or bound is None or bound <= comparison.atol or expected.dtype.kind != "f":
        return None
    largest = peak(expected)
    return {"name": comparison.name, "bound_max": bound, "largest_value": largest} if bound >= largest else None


def _too_loose_lines(loose: list[dict], against: bool = False) -> list[str]:
    """What the text report says of outputs whose end-to-end bound is too loose to fail."""
    names = ", ".join(f"{t['name']} (bound {t['bound_max']:.3g}, its largest value {t['largest_value']:.3g})"
                      for t in loose)
    return [f"too loose to fail: the end-to-end rounding bound of {names} reaches the output's own magnitude; "
            + ("so compare compared every tensor of A with B's, each against its own W: the first drift is where "
               "they part" if against else "so compare checked every layer by itself, each against its own bound")]


def _compiled_otherwise_lines(compiled: list[dict]) -> list[str]:
    """What the text report says of outputs the model compiled as it is computes otherwise than the run whose layers
    were checked."""
    return [f"  [FAIL] {t['name']}: OpenVINO computes it otherwise compiled as it is than with every layer an output, "
            f"the run whose layers were checked (max abs difference {t['max_abs_difference']:.3g}, beyond the "
            f"{t['limit']:.3g} two implementations may differ by): the layers checked do not vouch for the model as it "
            "is compiled" for t in compiled if not t["passed"]]


def _closest_to_failing(report: CompareReport, count: int = 10) -> list[str]:
    """The layers whose error came closest to their rounding bound (above 1: beyond it), worst first: of those with
    an output beyond atol/rtol, the only ones whose bound is computed."""
    ranked = sorted(((t.error_to_bound, lay, t) for lay in report.layers for t in lay.outputs
                     if t.error_to_bound is not None and t.error_to_bound > 0), key=lambda e: -e[0])[:count]
    if not ranked:
        return []
    lines = ["largest error relative to the rounding bound (of the layers beyond atol/rtol):"]
    lines += [f"  {ratio:.3g}  {t.name} ({lay.kind}, line {lay.line}): max abs {t.max_abs_error:.3g}, "
              f"bound {t.bound_max:.3g}" for ratio, lay, t in ranked]
    return lines


#: How many layers the compact report names of those that failed, and of those not checked (-v names every one).
NAMED = 10


#: How many names of unmatched tensors the compact text report shows.
NAMED_UNMATCHED = 8


def _against_lines(summary: dict, verbose: bool) -> list[str]:
    """What the text report adds for ``--against``: the tolerance, how many tensors matched, B's unmatched."""
    lines = []
    if summary["tolerance"] is not None:
        lines.append(f"tolerance (derived; --atol/--rtol override it): {summary['tolerance']['rule']}")
    for w in summary.get("weights_differ", []):
        consts = ", ".join(f"'{c['const']}' in {c['differ']} of {c['of']} values, by up to {c['max_abs']:.3g}"
                           for c in w["consts"])
        lines.append(f"weights differ from B's: layer '{w['name']}' ({w['type']}, line {w['line']}), input "
                     f"{w['input']}: {consts}; a failure there; it and what it feeds are held to W, which starts "
                     "from that difference")
    if summary["outputs_unmatched"]:
        lines.append(f"outputs of B that A does not have: {', '.join(summary['outputs_unmatched'])}")
    tensors = summary["tensors"]
    if tensors is None:
        return lines
    named, by_layer = tensors["named"], tensors["by_layer_name"]
    by_name = tensors["matched"] - by_layer
    share = f" ({100 * by_name / named:.1f}%)" if named else ""
    lines.append(f"tensors matched: {by_name} of A's {named} named tensors by name{share}, {by_layer} unnamed by layer "
                 f"name; not matched: {len(tensors['unmatched'])} of A's (under 'not checked'), "
                 f"{len(tensors['unmatched_against'])} of B's")
    unmatched = tensors["unmatched_against"]
    if unmatched:
        ops = Counter(t["op"] for t in unmatched)
        shown = unmatched if verbose else unmatched[:NAMED_UNMATCHED]
        more = "" if len(shown) == len(unmatched) else f", and {len(unmatched) - len(shown)} more (-v lists them)"
        lines.append(f"  B's unmatched by op: {', '.join(f'{op} {n}' for op, n in ops.most_common())}")
        lines.append(f"  B's unmatched: {', '.join(t['name'] for t in shown)}{more}")
    return lines


def render_text(report: CompareReport, verbose: bool = False) -> str:
    """The report as text: compact (the outputs, the layers that failed, a count of the others, the layers closest
    to their bound, the verdict), or every layer with ``verbose``."""
    c = report.config
    seed = f", seed {c['seed']}" if c.get("seed") is not None else ""
    lines = [f"model: {report.model}",
             f"openvino {c.get('openvino')} on {c.get('device')}, "
             f"inference precision {c.get('INFERENCE_PRECISION_HINT')}{seed}"]
    if report.inputs:
        lines.append("inputs:")
        lines += [f"  {i['name']}: {i['element_type']} {i['shape']} (dims: {i['dims']}); {i['values']}"
                  for i in report.inputs]
    against = report.against
    if report.outputs:
        lines.append(f"outputs (OpenVINO on this model vs {against['runner']} on {against['model']}):" if against else
                     "outputs (OpenVINO vs the numpy reference, or vs saved outputs):")
        lines += [_tensor_line(t) for t in report.outputs]
        if not report.layers:
            lines += _loose_bounds(report.outputs)
        if report.too_loose:
            lines += _too_loose_lines(report.too_loose, bool(against))
        lines += _compiled_otherwise_lines(report.compiled_as_is)
    if report.layers:
        failing = [lay for lay in report.layers if not all(t.passed for t in lay.outputs)]
        shown = report.layers if verbose else failing[:NAMED]
        failed = len(failing)
        what = ("layers whose tensors matched B's by name (each model run end to end)" if against else
                "layers (the reference fed OpenVINO's activations, or vs saved activations)")
        lines.append(f"{what}: {len(report.layers)} compared, {failed} failed" + ("" if verbose else
                                                                                 "; -v lists every layer"))
        for lay in shown:
            lines.append(f"  {lay.name} (id {lay.layer_id}, {lay.kind}, line {lay.line}):")
            lines += ["  " + _tensor_line(t) for t in lay.outputs]
        if not verbose and failed > len(shown):
            lines.append(f"  and {failed - len(shown)} more failed, after these in the model's order (-v lists them)")
    if report.folded:
        lines.append(f"constant subgraphs: {report.folded} layers computed once by the reference, not compared "
                     "(--compare-constants compares them)")
    if report.not_checked:
        named = report.not_checked if verbose else report.not_checked[:NAMED]
        lines.append(f"not checked ({len(report.not_checked)} layers):")
        lines += [f"  {n['name']} ({n['type']}, line {n['line']}): {n['reason']}" for n in named]
        if len(named) < len(report.not_checked):
            lines.append(f"  and {len(report.not_checked) - len(named)} more (-v lists them)")
    lines += _closest_to_failing(report)
    hint = inputs_may_differ(report.outputs, report.layers)
    if hint:
        lines.append(f"note: {hint}")
    if against:
        lines += _against_lines(against, verbose)
    if report.deployment is not None:
        lines += _deployment_lines(report.deployment, verbose)
    if report.steps:
        lines.append(f"steps ({len(report.steps)}, state carried from each to the next): " + ", ".join(
            f"{s['step']} {'PASS' if s['passed'] else 'FAIL'}" for s in report.steps))
    if report.first_divergence:
        d = report.first_divergence
        step = f"step {d['step']}, " if "step" in d else ""
        tensor = f"tensor '{d['tensor']}' of " if "tensor" in d else ""
        why = f": {d['why']}" if "why" in d else ""
        lines.append(f"first {'drift' if against else 'divergence'}: {step}{tensor}layer '{d['name']}' "
                     f"(id {d['layer_id']}, {d['type']}, line {d['line']}){why}")
    said = verdict(report.to_dict())
    if said["word"] in ("PASSED", "FAILED"):
        unsaid = [part for part in said["compared"].split("; ")
                  if part.startswith(("not comparable", "end-to-end", "inside bodies", "computed otherwise"))]
        lines.append(said["word"] + (f" ({'; '.join(unsaid)})" if unsaid else ""))
    else:  # nothing or no output compared: never a bare PASSED
        lines.append(f"{said['word']} ({said['compared']})")
    return "\n".join(lines)


def _deployment_lines(deployment: dict, verbose: bool) -> list[str]:
    """What ``--config`` settings moved beyond the bound: a measured deviation, not part of the verdict."""
    settings = ", ".join(f"{k}={v}" for k, v in deployment["config"].items())
    moved = deployment["layers_moved"]
    lines = [f"deployed as {settings} (a measured deviation of these settings, not a defect; not in the verdict): "
             f"{len(moved)} of {deployment['layers_compared']} layers moved beyond their bound"]
    if not deployment["outputs_changed"]:
        lines[0] += "; these settings change no output bit on this CPU"
    shown = moved if verbose else sorted(moved, key=lambda m: -(m["error_to_bound"] or 0))[:10]
    for m in shown:
        ratio = f"{m['error_to_bound']:.3g}" if m["error_to_bound"] is not None else "no bound"
        lines.append(f"  {ratio:>8}  {m['name']} ({m['type']}, line {m['line']}): max abs {m['max_abs_error']:.3g}")
    if len(shown) < len(moved):
        lines.append(f"  and {len(moved) - len(shown)} more (-v lists them)")
    moved_outputs = {m["name"] for m in deployment["outputs_moved"]}
    for m in deployment.get("outputs", deployment["outputs_moved"]):
        ratio = f"error/bound {m['error_to_bound']:.3g}" if m["error_to_bound"] is not None else "no bound"
        lines.append(f"  output {m['name']}{' moved beyond its bound' if m['name'] in moved_outputs else ''}: max abs "
                     f"{m['max_abs_error']:.3g} ({ratio}; the model compiled as deployed, only its outputs; the layers "
                     "above with every layer an output)")
    return lines


def inside_bodies(bodies: list[dict]) -> str:
    """What was compared inside TensorIterator, Loop and If bodies, and what was not (iterations left out)."""
    parts = []
    for b in bodies:
        n, picked = b["iterations"], b["compared"]
        which = "its run" if b["body"] in ("then_body", "else_body") else "its one iteration" if n == 1 else (
            f"all {n} iterations" if len(picked) == n else
            f"iterations {', '.join(map(str, picked))} of {n} (the other {n - len(picked)} not)")
        parts.append(f"{b['layer']} {b['body']}: {b['layers_compared']} layer comparison(s) in {which}")
    return "inside bodies, " + " and ".join(parts)


def verdict(report: dict) -> dict:
    """The verdict of a report (``CompareReport.to_dict``) and what it rests on, as the text and HTML reports say it:
    PASSED only when an output was compared; a run that compared no output (or nothing) says so instead."""
    outputs = [t for t in report["outputs"] if t.get("comparable", True)]
    layers = report["layers"]
    failed = sum(not lay["passed"] for lay in layers)
    said = []
    if outputs:
        bad = sum(not t["passed"] for t in outputs)
        said.append(f"{len(outputs)} output comparison(s)" + (f", {bad} failed" if bad else ""))
    else:
        said.append("no output compared")
    if layers:
        said.append(f"{len(layers)} layer(s) compared" + (f", {failed} failed" if failed else ""))
    incomparable = [t["name"] for t in report["outputs"] if not t.get("comparable", True)]
    if incomparable:
        said.append(f"not comparable, so not compared: {', '.join(incomparable)}")
    if report.get("bodies"):
        said.append(inside_bodies(report["bodies"]))
    loose = [t["name"] for t in report.get("too_loose", [])]
    if loose:
        checked = "every tensor compared with B's" if report.get("against") else "every layer checked by itself"
        said.append(f"end-to-end bound too loose to fail, so {checked}: {', '.join(loose)}")
    otherwise = [t["name"] for t in report.get("compiled_as_is", []) if not t["passed"]]
    if otherwise:
        said.append(f"computed otherwise compiled as it is: {', '.join(otherwise)}")
    if (outputs or layers) and not report["passed"]:  # (something compared, and it failed)
        word, tone = "FAILED", "bad"
    elif outputs:
        word, tone = "PASSED", "good"
    else:
        word, tone = ("NO OUTPUT COMPARED" if layers else "NOTHING COMPARED"), "unsure"
    return {"word": word, "tone": tone, "compared": "; ".join(said)}
