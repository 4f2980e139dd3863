"""Shared helpers for the CLI tests: run rebis-pbm in-process (click's CliRunner) or as the
installed console script in a subprocess, build games through the CLI, snapshot their files.

The fixtures that run the command line (``cli``, ``console_script``) are in conftest.py.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from rebis_pbm.cli import cli as cli_group

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
EXAMPLE_SEED = "rebis-pbm example game"   # scripts/make-example.py
EXAMPLE_PLAYERS = ("alice", "bob", "carol")
SEED_ENV = "REBIS_PBM_SEED"


@dataclass
class Outcome:
    """What one rebis-pbm run did: exit code, standard output, standard error."""

    code: int
    out: str
    err: str

    def one_error_line(self) -> str:
        """The single stderr line of a refused command (asserts there is exactly one, no
        traceback)."""
        assert "Traceback" not in self.err + self.out, self.err
        lines = self.err.splitlines()
        assert len(lines) == 1, f"expected one line on stderr, got {self.err!r}"
        assert lines[0].startswith("rebis-pbm: "), lines[0]
        return lines[0]

    def refused(self, code: int, words=(), prefix: str = "rebis-pbm: ") -> str:
        """Assert a refusal: exit ``code``, one stderr line starting with ``prefix`` and holding
        each of ``words``; returns the line."""
        assert self.code == code, (self.code, self.out, self.err)
        line = self.one_error_line()
        assert line.startswith(prefix), line
        for word in words:
            assert word in line, (word, line)
        return line


# ------------------------------------------------------------------------- running rebis-pbm

def run_inproc(*args, stdin: bytes | None = None, env: dict | None = None) -> Outcome:
    """rebis-pbm ARGS through click's CliRunner (the seed variable is cleared unless given)."""
    full_env = {SEED_ENV: None, **(env or {})}
    result = CliRunner().invoke(cli_group, [str(a) for a in args], input=stdin, env=full_env,
                                prog_name="rebis-pbm")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"rebis-pbm {args} raised {result.exception!r}") from result.exception
    return Outcome(result.exit_code, result.stdout, result.stderr)


def run_script(script: str, *args, stdin: bytes | None = None, env: dict | None = None,
               timeout: float = 60) -> Outcome:
    """The installed console script in a subprocess (the seed variable cleared unless given)."""
    full_env = {k: v for k, v in os.environ.items() if k != SEED_ENV}
    full_env.update(env or {})
    proc = subprocess.run([script, *[str(a) for a in args]], input=stdin or b"",
                          capture_output=True, env=full_env, timeout=timeout)
    return Outcome(proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"))


def _is_ours(script: Path) -> bool:
    """A console script whose interpreter is the one running the tests (so it runs this code)."""
    try:
        first = script.read_bytes().split(b"\n", 1)[0]
    except OSError:
        return False
    return first.startswith(b"#!") and Path(first[2:].decode().strip()).resolve() == \
        Path(sys.executable).resolve()


def _install_into_venv(base: Path) -> str:
    """Install this checkout (non-editable, like `make test`) into a fresh venv; the script path."""
    src = base / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (REPO / name).exists():
            shutil.copy2(REPO / name, src / name)
    for folder in ("rebis_pbm", "schemas"):
        shutil.copytree(REPO / folder, src / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                           "--no-deps", "--disable-pip-version-check", str(src)],
                          capture_output=True, text=True)
    script = venv / "bin" / "rebis-pbm"
    if proc.returncode != 0 or not script.exists():
        pytest.fail("could not install rebis-pbm to test its console script; run `make test`, "
                    f"or install the project first.\n{proc.stdout}\n{proc.stderr}")
    return str(script)


# ----------------------------------------------------------------------------- game folders

