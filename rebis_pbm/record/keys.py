"""The keys a record holds, read as keys: every one an OpenSSH public key rebis-pbm can check.

A record whose key was edited into something else (a spectator's edit of a public record, a
file dropped in a league's folder) fails ``verify`` in one sentence (:func:`unreadable_key`),
before anything prints its fingerprint.
"""

from __future__ import annotations

from rebis_pbm.errors import one_line
from rebis_pbm.record.model import Record

__all__ = ["unreadable_key"]


def unreadable_key(record: Record) -> str | None:
    """Where ``record`` holds a key that is no OpenSSH public key rebis-pbm reads (the header's
    keys and ``referee_key``, a join's ``key``, a ``replace_player`` action's ``key``), in one
    sentence; None when every key reads (:func:`rebis_pbm.crypto.signatures.parse_keys`)."""
    from rebis_pbm.crypto.signatures import parse_keys
    found = [(f"the header's key of {player}", key)
             for player, keys in record.keys.items() for key in keys]
    if record.referee_key is not None:
        found.append(("the header's referee_key", record.referee_key))
    found += [(f"{join.player}'s join key", join.key) for join in record.joins if join.key]
    found += [(f"the key of the referee's logged action {number} (replace_player)",
               action["key"]) for number, action in enumerate(record.actions, 1)
              if "key" in action]
    for where, key in found:
        try:
            parse_keys(str(key), where)
        except Exception:
            return (f"{one_line(where)} is not an OpenSSH public key (TYPE BASE64, ssh-ed25519 "
                    f"or ssh-rsa): the record was edited")
    return None
