"""The referee's key: found, checked against the game's, signing what the referee says.

rebis-pbm/4, docs/audit.md "The referee's signatures".

A game created with ``new --referee-key FILE`` records the key's public half in its header.
From then on every write of its record signs, with the real ``ssh-keygen -Y sign -n
rebis-pbm-referee`` and in one run of it, the witness of the record's last entry and each act of
the referee's that has no signature yet (:func:`signed_record`). The key file is given with
``--referee-key FILE`` or ``REBIS_PBM_REFEREE_KEY`` (a path), as the seed is given.
"""

from __future__ import annotations

import os

from rebis_pbm.errors import Failed, UsageError
from rebis_pbm.files.atomic import PathLike
from rebis_pbm.files.names import SIGNATURE
from rebis_pbm.record import Record

KEY_ENV = "REBIS_PBM_REFEREE_KEY"  # the referee's SSH private key file, e.g. a CI secret's path
OPTION = "--referee-key"


def referee_key_file(given: PathLike | None) -> str | None:
    """The referee's key file: ``given``, else ``$REBIS_PBM_REFEREE_KEY`` when set and not
    empty, else None."""
    if given is not None:
        return os.fspath(given)
    return os.environ.get(KEY_ENV) or None


def published_referee(given: str) -> str:
    """The fingerprint of the referee key a reader trusts (``verify --referee-pub``, ``league
    --referee-pub``): ``given`` is a fingerprint as ``ssh-keygen -l`` prints it (``SHA256:...``),
    or a file holding the referee's published public key line (``referee.pub``).

    Raises:
        UsageError: a fingerprint of the wrong form, a file that cannot be read or holds no
            OpenSSH public key line (option ``--referee-pub``, exit 2).
    """
    import re

    from rebis_pbm.crypto.signatures import fingerprint
    if given.startswith("SHA256:"):
        if not re.fullmatch(r"SHA256:[A-Za-z0-9+/]{43}", given):
            raise UsageError(f"{given} is not a key fingerprint: it reads SHA256: and 43 "
                             f"base64 characters, as ssh-keygen -l -f referee.pub prints it",
                             "--referee-pub")
        return given
    try:
        with open(given, encoding="utf-8") as handle:
            lines = handle.read(64 * 1024).split("\n")
    except (OSError, UnicodeDecodeError) as exc:
        from rebis_pbm.files.atomic import explain_os_error
        why = explain_os_error(exc) if isinstance(exc, OSError) else "it is not text"
        raise UsageError(f"{given}: the referee's public key cannot be read ({why}); give its "
                         f"file (referee.pub) or its fingerprint (SHA256:...)",
                         "--referee-pub") from None
    import base64
    import binascii

    words = next((line.split() for line in lines if line.strip()), [])
    try:
        if len(words) < 2 or not words[0].startswith(("ssh-", "ecdsa-", "sk-")):
            raise ValueError(given)
        base64.b64decode(words[1], validate=True)
        return fingerprint(" ".join(words[:2]))
    except (ValueError, binascii.Error):
        raise UsageError(f"{given} holds no OpenSSH public key line (ssh-ed25519 AAAA...): give "
                         f"the referee's published public key file or its fingerprint "
                         f"(SHA256:...)", "--referee-pub") from None


