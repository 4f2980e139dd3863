"""JSON Schema validation of loaded YAML, reported as one sentence with a file position.

The schemas are ``schemas/<name>.schema.json`` (draft 2020-12), installed as the package
``rebis_pbm._schemas``. jsonschema is imported only when something is validated, so commands
that validate nothing do not pay its import time.

References (``$ref``) are resolved only against the tool's own schema files (by file name,
e.g. ``"move.schema.json#/$defs/card"``); nothing is ever fetched from the network.

Two libraries read the same schema file. fastjsonschema compiles a schema that refers to
nothing outside itself (the move schema) into a quick yes/no check, so that ``apply`` accepts a
valid move file without importing jsonschema (about half of the command's start-up). jsonschema
is the authority: every document fastjsonschema refuses, and every document of the other
schemas, goes through jsonschema, which decides and gives the error worded for the player. So
a refusal always reads the same, and the two can only disagree to jsonschema's benefit; tests
check that fastjsonschema accepts nothing jsonschema refuses (tests/test_schemas_fast.py).

Beyond the schema, :func:`validate` rejects integers whose YAML 1.1 reading differs from
what a person means: leading zeros (``010`` is octal 8), ``0x``/``0b`` prefixes and base-60
forms (``1:30`` is 90), and underscores (``1_000`` is 1000). It does so for every integer
scalar, whatever the schema says.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from rebis_pbm.formats.schema_messages import check_integer_spelling, to_input_error
from rebis_pbm.formats.yaml_reader import Loaded, YamlValue, format_path

if TYPE_CHECKING:
    from importlib.abc import Traversable

    from jsonschema import Draft202012Validator
    from referencing import Resource
    from referencing.jsonschema import SchemaRegistry

__all__ = [
    "SCHEMA_NAMES",
    "SchemaProblem",
    "address_accepted",
    "check_integer_spelling",
    "defined_pattern",
    "load_schema",
    "quickly_accepted",
    "schema_text",
    "validate",
]

SCHEMA_NAMES = ("move", "record", "view")
# A JSON Schema (or a part of one) as parsed: raw JSON, whose shape the meta-schema checks.
Schema = dict[str, Any]
# A compiled check: returns on a valid document, raises on any other.
Check = Callable[[object], object]


class SchemaProblem(ValueError):
    """A schema itself cannot be used: unknown name, missing or invalid file, or a ``$ref``
    that is not one of the tool's own schemas. A bug or a broken install, not bad input."""


def _schema_dir() -> str | Traversable:
    """The folder holding the schema files, as a path (text): the installed package, else the
    source checkout; else what importlib.resources finds (a Traversable, e.g. in a zip)."""
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # the rebis_pbm folder
    installed = os.path.join(here, "_schemas")
    # A checkout (e.g. `python -m pytest` puts the source tree first) or an editable install,
    # where the package-dir mapping of pyproject.toml does not apply: ../schemas directly.
    checkout = os.path.join(os.path.dirname(here), "schemas")
    for folder in (installed, checkout):
        if os.path.isdir(folder):  # importlib.resources (and pathlib) cost milliseconds to import
            return folder
    from importlib.resources import files

    try:
        return files("rebis_pbm._schemas")
    except ModuleNotFoundError:
        return installed  # not there: reading a schema says it is missing from the installation


def schema_text(name: str) -> str:
    """The text of ``schemas/<name>.schema.json``.

    Raises :class:`SchemaProblem` (a ValueError) for a name not in :data:`SCHEMA_NAMES`
    (the message lists them) or when the file is missing from the installation.
    """
    if name not in SCHEMA_NAMES:
        raise SchemaProblem(f"unknown schema {name!r}; the schemas are {', '.join(SCHEMA_NAMES)}")
    folder, file = _schema_dir(), f"{name}.schema.json"
    try:
        if isinstance(folder, (str, os.PathLike)):
            with open(os.path.join(folder, file), encoding="utf-8") as f:
                return f.read()
        text: str = folder.joinpath(file).read_text(encoding="utf-8")  # importlib.resources (zip)
        return text
    except (FileNotFoundError, NotADirectoryError):
        raise SchemaProblem(f"the schema file {name}.schema.json is missing from the "
                            "installation") from None


