"""The one strict YAML reader of rebis-pbm.

Every file the tool reads (move files, game records, secrets, views, config) goes through
:func:`load_yaml`; every YAML file it writes comes from
:func:`rebis_pbm.formats.yaml_writer.dump_yaml`.

What is accepted (see docs/input.md for the player-facing version):

* UTF-8 text, optionally with a BOM (stripped); LF, CRLF or lone CR line ends.
* At most :data:`MOVE_MAX_BYTES` bytes for moves, :data:`MAX_BYTES` for everything else.
* Exactly one YAML document whose top level is a mapping with text keys.
* At most :data:`MAX_DEPTH` nested lists/mappings.
* No anchors (``&a``), aliases (``*a``), merge keys (``<<``) or explicit tags (``!!str``,
  ``!foo``, ``!``) anywhere: moves are written by people, records by the tool, and neither
  needs them; rejecting them everywhere keeps one simple rule and rules out alias bombs.
* Scalars resolve as YAML 1.1 (what PyYAML does): ``yes``/``no``/``on``/``off`` are booleans,
  ``010`` is octal 8. The original text and resolved tag of every scalar are kept in
  :attr:`Loaded.scalars` so that the schema layer can hint ("write 'no' in quotes").
* Integer literals may have at most :data:`MAX_INT_DIGITS` digits.
* Floats are rejected in move files; elsewhere finite floats are allowed.
* Timestamps (``2024-05-01``) are kept as the original text, never turned into dates.

Values are built from PyYAML's event stream (one pass, no recursion), so every node's
position is known and a deeply nested input cannot exhaust the Python stack.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any, NamedTuple, NoReturn, Protocol

import yaml
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from rebis_pbm.errors import InputError
from rebis_pbm.formats.filekinds import FILE_KINDS, KINDS, MAX_BYTES, MOVE_MAX_BYTES, max_bytes
from rebis_pbm.formats.filekinds import example as _example

__all__ = [
    "KINDS",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MOVE_MAX_BYTES",
    "InputError",
    "Loaded",
    "format_path",
    "load_yaml",
    "max_bytes",
]

# The C implementation when libyaml is available; same behaviour, much faster on big records.
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_DEPTH = 32
MAX_INT_DIGITS = 18  # keeps every decimal literal inside a signed 64-bit integer

TAG_STR = "tag:yaml.org,2002:str"
TAG_INT = "tag:yaml.org,2002:int"
TAG_FLOAT = "tag:yaml.org,2002:float"
TAG_BOOL = "tag:yaml.org,2002:bool"
TAG_NULL = "tag:yaml.org,2002:null"
TAG_TIMESTAMP = "tag:yaml.org,2002:timestamp"
TAG_MERGE = "tag:yaml.org,2002:merge"
TAG_MAP = "tag:yaml.org,2002:map"
TAG_SEQ = "tag:yaml.org,2002:seq"

_BOM = b"\xef\xbb\xbf"
# The characters PyYAML's reader refuses; checked up front to report line:column.
_NON_PRINTABLE = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD"
                            "\U00010000-\U0010FFFF]")
# The bytes of the ASCII characters _NON_PRINTABLE does not match (tab, line breaks, printable).
_PRINTABLE_ASCII = bytes([0x09, 0x0A, 0x0D, *range(0x20, 0x7F)])
# The patterns below are kept as text: re compiles each on first use (and caches it), so that a
# command that writes no YAML, or reads no faulty file, does not compile them at start-up.
_LINE_BREAKS = rb"\r\n|\r|\n"
_resolver = Resolver()
_constructor = SafeConstructor()

# A value of a YAML document as read: dict (text keys), list, str, int, bool, None, float. Any, as
# the schema (rebis_pbm.formats.schemas) decides its shape and each reader narrows it there.
YamlValue = Any
# Where a value sits in a document: its keys (text) and list indexes, () for the top level.
FieldPath = tuple[str | int, ...]
Position = tuple[int, int]  # line and column, 1-based
# A PyYAML event in the reading loops, told apart by ``type(event) is ...`` against local names
# (the loops run once a node of the file; mypy narrows neither that nor the local names).
_Event = Any
# A frame of the reading loops' stack: a list, mutated in place, whose fields are commented
# where it is made (a list: indexed, the cheapest container in these loops).
_Frame = list[Any]


class _Marked(Protocol):
    """Where a YAML event starts (PyYAML's Mark, or libyaml's)."""

    line: int
    column: int


@functools.lru_cache(maxsize=4096)
def _resolve_scalar(value: str, plain: bool, quoted: bool) -> str:
    """The tag YAML 1.1 gives the scalar ``value`` (plain and/or quoted), cached: a record or a
    view repeats the same few texts."""
    resolve = _resolver.resolve  # untyped in PyYAML's stubs: gives a tag (text)
    tag: str = resolve(yaml.ScalarNode, value, (plain, quoted))  # type: ignore[no-untyped-call]
    return tag


class Loaded(NamedTuple):
    """A YAML file read by :func:`load_yaml` (a NamedTuple: built only there, read by field).

    ``data``: plain Python values: dict (str keys, in file order), list, str, int, bool, None,
    and float only outside move files.

    ``positions``: path -> (line, column), 1-based, for every node. A path is a tuple of
    keys (str) and list indexes (int); ``()`` is the top-level mapping. For a mapping entry the
    position is the value's.

    ``key_positions``: path of a mapping entry -> (line, column) of its key (where an
    "unknown field" is reported). Kept apart from ``positions`` so no key name can collide.

    ``scalars``: path -> (original text, resolved YAML tag) for every scalar value, e.g.
    ``('turn',): ('010', 'tag:yaml.org,2002:int')``; ``data`` then holds 8 there.

    ``source``: the file name shown in messages.
    """

    data: object
    positions: dict[FieldPath, Position]
    scalars: dict[FieldPath, tuple[str, str]]
    source: str
    key_positions: dict[FieldPath, Position]


# Text quoted from a file into a message is cut to this many characters: a message is one line,
# and it may be mailed back to the player.
QUOTE_LIMIT = 40


def clip(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as a message quotes it: whole up to ``limit`` characters, else its start, an
    ellipsis and its length (``'bbbb... (300 characters)'``)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def format_path(path: FieldPath) -> str:
    """``('play', 'cards', 1)`` -> ``'play.cards[1]'``; ``()`` -> ``''``. Each key is
    :func:`clip`-ped (a path is quoted in messages)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{clip(str(part))}" if out else clip(str(part))
    return out


