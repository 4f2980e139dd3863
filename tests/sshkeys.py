"""Players' SSH keys and move signatures, made by the real ``ssh-keygen`` (Debian's
openssh-client, which .ci/run installs): the one place the tests make them."""

from __future__ import annotations

import shutil
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
