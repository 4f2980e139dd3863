"""How a document's refusal by a schema, and an integer whose YAML 1.1 reading differs from its
spelling, are said to a player: one sentence at the field's position, with a hint where YAML's
reading is the cause ("write 'no' in quotes"). :func:`rebis_pbm.formats.schemas.validate` says
its refusals through :func:`to_input_error` and :func:`check_integer_spelling`.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from rebis_pbm.formats.yaml_reader import (
    TAG_BOOL,
    TAG_FLOAT,
    TAG_INT,
    TAG_NULL,
    TAG_STR,
    TAG_TIMESTAMP,
    FieldPath,
    InputError,
    Loaded,
    YamlValue,
    clip,
    format_path,
)

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = ["check_integer_spelling", "to_input_error"]

_TYPE_WORDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "text",
    "boolean": "true or false",
    "object": "a mapping of 'name: value' fields",
    "array": "a list",
    "null": "empty",
}


def _kind_of(value: YamlValue) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "empty" if value is None else type(value).__name__


def _show(value: YamlValue) -> str:
    """A value as the player would write it (long text
    :func:`~rebis_pbm.formats.yaml_reader.clip`-ped)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return clip(json.dumps(value, ensure_ascii=False))
    return clip(str(value))


def _shown(loaded: Loaded, path: FieldPath, value: YamlValue) -> str:
    """The instance as written in the file, quoted, for 'not ...' clauses."""
    scalar = loaded.scalars.get(path)
    if scalar is not None and scalar[0] != "":
        return f"'{clip(scalar[0])}'"
    if isinstance(value, (dict, list)):
        return _kind_of(value)
    return f"'{_show(value)}'"