def _field(path: FieldPath) -> str:
    return f"field {format_path(path)}: " if path else ""


def _pos(mark: _Marked) -> Position:
    return (mark.line + 1, mark.column + 1)


# PyYAML / libyaml problem texts -> plain words. Checked in order, by substring.
_PLAIN_PROBLEMS = [
    ("mapping values are not allowed",
     "a ':' appears where YAML does not expect one; put text that contains ': ' in quotes, or "
     "check the indentation"),
    ("cannot start any token",
     "a character here cannot start a value; tabs cannot indent YAML (use spaces), and text "
     "starting with @ or ` must be quoted"),
    ("found a tab character", "a tab character is used for indentation; indent with spaces only"),
    ("could not find expected ':'", "a line is missing the ':' between field name and value"),
    ("did not find expected key",
     "a field name is missing, or the indentation is inconsistent (every field of one mapping "
     "must start in the same column)"),
    ("did not find expected node content",
     "a value is missing here (an empty entry in a list or mapping?)"),
    ("expected <block end>",
     "the indentation is inconsistent; every field of one mapping must start in the same column"),
    ("did not find expected '-' indicator",
     "the indentation of this list is inconsistent; every '- ' item must start in the same column"),
    ("found unexpected end of stream",
     "the file ends inside a quoted text or an open bracket; close it"),
    ("found unknown escape character",
     "a backslash escape inside double quotes is not valid; use single quotes for text with "
     "backslashes"),
    ("found unexpected ':'",
     "a ':' appears where YAML does not expect one; put the text in quotes"),
    ("did not find expected ',' or ']'",
     "a '[...]' list is not closed properly; check the commas and the closing ']'"),
    ("did not find expected ',' or '}'",
     "a '{...}' mapping is not closed properly; check the commas and the closing '}'"),
    ("expected ',' or ']'",
     "a '[...]' list is not closed properly; check the commas and the closing ']'"),
    ("expected ',' or '}'",
     "a '{...}' mapping is not closed properly; check the commas and the closing '}'"),
    # libyaml's own depth guard can fire before ours (its scanner reads ahead of the events).
    ("exceeded maximum nesting depth",
     f"lists and mappings are nested more than {MAX_DEPTH} levels deep; a Rebis file never needs "
     "that"),
    ("block sequence entries are not allowed",
     "a '-' here starts a list item, which cannot follow a field name on the same line; start the "
     "list on the next line, or put the text in quotes (a card's sign is the word negative or "
     "positive)"),
    ("found undefined alias", "aliases ('*name') are not allowed; write the value out"),
]


