"""The canonical form of an armoured SSH signature (SSHSIG, OpenSSH's PROTOCOL.sshsig): the
byte layout ``ssh-keygen -Y sign`` writes, read strictly, so that rebis-pbm accepts no signature
``ssh-keygen -Y verify`` would refuse.

The ``sshsig`` package checks a signature's mathematics but reads its blob leniently: a length
field may claim more bytes than follow, and bytes after a field are ignored, so one real
signature has many spellings (docs/audit.md "Signed moves"). Here every length-prefixed string
must be exactly consumed and every field be as ``ssh-keygen`` writes it. This is parsing only:
no cryptography is done here.
"""

from __future__ import annotations

import base64
import binascii

BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
_MAGIC = b"SSHSIG"
_VERSION = 1
_HASHES = (b"sha256", b"sha512")  # the two ssh-keygen signs and verifies with
_RSA_SIGNATURES = (b"rsa-sha2-256", b"rsa-sha2-512")
_RSA_MIN_BITS = 1024  # ssh-keygen refuses a smaller rsa key (SSH_RSA_MINIMUM_MODULUS_SIZE)
_ED25519_KEY, _ED25519_SIGNATURE = 32, 64


class _Malformed(Exception):
    """The blob is not in the canonical form (caught in :func:`canonical_key`)."""


class _Reader:
    """SSH wire-format fields (RFC 4251 section 5) read from ``data``, in order, strictly."""

    __slots__ = ("at", "data")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, size: int) -> bytes:
        if size > len(self.data) - self.at:
            raise _Malformed("a field claims more bytes than follow")
        self.at += size
        return self.data[self.at - size:self.at]

    def uint32(self) -> int:
        return int.from_bytes(self.take(4), "big")

    def string(self) -> bytes:
        return self.take(self.uint32())

    def mpint(self) -> int:
        """A positive mpint in its minimal form (no leading zero byte unless the next byte's
        high bit needs it, never negative, never empty)."""
        raw = self.string()
        if not raw or raw[0] & 0x80 or (raw[0] == 0 and (len(raw) == 1 or not raw[1] & 0x80)):
            raise _Malformed("an mpint not in its minimal positive form")
        return int.from_bytes(raw, "big")

    def end(self) -> None:
        if self.at != len(self.data):
            raise _Malformed("bytes after the last field")


def armour_lines(text: str | bytes) -> list[str] | None:
    """The lines of an armoured signature, or None unless ``text`` is in the armour's accepted
    form, the one ``ssh-keygen -Y verify`` (OpenSSH 9.2) reads and no other: ASCII; lines ended
    by LF, the last one's end optional; no other control character anywhere (no CR, vertical
    tab, form feed, NUL, FS/GS/RS, NEL or Unicode line separator: ssh-keygen splits lines at LF
    only, and ``str.splitlines()`` would split at those too); the first line
    ``-----BEGIN SSH SIGNATURE-----`` and the last ``-----END SSH SIGNATURE-----`` exactly
    (ssh-keygen finds the first at the very start, the second right after an LF), nothing after.
    Between them spaces and tabs may stand anywhere (ssh-keygen skips them in the base64), and
    blank lines. A mail's CRLF line ends are read as LF before (:func:`recorded_armour`)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("ascii")
        except UnicodeDecodeError:
            return None
    if not text.isascii() or any((c < " " and c not in "\t\n") or c == "\x7f" for c in text):
        return None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the last line's end
    if len(lines) < 3 or lines[0] != BEGIN or lines[-1] != END:
        return None
    return lines


def recorded_armour(text: str | bytes) -> str | None:
    """An armoured signature as it came (a ``.sig`` file, a mail's block) in the form the record
    keeps and :func:`~rebis_pbm.crypto.signatures.signed_by` checks, else None: its CRLF line
    ends read as LF (a mail's; ssh-keygen 9.2 refuses a CR after the BEGIN line), then in the
    form of :func:`armour_lines`, each line ended by LF. A bare CR stays refused."""
    if isinstance(text, bytes):
        try:
            text = text.decode("ascii")
        except UnicodeDecodeError:
            return None
    lines = armour_lines(text.replace("\r\n", "\n"))
    return None if lines is None else "\n".join(lines) + "\n"


def dearmour(text: str | bytes) -> bytes | None:
    """The SSHSIG blob of an armoured signature, or None unless ``text`` is exactly the armour
    (:func:`armour_lines`) and its base64 canonical: padded, no character but the alphabet,
    spaces and tabs, unused bits zero."""
    lines = armour_lines(text)
    if lines is None:
        return None
    body = "".join(line.replace(" ", "").replace("\t", "") for line in lines[1:-1])
    try:
        blob = base64.b64decode(body, validate=True)
    except (binascii.Error, ValueError):
        return None
    if base64.b64encode(blob).decode("ascii") != body:
        return None  # non-zero unused bits or missing padding: another spelling of the blob
    return blob


def canonical_key(signature: str | bytes, namespace: str) -> bytes | None:
    """The public key blob embedded in ``signature`` (an armoured SSHSIG in ``namespace``)
    when the signature is in its canonical form, else None. Never raises.

    Canonical: :func:`dearmour` reads it; magic ``SSHSIG``, version 1; the public key, the
    namespace (``namespace``), the reserved field (empty), the hash (``sha256`` or ``sha512``)
    and the signature, each a string exactly consumed, nothing after. The public key blob:
    ``ssh-ed25519`` and one 32-byte string, or ``ssh-rsa`` and its minimal mpints e and n (at
    least 1024 bits), nothing after. The signature blob: its type (``ssh-ed25519``, or
    ``rsa-sha2-256``/``rsa-sha2-512`` for rsa) and one string of the key's signature size
    (64 bytes; the modulus's bytes), nothing after. Whether the signature checks is
    the ``sshsig`` package's to say (:func:`~rebis_pbm.crypto.signatures.signed_by`).
    """
    blob = dearmour(signature)
    if blob is None:
        return None
    try:
        return _canonical_key(blob, namespace.encode("utf-8"))
    except _Malformed:
        return None


def _canonical_key(blob: bytes, namespace: bytes) -> bytes:
    outer = _Reader(blob)
    if outer.take(len(_MAGIC)) != _MAGIC or outer.uint32() != _VERSION:
        raise _Malformed("not an SSHSIG version 1")
    key = outer.string()
    if outer.string() != namespace or outer.string() != b"" or outer.string() not in _HASHES:
        raise _Malformed("another namespace, a reserved field or an unknown hash")
    signature = outer.string()
    outer.end()
    public = _Reader(key)
    inner = _Reader(signature)
    kind = public.string()
    if kind == b"ssh-ed25519":
        size = len(public.string())
        if size != _ED25519_KEY or inner.string() != kind:
            raise _Malformed("an ed25519 key of another size, or another signature type")
        expected = _ED25519_SIGNATURE
    elif kind == b"ssh-rsa":
        public.mpint()  # e
        modulus = public.mpint()
        if modulus.bit_length() < _RSA_MIN_BITS or inner.string() not in _RSA_SIGNATURES:
            raise _Malformed("an rsa key too short, or another signature type")
        expected = (modulus.bit_length() + 7) // 8
    else:
        raise _Malformed("a key type this version does not check")
    public.end()
    if len(inner.string()) != expected:
        raise _Malformed("a signature of another size than the key's")
    inner.end()
    return key
