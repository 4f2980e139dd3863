"""Every file name and suffix rebis-pbm gives or looks for, declared once: the record, the
secret file, the views folder and the mail queue beside it, the record's lock file, move files
(``turn-NNN-NAME.yaml``), their signatures (``.sig``) and sealed files (``.age``).

>>> secret_path("games/game.yaml"), default_views_dir("game.yaml"), lock_path("g/game.yaml")
('games/game.secret.yaml', 'game.views', 'g/.game.yaml.lock')
>>> default_queue("games/game.yaml").as_posix(), move_file_name(7, "alice")
('games/game.mailq', 'turn-007-alice.yaml')
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Final, Union

if TYPE_CHECKING:  # imported where used: the commands that only read a game never load pathlib
    from pathlib import Path

__all__ = [
    "ANSWERS_FOLDER",
    "COMMANDS_FOLDER",
    "COMMAND_SUFFIX",
    "COMPANION",
    "DEFAULT_GAME",
    "ENCRYPTED",
    "MOVES_FOLDER",
    "MOVE_NAME",
    "PLAYERS_FOLDERS",
    "QUEUE_SUFFIX",
    "RECORD_SUFFIX",
    "SECRET_SUFFIX",
    "SIGNATURE",
    "VIEWS_SUFFIX",
    "command_file_name",
    "default_queue",
    "default_views_dir",
    "lock_path",
    "move_file_name",
    "secret_path",
]

PathLike = Union[str, "os.PathLike[str]"]

DEFAULT_GAME: Final = "game.yaml"  # the record at a game repository's top folder (docs/git.md)
RECORD_SUFFIX: Final = ".yaml"  # a record's name ends so; the files beside it replace it
SECRET_SUFFIX: Final = ".secret.yaml"  # the seed beside the record: game.yaml -> game.secret.yaml
VIEWS_SUFFIX: Final = ".views"  # the views folder beside the record: game.yaml -> game.views/
QUEUE_SUFFIX: Final = ".mailq"  # the mail queue (a Maildir) beside it: game.yaml -> game.mailq/
SIGNATURE: Final = ".sig"  # ssh-keygen -Y sign writes MOVE.yaml.sig (sealed: MOVE.yaml.sig.age)
ENCRYPTED: Final = ".age"  # the suffix of a file encrypted with age to its readers
# A move file's name as move_file_name() writes it (groups: turn, player, .age when sealed);
# a signature beside it (sealed with a sealed move) is its companion, read with it.
MOVE_NAME: Final = re.compile(r"turn-([0-9]+)-(.+?)\.yaml(\.age)?")
COMPANION: Final = re.compile(r"turn-[0-9]+-.+\.yaml\.sig(\.age)?")
# A game's folders in a git repository (docs/git.md) that its players write to, or the job
# answers them in: a record found there is nobody's game record (a player can push any file).
MOVES_FOLDER: Final = "moves"  # the players' move files
COMMANDS_FOLDER: Final = "commands"  # the players' command files, NAME-WORDS.txt
ANSWERS_FOLDER: Final = "answers"  # the job's answers to them
PLAYERS_FOLDERS: Final = (MOVES_FOLDER, COMMANDS_FOLDER, "refusals", ANSWERS_FOLDER)
COMMAND_SUFFIX: Final = ".txt"  # a command file's name ends so (docs/git.md, "Commands")


def _beside(record_path: PathLike, suffix: str) -> str:
    """``record_path`` with its ``.yaml`` replaced by ``suffix`` (added when it has none)."""
    folder, name = os.path.split(os.fspath(record_path))
    stem = name[:-len(RECORD_SUFFIX)] if name.endswith(RECORD_SUFFIX) else name
    return os.path.join(folder, stem + suffix)


def secret_path(record_path: PathLike) -> str:
    """Where ``new`` keeps the seed: ``game.yaml`` -> ``game.secret.yaml``."""
    return _beside(record_path, SECRET_SUFFIX)


def default_views_dir(record_path: PathLike) -> str:
    """``game.yaml`` -> ``game.views`` beside it."""
    return _beside(record_path, VIEWS_SUFFIX)


def default_queue(record_path: PathLike) -> Path:
    """``game.yaml`` -> ``game.mailq/`` beside it: the Maildir of messages waiting to be sent."""
    from pathlib import Path

    record = Path(record_path)
    stem = record.name[:-len(RECORD_SUFFIX)] if record.name.endswith(RECORD_SUFFIX) \
        else record.name
    return record.with_name(stem + QUEUE_SUFFIX)


def lock_path(record_path: PathLike) -> str:
    """The lock file used for ``record_path``: ``.<name>.lock`` in the same folder."""
    folder, name = os.path.split(os.fspath(record_path))
    return os.path.join(folder, f".{name}.lock")


def join_text_file_name(game: str, player: str) -> str:
    """The file in which ``rebis-pbm play`` keeps ``player``'s join text of a rebis-pbm/5 fair
    deal between the two rounds (mode 0600, beside the move file it writes; docs/shuffle.md):
    ``GAME-PLAYER.join-text``. Nobody else may see it before every commitment is in."""
    return f"{game}-{player}.join-text"


def command_file_name(game: str, player: str) -> str:
    """The file ``rebis-pbm play --command`` writes ``player``'s command line into (docs/play.md,
    "Commands"), beside the move files it writes: ``GAME-PLAYER-command.txt``."""
    return f"{game}-{player}-command{COMMAND_SUFFIX}"


def move_file_name(turn: int, player: str) -> str:
    """The name of the file that holds ``player``'s move for ``turn`` in a game played through
    git (docs/git.md): ``turn-007-alice.yaml``, the turn with at least three digits."""
    return f"turn-{turn:03d}-{player}.yaml"
