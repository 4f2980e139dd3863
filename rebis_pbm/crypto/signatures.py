"""Signed moves (rebis-pbm/2, docs/audit.md "Signed moves"): players' SSH public keys, the
signatures ``ssh-keygen -Y sign -n rebis-pbm`` makes over a move file's exact bytes, and the
sealing of a closing play's signed bytes until the reveal.

The SSH signature format (SSHSIG) is read and checked by the ``sshsig`` package, the keys and
ciphers are ``cryptography``'s; nothing here is home-made cryptography.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable

NAMESPACE = "rebis-pbm"  # ssh-keygen -Y sign -n rebis-pbm
# The referee's own (rebis-pbm/4, docs/audit.md): a player's signed move never passes for the
# referee's word, nor the other way round.
REFEREE_NAMESPACE = "rebis-pbm-referee"
SIGNED_DOMAIN = b"rebis-pbm/signed-move/v2"

# An armoured SSH signature block, as a mail's text may carry one (transports/mail.py).
ARMOUR = re.compile(r"-----BEGIN SSH SIGNATURE-----\s.*?-----END SSH SIGNATURE-----", re.S)


def parse_keys(text: str, source: str, *, skip_others: bool = False) -> tuple[str, ...]:
    """The public keys in ``text``: one OpenSSH public key line (``TYPE BASE64 [COMMENT]``), or
    several one a line as code hosts publish them (blank lines and ``#`` comments skipped).
    Returns each as ``TYPE BASE64`` (the comment dropped: it may name a person or a machine).
    The one reader of a player's SSH public key file (``new --key``, ``replace-player --key``,
    ``git apply --key``, a join's ``key:``).

    ``skip_others``: a line that is not a key this version can use is passed over rather than
    refused (a code host's NAME.keys may list ecdsa or security keys beside an ed25519 one).

    Raises:
        ValueError: no key, or (unless ``skip_others``) a line that is not a public key this
            version can check (ed25519 and rsa), naming ``source`` and the line.
    """
    from sshsig import PublicKey

    keys = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        try:
            if len(parts) < 2:
                raise ValueError("too short")
            PublicKey.from_openssh_str(f"{parts[0]} {parts[1]}")
        except (ValueError, NotImplementedError, TypeError):
            if skip_others:
                continue
            raise ValueError(f"{source}, line {number}: this is not an OpenSSH public key "
                             f"(ssh-ed25519 or ssh-rsa, as in a .pub file)") from None
        keys.append(f"{parts[0]} {parts[1]}")
    if not keys:
        raise ValueError(f"{source}: holds no ssh-ed25519 or ssh-rsa public key; give an OpenSSH "
                         f".pub file")
    return tuple(keys)


def fingerprint(key: str) -> str:
    """An OpenSSH public key line's fingerprint as ``ssh-keygen -l`` prints it:
    ``SHA256:`` and the unpadded base64 of the SHA-256 of the key's blob.

    >>> fingerprint("ssh-ed25519 "
    ...             "AAAAC3NzaC1lZDI1NTE5AAAAIHujRWGMKUn5Heaxd7hMTbqP2W0VNLWbvJDFuX+slAk/")
    'SHA256:X3HeLgaVTlIc+8Il6uTRgJQS/ZTaaKTr1XV1fWcHuzM'
    """
    import base64
    import hashlib

    blob = base64.b64decode(key.split()[1])
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def signed_by(data: bytes, signature: str | bytes, keys: Iterable[str],
              namespace: str = NAMESPACE) -> bool:
    """Whether ``signature`` (armoured SSHSIG) is a valid signature over ``data`` in
    ``namespace`` (a player's ``rebis-pbm``, or :data:`REFEREE_NAMESPACE`) by one of ``keys``
    (``TYPE BASE64`` lines). Only a signature in its canonical form counts, the one
    ``ssh-keygen -Y verify`` accepts too, embedding the key's own blob byte for byte
    (:func:`~rebis_pbm.crypto.sshsig_form.canonical_key`): any other spelling of a real
    signature reads as not signed. Never raises."""
    from sshsig import InvalidSignature, PublicKey, verify

    from rebis_pbm.crypto.sshsig_form import canonical_key

    try:
        keys = tuple(keys)
        # Only the canonical form (the one ssh-keygen -Y verify accepts too), signed by the
        # registered key's very blob: sshsig alone reads a malleated blob leniently.
        embedded = canonical_key(signature, namespace)
        if embedded is None or all(embedded != base64.b64decode(k.split()[1], validate=True)
                                   for k in keys):
            return False
        allowed = [PublicKey.from_openssh_str(k) for k in keys]
        verify(data, signature, allowed, namespace=namespace)
    except (InvalidSignature, ValueError, NotImplementedError, TypeError):
        return False
    except Exception:  # a damaged signature block must read as "not signed", not a traceback
        return False
    return True


def _cipher_key(secret: str, game: str, turn: int) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    info = SIGNED_DOMAIN + b"\n" + game.encode("utf-8") + b"\n" + str(turn).encode("ascii")
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(
        secret.encode("utf-8"))


_NONCE = bytes(12)  # each key seals one file only (one key per game and turn)


_PAD = 1024  # sealed payloads are padded to a multiple of this many bytes: the length tells nothing


def seal_signed(secret: str, game: str, turn: int, data: bytes, signature: str) -> str:
    """A closing play's signed move file and its signature, sealed together until the reveal.

    The signature is sealed too: in clear beside the player's public key it would let anyone
    test every card number against it (R8.1). The payload is the signature's length in decimal
    ASCII, LF, the signature (armoured text), the file's bytes, then NUL bytes up to a multiple
    of 1024 bytes, so the sealed length says nothing of the card either. Sealed with AES-256-GCM
    and a zero nonce under HKDF-SHA256(ikm = the game's secret, no salt, info =
    ``rebis-pbm/signed-move/v2`` LF game id LF turn), as base64. Deterministic: a replay writes
    the same record; each key seals one payload only (one key per game and turn).
    """
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    sig = signature.encode("utf-8")
    payload = str(len(sig)).encode("ascii") + b"\n" + sig + data
    payload += b"\0" * (-len(payload) % _PAD)
    sealed = AESGCM(_cipher_key(secret, game, turn)).encrypt(_NONCE, payload, None)
    return base64.b64encode(sealed).decode("ascii")


def open_signed(secret: str, game: str, turn: int, sealed: str) -> tuple[bytes, str] | None:
    """``(the file's bytes, its signature)`` that :func:`seal_signed` sealed, or None when
    ``secret`` does not open them (another game's secret, or an edited record)."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        payload = AESGCM(_cipher_key(secret, game, turn)).decrypt(
            _NONCE, base64.b64decode(sealed, validate=True), None)
        size, _, rest = payload.partition(b"\n")
        length = int(size.decode("ascii"))
        signature = rest[:length].decode("utf-8")
        return rest[length:].rstrip(b"\0"), signature
    except (InvalidTag, ValueError, UnicodeDecodeError):
        return None
