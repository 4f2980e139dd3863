"""Witnesses: a saved view or mail holds the record's chain digest after its last move;
``verify --witness`` checks that the record still holds it (docs/audit.md, "What you must
trust, and what you need not").

* :func:`read_witness`: the witness in a saved view (YAML, JSON or text) or mail (.eml).
* :func:`check_witness`: whether a record holds a witness.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from rebis_pbm.errors import InputError

if TYPE_CHECKING:
    from rebis_pbm.record.model import Record

__all__ = ["WITNESS_LINE", "Witness", "check_witness", "read_witness"]


class Witness(NamedTuple):
    """What a saved view or mail witnessed: game ``game`` had ``move`` moves recorded and its
    chain digest after the last entry was ``chain_sha256``; ``source`` names the file."""

    game: str
    move: int
    chain_sha256: str
    source: str


# in each language a text view is written in (present/text.py): English, French, Portuguese
WITNESS_LINE = re.compile(
    r"(?:Witness|T\u00e9moin\u00a0?|Testemunha): (?:game|partie|jogo) "
    r"(?P<game>[A-Za-z0-9][A-Za-z0-9_.-]{0,63}), (?:move|coup|lance) (?P<move>\d{1,6}), "
    r"chain_sha256 (?P<digest>[0-9a-f]{64})")


def read_witness(path: str) -> Witness:
    """The witness in a saved view (YAML, JSON or text) or a saved mail (.eml).

    Raises:
        InputError: the file cannot be read or holds no witness (exit 2).
    """
    from rebis_pbm.files.atomic import read_input
    from rebis_pbm.formats.yaml_reader import load_yaml
    data, source = read_input(path, kind="witness")
    texts = [data]
    if re.match(rb"^[A-Za-z-]+: ", data) and b"\n\n" in data.replace(b"\r\n", b"\n"):
        import email
        from email import policy

        message = email.message_from_bytes(data, policy=policy.default)
        for part in message.walk():
            if part.get_content_maintype() == "text" or part.get_filename():
                payload = part.get_payload(decode=True)
                if isinstance(payload, bytes) and payload:  # decoded: bytes, or None
                    texts.append(payload)
    for text in texts:
        try:
            doc = load_yaml(text, source=source, kind="view").data
            w = doc.get("witness") if isinstance(doc, dict) else None
            if isinstance(w, dict) and {"game", "move", "chain_sha256"} <= set(w):
                return Witness(str(w["game"]), int(w["move"]), str(w["chain_sha256"]), source)
        except Exception:
            pass
        found = WITNESS_LINE.search(text.decode("utf-8", "replace"))
        if found:
            return Witness(found["game"], int(found["move"]), found["digest"], source)
    raise InputError("holds no witness: give a view saved from rebis-pbm (YAML or text) or a "
                     "mail from the referee, which carry a line 'Witness: game ..., move ..., "
                     "chain_sha256 ...'", source=source)


def check_witness(record: Record, witness: Witness) -> str | None:
    """None when ``record`` holds ``witness`` (its digest at its move), else one sentence."""
    if witness.game != record.game:
        return (f"{witness.source} is a witness of game {witness.game}, not of game "
                f"{record.game}")
    if witness.move == 0:
        held = {record.header_sha256} | {j.chain_sha256 for j in record.joins}
        ok = witness.chain_sha256 in held
    elif witness.move <= len(record.moves):
        ok = record.links[witness.move - 1].chain_sha256 == witness.chain_sha256
    else:
        return (f"{witness.source} saw game {record.game} at move {witness.move}, but the record "
                f"holds only {len(record.moves)} moves: it was cut short")
    if ok:
        return None
    return (f"{witness.source} saw chain digest {witness.chain_sha256} at move {witness.move}, "
            f"but the record holds another there: the record was rewritten since")
