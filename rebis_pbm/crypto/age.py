"""Encryption to a file's readers with age (https://age-encryption.org), through pyrage, the
maintained Python binding of the reference implementation: no cryptography of our own.

A game played in a public repository (docs/git.md, "A public repository") commits what only one
reader may see encrypted to that reader: a player's view and the reason a move of theirs was
refused, to the player's SSH public key; a sealed move, to the referee's age recipient (whose
identity is a CI secret like the seed). What this module writes is a standard binary age file:
``age -d -i ~/.ssh/id_ed25519 FILE`` decrypts it, as does ``rebis-pbm open FILE --identity KEY``.

* :func:`encrypt_to_ssh_keys` -- to SSH public key lines (``ssh-ed25519``, ``ssh-rsa``: the kinds
  age encrypts to; an ``ecdsa`` key is refused with a sentence saying so);
* :func:`encrypt_to_age` -- to an age X25519 recipient (``age1...``);
* :func:`encrypt_to` -- to a mix of both, as a person gives them (``--to``);
* :func:`decrypt` -- with an identity file: an unencrypted OpenSSH private key, or an age
  identity file (lines ``AGE-SECRET-KEY-1...``, ``#`` comments);
* :func:`new_identity` -- a fresh age X25519 identity file's text and its recipient;
* :func:`padded`, :func:`padded_move`, :func:`bucket` -- the padding every file is given before
  it is encrypted, because age hides a file's content but not its length (docs/formats.md,
  "Padding of encrypted files").

Every failure is an :class:`~rebis_pbm.errors.InputError` naming the file (or key) at fault and
what would be right (exit 2); nothing is written by this module.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeAlias

from rebis_pbm.errors import InputError

if TYPE_CHECKING:  # pyrage has no type hints: these name its classes (mypy reads them as Any)
    from pyrage import ssh, x25519

    Recipient: TypeAlias = "ssh.Recipient | x25519.Recipient"
    Identity: TypeAlias = "ssh.Identity | x25519.Identity"

__all__ = ["AGE_HEADER", "MOVE_PAD", "REFUSAL_PAD", "SSH_KINDS", "VIEW_PAD", "bucket",
           "checked_recipient", "decrypt", "encrypt_to",
           "encrypt_to_age", "encrypt_to_ssh_keys", "encryptable_key", "is_encrypted",
           "new_identity", "padded", "padded_move", "recipient_of"]

AGE_HEADER = b"age-encryption.org/v1\n"   # how every binary age file begins
ARMOR_HEADER = b"-----BEGIN AGE ENCRYPTED FILE-----"
SSH_KINDS = ("ssh-ed25519", "ssh-rsa")   # the SSH public keys age encrypts to
_SSH_PRIVATE = (b"-----BEGIN OPENSSH PRIVATE KEY-----", b"-----BEGIN RSA PRIVATE KEY-----")
_AGE_SECRET = "AGE-SECRET-KEY-1"
IDENTITY_BYTES_MAX = 1 << 20   # an identity file is a few lines; a key file a few kB

# age hides what a file says, not how long it is: each file is padded before it is encrypted
# (docs/formats.md, "Padding of encrypted files"). The largest view of a 2-4 player game with
# the default ruleset, 32-letter names and a 64-letter game id is under 10 kB (YAML; the text
# view, in any language, is shorter): every view of such a game is 16 KiB.
VIEW_PAD = 16 * 1024    # a private view (YAML and text): a multiple of this, the same for all
REFUSAL_PAD = 4 * 1024  # a refusal's reason: a multiple of this
MOVE_PAD = 1024         # a sealed move: exactly this (a longer move is refused by seal)
_MOVE_PADDING = re.compile(rb"(?:\A|(?<=\n))#\.*\n\Z")  # the line padded_move adds


def bucket(lengths: Iterable[int], size: int) -> int:
    """The smallest positive multiple of ``size`` (bytes) that holds the longest of ``lengths``
    plus a final line break: what every one of those files is padded to (:func:`padded`)."""
    longest = max(lengths, default=0) + 1
    return max(1, -(-longest // size)) * size


def padded(data: bytes, size: int) -> bytes:
    """``data`` padded to exactly ``size`` bytes for encryption: a line break if it does not end
    with one, then a last line of spaces ended by a line break (a lone line break when one byte
    is missing). YAML and text readers take the file as they take ``data``: a blank line at the
    end is nothing to them. ``data`` already ``size`` long is returned as it is.

    Raises:
        ValueError: ``data`` (with its final line break) is longer than ``size`` (use
            :func:`bucket` to choose ``size``).
    """
    if len(data) == size:
        return data
    if not data.endswith(b"\n"):
        data += b"\n"
    missing = size - len(data)
    if missing < 0:
        raise ValueError(f"{len(data)} bytes do not fit in {size}")
    return data + (b" " * (missing - 1) + b"\n" if missing else b"")


def unpadded(data: bytes) -> bytes:
    """``data`` without the padding :func:`padded` adds: a last line of spaces (and the lone line
    break of a one-byte padding) after the final line break. What ``rebis-pbm open`` prints;
    ``age -d`` gives the padded bytes, which read the same.

    >>> unpadded(padded(b"hand: [3]\\n", 64))
    b'hand: [3]\\n'
    """
    stripped = data.rstrip(b" \n")
    return stripped + b"\n" if stripped else data


def padded_move(data: bytes, source: str = "the move") -> bytes:
    """A move file's bytes padded to :data:`MOVE_PAD` (1024) bytes before it is signed and
    sealed, so that every sealed move has the same length whatever it plays: a line break if
    it does not end with one, then one YAML comment line ``#...`` of full stops ended by a line
    break (a lone line break when one byte is missing). A comment rather than spaces: the record
    keeps a public move's signed bytes as text, which a line of spaces would force into one
    quoted line. A padding line left by an earlier :func:`padded_move` (the file was sealed
    before, then edited) is dropped first, so padding twice gives the same bytes.

    Raises:
        InputError: the move, with its final line break, is longer than 1024 bytes (exit 2).
    """
    data = _MOVE_PADDING.sub(b"", data)
    if not data.endswith(b"\n"):
        data += b"\n"
    if len(data) > MOVE_PAD:
        raise InputError(f"this move is {len(data)} bytes long, and a sealed move is padded to "
                         f"{MOVE_PAD} bytes so that its length tells nothing: shorten it (its "
                         f"comments and blank lines can go) and seal it again", source=source)
    missing = MOVE_PAD - len(data)
    return data + (b"#" + b"." * (missing - 2) + b"\n" if missing >= 2 else b"\n" * missing)


def is_encrypted(data: bytes) -> bool:
    """Does ``data`` look like an age file (binary or ASCII-armoured)?"""
    return data.startswith(AGE_HEADER) or data.lstrip().startswith(ARMOR_HEADER)


def _ssh_recipient(line: str, source: str) -> ssh.Recipient:
    from pyrage import RecipientError, ssh

    kind = line.split(None, 1)[0] if line.split() else ""
    if kind not in SSH_KINDS:
        shown = kind or "an empty line"
        raise InputError(f"{shown!s} is not a key age can encrypt to: give an ssh-ed25519 or "
                         f"ssh-rsa public key (as in ~/.ssh/id_ed25519.pub)", source=source)
    try:
        return ssh.Recipient.from_str(" ".join(line.split()[:2]))
    except RecipientError as exc:
        raise InputError(f"this {kind} public key cannot be read ({exc}); give the whole line "
                         f"of the .pub file", source=source) from None


def _age_recipient(text: str, source: str) -> x25519.Recipient:
    from pyrage import RecipientError, x25519

    try:
        return x25519.Recipient.from_str(text.strip())
    except RecipientError:
        raise InputError(f"{text.strip()[:80]!r} is not an age recipient: one is 'age1' and 58 "
                         f"more letters and digits, as `rebis-pbm keygen-referee` prints",
                         source=source) from None


def checked_recipient(text: str, source: str = "the recipient") -> str:
    """``text`` as an age X25519 recipient ``age1...`` (surrounding blanks dropped), as
    ``rebis-pbm keygen-referee`` prints it.

    Raises:
        InputError: ``text`` is not an age recipient (exit 2).
    """
    return str(_age_recipient(text, source))


def encryptable_key(line: str, source: str = "the key") -> None:
    """Check that the SSH public key ``line`` is one age encrypts to (ssh-ed25519, ssh-rsa).

    Raises:
        InputError: it is of another kind (ecdsa, a sk- key) or unreadable (exit 2).
    """
    _ssh_recipient(line, source)


def _encrypt(data: bytes, recipients: list[Recipient]) -> bytes:
    import pyrage

    return bytes(pyrage.encrypt(data, recipients))


def encrypt_to_ssh_keys(data: bytes, keys: Sequence[str], source: str = "the key") -> bytes:
    """``data`` encrypted with age so that the private key of any of ``keys`` decrypts it.

    ``keys``: SSH public key lines (``ssh-ed25519 AAAA... comment`` or ``ssh-rsa ...``), at least
    one. ``source`` names where the keys come from, for messages. Returns a binary age file.

    Raises:
        InputError: no key, or a key of another kind (ecdsa, a sk- key) or unreadable (exit 2).
    """
    if not keys:
        raise InputError("no public key to encrypt to", source=source)
    return _encrypt(data, [_ssh_recipient(k, source) for k in keys])


def encrypt_to_age(data: bytes, recipient: str, source: str = "the recipient") -> bytes:
    """``data`` encrypted with age to an X25519 recipient ``age1...`` (the referee's, for a sealed
    move). Returns a binary age file.

    Raises:
        InputError: ``recipient`` is not an age recipient (exit 2).
    """
    return _encrypt(data, [_age_recipient(recipient, source)])


def encrypt_to(data: bytes, recipients: Iterable[str], source: str = "--to") -> bytes:
    """``data`` encrypted to each of ``recipients``: age recipients (``age1...``) or SSH public
    key lines, mixed as a person gives them.

    Raises:
        InputError: a recipient that is neither, or none (exit 2).
    """
    made = [_age_recipient(r, source) if r.strip().startswith("age1") else
            _ssh_recipient(r, source) for r in recipients]
    if not made:
        raise InputError("no recipient to encrypt to", source=source)
    return _encrypt(data, made)


IDENTITY_TEXT = "the identity given as text"  # how an identity given inline is named


def _given_as_text(identity_file: str | os.PathLike[str]) -> bool:
    """Whether ``identity_file`` is the identity itself rather than a file name: the text of an
    age identity file or of an SSH private key, as a CI secret holds it (REBIS_PBM_AGE_IDENTITY
    may hold either the file's name or its text, as REBIS_PBM_SEED holds the seed)."""
    return isinstance(identity_file, str) and (
        _AGE_SECRET in identity_file or "PRIVATE KEY-----" in identity_file)


def identity_name(identity_file: str | os.PathLike[str]) -> str:
    """How messages name an identity: its file name, or :data:`IDENTITY_TEXT` (never the
    secret itself)."""
    return IDENTITY_TEXT if _given_as_text(identity_file) else os.fspath(identity_file)


def _read_identity_file(identity_file: str | os.PathLike[str]) -> bytes:
    if _given_as_text(identity_file):
        return os.fspath(identity_file).strip().encode("utf-8") + b"\n"
    path = os.fspath(identity_file)
    try:
        with open(path, "rb") as f:
            data = f.read(IDENTITY_BYTES_MAX + 1)
    except OSError as exc:
        raise InputError(f"the identity file cannot be read ({exc.strerror or exc}); give your "
                         f"private key (e.g. ~/.ssh/id_ed25519) or an age identity file",
                         source=path) from None
    if len(data) > IDENTITY_BYTES_MAX:
        raise InputError("this is too big for a key file; give your private key (e.g. "
                         "~/.ssh/id_ed25519) or an age identity file", source=path)
    return data


def identities(identity_file: str | os.PathLike[str]) -> list[Identity]:
    """The age identities in ``identity_file``: an unencrypted OpenSSH private key (ed25519 or
    rsa), or an age identity file (``AGE-SECRET-KEY-1...`` lines; ``#`` comments and blank lines
    skipped); or the text of either itself, as a CI secret in an environment variable holds it.

    Raises:
        InputError: unreadable, a public key, a passphrase-protected key (pyrage cannot ask for
            the passphrase: ``age -d`` can), a key of a kind age does not use, or no identity.
    """
    from pyrage import IdentityError, ssh, x25519

    path = identity_name(identity_file)
    data = _read_identity_file(identity_file)
    stripped = data.lstrip()
    if stripped.startswith(_SSH_PRIVATE):
        try:
            return [ssh.Identity.from_buffer(data)]
        except IdentityError as exc:
            said = str(exc)
            if "decrypted" in said or "passphrase" in said.lower():
                raise InputError("this SSH key is protected by a passphrase, which rebis-pbm "
                                 "cannot ask for; decrypt with `age -d -i KEY FILE` instead",
                                 source=path) from None
            raise InputError(f"this SSH private key cannot be used by age ({said}); age takes "
                             f"ed25519 and rsa keys", source=path) from None
    text = data.decode("utf-8", "replace")
    if text.split(None, 1)[:1] and text.split(None, 1)[0] in (*SSH_KINDS, "ecdsa-sha2-nistp256"):
        raise InputError("this is a public key; give the private key (the same file name "
                         "without .pub)", source=path)
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not line.startswith(_AGE_SECRET):
            raise InputError("this line is neither an age identity (AGE-SECRET-KEY-1...) nor a "
                             "comment; give an SSH private key or an age identity file",
                             source=path, line=number)
        try:
            found.append(x25519.Identity.from_str(line))
        except IdentityError:
            raise InputError("this age identity is damaged (not a valid AGE-SECRET-KEY-1 key)",
                             source=path, line=number) from None
    if not found:
        raise InputError("this file holds no identity; give your private key (e.g. "
                         "~/.ssh/id_ed25519) or an age identity file", source=path)
    return found


def decrypt(data: bytes, identity_file: str | os.PathLike[str], source: str = "-") -> bytes:
    """The plain text of the age file ``data`` (named ``source`` in messages), decrypted with the
    identity in ``identity_file`` (see :func:`identities`).

    Raises:
        InputError: the identity file is at fault (named), or ``data`` is not an age file, is
            damaged, or is not encrypted to that identity (``source`` named; exit 2).
    """
    import pyrage

    keys = identities(identity_file)
    if not is_encrypted(data):
        raise InputError("this is not an age-encrypted file (it does not begin with "
                         "'age-encryption.org/v1')", source=source)
    try:
        return bytes(pyrage.decrypt(data, keys))
    except pyrage.DecryptError as exc:
        if "no matching keys" in str(exc).lower():
            raise InputError(f"this file is not encrypted to {identity_name(identity_file)} "
                             f"(none of its recipients is that key): it is someone else's",
                             source=source) from None
        raise InputError(f"this age file is damaged and cannot be decrypted ({exc})",
                         source=source) from None


def new_identity() -> tuple[str, str]:
    """A fresh age X25519 identity: (the identity file's text, as ``age-keygen`` writes it, and
    its public recipient ``age1...``). The text is a secret: write it with mode 0600."""
    from pyrage import x25519

    identity = x25519.Identity.generate()
    recipient = str(identity.to_public())
    return f"# public key: {recipient}\n{identity}\n", recipient


def age_recipients_of(identity_file: str | os.PathLike[str]) -> list[str]:
    """The recipients ``age1...`` of the X25519 identities in ``identity_file`` (none for an
    SSH key).

    Raises:
        InputError: as :func:`identities`.
    """
    from pyrage import x25519

    return [str(i.to_public()) for i in identities(identity_file)
            if isinstance(i, x25519.Identity)]


def recipient_of(identity_file: str | os.PathLike[str]) -> str:
    """The public recipient ``age1...`` of the first X25519 identity in ``identity_file``.

    Raises:
        InputError: as :func:`identities`, or the file holds an SSH key (its recipient is its
            .pub line).
    """
    from pyrage import x25519

    for identity in identities(identity_file):
        if isinstance(identity, x25519.Identity):
            return str(identity.to_public())
    raise InputError("this is an SSH key; its recipient is the line of its .pub file",
                     source=identity_name(identity_file))
