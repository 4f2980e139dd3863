"""Sealing moves to the referee with age, and opening sealed moves and encrypted files.

A game in a public repository (docs/git.md) keeps its secrets so: a move sealed to the referee's
recipient (its identity made by :func:`make_referee_identity`), each private view encrypted to
its player (:func:`rebis_pbm.app.views.write_encrypted_views`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, NamedTuple

from rebis_pbm.errors import Failed, InputError, UsageError
from rebis_pbm.files.atomic import PathLike, read_input, write_atomic
from rebis_pbm.files.names import DEFAULT_GAME, ENCRYPTED, SIGNATURE
from rebis_pbm.formats.filekinds import kind_of
from rebis_pbm.formats.yaml_reader import clip, load_yaml
from rebis_pbm.record import Record


def decrypt_file(path: PathLike, identity_file: PathLike) -> bytes:
    """The plain text of an age file (a view, a refusal, a sealed move) decrypted with
    ``identity_file`` (an SSH private key or an age identity file); ``-`` reads standard input.

    Raises:
        InputError: the file or the identity cannot be read, or the file is not encrypted to it.
    """
    from rebis_pbm.crypto.age import decrypt
    data, source = read_input(os.fspath(path), kind="view")  # a view's size cap
    return decrypt(data, identity_file, source)


def make_referee_identity(out: PathLike) -> str:
    """Write a fresh age identity for the referee to ``out`` (mode 0600; refuses to replace an
    existing file) and return its public recipient ``age1...``, which players seal moves to.
    The identity is a secret like the seed: in a public repository, a CI secret.

    Raises:
        Failed: ``out`` exists (exit 2, nothing written).
        OSError: it cannot be written.
    """
    from rebis_pbm.crypto.age import new_identity
    if os.path.lexists(out):
        raise Failed(f"{os.fspath(out)} exists; a new identity would lock out every move sealed "
                     f"to the old one, so nothing was written: give another file name")
    text, recipient = new_identity()
    write_atomic(out, text, mode=0o600)
    return recipient


def referee_recipient_of(game: PathLike, move_game: str | None = None) -> str:
    """The referee's age recipient as the game's public record or its YAML view shows it
    (``referee_recipient``, rebis-pbm/3 ``new --referee-recipient``). ``move_game``: the game id
    of the move to seal, which must be this game's.

    Raises:
        InputError: ``game`` cannot be read, is not a record or YAML view (a text view is
            refused, naming what to give), is of another game, or shows no referee recipient
            (exit 2).
    """
    from rebis_pbm.crypto.age import checked_recipient
    doc, source = _sealing_game(game, move_game)
    recipient = doc.get("referee_recipient")
    if not isinstance(recipient, str):
        raise InputError(f"game {clip(doc['game'])} has no referee recipient (it was created "
                         f"without new --referee-recipient); give the one the referee published "
                         f"with --to", source=source)
    return checked_recipient(recipient, source)


def _sealing_game(game: PathLike, move_game: str | None) -> tuple[dict[str, Any], str]:
    """The document of ``game`` (a record or a YAML view) that ``seal`` reads, and its name.

    Raises:
        InputError: unreadable, a text view or anything else than a record or YAML view, or
            of another game than ``move_game`` (exit 2).
    """
    data, source = read_input(os.fspath(game), kind="record")
    wrong = ("this is neither the game's record nor its YAML view (a text view, NAME.txt, "
             "cannot be read); give the record (game.yaml) or the public YAML view "
             "(game.views/public.yaml) with --game, or the referee's recipient with --to")
    try:
        doc = load_yaml(data, source=source, kind="record").data
    except InputError:
        raise InputError(wrong, source=source) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("game"), str):
        raise InputError(wrong, source=source)
    if move_game is not None and doc["game"] != move_game:
        raise InputError(f"this is game {clip(doc['game'])}, but the move is for game "
                         f"{clip(move_game)}; give that game's record or view", source=source)
    if kind_of(doc) == "record":
        # An edited header could name a recipient of the editor's choosing: the header digest
        # is what the players' signed joins and the chain pin (docs/audit.md).
        from rebis_pbm.record.codec import parse_record
        from rebis_pbm.record.verify import check_header
        if check_header(parse_record(data, source)) is not None:
            raise InputError("the record's header does not match its header digest "
                             "(header_sha256): it was edited, so the referee recipient it names "
                             "cannot be trusted; take the record from the game's repository "
                             "again, or give the recipient the referee published with --to",
                             source=source)
    return doc, source


def _check_sealing_key(game: PathLike, move: object, data: bytes, signature: bytes,
                       ssh_key: PathLike, move_game: str | None) -> None:
    """Refuse to seal a move signed with a key that is not its mover's: the key the record
    ``game`` registers for the move's player (or, for a join that brings a key, that key).
    ``move_game``: the move's game id, which ``game`` must be (None: any; a record of another
    game is then not checked).
    A YAML view shows no keys: nothing is checked then, nor for a player the record gives no
    key (the referee ignores their signatures). Fingerprints are said as ``ssh-keygen -l``
    prints them (``SHA256:...``).

    Raises:
        InputError: the signature's key is not the mover's, or the mover is not a player of
            the game (exit 2, naming ``ssh_key``).
    """
    from sshsig import check_signature

    from rebis_pbm.record import parse_record

    doc, source = _sealing_game(game, move_game)
    if "view" in doc or not isinstance(move, dict) or not isinstance(move.get("player"), str) \
            or doc["game"] != move.get("game"):
        return  # a view shows no keys; the referee refuses a move without a player or game
    record = parse_record(read_input(os.fspath(game), kind="record")[0], source)
    player = move["player"]
    if player not in record.players:
        raise InputError(f"this move is by {clip(player)}, who is not a player of game "
                         f"{record.game} ({', '.join(record.players)})", source=source)
    registered = record.player_keys(player)
    if not registered and isinstance(move.get("key"), str) and "join" in move:
        registered = tuple(" ".join(line.split()[:2]) for line in move["key"].splitlines()
                           if line.strip() and not line.startswith("#"))
    if not registered:
        return
    signer = check_signature(data, signature, namespace=SIGNATURE_NAMESPACE)
    if " ".join(signer.openssh_str().split()[:2]) in registered:
        return

    from rebis_pbm.record.audit import fingerprint  # as verify prints it, and ssh-keygen -l

    held = ", ".join(fingerprint(k) for k in registered)
    seat = record.players.index(player) + 1
    raise InputError(f"this key ({signer.sha256_str()}) is not {player}'s: game {record.game}'s "
                     f"record holds {held} for {player}, seat {seat}; sign {player}'s moves "
                     f"with {player}'s own key (nothing was written)", source=os.fspath(ssh_key))


class Sealed(NamedTuple):
    """What :func:`seal_move` wrote, and to whom."""

    written: list[str]  #: the files written: MOVE.yaml.age (and MOVE.yaml.sig.age)
    recipients: tuple[str, ...]  #: the age recipients (or SSH key lines) sealed to


def seal_move(move_path: PathLike, to: Sequence[str], ssh_key: PathLike | None = None,
              game: PathLike | None = None) -> Sealed:
    """Seal a move file for the referee. First the file is padded to 1024 bytes (a last YAML
    comment line, :func:`~rebis_pbm.crypto.age.padded_move`) and written back, so
    that every sealed move has the same length whatever it plays; with ``ssh_key``, the padded
    file is then signed with the standard ``ssh-keygen -Y sign -f KEY -n rebis-pbm`` (writing
    ``MOVE.yaml.sig``: the signature covers the padding); then the move is encrypted to ``to``
    (age recipients ``age1...`` or SSH public key lines) as ``MOVE.yaml.age``, and the
    signature as ``MOVE.yaml.sig.age`` (a signature in clear would let anyone test guesses of a
    closing play's face-down card against it). Returns the files written and the recipients
    (:class:`Sealed`), so that the player sees whom the move was sealed to. The plain move and
    signature stay where they are, for the player.

    Without ``to``, the recipient is the one the game shows (:func:`referee_recipient_of`):
    ``game``, the game's public record or its YAML view (default: :data:`DEFAULT_GAME` in the
    current folder, a player's clone of the game's repository). When the record is at hand
    (``game`` or game.yaml here), the signing key must be the one it registers for the move's
    player (:func:`_check_sealing_key`).

    Raises:
        InputError: the move file is unreadable, not YAML or longer than 1024 bytes, a
            recipient is not one, (without ``to``) the game's record or view cannot be read,
            shows none, or is a record whose header fails its digest, or the key is not the
            mover's (exit 2). Nothing is written then.
        UsageError: no ``to``, no ``game`` and no game.yaml here (option ``--to``).
        Failed: ``ssh-keygen`` is missing or refused to sign (its reason, exit 2).
    """
    import stat

    from rebis_pbm.crypto.age import encrypt_to, padded_move
    path = os.fspath(move_path)
    data, source = read_input(path, kind="move")
    doc = load_yaml(data, source=source, kind="move").data  # not YAML: refused before signing
    as_read, data = data, padded_move(data, source)  # age hides no length (docs/formats.md)
    # game.yaml here, when it is of another game than a move sealed --to: its keys not checked
    other_game_ok = game is None and bool(to)
    if game is None and os.path.exists(DEFAULT_GAME):
        game = DEFAULT_GAME
    move_game = doc.get("game") if isinstance(doc, dict) else None
    move_game = move_game if isinstance(move_game, str) else None
    if not to:
        if game is None:
            raise UsageError(f"give the referee's recipient with --to, or the game's record or "
                             f"view with --game (there is no {DEFAULT_GAME} here)", "--to")
        to = [referee_recipient_of(game, move_game)]
    files = [(path, data)]
    if ssh_key is not None:
        signature = ssh_sign(data, ssh_key, path)
        if game is not None:
            _check_sealing_key(game, doc, data, signature, ssh_key,
                               None if other_game_ok else move_game)
        files.append((path + SIGNATURE, signature))
    sealed = [(name + ENCRYPTED, encrypt_to(content, to)) for name, content in files]
    written = []
    # The padded move (its mode kept: a closing play's card is a secret) and its signature, in
    # clear, for the player: the pair a referee checks as it checks the sealed pair.
    if data != as_read and path != "-":
        write_atomic(path, data, mode=stat.S_IMODE(os.stat(path).st_mode))
    for name, content in files[1:]:
        write_atomic(name, content, mode=0o644)
    for name, content in sealed:
        write_atomic(name, content, mode=0o644)
        written.append(name)
    return Sealed(written, tuple(to))


SIGNATURE_NAMESPACE = "rebis-pbm"  # ssh-keygen -Y sign -n: what a move's signature is for


def ssh_sign(data: bytes, key: PathLike, what: str) -> bytes:
    """The armoured SSH signature of ``data`` (the bytes of the file ``what``) by the private
    ``key``, as ``ssh-keygen -Y sign -f KEY -n rebis-pbm`` writes it (docs/audit.md, "Signed
    moves"). The data goes on standard input and the signature comes on standard output:
    signing the file would keep a ``.sig`` left from an earlier version of it (ssh-keygen will
    not replace it, and says so only by asking).

    Raises:
        Failed: ``ssh-keygen`` is missing or refused to sign (exit 2).
    """
    import subprocess

    try:
        done = subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-f", os.fspath(key), "-n",
                               SIGNATURE_NAMESPACE], capture_output=True, input=data)
    except FileNotFoundError:
        raise Failed("ssh-keygen is not installed on this machine; install OpenSSH's client "
                     "to sign moves") from None
    if done.returncode != 0 or not done.stdout:
        said = done.stderr.decode("utf-8", "replace").strip()
        why = (said.splitlines() or ["no reason given"])[-1]
        raise Failed(f"ssh-keygen could not sign {what} with {os.fspath(key)}: {why}")
    return done.stdout


def check_referee_identity(record: Record, identity_file: PathLike | None) -> None:
    """Refuse a referee identity that is not the game's: in a game with a referee recipient
    (rebis-pbm/3 ``new --referee-recipient``), the identity given must be the one whose
    recipient the record holds, so that every move sealed to that recipient opens and no other
    does. Nothing to check without an identity or a recipient.

    Raises:
        Failed: the identity's recipient is another (exit 2); the identity names no secret.
        InputError: the identity cannot be read.
    """
    from rebis_pbm.crypto.age import age_recipients_of, identity_name
    wanted = record.referee_recipient
    if identity_file is None or wanted is None:
        return
    found = age_recipients_of(identity_file)
    if wanted not in found:
        raise Failed(f"the referee identity ({identity_name(identity_file)}) is not game "
                     f"{record.game}'s: the record's referee_recipient is {wanted}, and "
                     f"the identity's is {', '.join(found) or 'none (it is an SSH key)'}; give "
                     f"the identity keygen-referee wrote for this game (no move was read)")


def open_sealed_move(data: bytes, source: str, identity_file: PathLike | None,
                     recipient: str | None = None) -> tuple[bytes, str]:
    """A move as sent: when ``source`` ends with ``.age`` (a sealed move), its plain text
    decrypted with the referee's identity; else ``data`` as it is. Returns (the move's bytes,
    the name its checks see: ``source`` without ``.age``).

    Raises:
        UsageError: a sealed move and no identity (option ``--identity``, exit 2).
        InputError: it cannot be decrypted with that identity (exit 2): with the game's
            ``recipient`` (rebis-pbm/3), said as a move not sealed to it.
    """
    from rebis_pbm.crypto.age import decrypt
    if not source.endswith(ENCRYPTED):
        return data, source
    if identity_file is None:
        raise UsageError(f"{source} is a sealed move; give the referee's age identity to open "
                         f"it (--identity FILE or REBIS_PBM_AGE_IDENTITY)", "--identity")
    try:
        return decrypt(data, identity_file, source), source[:-len(ENCRYPTED)]
    except InputError as exc:
        if recipient is None or not exc.message.startswith("this file is not encrypted to"):
            raise
        raise InputError(f"this sealed move is not sealed to the game's referee recipient "
                         f"{recipient}; seal the move again with rebis-pbm seal, which takes the "
                         f"recipient from the game's record", source=exc.source) from None
