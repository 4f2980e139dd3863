"""The one YAML writer of rebis-pbm: every YAML file it writes comes from :func:`dump_yaml`
(its reader is :mod:`rebis_pbm.formats.yaml_reader`).

Plain data (dicts with text keys, lists, text, integers, booleans, None; floats through PyYAML's
representer) is written in block style, 2 spaces, short lists of integers on one line, text that
YAML would read as something else quoted, and never an anchor or alias: what
:func:`rebis_pbm.formats.yaml_reader.load_yaml` reads back as the same data.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

import yaml

from rebis_pbm.formats.yaml_reader import (
    TAG_BOOL,
    TAG_INT,
    TAG_MAP,
    TAG_NULL,
    TAG_SEQ,
    TAG_STR,
    YamlValue,
    _digest_text,
    _resolve_scalar,
)

__all__ = ["dump_yaml"]

# The C implementation when libyaml is available; same output, much faster on big records.
if TYPE_CHECKING:
    Dumper = yaml.SafeDumper
else:
    Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
# YAML 1.2 readers take these as numbers even where PyYAML (YAML 1.1) sees text; quote them.
_NUMBER_LIKE = (r"[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?"
                r"|0o[0-7]+|0x[0-9a-fA-F]+"
                r"|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)")


class _RebisDumper(Dumper):
    """Safe dumper; short lists of plain integers go on one line ([1, 2, 3])."""

    def ignore_aliases(self, data: object) -> bool:
        # Never write anchors or aliases (load_yaml refuses them): a value used twice is
        # written twice. Also spares the per-node bookkeeping of shared objects.
        return True

    def resolve(self, kind: type[yaml.Node], value: str, implicit: tuple[bool, bool]) -> str:
        # The emitter asks this for every scalar; the answer depends on the text alone, and a
        # view repeats the same few texts (numbers, signs, names) thousands of times.
        if kind is yaml.ScalarNode:
            return _resolve_scalar(value, *implicit)
        tag: str = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        return tag


def _flow(data: list[YamlValue]) -> bool:
    """Short lists of plain integers go on one line."""
    return len(data) <= 16 and set(map(type, data)) == {int}  # bool is not int here


def _represent_list(dumper: yaml.SafeDumper, data: list[YamlValue]) -> yaml.SequenceNode:
    return dumper.represent_sequence(TAG_SEQ, data, flow_style=_flow(data))


def _plain_digest(text: str) -> bool:
    """Is ``text`` a digest (:func:`_digest_text`) that the emitter writes plain, as it is: one
    with a letter YAML 1.2 numbers do not have (``123e45...`` is quoted, see ``_str_style``)?"""
    return len(text) == 64 and _digest_text(text) and bool(text.strip("0123456789e"))


_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
_LINE_BREAK_CHARS = "\r\x85\u2028\u2029"  # a regex of them takes 0.3 ms to compile


@functools.lru_cache(maxsize=4096)
def _str_style(data: str) -> str | None:
    # YAML readers treat these characters as line breaks; only double quotes keep them exact.
    if any(char in data for char in _LINE_BREAK_CHARS):
        return '"'
    if "\n" in data:
        return "|"  # readable multi-line text; the emitter falls back to quotes when it must
    if re.fullmatch(_NUMBER_LIKE, data):
        return "'"
    return None


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    # str.__str__ gives a subclass's text as a plain str (an enum member: its word, not its name).
    text = str.__str__(data)
    return dumper.represent_scalar(TAG_STR, text, style=_str_style(text))


_RebisDumper.add_representer(list, _represent_list)
_RebisDumper.add_representer(str, _represent_str)
# Subclasses of str (the engine's enums: Phase.PLAY is the text "play") are written as their text.
_RebisDumper.add_multi_representer(str, _represent_str)


def dump_yaml(data: object) -> str:
    """Render plain data (dict with str keys, list, str, int, bool, None, float) as YAML text.

    A subclass of str (the engine's enums, such as ``Phase.PLAY``) is written as its text
    (``play``), exactly as the equal plain str would be.

    Key order is kept as given (callers choose a stable order). Text that YAML 1.1 would read
    as a boolean, null or number (``'no'``, ``'010'``, ``'null'``) is quoted. Raises
    yaml.representer.RepresenterError for values of other types (a programming error).

    The text is written directly (:func:`_text_document`) when every part of ``data`` is one it
    is sure of, else by PyYAML's emitter (:func:`_dump_events`); the two give the same bytes
    (tested on random data, every record, example file and view).
    """
    text = _text_document(data)
    return text if text is not None else _dump_events(data)


def _dump_events(data: object) -> str:
    """:func:`dump_yaml` by PyYAML's emitter (libyaml's when PyYAML has it): the events of
    :func:`_events`, or PyYAML's representer for what they do not cover (floats)."""
    out: list[yaml.Event] = [yaml.StreamStartEvent(), yaml.DocumentStartEvent()]
    try:
        _events(data, out)
    except _NotPlain:  # floats and the like: PyYAML's representer knows how to write them
        return yaml.dump(data, sort_keys=False, default_flow_style=False, Dumper=_RebisDumper,
                         allow_unicode=True, width=1 << 20)
    out += [yaml.DocumentEndEvent(), yaml.StreamEndEvent()]
    text: str = yaml.emit(out, Dumper=_RebisDumper, allow_unicode=True, width=1 << 20)
    return text