def _plain_problem(problem: str | None, context: str | None) -> str:
    text = (problem or context or "unreadable YAML").strip()
    for needle, plain in _PLAIN_PROBLEMS:
        if needle in text:
            return f"this is not valid YAML: {plain}"
    extra = f" ({context.strip()})" if context and problem else ""
    return f"this is not valid YAML: {text}{extra}"


def _decode(data: bytes, source: str) -> str:
    offset = 0
    if data.startswith(_BOM):
        data, offset = data[len(_BOM):], len(_BOM)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad = e.start + offset
        line = len(re.findall(_LINE_BREAKS, data[:e.start])) + 1
        raise InputError(
            f"byte {bad} (counting from 0, value 0x{data[e.start]:02X}) is not valid UTF-8; "
            "save the file as UTF-8", source=source, line=line) from None
    # Normalise line ends so that line numbers match what editors show for CRLF / CR files;
    # YAML folds line breaks inside scalars to \n anyway, so values do not change.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # ASCII text with no control character (a record, a move file): one pass in C over the bytes,
    # where the regex search took tens of instructions a character of every record read
    m = (None if text.isascii() and not data.translate(None, _PRINTABLE_ASCII)
         else _NON_PRINTABLE.search(text))
    if m:
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        raise InputError(
            f"the control character U+{ord(m.group()):04X} is not allowed in YAML; remove it "
            "(or write it as an escape inside double quotes)", source=source, line=line, column=col)
    return text


def _scalar_value(value: str, tag: str, kind: str, source: str, path: FieldPath,
                  mark: _Marked) -> YamlValue:
    """Convert one resolved scalar to Python, refusing what cannot be used."""
    line, col = _pos(mark)

    def fail(msg: str) -> NoReturn:
        raise InputError(_field(path) + msg, source=source, line=line, column=col, path=path)

    if tag in (TAG_STR, TAG_TIMESTAMP):
        return value  # timestamps stay text: the tool never needs dates from YAML
    if tag == TAG_NULL:
        return None
    if tag == TAG_BOOL:
        return _constructor.construct_yaml_bool(yaml.ScalarNode(tag, value))
    if tag == TAG_INT:
        if value.isascii() and value.isdigit() and value[0] != "0" and len(value) <= MAX_INT_DIGITS:
            return int(value)  # the common case, plain decimal digits: what PyYAML gives
        digits = re.sub(r"^[-+]?(0[xXbB])?", "", value).replace("_", "").replace(":", "")
        if len(digits) > MAX_INT_DIGITS:
            shown = value if len(value) <= 20 else value[:20] + "..."
            fail(f"the number {shown} has {len(digits)} digits; at most {MAX_INT_DIGITS} are "
                 "allowed")
        return _constructor.construct_yaml_int(yaml.ScalarNode(tag, value))
    if tag == TAG_FLOAT:
        if kind == "move":
            fail(f"{clip(value)} is not a whole number; write a whole number such as 3")
        if len(value) > 100:
            fail("this number is too long; write at most 100 characters")
        number = _constructor.construct_yaml_float(yaml.ScalarNode(tag, value))
        if not math.isfinite(number):
            fail(f"{clip(value)} is not a finite number; write an ordinary number")
        return number
    if tag == TAG_MERGE:
        fail("merge keys ('<<') are not allowed; write the fields out")
    # Other implicit tags PyYAML knows ('=' value, '!'/'&'/'*' yaml) carry no meaning here.
    return value