def _position(loaded: Loaded, path: FieldPath, *,
              key: bool = False) -> tuple[int | None, int | None]:
    if key and path in loaded.key_positions:
        return loaded.key_positions[path]
    p = path
    while True:
        if p in loaded.positions:
            return loaded.positions[p]
        if not p:
            return (None, None)
        p = p[:-1]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _describe(schema: YamlValue, depth: int = 0) -> str:
    """A short phrase for one alternative of a oneOf/anyOf."""
    if schema is True:
        return "anything"
    if not isinstance(schema, dict):
        return "nothing"
    if "description" in schema:
        return str(schema["description"]).rstrip(".")
    if "const" in schema:
        return _show(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(_show(v) for v in schema["enum"])
    if "$ref" in schema:
        ref: str = schema["$ref"]
        return ref.rsplit("/", 1)[-1].replace(".schema.json", "")
    if "required" in schema and isinstance(schema["required"], list):
        return "a mapping with " + ", ".join(f"'{k}'" for k in schema["required"])
    types = schema.get("type")
    if types:
        types = [types] if isinstance(types, str) else types
        return " or ".join(_TYPE_WORDS.get(t, t) for t in types)
    for word in ("oneOf", "anyOf") if depth < 2 else ():
        if word in schema:
            return " or ".join(_describe(s, depth + 1) for s in schema[word])
    return "another form"


def _wants_string(error: ValidationError) -> bool:
    v: YamlValue = error.validator
    vv: YamlValue = error.validator_value
    if v == "type":
        return "string" in ([vv] if isinstance(vv, str) else vv)
    if v == "enum":
        return any(isinstance(x, str) for x in vv)
    if v == "const":
        return isinstance(vv, str)
    if v in ("oneOf", "anyOf"):
        return any(isinstance(s, dict)
                   and (s.get("type") == "string" or isinstance(s.get("const"), str))
                   for s in vv)
    return v in ("pattern", "minLength", "maxLength", "format")


def _hint(loaded: Loaded, path: FieldPath, error: ValidationError) -> str:
    """A YAML-reading hint for the scalar at ``path``, or ''. "Write it in quotes" is given only
    where the quoted text would be right."""
    scalar = loaded.scalars.get(path)
    if scalar is None:
        return ""
    text, tag = scalar
    shown = clip(text)
    wants_string = _wants_string(error)
    quoting_helps = tag in (TAG_BOOL, TAG_INT, TAG_FLOAT, TAG_NULL) and wants_string \
        and _valid_as_text(error, text)
    if tag == TAG_BOOL and quoting_helps:
        return f" (YAML reads a bare {shown} as {_show(error.instance)}: write '{shown}' in quotes)"
    if tag == TAG_BOOL and not wants_string:
        return f" (YAML reads a bare {shown} as {_show(error.instance)})"
    if tag in (TAG_INT, TAG_FLOAT) and quoting_helps:
        return f" (YAML reads a bare {shown} as a number: write '{shown}' in quotes)"
    if tag == TAG_NULL and text == "":
        return " (the value after ':' is missing)"
    if tag == TAG_NULL and quoting_helps:
        return f" (YAML reads a bare {shown} as empty: write '{shown}' in quotes)"
    if tag == TAG_INT and _odd_int(text):
        return f" ({_odd_int_advice(text, error.instance)})"
    if tag == TAG_STR and _LEADING_ZERO.fullmatch(text) and error.validator == "type":
        digits = clip(text.lstrip("+-").replace("_", "").lstrip("0") or "0")
        return f" (write {'-' if text.startswith('-') else ''}{digits}, without the leading zero)"
    if tag == TAG_TIMESTAMP and not wants_string:
        return f" (YAML reads {shown} as a date)"
    return ""


def _valid_as_text(error: ValidationError, text: str) -> bool:
    """Would ``text``, written in quotes, satisfy the part of the schema that refused the value?"""
    from jsonschema import Draft202012Validator

    try:
        schema: YamlValue = error.schema
        return Draft202012Validator(schema).is_valid(text)
    except Exception:  # a part that refers elsewhere: no advice rather than wrong advice
        return False


def _sentence(loaded: Loaded, error: ValidationError) -> tuple[FieldPath, str, bool]:
    """(path to report, message, report at the key position?) for one jsonschema error."""
    import difflib  # here: only a rejected input needs it, and start-up time counts
    path = tuple(error.absolute_path)
    # The refused part of the document and of the schema: raw JSON (never Unset on an error that
    # a validator gave).
    v: YamlValue = error.validator
    vv: YamlValue = error.validator_value
    inst: YamlValue = error.instance
    sch: YamlValue = error.schema
    subject = f"field {format_path(path)}: " if path else "the top level: "
    shown = _shown(loaded, path, inst)

    if v == "required":
        missing = next((k for k in vv if isinstance(inst, dict) and k not in inst),
                       vv[0] if vv else "?")
        desc = (sch.get("properties", {}).get(missing) or {}) if isinstance(sch, dict) else {}
        extra = (f" ({desc['description']})"
                 if isinstance(desc, dict) and "description" in desc else "")
        return path, f"field '{format_path(path + (missing,))}' is missing{extra}; add it", False
    if v in ("additionalProperties", "unevaluatedProperties"):
        known = list(sch.get("properties", {})) if isinstance(sch, dict) else []
        patterns = list(sch.get("patternProperties", {})) if isinstance(sch, dict) else []
        extras = ([k for k in inst
                   if k not in known and not any(re.search(p, k) for p in patterns)]
                  if isinstance(inst, dict) else [])
        if not extras:
            return path, subject + error.message, False
        extra = extras[0]
        msg = f"unknown field '{format_path(path + (extra,))}'"
        close = difflib.get_close_matches(extra, known, n=1, cutoff=0.6)
        if close:
            msg += f"; did you mean '{close[0]}'?"
        elif known:
            msg += "; the fields allowed here are " + ", ".join(known)
        else:
            msg += "; no other fields are allowed here"
        return path + (extra,), msg, True
    if v == "type":
        types = [vv] if isinstance(vv, str) else list(vv)
        want = " or ".join(_TYPE_WORDS.get(t, t) for t in types)
        what = _kind_of(inst)
        blank = inst is None and loaded.scalars.get(path, ("",))[0] == ""
        tail = f" ({shown})" if not isinstance(inst, (dict, list)) and not blank else ""
        return path, f"{subject}must be {want}, not {what}{tail}", False
    if v == "enum":
        msg = f"{subject}must be one of {', '.join(_show(x) for x in vv)}, not {shown}"
        if isinstance(inst, str):
            close = difflib.get_close_matches(inst, [x for x in vv if isinstance(x, str)], n=1)
            if close:
                return path, msg + f"; did you mean '{close[0]}'?", False
        desc = sch.get("description") if isinstance(sch, dict) else None
        if desc:
            msg += f"; {str(desc).rstrip('.')}"
        return path, msg, False
    if v == "const":
        return path, f"{subject}must be {_show(vv)}, not {shown}", False
    bounds = {"minimum": "at least", "maximum": "at most",
              "exclusiveMinimum": "more than", "exclusiveMaximum": "less than"}
    if v in bounds:
        return path, f"{subject}must be {bounds[v]} {_show(vv)}, not {shown}", False
    counts = {"minItems": ("at least", "item", len), "maxItems": ("at most", "item", len),
              "minLength": ("at least", "character", len),
              "maxLength": ("at most", "character", len),
              "minProperties": ("at least", "field", len),
              "maxProperties": ("at most", "field", len)}
    if v in counts:
        bound, unit, size = counts[v]
        have: int | str
        try:
            have = size(inst)
        except TypeError:
            have = "?"
        return path, f"{subject}must have {bound} {_plural(vv, unit)}, not {have}", False
    if v == "uniqueItems":
        return path, f"{subject}must not list the same item twice", False
    if v == "multipleOf":
        return path, f"{subject}must be a multiple of {_show(vv)}, not {shown}", False
    if v == "pattern":
        desc = sch.get("description") if isinstance(sch, dict) else None
        if desc:
            return (path, f"{subject}{shown} is not in the expected form: "
                          f"{str(desc).rstrip('.')}", False)
        return path, f"{subject}{shown} is not in the expected form (pattern {vv})", False
    if v == "format":
        desc = sch.get("description") if isinstance(sch, dict) else None
        extra = f": {str(desc).rstrip('.')}" if desc else ""
        return path, f"{subject}{shown} is not a valid {vv}{extra}", False
    if v in ("oneOf", "anyOf"):
        alternatives = _required_alternatives(vv, inst)
        if alternatives:
            fields = " or ".join(f"field '{format_path(path + (name,))}'"
                                 + (f" ({desc})" if desc else "")
                                 for name, desc in alternatives)
            return path, f"{fields} is missing; add one of them", False
        if v == "oneOf" and not error.context:
            return (path, f"{subject}matches more than one of the allowed forms; make it match "
                          "exactly one", False)
        forms = "; or ".join(_describe(s) for s in vv)
        return path, f"{subject}must be one of these forms: {forms}", False
    if v == "not":
        return path, f"{subject}this value is not allowed here", False
    if v is None or sch is False:
        return path, f"{subject}this field is not allowed here", True
    if v == "dependentRequired":
        return path, f"{subject}{error.message}", False
    return path, f"{subject}{error.message}", False


def _required_alternatives(alternatives: YamlValue,
                           inst: YamlValue) -> list[tuple[str, str]]:
    """For a oneOf/anyOf whose forms each only require one field that ``inst`` lacks (a move
    needs ``play`` or ``red_token``): (field, description) of each form; otherwise []."""
    found = []
    for form in alternatives:
        if not (isinstance(form, dict) and isinstance(inst, dict)
                and set(form) <= {"required", "description"}
                and isinstance(form.get("required"), list) and len(form["required"]) == 1
                and form["required"][0] not in inst):
            return []
        found.append((form["required"][0], str(form.get("description", "")).rstrip(".")))
    return found


def to_input_error(loaded: Loaded, error: ValidationError) -> InputError:
    """jsonschema's ``error`` about ``loaded`` as one sentence for a player, placed at the field
    it concerns (a missing field at its parent mapping, an unknown field at its key)."""
    path, message, at_key = _sentence(loaded, error)
    hint = _hint(loaded, tuple(error.absolute_path), error) if not at_key else ""
    line, col = _position(loaded, path, key=at_key)
    return InputError(message + hint, source=loaded.source, line=line, column=col, path=path)


# ------------------------------------------------------------------------ integer spelling

_LEADING_ZERO = re.compile(r"[-+]?0[0-9_]+")
_PREFIXED = re.compile(r"[-+]?0[xXbBoO].*")


def _odd_int(text: str) -> bool:
    """Does this YAML 1.1 integer literal differ from its plain decimal digits (a leading zero,
    a 0x/0b prefix, base 60, underscores, or a plus sign)?"""
    return bool(_LEADING_ZERO.fullmatch(text) or _PREFIXED.fullmatch(text) or ":" in text
                or "_" in text or text.startswith("+"))


def _odd_int_advice(text: str, value: YamlValue) -> str:
    shown = clip(text)
    if ":" in text:
        return (f"YAML reads {shown} as the base-60 number {_show(value)}: write {_show(value)}, "
                f"or '{shown}' in quotes for text")
    if _PREFIXED.fullmatch(text) or not _LEADING_ZERO.fullmatch(text):  # 0x1F, 0b11, 1_000
        return (f"YAML reads {shown} as the number {_show(value)}: write {_show(value)} as a "
                "plain decimal number")
    sign = "-" if text.startswith("-") else ""
    digits = clip(text.lstrip("+-").replace("_", "").lstrip("0") or "0")
    return (f"YAML reads {shown} as the octal number {_show(value)}: write {sign}{digits}, "
            "without the leading zero")


def check_integer_spelling(loaded: Loaded) -> None:
    """Raise :class:`InputError` at the first integer written with a leading zero, a 0x/0b
    prefix or in base 60 (see the module docstring); part of :func:`validate`."""
    for path, (text, tag) in loaded.scalars.items():
        if tag == TAG_INT and _odd_int(text):
            value = _lookup(loaded.data, path)
            line, col = _position(loaded, path)
            subject = f"field {format_path(path)}: " if path else ""
            raise InputError(subject + _odd_int_advice(text, value), source=loaded.source,
                             line=line, column=col, path=path)


def _lookup(data: YamlValue, path: FieldPath) -> YamlValue:
    for part in path:
        data = data[part]
    return data
