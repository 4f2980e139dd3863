"""Where a game's seed is kept until the end: the secret file or the environment.

Until the game ends the seed is kept out of the record, in a sidecar ``<name>.secret.yaml``
(mode 0600) or in the environment variable ``REBIS_PBM_SEED``; the last move's ``apply`` (or
``reveal`` for an abandoned game) writes it into the record, so that anyone can then check the
whole game (``rebis-pbm verify``).
"""

from __future__ import annotations

import os

from rebis_pbm.errors import SeedError
from rebis_pbm.files.atomic import read_input
from rebis_pbm.files.names import secret_path
from rebis_pbm.formats.yaml_reader import clip, load_yaml
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record.digests import commitment, salted, unsalted
from rebis_pbm.record.model import Record, check_relabelled

SEED_ENV = "REBIS_PBM_SEED"


def dump_secret(game: str, seed: str, fmt: str = "rebis-pbm/1") -> str:
    """The secret file's text: ``game`` and ``seed``; for rebis-pbm/2 (``seed`` is then
    ``SALT:SEED``) the seed and the salt as two fields."""
    doc = {"game": game, "seed": seed}
    if fmt != "rebis-pbm/1":
        doc["seed"], doc["salt"] = unsalted(seed)
    return ("# The seed of a Rebis game: keep it from the players until the game ends.\n"
            + dump_yaml(doc))


def find_seed(record_path: str | os.PathLike[str], record: Record) -> str:
    """The game's seed: revealed in the record, else ``REBIS_PBM_SEED`` if set, else the sidecar
    secret file.

    Raises:
        SeedError: no seed reachable, or the secret file is for another game.
        InputError: the secret file cannot be read.
    """
    if record.seed is not None:
        return record.seed
    env = os.environ.get(SEED_ENV)
    if env:
        if record.format != "rebis-pbm/1" and not _salted(env):  # the seed without its salt
            raise SeedError(f"{SEED_ENV} holds no salt: game {record.game} is a {record.format} "
                            f"game, whose secret is SALT:SEED, the salt: and seed: of its "
                            f"secret file joined by a colon (as game.secret.yaml holds them)")
        _check_seed_from(record, env, SEED_ENV, f"unset it, or set it to game {record.game}'s seed")
        return env
    path = secret_path(record_path)
    if not os.path.exists(path):
        raise SeedError(f"no seed for game {record.game}: {path} does not exist and {SEED_ENV} is "
                        f"not set; the referee who created the game keeps it")
    seed = read_secret(path, record)
    _check_seed_from(record, seed, path, "restore the secret file written by rebis-pbm new")
    return seed


def _salted(secret: str) -> bool:
    try:
        unsalted(secret)
    except ValueError:
        return False
    return True


def _check_seed_from(record: Record, seed: str, where: str, fix: str) -> None:
    """SeedError naming where ``seed`` came from unless it matches the record's commitment."""
    if commitment(record.format, seed) != record.seed_sha256:
        check_relabelled(record, seed, "the record")
        raise SeedError(f"the seed in {where} is not game {record.game}'s: it does not match the "
                        f"record's commitment (seed_sha256); {fix}")


def read_secret(path: str | os.PathLike[str], record: Record) -> str:
    """The seed in a secret file (``game: ID`` and ``seed: TEXT``) of ``record``'s game.

    Raises:
        SeedError: the file is not the secret of this game.
        InputError: the file cannot be read (worded like every file the tool reads, by
            :func:`rebis_pbm.files.atomic.read_input`), or is not YAML (one sentence with its
            position).
    """
    path = os.fspath(path)
    data, _ = read_input(path, kind="secret")
    loaded = load_yaml(data, source=path, kind="secret")
    doc = loaded.data
    assert isinstance(doc, dict)  # load_yaml reads only mappings
    if not isinstance(doc.get("seed"), str) or not doc["seed"] or doc.get("game") != record.game:
        other = doc.get("game")
        whose = (f"; it is the secret of game {clip(other)}"
                 if isinstance(other, str) and other != record.game else "")
        raise SeedError(f"{path} is not the secret of game {record.game} (it needs game: "
                        f"{record.game} and seed: TEXT){whose}")
    if isinstance(doc.get("salt"), str):  # rebis-pbm/2: the seed travels as SALT:SEED
        return salted(doc["seed"], doc["salt"])
    seed: str = doc["seed"]
    return seed
