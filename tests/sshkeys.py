"""Players' SSH keys and move signatures, made by the real ``ssh-keygen`` (Debian's
openssh-client, which .ci/run installs): the one place the tests make them; and their
malleated spellings (:func:`malleated`), with the standard tool's verdict on them."""

from __future__ import annotations

import base64
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

SSH_KEYGEN = shutil.which("ssh-keygen")
needs_ssh = pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen (openssh-client) is not "
                               "installed; .ci/run installs it")


def ssh_key(folder: Path, name: str, kind: str = "ed25519", passphrase: str = "") -> Path:
    """A new private key file ``folder/name`` (its public key beside it, ``name.pub``, with the
    comment ``name``); skips the test where ssh-keygen is missing."""
    if SSH_KEYGEN is None:
        pytest.skip("ssh-keygen (openssh-client) is not installed; .ci/run installs it")
    path = folder / name
    extra = ["-b", "2048"] if kind == "rsa" else []
    subprocess.run([SSH_KEYGEN, "-q", "-t", kind, *extra, "-N", passphrase, "-C", name,
                    "-f", str(path)], check=True, capture_output=True)
    return path


def ssh_sign(key: Path, data: bytes) -> bytes:
    """The armoured signature of ``data`` by ``key`` in rebis-pbm's namespace, as a player makes
    it: ``ssh-keygen -Y sign -f KEY -n rebis-pbm`` (docs/audit.md)."""
    return subprocess.run([SSH_KEYGEN or "ssh-keygen", "-q", "-Y", "sign", "-f", str(key),
                           "-n", "rebis-pbm"], input=data, capture_output=True, check=True).stdout


def ssh_verifies(public_key: Path, data: bytes, signature: str | bytes, folder: Path,
                 namespace: str = "rebis-pbm") -> bool:
    """Whether the standard tool takes ``signature`` over ``data`` by the key of the .pub file
    ``public_key``: ``ssh-keygen -Y verify -f ALLOWED -I signer -n NAMESPACE -s SIG``."""
    allowed, sig = folder / "allowed_signers", folder / "checked.sig"
    allowed.write_text("signer " + public_key.read_text(encoding="ascii"), encoding="ascii")
    sig.write_bytes(signature.encode("utf-8") if isinstance(signature, str) else signature)
    done = subprocess.run([SSH_KEYGEN or "ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I",
                           "signer", "-n", namespace, "-s", str(sig)], input=data,
                          capture_output=True)
    return done.returncode == 0


# The attacks on a real signature's spelling (the sixth finding of the thirteenth tester): each
# keeps the signature's mathematics, so a lenient reader of the SSHSIG blob still takes it.
# ssh-keygen -Y verify refuses the first five; it takes the last three, which rebis-pbm refuses
# anyway (it accepts the canonical form only).
REFUSED_BY_SSH_KEYGEN = ("inner-length", "trailing-byte", "outer-length", "inner-trailing",
                         "armour-junk")
MALLEATIONS = (*REFUSED_BY_SSH_KEYGEN, "reserved", "after-end", "rsa-mpint")

# The attacks on the armour's line ends (the fourteenth tester): the blob untouched, its lines
# separated by another character than LF, which str.splitlines() took as a line break.
# ssh-keygen -Y verify (OpenSSH 9.2) refuses each, and so does rebis-pbm.
ARMOUR_REFUSED_BY_SSH_KEYGEN = ("cr-only", "vt-after-begin", "fs", "nel", "u2028", "nul")
# Spellings ssh-keygen takes but rebis-pbm refuses (stricter: no control character but LF and
# tab inside the armour, nothing after the END line but its LF).
ARMOUR_STRICTER = ("vt-in-body", "cr-in-line", "space-after-end", "nul-after-end",
                   "blank-after-end")
# Spellings both take (ssh-keygen skips spaces, tabs and line ends inside the base64): rebis-pbm
# records them as sent.
ARMOUR_TAKEN = ("spaces", "tabs", "blank-lines", "one-line", "width-64", "no-final-lf")