@functools.cache
def _parsed(name: str) -> Schema:
    """The JSON of ``schemas/<name>.schema.json``, not yet checked against the meta-schema."""
    try:
        parsed: Schema = json.loads(schema_text(name))
        return parsed
    except json.JSONDecodeError as e:
        raise SchemaProblem(f"{name}.schema.json:{e.lineno}:{e.colno}: "
                            f"invalid JSON: {e.msg}") from None


@functools.cache
def load_schema(name: str) -> Schema:
    """The parsed schema ``name`` (cached; do not modify the returned dict).

    Raises :class:`SchemaProblem` for an unknown name, a missing file, invalid JSON or a
    document that is not a valid draft 2020-12 schema.
    """
    schema = _parsed(name)
    _check_schema(schema, f"{name}.schema.json")
    return schema


@functools.cache
def defined_pattern(schema: str, definition: str) -> re.Pattern[str]:
    """The compiled ``pattern`` of ``$defs/<definition>`` in the shipped schema ``schema``, read
    without importing jsonschema (e.g. ``defined_pattern("move", "player")`` for player names).

    Raises :class:`SchemaProblem` for an unknown schema or a file that is not JSON; KeyError if
    it has no such pattern.
    """
    return re.compile(_parsed(schema)["$defs"][definition]["pattern"])


@functools.cache
def _address_rule() -> int | None:
    """The longest address the record schema accepts, when its rule for an address is exactly
    a string of the "email" format with a ``maxLength``; None for any other rule."""
    try:
        rule = _parsed("record")["properties"]["addresses"]["additionalProperties"]
    except (SchemaProblem, KeyError, TypeError):
        return None
    if set(rule) != {"type", "format", "maxLength"} or rule["type"] != "string" \
            or rule["format"] != "email" or type(rule["maxLength"]) is not int:
        return None
    longest: int = rule["maxLength"]
    return longest


def address_accepted(value: object) -> bool:
    """Does the record schema accept ``value`` as a player's e-mail address, without importing
    jsonschema? True means it does: a text of at most the schema's ``maxLength`` characters
    holding an ``@`` (jsonschema's check of the ``email`` format, draft 2020-12, is exactly
    that). False means "not known": ask jsonschema (also whenever the schema's rule for an
    address is anything else). ``new`` accepts less (``transports.mail.check_address``); this
    is what a record may hold. tests/test_record_fast_path.py checks it against jsonschema.
    """
    longest = _address_rule()
    return longest is not None and type(value) is str and "@" in value and len(value) <= longest


def _check_schema(schema: Schema, label: str) -> None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as e:
        where = format_path(tuple(e.absolute_path)) or "top level"
        raise SchemaProblem(f"{label} is not a valid JSON Schema at {where}: {e.message}") from None


def _retrieve(uri: str) -> Resource[Any]:
    """Registry hook: serve only the tool's own schema files, never the network."""
    from referencing import Resource
    from referencing.jsonschema import DRAFT202012

    base = uri.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    for name in SCHEMA_NAMES:
        if base == f"{name}.schema.json":
            return Resource.from_contents(load_schema(name), default_specification=DRAFT202012)
    raise SchemaProblem(f"schema reference {uri!r} is not one of the tool's own schemas; "
                        "references are never fetched from the network")


def _registry(names: tuple[str, ...] = SCHEMA_NAMES) -> SchemaRegistry:
    """A registry holding the tool's own schemas ``names``, already crawled. Without them, a
    validation retrieves and crawls them again for every ``$ref`` it follows (most of a command's
    time on a long record). A schema that cannot be loaded is left out and reported by
    :func:`_retrieve` if something refers to it; anything else is refused there too."""
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    own: list[tuple[str, Resource[Any]]] = []
    for name in names:
        try:
            own.append((f"{name}.schema.json",
                        Resource.from_contents(load_schema(name),
                                               default_specification=DRAFT202012)))
        except SchemaProblem:
            continue
    # attrs' ``alias`` of Registry's field: mypy's attrs plugin does not see it.
    registry: SchemaRegistry = Registry(retrieve=_retrieve)  # type: ignore[call-arg]
    return registry.with_resources(own).crawl()


def _referenced(name: str) -> tuple[str, ...]:
    """``name`` and the tool's schemas it refers to, directly or not (``"move.schema.json#..."``
    in its text): all a validator for ``name`` can reach. Loading only these spares checking the
    others against the meta-schema (a move needs the move schema alone)."""
    found = [name]
    for current in found:
        text = schema_text(current)
        found += [other for other in SCHEMA_NAMES
                  if other not in found and f"{other}.schema.json" in text]
    return tuple(found)


