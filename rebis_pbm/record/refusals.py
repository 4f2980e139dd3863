"""Signed refusals: in a game with a referee key (rebis-pbm/4), each refusal the referee sends
carries its signed statement (:func:`~rebis_pbm.record.acts.refusal_text`); ``verify
--refusal FILE`` tells one this game's referee signed from one it did not (docs/audit.md, "Who
can do what").

* :func:`read_refusals`: the signed statements in a saved refusal mail (.eml) or refusal file.
* :func:`check_refusal_signature`: whether the game's referee signed one;
  :func:`signed_refusals`: which of a file's statements it signed.
* :func:`refusal_witnesses`: the points of the history it names, checked as witnesses are.
* :func:`describe_refusal`: what a signed refusal says, for ``verify``'s report.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from rebis_pbm.errors import InputError, one_line

if TYPE_CHECKING:
    from rebis_pbm.record.model import Record
    from rebis_pbm.record.witness import Witness

__all__ = ["REFUSAL_STATEMENT", "Refusal", "check_refusal_signature", "describe_refusal",
           "read_refusals", "refusal_witnesses", "signed_refusals"]

_HEX = "[0-9a-f]{64}"
# The statement as refusal_text writes it (line ends as a mail may carry them).
REFUSAL_STATEMENT = re.compile(
    r"Referee's refusal: game (?P<game>[A-Za-z0-9][A-Za-z0-9_.-]{0,63}), move (?P<move>\d{1,6}), "
    rf"chain_sha256 (?P<chain>{_HEX})\r?\nheader_sha256 (?P<header>{_HEX})\r?\n"
    rf"file_sha256 (?P<file>{_HEX})\r?\nplayer (?P<player>[^\r\n]{{1,200}})\r?\n"
    r"exit (?P<code>\d{1,3})\r?\nreason (?P<reason>[^\r\n]{1,4000})")


class Refusal(NamedTuple):
    """A refusal's statement as read from ``source``: the game, its number of moves and last
    chain digest, its header digest, the refused file's SHA-256, the player who sent it (None
    when none), the exit code and the reason; ``text``: the statement as signed;
    ``signature``: the armoured signature under it, or None."""

    game: str
    move: int
    chain_sha256: str
    header_sha256: str
    file_sha256: str
    player: str | None
    exit_code: int
    reason: str
    text: str
    source: str
    signature: str | None


def read_refusals(path: str) -> list[Refusal]:
    """Every signed statement in a saved refusal: a mail (.eml) or the text of a refusal file
    (``rebis-pbm decrypt`` prints a public repository's ``refusals/turn-NNN-PLAYER.txt.age``),
    in its bytes and in each of a mail's decoded parts, each once, in the order found: a copy
    placed before the real one cannot hide it (:func:`signed_refusals`).

    Raises:
        InputError: the file cannot be read or holds no refusal statement (exit 2).
    """
    from rebis_pbm.files.atomic import read_input
    from rebis_pbm.record.witness import saved_texts, signature_after
    data, source = read_input(path, kind="witness")
    found: list[Refusal] = []
    for text in saved_texts(data):
        decoded = text.decode("utf-8", "replace")
        for said in REFUSAL_STATEMENT.finditer(decoded):
            reason = said["reason"].rstrip()
            player = said["player"].rstrip()
            statement = "\n".join(line.rstrip() for line in said.group(0).splitlines())
            found.append(Refusal(said["game"], int(said["move"]), said["chain"], said["header"],
                                 said["file"], None if player == "-" else player,
                                 int(said["code"]), reason, statement, source,
                                 signature_after(decoded[said.end():])))
    if not found:
        raise InputError("holds no refusal statement: give a refusal mail the referee sent, or "
                         "the text of a refusal file, which carry lines beginning \"Referee's "
                         "refusal: game ...\"", source=source)
    return list(dict.fromkeys(found))  # a mail's text part is in its bytes and decoded


def signed_refusals(record: Record, refusals: list[Refusal]) -> tuple[list[Refusal], list[str]]:
    """The statements of ``refusals`` (read from one file) that ``record``'s referee signed
    (:func:`check_refusal_signature`), each once, and one sentence naming each other statement
    as not signed: a copy beside a signed statement cannot undo it. Copies of one statement
    stand together (one signed copy signs its words, whatever a mangled or swapped signature
    beside it carries).

    Raises:
        InputError: none of them is signed by the game's referee (the first one's reason;
            exit 2).
    """
    held: dict[str, Refusal] = {}
    failed: dict[str, tuple[Refusal, InputError]] = {}
    for refusal in refusals:
        try:
            check_refusal_signature(record, refusal)
        except InputError as error:
            failed.setdefault(refusal.text, (refusal, error))
        else:
            held.setdefault(refusal.text, refusal)
    if not held:
        raise next(iter(failed.values()))[1]
    others = [f"{r.source} also holds a refusal statement (game {r.game}, move {r.move}, reason "
              f"{one_line(r.reason)}) that this game's referee did not sign: it proves nothing"
              for text, (r, _) in failed.items() if text not in held]
    return list(held.values()), others


def check_refusal_signature(record: Record, refusal: Refusal) -> None:
    """Refuse a refusal statement ``record``'s referee did not sign (over the statement's exact
    text, in the referee's namespace): anyone can type one. A game without a referee key signs
    no refusal, so none proves anything there.

    Raises:
        InputError: a refusal naming another header digest (of another game of that id), no
            referee key in the game, no signature, or one that does not check against the
            game's referee key (exit 2: "not signed by this game's referee").
    """
    from rebis_pbm.crypto.signatures import REFEREE_NAMESPACE, fingerprint, signed_by
    from rebis_pbm.record.witness import other_header
    if refusal.header_sha256 != record.header_sha256:
        raise InputError(other_header("refusal", refusal.game, refusal.header_sha256, record),
                         source=refusal.source)
    key = record.referee_key
    if key is None:
        raise InputError(f"game {record.game} has no referee key, so its referee signs no "
                         f"refusal: this one proves nothing about what the referee said",
                         source=refusal.source)
    if refusal.signature is not None and signed_by(refusal.text.encode("utf-8"),
                                                   refusal.signature, (key,),
                                                   namespace=REFEREE_NAMESPACE):
        return
    what = "carries no signature" if refusal.signature is None else "carries a signature by " \
        "another key, or of other words (an edited reason, file digest or player)"
    raise InputError(f"this refusal (game {refusal.game}, move {refusal.move}) is not signed by "
                     f"this game's referee (key {fingerprint(key)}): it {what}, so the referee "
                     f"never said it", source=refusal.source)


def refusal_witnesses(refusal: Refusal) -> list[Witness]:
    """The points of the history a signed refusal names, as witnesses the record must hold:
    its header digest (at move 0) and its last chain digest at its move."""
    from rebis_pbm.record.witness import Witness
    source = f"{refusal.source} (a refusal)"
    return [Witness(refusal.game, 0, refusal.header_sha256, source, refusal.signature,
                    refusal=True),
            Witness(refusal.game, refusal.move, refusal.chain_sha256, source,
                    refusal.signature, refusal=True)]


def describe_refusal(refusal: Refusal) -> str:
    """One sentence on what a signed refusal says, for ``verify``'s report."""
    who = refusal.player or "no player"
    return (f"{refusal.source} is a refusal signed by this game's referee, at move "
            f"{refusal.move}: the file of SHA-256 {refusal.file_sha256} sent by {who} was "
            f"refused (exit {refusal.exit_code}: {refusal.reason})")