def respelled_armour(signature: str | bytes, how: str) -> str:
    """``signature`` (armoured SSHSIG, as ssh-keygen wrote it, LF line ends) with the same blob
    and another armour, ``how`` (one of :data:`ARMOUR_REFUSED_BY_SSH_KEYGEN`,
    :data:`ARMOUR_STRICTER`, :data:`ARMOUR_TAKEN`, or ``crlf``: every LF as CRLF, as a mail
    carries it, which ssh-keygen 9.2 refuses as it is and rebis-pbm reads as LF)."""
    text = signature.decode("ascii") if isinstance(signature, bytes) else signature
    assert text.endswith("-----END SSH SIGNATURE-----\n"), "an armour as ssh-keygen writes it"
    lines = text.split("\n")[:-1]
    body = "".join(lines[1:-1])
    begin, end = lines[0], lines[-1]
    joined = {"cr-only": "\r", "fs": "\x1c", "nel": "\x85", "u2028": "\u2028",
              "crlf": "\r\n"}
    if how in joined:
        return joined[how].join(lines) + joined[how]
    if how == "vt-after-begin":  # the tester's: a vertical tab where the BEGIN line's LF was
        return text.replace("\n", "\v", 1)
    middle = {"vt-in-body": lambda b: [b[:20] + "\v" + b[20:]],
              "cr-in-line": lambda b: [b[:20] + "\r" + b[20:]],
              "nul": lambda b: [b[:20] + "\0" + b[20:]],
              "spaces": lambda b: ["  " + b[i:i + 70] + " " for i in range(0, len(b), 70)],
              "tabs": lambda b: ["\t" + b[i:i + 70] + "\t" for i in range(0, len(b), 70)],
              "blank-lines": lambda b: ["", b[:70], "", b[70:], ""],
              "one-line": lambda b: [b],
              "width-64": lambda b: [b[i:i + 64] for i in range(0, len(b), 64)]}
    if how in middle:
        return "\n".join([begin, *middle[how](body), end]) + "\n"
    after = {"space-after-end": "  \n", "nul-after-end": "\n\0", "blank-after-end": "\n\n",
             "no-final-lf": ""}
    if how in after:
        return "\n".join(lines) + after[how]
    raise ValueError(how)


def _unarmour(signature: str) -> bytes:
    lines = signature.strip().splitlines()
    return base64.b64decode("".join(lines[1:-1]))


def _armour(blob: bytes) -> str:
    text = base64.b64encode(blob).decode("ascii")
    return ("-----BEGIN SSH SIGNATURE-----\n"
            + "\n".join(text[i:i + 70] for i in range(0, len(text), 70))
            + "\n-----END SSH SIGNATURE-----\n")


def _fields(blob: bytes) -> list[tuple[int, int]]:
    """(offset of its length, length) of the SSHSIG blob's five strings: public key,
    namespace, reserved, hash, signature (after the magic and the version)."""
    at, found = 10, []
    for _ in range(5):
        size = struct.unpack(">I", blob[at:at + 4])[0]
        found.append((at, size))
        at += 4 + size
    return found


def malleated(signature: str | bytes, how: str) -> str:
    """``signature`` (armoured SSHSIG, as ssh-keygen wrote it) spelled otherwise, ``how``:
    ``inner-length`` one byte of the key blob's first inner length field changed (the
    tester's byte 30 for an ed25519 key); ``trailing-byte`` a byte after the blob;
    ``outer-length`` the signature string's length one more than its bytes; ``inner-trailing``
    that length one more and a byte after the signature blob; ``armour-junk`` a character
    that is not base64 in the armour; ``reserved`` a non-empty reserved field; ``after-end``
    text after the END line; ``rsa-mpint`` (rsa keys) the exponent with a needless leading zero.
    """
    text = signature.decode("ascii") if isinstance(signature, bytes) else signature
    blob = bytearray(_unarmour(text))
    fields = _fields(bytes(blob))
    if how == "inner-length":
        kind = struct.unpack(">I", blob[14:18])[0]
        blob[18 + kind + 1] ^= 0x04
    elif how == "trailing-byte":
        blob += b"\0"
    elif how in ("outer-length", "inner-trailing"):
        at, size = fields[4]
        blob[at:at + 4] = struct.pack(">I", size + 1)
        if how == "inner-trailing":
            blob += b"\0"
    elif how == "armour-junk":
        head, rest = text.split("\n", 1)
        return f"{head}\n!{rest}"
    elif how == "reserved":
        at, _ = fields[2]
        blob[at:at + 4] = struct.pack(">I", 1)
        blob[at + 4:at + 4] = b"x"
    elif how == "after-end":
        return text.strip() + "\nanything\n"
    elif how == "rsa-mpint":
        at, size = fields[0]
        key = bytes(blob[at + 4:at + 4 + size])
        kind = struct.unpack(">I", key[:4])[0]
        assert key[4:4 + kind] == b"ssh-rsa", "rsa-mpint needs an rsa signature"
        e_at = 4 + kind
        e_size = struct.unpack(">I", key[e_at:e_at + 4])[0]
        key = key[:e_at] + struct.pack(">I", e_size + 1) + b"\0" + key[e_at + 4:]
        blob[at:at + 4 + size] = struct.pack(">I", len(key)) + key
    else:
        raise ValueError(how)
    return _armour(bytes(blob))
