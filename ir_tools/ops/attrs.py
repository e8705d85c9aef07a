"""Typed attribute codecs: IR attribute strings <-> Python values, with clear errors.

An op's attributes are a frozen dataclass whose fields carry ``xml`` (the IR spelling) and
``codec`` in their metadata; ``decode`` builds one from a layer's raw ``<data>`` attributes
and ``encode`` writes it back the way OpenVINO does.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass
from functools import cache, lru_cache
from typing import Any, TypeVar

from ..base.dims import INT64_MAX, parse_attr_int, parse_size, parse_uint64_attr
from ..base.errors import AttrError, OpValidationError, SourceLoc, did_you_mean

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Codec:
    what: str  # how the expected value is described in messages
    parse: Callable[[str], Any]  # ValueError on a bad value (Skipped: read as omitted); an immutable value (shared)
    format: Callable[[Any], str]
    choices: tuple[str, ...] = ()  # an enum's values (``enum``), in lower case


def _uint(text: str) -> int:
    return parse_size(text)


def _placement(text: str) -> int:
    """A Const's offset or size, as OpenVINO's reader reads it (``parse_uint64_attr``)."""
    value = parse_uint64_attr(text)
    if value is None:
        raise ValueError(text)
    return value


def _uint_list(text: str) -> tuple[int, ...]:
    """An empty attribute is an empty list; one of blanks alone OpenVINO's reader refuses ("Cannot parse ' '"). One
    comma at the very end is dropped, as OpenVINO's reader drops it (it splits with getline: '1,1,' is 1,1; '1,1,,'
    and '1,1, ' are refused)."""
    if text == "":
        return ()
    if len(text) > 1 and text[-1] == ",":
        text = text[:-1]
    return tuple(_uint(p) for p in text.split(","))


def _int64(text: str) -> int:
    value = parse_attr_int(text)
    if value is None or not -INT64_MAX - 1 <= value <= INT64_MAX:
        raise ValueError(text)
    return value


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _float(text: str) -> float:
    """A number as OpenVINO's reader reads one (measured on 2026.4.1 for Elu's alpha and Interpolate's cube_coeff):
    blanks around it ignored, a decimal (sign, digits, point, exponent) within a double's range, or exactly "inf",
    "-inf" or "nan" ("INF", "+inf", "-nan", "Infinity" and 1e400 it refuses). What it reads only by accident of its
    parser, a number's prefix ("0.5abc" as 0.5, "1_5" as 1), is refused too."""
    t = text.strip()
    if t in ("inf", "-inf", "nan"):
        return float(t)
    value = float(t) if _DECIMAL.fullmatch(t) else math.nan
    if not math.isfinite(value):
        raise ValueError(text)
    return value


class Skipped(ValueError):
    """A codec's parse raises it for a value OpenVINO's reader skips without a word: the layer is read as if the
    attribute were omitted (its default; a required one is then missing)."""


def _ascii_lower(text: str) -> str | None:
    """``text`` lower-cased as OpenVINO's reader does (C ``tolower``, byte by byte: ASCII letters only), or None when
    it holds any other character: no choice spelled in ASCII then matches (str.lower would make the Kelvin sign a
    "k")."""
    return text.lower() if text.isascii() else None


def _boolean(text: str) -> bool:
    """As OpenVINO's reader (XmlDeserializer's bool adapter) reads a flag: lower-cased, not stripped, "true" and "1"
    are true, "false" and "0" false. It refuses no value: any other (" true", "yes", "01", "") it skips, keeping the
    op's default as for an omitted attribute, so this raises ``Skipped`` (measured on 2026.4.1 for every flag of the
    op table: tests/ops/test_enum_attributes.py)."""
    t = _ascii_lower(text)
    if t in ("true", "1"):
        return True
    if t in ("false", "0"):
        return False
    raise Skipped(text)


def enum(*choices: str) -> Codec:
    """One of ``choices`` (lower case), matched as OpenVINO's reader matches an enum (``EnumNames::as_enum``) or an
    element type: in any case, but exactly otherwise (" same_upper", "ceil " and "" are refused). The value is the
    choice in lower case, whatever the case written."""
    def parse(text: str) -> str:
        t = _ascii_lower(text)
        if t not in choices:
            raise ValueError(text)
        return t

    return Codec("one of " + ", ".join(choices), parse, str, choices)


UINT_LIST = Codec(
    "a comma-separated list of non-negative integers that fit int64", _uint_list, lambda v: ", ".join(map(str, v))
)
BOOL = Codec("true or false", _boolean, lambda v: "true" if v else "false")
UINT = Codec("a non-negative integer", _uint, str)
PLACEMENT = Codec("a non-negative integer", _placement, str)
INT = Codec("an integer that fits int64", _int64, str)
STRING = Codec("a string", str, str)
FLOAT = Codec("a number", _float, repr)


def attr(xml: str, codec: Codec, default: Any = MISSING, kw_only: bool = False) -> Any:
    """Declare one attribute field: its IR spelling, codec and (optional) default; ``kw_only``: a field without one
    after one with (the order of the fields is the order they are written in)."""
    return dataclasses.field(default=default, metadata={"xml": xml, "codec": codec}, kw_only=kw_only)


