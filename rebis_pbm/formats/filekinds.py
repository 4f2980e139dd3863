"""Which of rebis-pbm's own files a YAML document is, so that a file given in the wrong place
(a view sent as a move, a move or secret file given as the record, a record given as a view) is
named as what it is, in one sentence, instead of by the schema's first unknown field.

>>> kind_of({"game": "g", "turn": 3, "player": "ann", "play": {}})
'move'
>>> print(wrong_kind({"game": "g", "seed": "s"}, wanted="record"))
this is the game's secret seed file, not a game record; give the record (such as game.yaml)
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple

__all__ = ["FILE_KINDS", "KINDS", "MAX_BYTES", "MOVE_MAX_BYTES", "FileKind", "Kind", "ReadKind",
           "kind_of", "max_bytes", "wrong_kind"]

MOVE_MAX_BYTES: Final = 64 * 1024
MAX_BYTES: Final = 8 * 1024 * 1024  # records, secrets, views, config

# The files the strict reader reads (rebis_pbm.formats.yaml_reader.load_yaml's ``kind``).
ReadKind = Literal["move", "record", "secret", "view", "config", "key", "signature", "witness"]
# The files kind_of() tells apart.
Kind = Literal["record", "view", "move", "secret", "listing"]


class FileKind(NamedTuple):
    """One kind of file rebis-pbm reads, as its messages name it.

    ``called``: the file in a sentence about its size (``'a move file'``); ``example``: what
    such a file is, in the sentence of an empty file or one that is not a mapping (None: said
    from ``called``); ``told``: the file as :func:`wrong_kind` names it, given in the wrong
    place (None: never told apart); ``instead``: what to give instead when this kind was
    wanted (None: never asked for by :func:`wrong_kind`); ``max_bytes``: the size cap
    (None: not read by the strict reader, as a list of moves is only written).
    """

    called: str
    example: str | None
    told: str | None
    instead: str | None
    max_bytes: int | None


# The one table of file kinds (the strict reader's caps and wording, and wrong_kind's), in the
# order the reader's messages list them.
FILE_KINDS: Final[dict[str, FileKind]] = {
    "move": FileKind(
        "a move file",
        "a move file is a YAML mapping of fields, one 'name: value' per line, such as 'turn: 3'",
        "a move file",
        "send a move file, such as the view's move_template or one listed by rebis-pbm moves",
        MOVE_MAX_BYTES),
    "record": FileKind(
        "a game record", "a game record is a YAML mapping written by rebis-pbm", "a game record",
        "give the record (such as game.yaml)", MAX_BYTES),
    "secret": FileKind(
        "a secret file", "a secret file is a YAML mapping written by rebis-pbm",
        "the game's secret seed file", None, MAX_BYTES),
    "view": FileKind(
        "a view file", "a view file is a YAML mapping written by rebis-pbm",
        "a view (what a player sees of the game)",
        "give your own view (rebis-pbm view GAME --player NAME --format yaml)", MAX_BYTES),
    "config": FileKind(
        "a configuration file", "a configuration file is a YAML mapping of 'name: value' lines",
        None, None, MAX_BYTES),
    "key": FileKind("a public key file", None, None, None, MAX_BYTES),
    "signature": FileKind("a signature file", None, None, None, MAX_BYTES),
    "witness": FileKind(
        "a witness file", "a witness is a view file or a mail saved during the game", None, None,
        MAX_BYTES),
    "listing": FileKind(
        "a list of moves", None, "a list of moves (rebis-pbm moves --format json)", None, None),
}

# The kinds the strict reader reads, in the table's order.
KINDS: Final = tuple(name for name, kind in FILE_KINDS.items() if kind.max_bytes is not None)


def max_bytes(kind: str) -> int:
    """The size cap in bytes for files of ``kind`` (one of :data:`KINDS`); ValueError otherwise."""
    cap = FILE_KINDS[kind].max_bytes if kind in FILE_KINDS else None
    if cap is None:
        raise ValueError(f"unknown file kind {kind!r}; expected one of {', '.join(KINDS)}")
    return cap


def example(kind: str) -> str:
    """What a file of ``kind`` is, as the sentence of an empty file or one that is not a
    mapping says it (``'a move file is a YAML mapping of fields, ...'``)."""
    entry = FILE_KINDS[kind]
    return entry.example or f"{entry.called} is a YAML mapping"


def kind_of(doc: object) -> Kind | None:
    """The kind of rebis-pbm file ``doc`` (a YAML document's data) looks like, or None when it
    looks like none (the schema of the file wanted then says what is wrong).

    A record has ``format`` and ``moves``; a view ``view`` and ``players``; a secret file
    ``game`` and ``seed`` (and ``salt``) only; a move ``turn`` and ``player`` (a join move
    ``join``, a rebis-pbm/5 commitment ``commitment``); a list of moves is a list of documents
    with ``turn``.
    """
    if isinstance(doc, list):
        return "listing" if doc and all(isinstance(d, dict) and "turn" in d for d in doc) else None
    if not isinstance(doc, dict):
        return None
    if "moves" in doc and "format" in doc:
        return "record"
    if "view" in doc and "players" in doc:
        return "view"
    if "seed" in doc and set(doc) <= {"game", "seed", "salt"}:
        return "secret"
    if "player" in doc and not {"turn", "join", "commitment"}.isdisjoint(doc) \
            and "players" not in doc:
        return "move"
    return None


def wrong_kind(doc: object, wanted: Literal["record", "view", "move"]) -> str | None:
    """The sentence for ``doc`` given where a ``wanted`` file belongs, when it is another of
    rebis-pbm's files; None when it is the kind wanted, or no kind at all.

    Never quotes the document: a secret file's seed must not reach a message.
    """
    kind = kind_of(doc)
    if kind is None or kind == wanted:
        return None
    never = "never send it; " if kind == "secret" and wanted == "move" else ""
    return (f"this is {FILE_KINDS[kind].told}, not {FILE_KINDS[wanted].told}; {never}"
            f"{FILE_KINDS[wanted].instead}")
