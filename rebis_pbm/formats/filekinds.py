"""Which of rebis-pbm's own files a YAML document is, so that a file given in the wrong place
(a view sent as a move, a move or secret file given as the record, a record given as a view) is
named as what it is, in one sentence, instead of by the schema's first unknown field.

>>> kind_of({"game": "g", "turn": 3, "player": "ann", "play": {}})
'move'
>>> print(wrong_kind({"game": "g", "seed": "s"}, wanted="record"))
this is the game's secret seed file, not a game record; give the record (such as game.yaml)
"""

from __future__ import annotations

from typing import Literal

Kind = Literal["record", "view", "move", "secret", "listing"]

_NAMES: dict[str, str] = {
    "record": "a game record",
    "view": "a view (what a player sees of the game)",
    "move": "a move file",
    "secret": "the game's secret seed file",
    "listing": "a list of moves (rebis-pbm moves --format json)",
}

# What to give instead, by the kind that was wanted.
_WANTED: dict[str, str] = {
    "record": "give the record (such as game.yaml)",
    "view": "give your own view (rebis-pbm view GAME --player NAME --format yaml)",
    "move": "send a move file, such as the view's move_template or one listed by rebis-pbm moves",
}


def kind_of(doc: object) -> Kind | None:
    """The kind of rebis-pbm file ``doc`` (a YAML document's data) looks like, or None when it
    looks like none (the schema of the file wanted then says what is wrong).

    A record has ``format`` and ``moves``; a view ``view`` and ``players``; a secret file
    ``game`` and ``seed`` (and ``salt``) only; a move ``turn`` and ``player`` (a join move
    ``join``); a list of moves is a list of documents with ``turn``.
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
    if "player" in doc and ("turn" in doc or "join" in doc) and "players" not in doc:
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
    return f"this is {_NAMES[kind]}, not {_NAMES[wanted]}; {never}{_WANTED[wanted]}"