# --------------------------------------------------------------- writing YAML as text
# apply writes a record and ten views on every move; building an event per node and having the
# emitter write them grew with the record. The layout of block mappings and lists is simple and
# fixed (2 spaces; a list inside a mapping not indented; short lists of ints on one line), so it
# is written here as text. How a scalar is written (plain, 'single' or "double" quoted) is
# libyaml's analysis of the text: not redone here, but asked of the emitter once per text.

class _NotSure(Exception):
    """A part of the data the text writer leaves to the emitter (the whole document goes there)."""


def _text_document(data: YamlValue) -> str | None:
    """``data`` (a dict or list) as :func:`_dump_events` writes it, or None when a part of it is
    one the text writer is not sure of (floats, keys other than text, texts with line breaks
    other than :func:`_text_literal`'s,
    long texts or keys, ...) or ``data`` is not a dict or list (a lone scalar document).

    Guaranteed: the same bytes as :func:`_dump_events` whenever not None. Tested in
    tests/test_yamlio.py (``test_text_writer_*``: random data with texts and keys the emitter
    quotes, every record of tests/records and example file, the views of bot games) and by the
    views' golden digests (tests/test_views_golden.py)."""
    out: list[str] = []
    try:
        if type(data) is dict and data:
            _text_mapping(data, "", "", out)
        elif type(data) is list and data and not _flow(data):
            _text_sequence(data, "", "", out)
        elif type(data) is dict or type(data) is list:
            out.append(_text_inline(data) + "\n")
        else:
            return None
    except _NotSure:
        return None
    return "".join(out)


def _text_mapping(data: dict[str, YamlValue], lead: str, indent: str, out: list[str]) -> None:
    """Append the non-empty block mapping ``data``: its first key after ``lead`` (what its line
    already holds: ``'- '`` for a mapping in a list), the others after ``indent``. A value that
    is a non-empty mapping goes on the next lines, 2 spaces deeper; a block list on the next
    lines at the key's own indentation (as the emitter does)."""
    keys, texts = _KEY_TEXTS, _TEXTS
    for key, value in data.items():
        head = lead + (keys.get(key) or _key_text(key))
        lead = indent
        kind = type(value)
        if kind is str:
            written = texts.get(value)
            if written is None and "\n" in value:
                _text_literal(head, value, indent + "  ", out)  # a signature, a signed move
            else:
                out.append(f"{head} {written or _str_text(value)}\n")
        elif kind is int:  # most values are texts or numbers: written here, not by a call each
            out.append(f"{head} {value}\n")
        elif kind is dict and value:
            out.append(head + "\n")
            _text_mapping(value, indent + "  ", indent + "  ", out)
        elif kind is list and value and not _flow(value):
            out.append(head + "\n")
            _text_sequence(value, indent, indent, out)
        else:
            out.append(f"{head} {_text_inline(value)}\n")


def _text_literal(head: str, text: str, indent: str, out: list[str]) -> None:
    """Append ``head`` and the text ``text`` as a ``|`` block, its lines after ``indent``, when
    the emitter is sure to write it so: printable ASCII lines (no tab, no control character),
    none ending with a space, the first neither empty nor starting with a space, one final line
    break and no more (so no indentation or chomping indicator). Other texts: _NotSure. The
    signatures and signed move texts of a signed game's record are such texts; without this
    the whole record went to the emitter, which reads every character in Python."""
    lines = text.split("\n")
    last = lines.pop()
    if last or not lines[-1] or not lines[0] or lines[0][0] == " " or not text.isascii():
        raise _NotSure
    for line in lines:
        if line.endswith(" ") or not line.isprintable():
            raise _NotSure
    out.append(head + " |\n")
    out.extend(f"{indent}{line}\n" if line else "\n" for line in lines)