def _digest_field(path: FieldPath) -> bool:
    """Does ``path`` name a SHA-256 digest field (``after``, ``header_sha256``,
    ``chain_sha256``, ...), whose value is text even when its hex digits are all decimal?"""
    name = path[-1]
    return isinstance(name, str) and (name == "after" or name.endswith("sha256"))


def too_big(kind: str, source: str) -> InputError:
    """The refusal of an input longer than :func:`max_bytes` of ``kind`` (``source``: its name
    in messages, ``'<stdin>'`` for standard input)."""
    cap = max_bytes(kind)
    what = "the input" if source == "<stdin>" else "the file"
    return InputError(f"{what} is larger than {cap // 1024} KiB ({cap} bytes), the limit for "
                      f"{FILE_KINDS[kind].called}; check that this is the right file",
                      source=source)


def top_level_text(data: bytes, key: str) -> str | None:
    """The text that the YAML mapping ``data`` holds under its top-level ``key``, read without
    building the document: ``b"view: v\\ngame: g1\\n..."``, ``"game"`` -> ``"g1"``.

    None when ``data`` is not a mapping whose first ``key`` entry is a text (a number, a list,
    no such key), or is not YAML up to that entry. Only the events up to that entry are parsed
    (libyaml's parser when PyYAML has it), so the cost does not grow with the rest of the file:
    what a view's game is read with before its folder is written again.
    """
    depth = 0
    expect_key = False
    found = False
    try:
        for event in yaml.parse(data, Loader=Loader):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if found:
                    return None
                if depth == 0 and not isinstance(event, yaml.MappingStartEvent):
                    return None
                depth += 1
                expect_key = depth == 1
                continue
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
                if depth == 0:
                    return None
                expect_key = depth == 1
                continue
            if not isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
                continue
            if found:
                if not isinstance(event, yaml.ScalarEvent):
                    return None
                tag = event.tag
                if tag is None or tag == "!":
                    tag = _resolve_scalar(event.value, *event.implicit)
                return event.value if tag == TAG_STR else None
            if depth == 1:
                if expect_key and isinstance(event, yaml.ScalarEvent) and event.value == key:
                    found = True
                expect_key = not expect_key
            elif depth == 0:
                return None  # a scalar document
    except yaml.YAMLError:
        return None
    return None


def load_yaml(data: bytes, *, source: str, kind: str) -> Loaded:
    """Read one strict YAML document (see the module docstring for the rules).

    ``data`` is the raw file content; ``source`` the name used in messages (``'-'`` shown as
    ``'<stdin>'``); ``kind`` one of :data:`KINDS` (selects the size cap and float rule).
    Returns a :class:`Loaded`. Raises :class:`InputError` (one sentence, with line:column where
    known) for every input that breaks a rule; raises ValueError for an unknown ``kind``.
    """
    if len(data) > max_bytes(kind):
        raise too_big(kind, source)
    text = _decode(bytes(data), source)
    try:
        return _build(text, source=source, kind=kind)
    except InputError:
        raise
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line, col = _pos(mark) if mark is not None else (None, None)
        raise InputError(_plain_problem(e.problem, e.context), source=source, line=line,
                         column=col) from None
    except yaml.reader.ReaderError as e:
        line = text.count("\n", 0, e.position) + 1
        raise InputError(f"this is not valid YAML text: {e.reason}", source=source,
                         line=line) from None
    except yaml.YAMLError as e:  # any other PyYAML complaint: still one sentence, no traceback
        said = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InputError(f"this is not valid YAML: {said}", source=source) from None