def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path -> bytes), with mode bits folded in.

    Hidden files are included too (a record's lock file ``.NAME.lock``, which exists only while
    a command holds it, or a temporary file), so a command that creates, fills or removes
    anything at all, or leaves a lock file behind, shows up as a difference.
    """
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            mode = path.stat().st_mode & 0o777
            files[f"{path.relative_to(folder)} {mode:o}"] = path.read_bytes()
    return files


_EXAMPLES_BUILT: dict[int, Path] = {}


def example_game(dest: Path, upto_turn: int | None = None) -> Path:
    """The bundled example game in ``dest`` (created); returns its record's path.

    Without ``upto_turn``: the finished game as shipped in examples/. With it: the game replayed
    through the CLI (`new` with the example's seed, then `apply` of each move file up to and
    including that turn); each such position is played once per session, then copied.
    """
    if upto_turn is None:
        dest.mkdir(parents=True, exist_ok=True)
        for name in ("game.yaml", "game.secret.yaml"):
            shutil.copy2(EXAMPLES / name, dest / name)
        shutil.copytree(EXAMPLES / "game.views", dest / "game.views")
        return dest / "game.yaml"
    if upto_turn not in _EXAMPLES_BUILT:
        folder = Path(tempfile.mkdtemp(prefix=f"rebis-example-{upto_turn}-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        game = new_game(folder, EXAMPLE_PLAYERS, EXAMPLE_SEED, "--game-id", "example")
        for path in sorted((EXAMPLES / "moves").glob("turn-*.yaml")):
            if int(path.name.split("-")[1]) <= upto_turn:
                outcome = run_inproc("apply", game, path)
                assert outcome.code == 0, outcome.err
        _EXAMPLES_BUILT[upto_turn] = folder
    shutil.copytree(_EXAMPLES_BUILT[upto_turn], dest, dirs_exist_ok=True)
    return dest / "game.yaml"


def restore(folder: Path, snap: dict[str, bytes]) -> None:
    """Put ``folder`` back as :func:`snapshot` saw it: same files, bytes and modes."""
    for key, data in snap.items():
        rel, mode = key.rsplit(" ", 1)
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
        path.chmod(int(mode, 8))
    for path in folder.rglob("*"):
        if path.is_file() and f"{path.relative_to(folder)} {path.stat().st_mode & 0o777:o}" \
                not in snap:
            path.unlink()


def new_game(folder: Path, players=("alice", "bob"), seed="cli tests", *extra) -> Path:
    """`rebis-pbm new` (in-process) in ``folder``; returns the record's path."""
    folder.mkdir(parents=True, exist_ok=True)
    game = folder / "game.yaml"
    args = ["new", game, *[a for p in players for a in ("--player", p)], "--insecure-seed",
            "--referee-deal", "--seed", seed, *extra]
    outcome = run_inproc(*args)
    assert outcome.code == 0, outcome.err
    return game


def move_doc(move, game_id: str) -> dict:
    """An engine Move as a move document for ``game_id``."""
    return {"game": game_id, **move.as_dict()}


def write_move(path: Path, doc: dict) -> Path:
    """Write a move document as a move file (JSON is YAML; keeps the test free of the dumper)."""
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return path


def apply_all(game: Path, docs, moves_dir: Path) -> None:
    """Apply move documents one by one (in-process), each must be accepted."""
    moves_dir.mkdir(parents=True, exist_ok=True)
    for doc in docs:
        path = write_move(moves_dir / f"turn-{doc['turn']:03d}.yaml", doc)
        outcome = run_inproc("apply", game, path)
        assert outcome.code == 0, (doc, outcome.err)


def game_id_of(game: Path) -> str:
    """The game id, read from the record with the project's own reader."""
    from rebis_pbm.app import open_game
    return open_game(game)[0].game


def clear_schema_caches() -> None:
    """Forget every schema rebis_pbm.formats.schemas has read, parsed or compiled (for tests that
    serve
    other schema files)."""
    from rebis_pbm.formats import schemas
    for cached in (schemas._parsed, schemas.load_schema, schemas._named_validator,
                   schemas._quick_check):
        cached.cache_clear()


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def without_salt(text: str) -> str:
    """A record or view without what a rebis-pbm/2 game's random salt changes: 64-hex digests
    and 32-hex salts (two runs of the same game differ in nothing else)."""
    import re

    return re.sub(r"\b[0-9a-f]{64}\b|\b[0-9a-f]{32}\b", "HEX", text)


def secret_of(secret_file: Path) -> str:
    """What ``REBIS_PBM_SEED`` holds for the game of ``secret_file``: ``SALT:SEED`` for a
    rebis-pbm/2 game, the seed alone for rebis-pbm/1."""
    from rebis_pbm.formats.yaml_reader import load_yaml
    from rebis_pbm.record import salted
    doc = load_yaml(secret_file.read_bytes(), source=str(secret_file), kind="secret").data
    return salted(doc["seed"], doc["salt"]) if "salt" in doc else doc["seed"]