def _text_sequence(data: list[YamlValue], lead: str, indent: str, out: list[str]) -> None:
    """Append the non-empty block list ``data``: its first ``'- '`` after ``lead`` (``'- '``
    again for a list in a list: ``- - a``), the others after ``indent``. An item that is a
    non-empty mapping or block list starts on the item's line, its other lines 2 spaces deeper
    than the ``-``."""
    for item in data:
        head = lead + "- "
        lead = indent
        kind = type(item)
        if kind is dict and item:
            _text_mapping(item, head, indent + "  ", out)
        elif kind is list and item and not _flow(item):
            _text_sequence(item, head, indent + "  ", out)
        else:
            out.append(f"{head}{_text_inline(item)}\n")


def _text_inline(value: YamlValue) -> str:
    """A value written on its line: a scalar, ``{}``, ``[]`` or a short list of ints
    (``[1, 2]``, as :func:`_flow` decides); _NotSure for anything else (a float)."""
    kind = type(value)
    if kind is str:
        return _TEXTS.get(value) or _str_text(value)
    if kind is int:
        return str(value)  # decimal digits, '-' first at most: always plain
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    if kind is dict and not value:
        return "{}"
    if kind is list and not value:
        return "[]"
    if kind is list and _flow(value):
        return f"[{', '.join(map(str, value))}]"
    if isinstance(value, str):  # a subclass of str, such as the engine's enums: its text
        text = str.__str__(value)
        return _TEXTS.get(text) or _str_text(text)
    raise _NotSure


# The emitter's text of the texts and keys written so far (a view repeats few); each emptied
# when it holds 4096.
_TEXTS: dict[str, str] = {}
_KEY_TEXTS: dict[str, str] = {}
# Longer texts could reach the emitter's line width (1 << 20 columns), where it breaks lines.
_TEXT_MAX = 1 << 16


def _str_text(text: str) -> str:
    """The scalar ``text`` as the emitter writes it (cached). Two shortcuts, where the event
    path's own choice is certain: a digest (see :func:`_scalar`) and an ASCII word (letters,
    digits, ``_``: ``alice``, ``golden_dust``) that YAML reads back as text are written plain,
    as they are; any other text as the emitter writes it for ``{"v": text}`` (:func:`_emitted`).
    A base64 text (letters, digits, ``+``, ``/``, ``=``) that YAML reads back as text and that
    is no YAML 1.2 number is written plain too. The same in any place of a block document: the
    emitter chooses the style from the text alone, except for keys (see :func:`_key_text`) and
    in flow lists (ints only here).
    _NotSure for texts with line breaks (a ``|`` block, or double quotes over lines, whose text
    depends on the indentation) and texts long enough to reach the line width."""
    if _plain_digest(text):
        return text  # two a move in a record, each new
    if text.isascii() and text.isidentifier() and _resolve_scalar(text, True, False) == TAG_STR:
        scalar = text  # a word (a key, a name, a sign) YAML reads as text: plain, as it is
    elif (text and len(text) <= _TEXT_MAX and not text.strip(_BASE64) and _str_style(text) is None
          and _resolve_scalar(text, True, False) == TAG_STR):
        # base64 (a sealed signed move: about 1,400 characters, each new): no indicator, space
        # or line break, so plain when YAML reads it as text and no YAML 1.2 number
        scalar = text
    elif len(text) > _TEXT_MAX or "\n" in text or any(char in text for char in _LINE_BREAK_CHARS):
        raise _NotSure
    else:
        scalar = _emitted(text)
    if len(_TEXTS) >= 4096:
        _TEXTS.clear()
    _TEXTS[text] = scalar
    return scalar


def _emitted(text: str) -> str:
    """What the emitter writes for ``{"v": text}`` after ``v: ``; _NotSure when that is not
    one line (or the emitter refuses the text: the whole document's writing reports it)."""
    try:
        written = _dump_events({"v": text})
    except (yaml.YAMLError, UnicodeError):
        raise _NotSure from None
    if not written.startswith("v: ") or written.find("\n") != len(written) - 1:
        raise _NotSure
    return written[3:-1]