class _NotSimple(Exception):
    """What :func:`_simple` does not read itself; :func:`load_yaml` then reads (or refuses) it."""


def simple_data(data: bytes, *, kind: str) -> object | None:
    """``load_yaml(data, ...).data`` of a file as rebis-pbm writes it, read without the
    positions and scalar texts that only a message about a faulty file needs; None for
    anything else.

    Not None only when :func:`load_yaml` would accept ``data`` and give equal data (tested):
    one document, a mapping at the top, text keys each once, no anchor, alias or tag, and every
    scalar text, true, false, null or a plainly spelled integer (``0``, ``12``, ``-3``: no
    leading zero, prefix, underscore or base 60). None for floats, other spellings, a second
    document, text that is not UTF-8 or not YAML: the caller then reads ``data`` with
    :func:`load_yaml`, which says what is wrong where. Never raises for any ``data``; raises
    ValueError for an unknown ``kind``.

    >>> simple_data(b"turn: 3\\nplay: {cards: [5, 5]}\\n", kind="record")
    {'turn': 3, 'play': {'cards': [5, 5]}}
    >>> simple_data(b"turn: 010\\n", kind="record") is None
    True
    """
    if len(data) > max_bytes(kind):
        return None
    try:
        return _simple(_decode(bytes(data), "-"))
    except (InputError, _NotSimple, yaml.YAMLError):
        return None


_HEX_DIGITS = "0123456789abcdef"


def _digest_text(value: str) -> bool:
    """Is ``value`` a SHA-256 digest in lower-case hex (64 digits) with a letter after its first
    two characters? Then no YAML resolver reads it as anything but text (no number has such a
    letter: ``0b``/``0x`` prefixes take theirs at index 1). A record holds two digests a move,
    each new: the resolver's cache never has them, and asking it costs more than this check."""
    return len(value) == 64 and not value.strip(_HEX_DIGITS) and not value[2:].isdigit()


def _simple(text: str) -> object:
    """:func:`simple_data` of decoded text; raises _NotSimple (or a YAMLError) when it is not."""
    # Each frame: [container, the key read and awaiting its value (None: a key comes next)].
    stack: list[_Frame] = []
    root: dict[str, YamlValue] | list[YamlValue] | None = None
    documents = 0
    event: _Event
    scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
    mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
    collection_end = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    for event in yaml.parse(text, Loader=Loader):
        etype = type(event)
        if etype is scalar_event:
            if event.anchor is not None or event.tag is not None or not stack:
                raise _NotSimple
            value = event.value
            implicit = event.implicit
            if not implicit[0] or (len(value) == 64 and _digest_text(value)):
                tag = TAG_STR
            else:
                tag = _resolve_scalar(value, implicit[0], implicit[1])
            frame = stack[-1]
            container = frame[0]
            if type(container) is dict and frame[1] is None:  # a key
                if (tag != TAG_STR and tag != TAG_TIMESTAMP) or value in container:
                    raise _NotSimple
                frame[1] = value
                continue
            if tag == TAG_INT:
                digits = value[1:] if value[0] == "-" else value
                if not (digits.isascii() and digits.isdigit() and len(digits) <= MAX_INT_DIGITS
                        and (digits[0] != "0" or digits == "0")):
                    raise _NotSimple  # 010, 0x1F, 1_000, +3, 1:30: load_yaml and the schema
                value = int(value)
            elif tag == TAG_NULL:
                value = None
            elif tag == TAG_BOOL:
                value = _constructor.construct_yaml_bool(yaml.ScalarNode(tag, value))
            elif tag not in (TAG_STR, TAG_TIMESTAMP):  # text stays text, as load_yaml keeps it
                raise _NotSimple  # floats, merge keys and the like
            if type(container) is list:
                container.append(value)
            else:
                container[frame[1]] = value
                frame[1] = None
        elif etype is mapping_start or etype is sequence_start:
            if event.anchor is not None or event.tag is not None or len(stack) >= MAX_DEPTH:
                raise _NotSimple
            made: dict[str, YamlValue] | list[YamlValue] = {} if etype is mapping_start else []
            if not stack:
                if etype is sequence_start:
                    raise _NotSimple
                root = made
            else:
                frame = stack[-1]
                container = frame[0]
                if type(container) is list:
                    container.append(made)
                elif frame[1] is None:
                    raise _NotSimple  # a list or mapping as a key
                else:
                    container[frame[1]] = made
                    frame[1] = None
            stack.append([made, None])
        elif etype in collection_end:
            stack.pop()
        elif etype is yaml.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise _NotSimple  # load_yaml accepts an empty second document, and says the rest
        elif etype is alias_event:
            raise _NotSimple
    if root is None:
        raise _NotSimple
    return root