def decode(cls: type[T], raw: Mapping[str, str], loc: SourceLoc | Callable[[], SourceLoc] | None = None) -> T:
    """Build the typed attributes of ``cls`` from raw IR strings; AttrError names the culprit, located at ``loc`` (or
    what it returns: a location made only for an error).

    Layers with identical attributes (every AvgPool of a network, say) share one decoded object
    when ``cls`` is frozen.
    """
    try:
        if cls.__dataclass_params__.frozen:
            return _decode_shared(cls, tuple(raw.items()))
        return _decode(cls, raw)
    except AttrError as exc:
        raise AttrError(exc.message, loc() if callable(loc) else loc) from None


@cache
def _fields(cls: type) -> tuple[tuple[str, str, Codec, bool], ...]:
    """(name, xml, codec, required) per field, read once per class."""
    return tuple((f.name, f.metadata["xml"], f.metadata["codec"], f.default is MISSING)
                 for f in dataclasses.fields(cls))


def field_names(cls: type, keys: Iterable[str], label: str, ir_spellings: bool = False) -> dict[str, str]:
    """Each of ``keys`` as the field of the attribute class ``cls`` it names: a field's name, and with
    ``ir_spellings`` its IR spelling too ("exclude-pad"). AttrError for the first ``cls`` has no field of, with the
    nearest and the fields (``label``: what is asked, an op version)."""
    accepted = _accepted(cls, ir_spellings)
    for key in keys:
        if key not in accepted:
            names = [name for name, _, _, _ in _fields(cls)]
            raise AttrError(f"{label} has no attribute '{key}'{did_you_mean(key, accepted)}; its attributes: "
                            f"{', '.join(names) or 'none'}")
    return {key: accepted[key] for key in keys}


@cache
def _accepted(cls: type, ir_spellings: bool) -> dict[str, str]:
    """What ``field_names`` accepts for ``cls``, each key to the field it names (its fields' names first)."""
    names = {name: name for name, _, _, _ in _fields(cls)}
    return names | ({xml: name for name, xml, _, _ in _fields(cls)} if ir_spellings else {})


def flags(cls: type) -> dict[str, str]:
    """The flags ``cls`` declares (``BOOL``), IR spelling -> their default as written ("false"), for a check of the
    values OpenVINO's reader skips (``skips``)."""
    return {xml: BOOL.format(f.default) for f in dataclasses.fields(cls) for xml in [f.metadata["xml"]]
            if f.metadata["codec"] is BOOL and f.default is not MISSING}


def flag(raw: Mapping[str, str], xml: str, default: bool) -> bool:
    """The flag ``xml`` of a layer's attributes ``raw`` as OpenVINO's reader reads it: ``default`` where it is absent
    or a value the reader skips (``_boolean``); for an op not in the op table (IsInf-10's detect_positive)."""
    value = raw.get(xml)
    if value is None:
        return default
    try:
        return _boolean(value)
    except Skipped:
        return default


def skips(value: str) -> bool:
    """Whether OpenVINO's reader skips ``value`` of a flag, taking the default instead (``_boolean``)."""
    try:
        _boolean(value)
    except Skipped:
        return True
    return False


def xml_names(cls: type) -> tuple[str, ...]:
    """The IR spellings of the attributes ``cls`` declares, in declaration order."""
    return tuple(xml for _, xml, _, _ in _fields(cls))


@lru_cache(maxsize=1024)
def _decode_shared(cls: type[T], items: tuple[tuple[str, str], ...]) -> T:
    return _decode(cls, dict(items))


def _decode(cls: type[T], raw: Mapping[str, str]) -> T:
    values = {}
    for name, xml, codec, required in _fields(cls):
        if xml in raw:
            try:
                values[name] = _parse(codec.parse, raw[xml])
                continue
            except Skipped:  # (read as omitted)
                if required:
                    raise AttrError(f"missing attribute '{xml}' ({codec.what}; OpenVINO's reader skips "
                                    f"'{raw[xml]}')") from None
            except ValueError:
                raise AttrError(f"attribute '{xml}' must be {codec.what}, got '{raw[xml]}'") from None
        elif required:
            raise AttrError(f"missing attribute '{xml}' ({codec.what})")
    return cls(**values)


@lru_cache(maxsize=4096)
def _parse(parse: Callable[[str], Any], text: str) -> Any:
    """One attribute value; shapes and element types recur in layers whose other attributes differ."""
    return parse(text)


def encode(value: Any) -> dict[str, str]:
    """The IR attribute strings of a typed attribute object, in declaration order."""
    found = {}
    for name, xml, codec, _ in _fields(type(value)):
        field = getattr(value, name)
        if field is not None:
            found[xml] = codec.format(field)
    return found


def per_axis(what: str, values: tuple[int, ...] | list[int], rank: int) -> None:
    """Refuse a per-axis attribute or input whose length is not the rank it applies to."""
    if len(values) != rank:
        raise OpValidationError(f"{what} has {len(values)} values, the input has rank {rank}")