def public_key_of(key_file: PathLike) -> str:
    """The OpenSSH public key line (``TYPE BASE64``) of the private key in ``key_file``
    (read with ``cryptography``; the key is never copied anywhere).

    Raises:
        UsageError: the file cannot be read, is not an OpenSSH private key of a kind that
            signs (ed25519 or rsa), or has a passphrase (the referee signs unattended, like a
            CI job: option ``--referee-key``).
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

    name = os.fspath(key_file)
    try:
        with open(name, "rb") as handle:
            data = handle.read(64 * 1024)
    except OSError as exc:
        from rebis_pbm.files.atomic import explain_os_error
        raise UsageError(f"{name}: the referee key cannot be read: "
                         f"{explain_os_error(exc)}", OPTION) from None
    try:
        key = serialization.load_ssh_private_key(data, password=None)
    except TypeError:
        raise UsageError(f"{name}: the referee key has a passphrase, and the referee signs "
                         f"unattended; give a key without one (rebis-pbm keygen-referee --ssh "
                         f"FILE writes one)", OPTION) from None
    except (ValueError, NotImplementedError):
        raise UsageError(f"{name}: this is not an OpenSSH private key (ssh-keygen -t ed25519 "
                         f"writes one; rebis-pbm keygen-referee --ssh FILE too)",
                         OPTION) from None
    if not isinstance(key, (ed25519.Ed25519PrivateKey, rsa.RSAPrivateKey)):
        raise UsageError(f"{name}: the referee key must be an ed25519 (or rsa) key",
                         OPTION)
    line = key.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                         serialization.PublicFormat.OpenSSH).decode("ascii")
    return " ".join(line.split()[:2])


def sign_texts(key_file: PathLike, texts: list[str]) -> list[str]:
    """The armoured signatures of ``texts`` (each signed as its UTF-8 bytes) by the key in
    ``key_file``, in namespace ``rebis-pbm-referee``: one run of ``ssh-keygen -Y sign`` for all
    of them (it signs every file it is given), in a private temporary folder.

    Raises:
        Failed: ``ssh-keygen`` is missing or refused to sign (its reason, exit 2).
    """
    import subprocess
    import tempfile

    from rebis_pbm.crypto.signatures import REFEREE_NAMESPACE
    with tempfile.TemporaryDirectory(prefix="rebis-pbm-sign-") as folder:
        files = []
        for number, text in enumerate(texts):
            path = os.path.join(folder, f"{number}.txt")
            with open(path, "wb") as handle:
                handle.write(text.encode("utf-8"))
            files.append(path)
        try:
            done = subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-f", os.fspath(key_file),
                                   "-n", REFEREE_NAMESPACE, *files],
                                  capture_output=True, stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            raise Failed("ssh-keygen is not installed on this machine; install OpenSSH's client "
                         "to sign the referee's acts") from None
        signatures = []
        for path in files:
            try:
                with open(path + SIGNATURE, encoding="ascii") as handle:
                    signatures.append(handle.read())
            except OSError:
                said = done.stderr.decode("utf-8", "replace").strip()
                why = (said.splitlines() or ["no reason given"])[-1]
                raise Failed(f"ssh-keygen could not sign with the referee key "
                             f"{os.fspath(key_file)}: {why}; nothing was written") from None
    return signatures


def check_referee_key(record: Record, key_file: PathLike | None) -> str:
    """The key file to sign ``record``'s acts with: ``key_file`` (or ``$REBIS_PBM_REFEREE_KEY``),
    which must hold the private half of the record's ``referee_key``.

    Raises:
        UsageError: no key given (option ``--referee-key``), or as :func:`public_key_of`.
        Failed: the key is not the game's referee key (exit 2, nothing written).
    """
    path = referee_key_file(key_file)
    if path is None:
        raise UsageError(f"game {record.game} has a referee key, which signs every view's "
                         f"witness and every act of the referee's: give the key file with "
                         f"--referee-key FILE or {KEY_ENV} (nothing was written)", OPTION)
    found = public_key_of(path)
    if found != record.referee_key:
        from rebis_pbm.record.audit import fingerprint
        raise Failed(f"{path} is not game {record.game}'s referee key: its public key is "
                     f"{fingerprint(found)}, and the record's referee_key is "
                     f"{fingerprint(str(record.referee_key))}; nothing was written")
    return path


def signed_record(record: Record, key_file: PathLike | None) -> Record:
    """``record`` as it is to be written, signed by its referee (a game with a referee key;
    any other is returned as it is): each move the referee made for a player and each logged
    action that has no signature yet, and the witness of the last entry
    (:mod:`rebis_pbm.record.acts`), in one run of ``ssh-keygen``.

    Raises:
        as :func:`check_referee_key` and :func:`sign_texts`.
    """
    if record.referee_key is None:
        return record
    path = check_referee_key(record, key_file)
    from rebis_pbm.record.acts import action_text, move_act_text, record_witness, unsigned_acts
    moves, actions = unsigned_acts(record)
    texts = ([move_act_text(record, i) for i in moves] + [action_text(record, i) for i in actions]
             + [record_witness(record)])
    signatures = sign_texts(path, texts)
    return record.with_referee_signatures(
        dict(zip(moves, signatures, strict=False)),
        dict(zip(actions, signatures[len(moves):], strict=False)), signatures[-1])


def signed_refusal(record: Record, data: bytes, player: str | None, exit_code: int,
                   reason: str, key_file: PathLike | None = None) -> str | None:
    """The referee's signed statement of a refusal it sends (rebis-pbm/4, a game with a
    referee key; None for any other game, whose refusals are as before): the text of
    :func:`~rebis_pbm.record.acts.refusal_text` (the game, the point of its history, the
    SHA-256 of the refused file's bytes ``data``, the ``player`` who sent it, the exit code and
    the ``reason`` as sent), a line break and its armoured signature by the referee's key,
    made as the witnesses' are (:func:`sign_texts`). ``verify --refusal FILE`` checks it.

    Raises:
        as :func:`check_referee_key` and :func:`sign_texts`: a game with a referee key sends
            no unsigned refusal.
    """
    if record.referee_key is None:
        return None
    import hashlib

    from rebis_pbm.record.acts import refusal_text
    path = check_referee_key(record, key_file)
    text = refusal_text(record, hashlib.sha256(data).hexdigest(), player, exit_code, reason)
    return text + "\n" + sign_texts(path, [text])[0]


def make_referee_ssh_key(out: PathLike) -> str:
    """Write a fresh ed25519 SSH key pair for the referee to sign with (``new --referee-key``):
    the private key to ``out`` (mode 0600, no passphrase: the referee signs unattended) and the
    public key to ``out.pub``, by the real ``ssh-keygen -t ed25519``. Returns the public key
    line. The private key is a secret like the seed: in a public repository, a CI secret.

    Raises:
        Failed: ``out`` or ``out.pub`` exists (exit 2, nothing written), or ssh-keygen is
            missing or failed.
    """
    import subprocess

    name = os.fspath(out)
    for path in (name, name + ".pub"):
        if os.path.lexists(path):
            raise Failed(f"{path} exists; a new key would no longer match the games that "
                         f"record the old one, so nothing was written: give another file name")
    try:
        done = subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                               "rebis-pbm-referee", "-f", name],
                              capture_output=True, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise Failed("ssh-keygen is not installed on this machine; install OpenSSH's client "
                     "to make the referee's key") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip()
        raise Failed(f"ssh-keygen could not write {name}: "
                     f"{(said.splitlines() or ['no reason given'])[-1]}")
    return public_key_of(name)