def _build(text: str, *, source: str, kind: str) -> Loaded:
    positions: dict[FieldPath, Position] = {}
    key_positions: dict[FieldPath, Position] = {}
    scalars: dict[FieldPath, tuple[str, str]] = {}
    root: YamlValue = None
    documents = 0
    # Each frame: [container, path, pending_key, key_lines]; pending_key is a (key, mark) or None.
    stack: list[_Frame] = []
    event: _Event

    def fail(msg: str, mark: _Marked, path: FieldPath = ()) -> NoReturn:
        line, col = _pos(mark)
        raise InputError(msg, source=source, line=line, column=col, path=path)

    def place(value: YamlValue, mark: _Marked) -> FieldPath:
        """Store a value in the innermost collection; return its path."""
        nonlocal root
        if not stack:
            root = value
            path = ()
        else:
            frame = stack[-1]
            container, parent = frame[0], frame[1]
            if isinstance(container, list):
                path = parent + (len(container),)
                container.append(value)
            else:
                key, _ = frame[2]
                path = parent + (key,)
                container[key] = value
                frame[2] = None
        positions[path] = _pos(mark)
        return path

    second = None  # where a second document starts: allowed only if it stays empty
    # The event types as locals: this loop runs once per event of the file (about 20 a move of
    # a record), and a module attribute is looked up at every use.
    scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
    mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
    document_start = yaml.DocumentStartEvent
    for event in yaml.parse(text, Loader=Loader):
        etype = type(event)
        if etype is document_start:
            documents += 1
            if documents == 2:
                second = event.start_mark
            if documents <= 2:
                continue
        if second is not None:  # a third document start is refused here too
            # A '---' line copied at the end with one move of `rebis-pbm moves`: an empty
            # document (nothing, or only comments) after it changes nothing and is accepted.
            if etype in (yaml.DocumentEndEvent, yaml.StreamEndEvent) or (
                    etype is scalar_event and event.value == "" and event.implicit[0]
                    and event.tag is None and event.anchor is None):
                continue
            fail("a second YAML document starts here; a file must hold exactly one document "
                 "(remove the '---' line and what follows, or merge them)", second)
        if etype is alias_event:
            fail(f"aliases ('*{clip(event.anchor)}') are not allowed; write the value out in "
                 "full", event.start_mark)
        if etype is scalar_event or etype is mapping_start or etype is sequence_start:
            if event.anchor is not None:
                fail(f"anchors ('&{clip(event.anchor)}') are not allowed; remove it",
                     event.start_mark)
            if event.tag is not None:
                shown = event.tag.replace("tag:yaml.org,2002:", "!!")
                fail(f"explicit tags ('{clip(shown)}') are not allowed; remove the tag "
                     "(put the value in quotes if it must be text)", event.start_mark)
            # Containers are made here as plain dicts and lists: type() tells them apart.
            in_key_slot = bool(stack) and stack[-1][2] is None and type(stack[-1][0]) is dict
            if etype is scalar_event:
                value = event.value
                implicit = event.implicit
                tag = _resolve_scalar(value, implicit[0], implicit[1]) if implicit[0] else TAG_STR
                mark = event.start_mark
                if in_key_slot:
                    frame = stack[-1]
                    parent = frame[1]
                    if tag != TAG_STR and tag != TAG_TIMESTAMP:
                        if tag == TAG_MERGE:
                            fail("merge keys ('<<') are not allowed; write the fields out",
                                 mark, parent)
                        if value == "":
                            fail(_field(parent) + "a field name is missing before ':'",
                                 mark, parent)
                        reads = {TAG_BOOL: "true or false", TAG_NULL: "empty (null)",
                                 TAG_INT: "a number", TAG_FLOAT: "a number"}.get(tag, "not text")
                        name = clip(value)
                        fail(_field(parent) + f"the field name {name} is read by YAML as {reads}, "
                             f"not text; write it in quotes: '{name}':", mark, parent)
                    if value in frame[0]:
                        first = frame[3][value]
                        fail(f"field '{format_path(parent + (value,))}' appears twice, on "
                             f"lines {first} and {mark.line + 1}; keep only one",
                             mark, parent + (value,))
                    frame[3][value] = mark.line + 1
                    frame[2] = (value, mark)
                    key_positions[parent + (value,)] = (mark.line + 1, mark.column + 1)
                    continue
                if not stack:
                    if value == "" and implicit[0]:
                        fail(f"the file is empty; {_example(kind)}", mark)
                    fail(f"the file must be a YAML mapping ({_example(kind)}), not a "
                         "single value", mark)
                # Path known before conversion so conversion errors can name the field. Placed
                # here rather than by place(): most values are scalars, and this is a hot loop.
                frame = stack[-1]
                container = frame[0]
                if type(container) is list:
                    path = frame[1] + (len(container),)
                    container.append(value if tag == TAG_STR else _scalar_value(
                        value, tag, kind, source, path, mark))
                else:
                    name = frame[2][0]
                    path = frame[1] + (name,)
                    if tag == TAG_INT and len(value) == 64 and _digest_field(path):
                        tag = TAG_STR  # a hex digest may be all digits (after: 000...0)
                    container[name] = value if tag == TAG_STR else _scalar_value(
                        value, tag, kind, source, path, mark)
                    frame[2] = None
                positions[path] = (mark.line + 1, mark.column + 1)
                scalars[path] = (value, tag)
                continue
            # Collection start.
            if in_key_slot:
                fail(_field(stack[-1][1]) + "a field name must be plain text, not a list or "
                     "mapping", event.start_mark, stack[-1][1])
            if len(stack) >= MAX_DEPTH:
                fail(f"lists and mappings are nested more than {MAX_DEPTH} levels deep here; "
                     "flatten the data", event.start_mark)
            if not stack and etype is sequence_start:
                fail(f"the file must be a YAML mapping ({_example(kind)}), not a list",
                     event.start_mark)
            container = {} if etype is mapping_start else []
            path = place(container, event.start_mark)
            stack.append([container, path, None, {}])
            continue
        if etype in (yaml.MappingEndEvent, yaml.SequenceEndEvent):
            stack.pop()
    if documents == 0:
        raise InputError(f"the file is empty; {_example(kind)}", source=source)
    return Loaded(data=root, positions=positions, scalars=scalars, source=source,
                  key_positions=key_positions)