def _key_text(key: object) -> str:
    """``key:`` as the emitter writes a mapping's key (and caches it): text (or a str subclass,
    as its text) of at most 128 UTF-8 bytes, written as the same text as a value. _NotSure for
    other keys (longer ones the emitter writes as ``? key``; numbers; None)."""
    if not isinstance(key, str):
        raise _NotSure
    text = str.__str__(key)
    if len(text.encode("utf-8", "surrogatepass")) > 128:
        raise _NotSure
    scalar = _TEXTS.get(text) or _str_text(text)
    if len(_KEY_TEXTS) >= 4096:
        _KEY_TEXTS.clear()
    written = _KEY_TEXTS[key] = scalar + ":"
    return written


class _NotPlain(Exception):
    """A value :func:`_events` leaves to PyYAML's representer."""


def _events(data: YamlValue, out: list[yaml.Event]) -> None:
    """Append to ``out`` the events that PyYAML's representer and serializer (``_RebisDumper``,
    block style, no aliases) make for plain data, built directly: the representer's generic
    machinery, then the serializer asking the resolver twice for every scalar, took most of the
    time of writing a record or a view, and ``apply`` writes a record and ten views. The same
    events, so the same text (tested). The emitter only reads an event, so one event object
    serves every place it occurs (the collection marks, each scalar's text)."""
    kind = type(data)
    if kind is dict:
        append = out.append
        append(_MAP_START)
        for key, value in data.items():
            append(_STR_EVENTS.get(key) or _str_event(key)) if type(key) is str \
                else _events(key, out)
            # Most values are text or numbers: written here rather than by a call each.
            value_kind = type(value)
            if value_kind is str:
                append(_STR_EVENTS.get(value) or _str_event(value))
            elif value_kind is int:
                append(_INT_EVENTS.get(value) or _int_event(value))
            else:
                _events(value, out)
        append(_MAP_END)
    elif kind is list:
        out.append(_FLOW_SEQ_START if _flow(data) else _SEQ_START)
        for item in data:
            _events(item, out)
        out.append(_SEQ_END)
    elif kind is str:
        out.append(_STR_EVENTS.get(data) or _str_event(data))
    elif kind is int:
        out.append(_INT_EVENTS.get(data) or _int_event(data))
    elif kind is bool:
        out.append(_scalar(TAG_BOOL, "true" if data else "false"))
    elif data is None:
        out.append(_scalar(TAG_NULL, "null"))
    elif isinstance(data, str):  # a subclass of str, such as the engine's enums: its text
        out.append(_str_event(str.__str__(data)))
    else:
        raise _NotPlain


_MAP_START = yaml.MappingStartEvent(None, TAG_MAP, True, flow_style=False)
_MAP_END = yaml.MappingEndEvent()
_SEQ_START = yaml.SequenceStartEvent(None, TAG_SEQ, True, flow_style=False)
_FLOW_SEQ_START = yaml.SequenceStartEvent(None, TAG_SEQ, True, flow_style=True)
_SEQ_END = yaml.SequenceEndEvent()
# The scalar events of the texts and numbers written so far (a view repeats few of them);
# emptied when one holds 4096.
_STR_EVENTS: dict[str, yaml.ScalarEvent] = {}
_INT_EVENTS: dict[int, yaml.ScalarEvent] = {}


def _str_event(text: str) -> yaml.ScalarEvent:
    if len(_STR_EVENTS) >= 4096:
        _STR_EVENTS.clear()
    event = _STR_EVENTS[text] = _scalar(TAG_STR, text)
    return event


def _int_event(number: int) -> yaml.ScalarEvent:
    if len(_INT_EVENTS) >= 4096:
        _INT_EVENTS.clear()
    event = _INT_EVENTS[number] = _scalar(TAG_INT, str(number))
    return event


def _scalar(tag: str, text: str) -> yaml.ScalarEvent:
    # As the serializer does: implicit (plain, quoted) when the resolver gives the tag back.
    # Asked about a quoted scalar, the resolver gives text's tag whatever the text.
    if tag == TAG_STR and _plain_digest(text):
        # A digest with a letter YAML 1.2 numbers do not have: plain, and read back as text
        # (two a move in a record, each new: the caches below never hold them).
        return yaml.ScalarEvent(None, tag, (True, True), text, style=None)
    style = _str_style(text) if tag == TAG_STR else None
    implicit = (_resolve_scalar(text, True, False) == tag, tag == TAG_STR)
    return yaml.ScalarEvent(None, tag, implicit, text, style=style)
