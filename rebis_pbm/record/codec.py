"""The record on disk: its text, written and read (docs/formats.md).

:func:`dump_record` writes a header comment (:data:`HEADER`) and YAML with a stable key order;
:func:`parse_record` reads and validates it against the record's JSON Schema.
"""

from __future__ import annotations

from rebis_pbm.engine import State
from rebis_pbm.errors import InputError
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record.model import BEFORE_V3, Record

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
    return HEADER + dump_yaml(record.to_dict(state))


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
