"""The record on disk: its text, written and read (docs/formats.md).

:func:`dump_record` writes a header comment (:data:`HEADER`) and YAML with a stable key order;
:func:`parse_record` reads and validates it against the record's JSON Schema.
"""

from __future__ import annotations

import marshal

from rebis_pbm.engine import State
from rebis_pbm.errors import InputError
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record.entries import MovesRead
from rebis_pbm.record.model import BEFORE_V3, Document, Record

HEADER = ("# Rebis game record, written by rebis-pbm: do not edit by hand.\n"
          "# Players: see your view; referee: rebis-pbm apply THIS_FILE MOVE.yaml\n")


def dump_record(record: Record, state: State | None, seed: str | None = None) -> str:
    """The record's text: a header comment, then YAML with a stable key order.

    ``seed``: the game's secret (``SALT:SEED``), which a rebis-pbm/3 record's ``record_hmac`` is
    computed with here, on every write (:meth:`Record.keyed`); a record that reveals its seed
    needs none. Older formats have no keyed record digest and ignore it.

    Raises:
        ValueError: a rebis-pbm/3 record without its seed (a programming error: every command
            that writes a record holds the seed).
    """
    key = seed if seed is not None else record.seed
    if record.format not in BEFORE_V3:
        if key is None:
            raise ValueError("a rebis-pbm/3 record is written with its seed: its record_hmac "
                             "is keyed by it")
        record = record.keyed(key)
    doc = record.to_dict(state)
    spliced = None if record.moves_read is None else _spliced(doc, record.moves_read)
    return HEADER + (spliced if spliced is not None else dump_yaml(doc))




_MOVES_KEY = "\nmoves:\n"


def moves_read(text: str, doc: Document) -> MovesRead | None:
    """The :class:`MovesRead` of a record's ``text`` whose data is ``doc`` (read by the strict
    reader's rules, :func:`~rebis_pbm.formats.yaml_reader.simple_data`), or None when its list
    of moves is not written as the writer writes it: in block style, after ``moves:`` at the
    left edge, one ``- `` there per entry, up to the next key of ``doc`` at the left edge (an
    empty list, ``moves: []``; any other layout: the writer then writes every entry)."""
    entries = doc.get("moves")
    keys = list(doc)
    start = text.find(_MOVES_KEY)
    if (not isinstance(entries, list) or not entries or start < 0 or keys[-1] == "moves"
            or text.find(_MOVES_KEY, start + 1) >= 0):
        return None
    start += len(_MOVES_KEY)
    # str.find, not a regular expression: this runs on every apply, over every byte of moves
    end = text.find(f"\n{keys[keys.index('moves') + 1]}:", start) + 1
    region = text[start:end]
    if end <= 0 or not region.startswith("- ") or region.count("\n- ") + 1 != len(entries):
        return None
    return MovesRead(region, entries)


def _spliced(doc: Document, read: MovesRead) -> str | None:
    """``dump_yaml(doc)`` with the entries ``read`` holds copied from its text; None when
    ``doc``'s first entries are not those (then every entry is written)."""
    moves = doc["moves"]
    known = len(read.entries)
    if not isinstance(moves, list) or len(moves) < known or not same_data(moves[:known],
                                                                           read.entries):
        return None
    text = dump_yaml({**doc, "moves": moves[known:]})
    if known == len(moves):
        at = text.find("\nmoves: []\n")
        return None if at < 0 else (text[:at] + _MOVES_KEY + read.text
                                    + text[at + len("\nmoves: []\n"):])
    at = text.find(_MOVES_KEY)
    return None if at < 0 else text[:at + len(_MOVES_KEY)] + read.text + text[at + len(_MOVES_KEY):]


def same_data(one: object, other: object) -> bool:
    """Are ``one`` and ``other`` the same plain data, types and key order included (``1`` is
    not ``true`` nor ``1.0``, ``{a: 1, b: 2}`` not ``{b: 2, a: 1}``), as ``json.dumps`` tells
    them apart? marshal's bytes (version 0: no references, no interning) tell the same at a
    fifth of the cost, for data of built-in types only: a mapping is compared key by key, and
    a value holding text of a subclass of str (the engine's enums) through json.

    >>> same_data({"zero": False}, {"zero": 0}), same_data([1, "a"], [1, "a"])
    (False, True)
    """
    if type(one) is dict and type(other) is dict:
        return list(one) == list(other) and all(same_data(one[key], other[key]) for key in one)
    try:
        return marshal.dumps(one, 0) == marshal.dumps(other, 0)  # type: ignore[arg-type]
    except ValueError:  # a str subclass: marshal writes built-in types only
        import json
        return json.dumps(one) == json.dumps(other)


def parse_record(data: bytes, source: str) -> Record:
    """Parse and validate a record's bytes.

    Raises:
        InputError: not YAML, another of rebis-pbm's files (a move, a view, a secret file: said
            so), not a valid record (schema), or a ruleset out of range.
    """
    from rebis_pbm.formats.filekinds import wrong_kind
    from rebis_pbm.formats.schemas import validate
    loaded = load_yaml(data, source=source, kind="record")
    misfiled = wrong_kind(loaded.data, "record")
    if misfiled:
        raise InputError(misfiled, source=source)
    validate(loaded, "record")
    doc = loaded.data
    assert isinstance(doc, dict)  # load_yaml reads only mappings
    try:
        return Record.from_dict(doc)
    except ValueError as exc:
        raise InputError(str(exc), source=source) from None