def _validator(schema: Schema,
               names: tuple[str, ...] = SCHEMA_NAMES) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema, registry=_registry(names),
                                format_checker=Draft202012Validator.FORMAT_CHECKER)


@functools.cache
def _named_validator(name: str) -> Draft202012Validator:
    return _validator(load_schema(name), _referenced(name))


def _refs(node: YamlValue) -> Iterator[str]:
    """Every ``$ref`` value in a schema, at any depth."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


# The shipped schemas fastjsonschema checks first (a view refers to the move and record schemas:
# their definitions are inlined). `verify` checks a record read on its fast path with the
# record's compiled check (a referee can write, and sign, what its commands never write).
FAST_SCHEMAS = ("move", "view", "record")


def _compilable(name: str) -> Schema | None:
    """The shipped schema ``name`` as fastjsonschema can check it alone: every reference to
    another of the tool's schema files inlined (:func:`_inlined`), since fastjsonschema would
    fetch it from the network. None for a schema not in :data:`FAST_SCHEMAS`, or one that
    cannot be read or inlined (jsonschema's path reports it)."""
    if name not in FAST_SCHEMAS:
        return None
    try:
        inlined = _inlined(_parsed(name), name, name)
    except SchemaProblem:
        return None
    return inlined if isinstance(inlined, dict) else None


def _inlined(node: YamlValue, home: str, root: str, depth: int = 0) -> YamlValue:
    """``node`` of the schema ``home`` with every ``$ref`` that would not resolve inside the
    schema ``root`` replaced by a copy of its target: a reference to another of the tool's
    schema files (``move.schema.json#/$defs/player``), and within such a copy the references
    local to its own file. What stays are ``#...`` references of ``root`` itself.

    Raises:
        SchemaProblem: a reference to a file that is not one of the tool's schemas, a target
            that does not exist, or references nested deeper than 32.
    """
    if depth > 32:
        raise SchemaProblem("schema references nested too deep to inline")
    if isinstance(node, list):
        return [_inlined(value, home, root, depth) for value in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and (not ref.startswith("#") or home != root):
        target, _, pointer = ref.partition("#")
        other = target.rsplit("/", 1)[-1].removesuffix(".schema.json") if target else home
        if other not in SCHEMA_NAMES:
            raise SchemaProblem(f"schema reference {ref!r} is not one of the tool's own schemas")
        found: YamlValue = _parsed(other)
        for step in (s for s in pointer.split("/") if s):
            step = step.replace("~1", "/").replace("~0", "~")
            if not isinstance(found, dict) or step not in found:
                raise SchemaProblem(f"schema reference {ref!r} names nothing")
            found = found[step]
        rest = {k: v for k, v in node.items() if k != "$ref"}
        inlined = _inlined(found, other, root, depth + 1)
        if not rest:
            return inlined
        return {"allOf": [inlined, _inlined(rest, home, root, depth)]}
    return {key: _inlined(value, home, root, depth) for key, value in node.items()}


_FAST_OPTIONS = {"use_default": False, "detailed_exceptions": False}
# fastjsonschema cannot write a `const` check without its detailed exceptions (KeyError
# 'definition_rule'): the schemas that have one get them (only a refusal pays for them).
_DETAILED = ("view", "record")
# use_default=False: fastjsonschema would otherwise write defaults into the document.
_GENERATED = "# Generated by scripts/compile-schema-checks.py (make schema-checks): do not edit.\n"


def fast_check_code(name: str) -> str | None:
    """The module ``rebis_pbm/formats/_fastchecks/<name>.py``: fastjsonschema's ``compile_to_code``
    of
    the shipped schema ``name``, after a header naming the SHA-256 of the schema's text
    (``SCHEMA_SHA256``). None for a schema fastjsonschema cannot check alone."""
    import fastjsonschema

    schema = _compilable(name)
    if schema is None:
        return None
    return (f"{_GENERATED}# From schemas/{name}.schema.json; used only while both match.\n"
            f"# ruff: noqa\n# mypy: ignore-errors\nSCHEMA_SHA256 = \"{_schema_sha256(name)}\"\n"
            + fastjsonschema.compile_to_code(
                schema, use_default=_FAST_OPTIONS["use_default"],
                detailed_exceptions=_FAST_OPTIONS["detailed_exceptions"] or name in _DETAILED))


def _schema_sha256(name: str) -> str:
    """The SHA-256 of the shipped schema's text, followed by the texts of the schemas it refers
    to (:func:`_referenced`): what a generated check names as its source."""
    text = "".join(schema_text(other) for other in _referenced(name))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _generated_check(name: str) -> Check | None:
    """The ``validate`` of ``rebis_pbm/formats/_fastchecks/<name>.py`` when it was generated from
    this
    schema text by the installed fastjsonschema; None otherwise (then it is compiled here).
    Importing it costs what importing any module costs: no code generation, no compile."""
    import importlib

    try:
        module = importlib.import_module(f"rebis_pbm.formats._fastchecks.{name}")
        import fastjsonschema  # the generated module imported it already
    except ImportError:
        return None
    if getattr(module, "SCHEMA_SHA256", None) != _schema_sha256(name) or \
            getattr(module, "VERSION", None) != fastjsonschema.VERSION:
        return None
    check: Check = module.validate
    return check


@functools.cache
def _quick_check(name: str) -> Check | None:
    """fastjsonschema's compiled check of the shipped schema ``name``: a function that returns
    on a valid document and raises ``fastjsonschema.JsonSchemaException`` otherwise; the module
    generated for it when it is current (:func:`_generated_check`), else compiled now. None for
    a schema that fastjsonschema cannot check alone (:func:`_compilable`) or cannot compile:
    such schemas are checked by jsonschema alone."""
    schema = _compilable(name)
    if schema is None:
        return None
    check = _generated_check(name)
    if check is not None:
        return check
    import fastjsonschema

    try:
        compiled: Check = fastjsonschema.compile(
            schema, use_default=_FAST_OPTIONS["use_default"],
            detailed_exceptions=_FAST_OPTIONS["detailed_exceptions"] or name in _DETAILED)
        return compiled
    except Exception:  # e.g. an unknown type or a bad regex: jsonschema's path reports it
        return None


def quickly_accepted(data: object, name: str) -> bool:
    """Does fastjsonschema's compiled check of the shipped schema ``name`` accept ``data``?
    True means valid (jsonschema agrees); False means "not known to be valid": ask jsonschema.
    A schema that refers to another file is never checked here (False)."""
    check = _quick_check(name)
    if check is None:
        return False
    try:
        check(data)
    except Exception:  # a refusal, or anything else it cannot decide: jsonschema will
        return False
    return True


def validate(loaded: Loaded, schema: str | Schema) -> None:
    """Check ``loaded.data`` against a schema (a name from :data:`SCHEMA_NAMES` or a dict).

    Returns None when valid. Raises :class:`~rebis_pbm.formats.yaml_reader.InputError` for the
    single most
    relevant problem (``jsonschema.exceptions.best_match``), worded for a player and placed at
    ``loaded.positions`` (a missing field at its parent mapping, an unknown field at its key);
    ``str(e)`` reads ``SOURCE:LINE:COL: field PATH: sentence``. Also raises InputError for an
    integer written with a leading zero, a 0x/0b prefix or in base 60 (see module docstring).
    Raises :class:`SchemaProblem` if the schema is invalid or refers to a non-local ``$ref``.

    A document of a shipped schema that :func:`quickly_accepted` accepts is valid without
    importing jsonschema; any other goes through jsonschema, which decides (module docstring).
    """
    if isinstance(schema, str) and quickly_accepted(loaded.data, schema):
        check_integer_spelling(loaded)
        return
    # _RefResolutionError: jsonschema's own (private) error for a $ref it cannot resolve; its
    # type stubs leave it out.
    from jsonschema.exceptions import _RefResolutionError, best_match  # type: ignore[attr-defined]
    from referencing.exceptions import Unresolvable

    if isinstance(schema, str):
        validator = _named_validator(schema)
    else:
        _check_schema(schema, "the schema")
        validator = _validator(schema)
    try:
        error = best_match(validator.iter_errors(loaded.data))
    except (Unresolvable, _RefResolutionError) as e:
        raise SchemaProblem(f"the schema refers to something that is not available locally ({e}); "
                            "references are never fetched from the network") from None
    if error is not None:
        raise to_input_error(loaded, error)
    check_integer_spelling(loaded)
