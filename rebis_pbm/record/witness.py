"""Witnesses: a saved view or mail holds the record's chain digest after its last move;
``verify --witness`` checks that the record still holds it (docs/audit.md, "What you must
trust, and what you need not").

* :func:`read_witnesses`: every witness in a saved view (YAML, JSON or text) or mail (.eml).
* :func:`check_witness`: whether a record holds a witness.
* :func:`check_witness_signature`: in a game with a referee key (rebis-pbm/4), whether its
  referee signed the witness; :func:`signed_witnesses`, of every witness a file holds.
* :func:`history_point`: the point of the history a player's command names, as their view
  shows it (``after D actions K``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from rebis_pbm.errors import InputError

if TYPE_CHECKING:
    from email.message import EmailMessage

    from rebis_pbm.record.model import Record

__all__ = ["WITNESS_LINE", "Witness", "check_witness", "check_witness_signature", "history_point",
           "other_header", "read_witnesses", "saved_texts", "signature_after", "signed_witnesses"]


class Witness(NamedTuple):
    """What a saved view or mail witnessed: game ``game`` had ``move`` moves recorded and its
    chain digest after the last entry was ``chain_sha256``; ``source`` names the file;
    ``signature``: the referee's armoured signature of the witness line that came with it
    (rebis-pbm/4, :func:`check_witness_signature`), or None; ``header``: the header digest it
    names (rebis-pbm/5 with a referee key), or None; ``refusal``: a point of the history a
    signed refusal names (:func:`rebis_pbm.record.refusals.refusal_witnesses`); ``actions``:
    how many logged actions the record held (rebis-pbm/6 with a referee key), or None."""

    game: str
    move: int
    chain_sha256: str
    source: str
    signature: str | None = None
    header: str | None = None
    refusal: bool = False
    actions: int | None = None


# in each language a text view is written in (present/text.py): English, French, Portuguese
WITNESS_LINE = re.compile(
    r"(?:Witness|T\u00e9moin\u00a0?|Testemunha): (?:game|partie|jogo) "
    r"(?P<game>[A-Za-z0-9][A-Za-z0-9_.-]{0,63}), (?:move|coup|lance) (?P<move>\d{1,6}), "
    r"chain_sha256 (?P<digest>[0-9a-f]{64})(?:, header_sha256 (?P<header>[0-9a-f]{64}))?"
    r"(?:, actions (?P<actions>\d{1,6}))?")


def read_witnesses(path: str) -> list[Witness]:
    """Every witness in a saved view (YAML, JSON or text) or a saved mail (.eml): in its bytes
    and in each of a mail's decoded parts, each once, in the order found. A mail may hold an
    older view beside the latest (quoted, or attached "for reference"): each must hold, so the
    first found cannot stand for the others.

    Raises:
        InputError: the file cannot be read or holds no witness (exit 2).
    """
    from rebis_pbm.files.atomic import read_input
    from rebis_pbm.formats.yaml_reader import load_yaml
    data, source = read_input(path, kind="witness")
    found: list[Witness] = []
    for text in saved_texts(data):
        try:
            doc = load_yaml(text, source=source, kind="view").data
            if not isinstance(doc, dict):
                raise ValueError("not a mapping")  # then the text's witness lines, if any
            w = doc.get("witness")
            if isinstance(w, dict) and {"game", "move", "chain_sha256"} <= set(w):
                signed, header = doc.get("witness_signature"), w.get("header_sha256")
                acts = w.get("actions")
                found.append(Witness(str(w["game"]), int(w["move"]), str(w["chain_sha256"]),
                                     source, signed if isinstance(signed, str) else None,
                                     None if header is None else str(header),
                                     actions=None if acts is None else int(acts)))
        except Exception:
            pass
        decoded = text.decode("utf-8", "replace")
        for line in WITNESS_LINE.finditer(decoded):
            found.append(Witness(line["game"], int(line["move"]), line["digest"], source,
                                 signature_after(decoded[line.end():]), line["header"],
                                 actions=None if line["actions"] is None
                                 else int(line["actions"])))
    if not found:
        raise InputError("holds no witness: give a view saved from rebis-pbm (YAML or text) or "
                         "a mail from the referee, which carry a line 'Witness: game ..., move "
                         "..., chain_sha256 ...'", source=source)
    return list(dict.fromkeys(found))  # a mail's text part is in its bytes and decoded


def saved_texts(data: bytes) -> list[bytes]:
    """The texts a saved file holds, as UTF-8: its bytes, and for a saved mail (.eml) each text
    part and attachment, decoded from its transfer encoding and its charset (UTF-16 too), a
    ``format=flowed`` part also with its soft line breaks joined (RFC 3676), an HTML part also
    as a reader sees it (tags left out, character references such as ``&#32;`` read): a
    witness or a statement a mail reader shows is read wherever the mail puts it."""
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
                    texts += [text.encode("utf-8") for text in _as_read(part, payload)]
    return list(dict.fromkeys(texts))


def _as_read(part: EmailMessage, payload: bytes) -> list[str]:
    """A text part as its reader sees it: in its charset; unflowed; an HTML part's text."""
    if part.get_content_maintype() != "text":
        return []
    try:
        text = payload.decode(part.get_content_charset() or "utf-8")
    except (LookupError, UnicodeDecodeError):
        text = payload.decode("utf-8", "replace")
    seen = [text]
    params = {str(k).lower(): str(v).lower() for k, v in part.get_params(failobj=[])[1:]}
    if params.get("format") == "flowed":  # RFC 3676: a line ending in a space goes on
        cut = "" if params.get("delsp") == "yes" else " "
        lines = [line[1:] if line.startswith(" ") else line  # space-stuffed
                 for line in text.replace("\r\n", "\n").split("\n")]
        joined = ""
        for line in lines:
            soft = line.endswith(" ") and line != "-- "
            joined += (line[:-1] + cut) if soft else line + "\n"
        seen.append(joined)
    if part.get_content_subtype() == "html":
        import html
        seen.append(html.unescape(re.sub(r"<[^>]*>", "", text)))
    return seen


def signature_after(text: str) -> str | None:
    """The armoured signature block right under a text view's witness line (blank space
    between them only; rebis-pbm/4), or None: its lines split at LF (or CRLF) only, with the
    spaces and tabs around each removed (the text's layout), each ended by LF."""
    from rebis_pbm.crypto.signatures import ARMOUR
    block = ARMOUR.search(text)
    if block is None or text[:block.start()].strip():
        return None
    # Lines split at LF only (a mail's CRLF read as LF): a CR, vertical tab, NEL... left in the
    # block keeps it refused, as ssh-keygen refuses it. Spaces and tabs around lines are the
    # text's layout (a quoted or indented view), not the armour's.
    lines = block.group(0).replace("\r\n", "\n").split("\n")
    return "\n".join(line.strip(" \t") for line in lines) + "\n"


def check_witness_signature(record: Record, witness: Witness) -> None:
    """In a game with a referee key (rebis-pbm/4 ``new --referee-key``), refuse a witness its
    referee did not sign (over :func:`~rebis_pbm.record.acts.witness_text` of the witness's own
    game, move and digest): anyone can write a witness line, so an unsigned one proves
    nothing. A game without a referee key takes every witness as before.

    A witness naming another header digest (rebis-pbm/5) is of another game of the same id:
    it says nothing about this record, whoever signed it. A rebis-pbm/6 witness's signed line
    also names its number of logged actions (``, actions K``), read back as the witness gives it.

    Raises:
        InputError: a witness of another header, no signature, or one that does not check
            against the game's referee key (exit 2: "not signed by this game's referee").
    """
    from rebis_pbm.crypto.signatures import REFEREE_NAMESPACE, signed_by
    from rebis_pbm.record.acts import witness_header, witness_text
    if witness.header is not None and witness.header != record.header_sha256:
        raise InputError(other_header("witness", witness.game, witness.header, record),
                         source=witness.source)
    key = record.referee_key
    if key is None:
        return
    header = witness_header(record)
    text = witness_text(witness.game, witness.move, witness.chain_sha256,
                        header if witness.header is not None or header else None,
                        witness.actions).encode("utf-8")
    if witness.signature is not None and signed_by(text, witness.signature, (key,),
                                                   namespace=REFEREE_NAMESPACE):
        return
    from rebis_pbm.crypto.signatures import fingerprint
    what = "carries no signature" if witness.signature is None else "carries a signature by " \
        "another key, or of another line"
    raise InputError(f"this witness (game {witness.game}, move {witness.move}) is not signed by "
                     f"this game's referee (key {fingerprint(key)}): it {what}, so it proves "
                     f"nothing about the record; give a view or mail the referee sent",
                     source=witness.source)


def signed_witnesses(record: Record,
                     witnesses: list[Witness]) -> tuple[list[Witness], list[InputError]]:
    """The witnesses of ``witnesses`` that ``record``'s referee signed
    (:func:`check_witness_signature`), each claim (game, move, digests) once, and one error for
    each claim no copy of which it signed. Copies of one claim (a mail's part in its raw bytes
    and decoded) stand together: one signed copy signs the claim, whatever a mangled copy
    carries."""
    claims: dict[tuple[str, int, str, str | None, int | None], list[Witness]] = {}
    for witness in witnesses:
        claims.setdefault((witness.game, witness.move, witness.chain_sha256, witness.header,
                           witness.actions), []).append(witness)
    held: list[Witness] = []
    errors: list[InputError] = []
    for copies in claims.values():
        failed: list[InputError] = []
        for witness in copies:
            try:
                check_witness_signature(record, witness)
            except InputError as error:
                failed.append(error)
            else:
                held.append(witness)
                break
        else:
            errors.append(failed[0])
    return held, errors


def other_header(what: str, game: str, header: str, record: Record) -> str:
    """The sentence for a witness or refusal (``what``) naming another header digest than
    ``record``'s: it is of another record of game id ``game``; this one's header differs."""
    return (f"this {what} is of another record of game {game} (header_sha256 {header}), not of "
            f"this one (header_sha256 {record.header_sha256}): another game of that id, or this "
            f"game's header was rewritten since; it says nothing about this record's entries")


def check_witness(record: Record, witness: Witness) -> str | None:
    """None when ``record`` holds ``witness`` (its digest at its move; rebis-pbm/6: the logged
    actions it counts, :func:`_check_actions`), else one sentence."""
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
        return _check_actions(record, witness)
    signed = (" (the witness carries the referee's signature: proof that the referee wrote "
              "that digest)" if witness.signature is not None and record.referee_key else "")
    return (f"{witness.source} saw chain digest {witness.chain_sha256} at move {witness.move}, "
            f"but the record holds another there: the record was rewritten since{signed}")


def _check_actions(record: Record, witness: Witness) -> str | None:
    """None when ``record``'s logged actions fit the number ``witness`` counts (rebis-pbm/6):
    when it was written the record held that many, each logged after at most its move, and a
    record only grows; so it holds at least that many logged after at most its move, and at
    most that many logged before its move (an act placed there since was put into the past
    the witness saw)."""
    if witness.actions is None:
        return None
    held = sum(1 for a in record.actions if int(a.get("after", 0)) <= witness.move)
    if held < witness.actions:
        return (f"{witness.source} saw game {record.game} with {witness.actions} logged actions "
                f"at move {witness.move}, but the record holds only {held} logged by then: acts "
                f"were cut off since")
    joins_seen = _joins_seen(record, witness)
    before = sum(1 for a in record.actions if _before(a, witness, joins_seen))
    if before <= witness.actions:
        return None
    return (f"{witness.source} saw game {record.game} with {witness.actions} logged actions at "
            f"move {witness.move}, but the record holds {before} logged before that move: acts "
            f"were put into the history it saw since")


def _joins_seen(record: Record, witness: Witness) -> int | None:
    """How many of the join phase's entries a witness of move 0 saw (its chain digest is the
    one after them), or None (a witness of a later move, or of no point of the join phase)."""
    if witness.move != 0:
        return None
    return next((j for j in range(len(record.joins) + 1)
                 if record.join_prev(j) == witness.chain_sha256), None)


def _before(act: dict[str, object], witness: Witness, joins_seen: int | None) -> bool:
    """Whether ``act`` was logged before the point ``witness`` saw, so that it existed when the
    witness was written: after fewer moves; or, at move 0, after fewer of the join phase's
    entries than the witness saw (``joins_seen``; rebis-pbm/5: the act's ``joins``)."""
    after, joins = act.get("after", 0), act.get("joins")
    if not isinstance(after, int):
        return False
    if after < witness.move:
        return True
    return joins_seen is not None and isinstance(joins, int) and joins < joins_seen


def history_point(record: Record) -> str:
    """The point of ``record``'s history a command sent now names (issue 27; docs/mail.md,
    "Commands"): ``after D actions K``, D the chain digest after its last entry (what a view's
    witness holds) and K the number of the referee's logged actions. Every move and every act
    changes it, so a signed ``away``, ``back`` or ``resign`` naming it is carried out once:
    sent again, it is stale (:func:`rebis_pbm.app.commands.check_point`)."""
    return f"after {record.last_digest()} actions {len(record.actions)}"
