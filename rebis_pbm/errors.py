"""Every error rebis-pbm reports to a person, each carrying its exit code (docs/cli.md).

Each class says one thing went wrong, in one sentence for the person who can fix it, and how a
command ends because of it (:attr:`RebisError.exit_code`, as click's own exceptions carry
theirs). The command line prints ``rebis-pbm: <sentence>`` and exits with that code; a program
using the application layer (:mod:`rebis_pbm.app`) catches :class:`RebisError`, or one
class of it. The engine's :class:`~rebis_pbm.engine.IllegalMove` carries its code the same way
(exit 1); the engine imports nothing from here, so that it stays free of I/O and of this layer.

>>> int(CorruptRecord("game.yaml fails verification at turn 3").exit_code)
3
>>> exit_code_of(FileNotFoundError(2, "No such file")) == ExitCode.INPUT
True
>>> exit_code_of(KeyError("x")) is None
True
"""

from __future__ import annotations

from enum import IntEnum

from rebis_pbm.engine.phrases import Phrase


class ExitCode(IntEnum):
    """How a command ends (docs/cli.md): each code with its ``meaning`` (the command line's help
    and docs/cli.md's table say it in these words) and whether it ``changes_nothing`` on disk.

    >>> ExitCode.BUSY.meaning.startswith("busy"), ExitCode.BUSY.changes_nothing
    (True, True)
    """

    meaning: str
    changes_nothing: bool

    def __new__(cls, value: int, meaning: str, changes_nothing: bool = False) -> ExitCode:
        code = int.__new__(cls, value)
        code._value_ = value
        code.meaning = meaning
        code.changes_nothing = changes_nothing
        return code

    OK = 0, "done"
    REJECTED = 1, "move rejected by the rules (illegal, out of turn, stale, game over)", True
    INPUT = 2, "unreadable or schema-invalid input, or bad usage", True
    VERIFY = 3, "the game record fails verification", True
    BUG = 4, ("internal error (a bug; please report it), or a move recorded whose views could "
              "not be written (the message says how to repair)")
    # EX_TEMPFAIL of sysexits.h, "try again later": a mail system piping a message into
    # `mail in -` keeps it and delivers it again; not 1, which would blame the move's player.
    BUSY = 75, ("busy: another command held the record's lock for 30 s "
                "(REBIS_PBM_LOCK_TIMEOUT); try again later"), True
    INTERRUPTED = 130, "interrupted (Ctrl-C): run the same command again"  # the shell's Ctrl-C


class RebisError(Exception):
    """Base of the project's errors: ``str(e)`` is one sentence for a person.

    Attributes:
        exit_code: how a command that fails with it ends (an :class:`ExitCode`).
    """

    exit_code: int = ExitCode.INPUT


class InputError(RebisError, ValueError):
    """A file the tool was given cannot be used (exit 2).

    Attributes: ``source`` (str, the file name as the user gave it; ``'-'`` is shown as
    ``'<stdin>'``), ``line`` and ``column`` (1-based ints or None), ``path`` (tuple of
    mapping keys and list indexes, ``()`` for the whole file) and ``message`` (one sentence).
    ``str(e)`` is ``'SOURCE:LINE:COL: message'``, leaving out the parts that are None.

    >>> str(InputError("field 'turn' is missing", source="-", line=2, column=1))
    "<stdin>:2:1: field 'turn' is missing"
    """

    def __init__(self, message: str, *, source: str, line: int | None = None,
                 column: int | None = None, path: tuple[str | int, ...] = ()):
        self.source = "<stdin>" if source == "-" else source
        self.line = line
        self.column = column if line is not None else None
        self.path = tuple(path)
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"


class UsageError(RebisError, ValueError):
    """A command or function was called wrongly: an option's value, a name that is no player's
    (exit 2).

    Attributes:
        option: the option or argument at fault as the command line spells it (``--player``),
            or None; the command line names it before the sentence.
        phrase: the sentence as a translatable :class:`~rebis_pbm.engine.phrases.Phrase`, for
            a player who gave the value (a mail command) to read in their language; None when
            it is English only.
    """

    def __init__(self, message: str, option: str | None = None, *,
                 phrase: Phrase | None = None):
        super().__init__(message)
        self.option = option
        self.phrase = phrase


class SeedError(RebisError, ValueError):
    """The seed cannot be found, or does not match the record's commitment (exit 2)."""


class CorruptRecord(RebisError, ValueError):
    """The record parses but fails verification: a digest does not match, a move is out of turn
    or illegal at its point, the revealed seed is not the committed one... (exit 3)

    Attributes:
        problem: the first problem found (a :class:`rebis_pbm.record.Problem`: which turn and
            player, what was expected, what was found), or None.
    """

    exit_code = ExitCode.VERIFY

    def __init__(self, message: str, problem: object = None):
        super().__init__(message)
        self.problem = problem


class Refused(RebisError, ValueError):
    """A move refused for a reason its sender can fix: exit 1 (against the rules, stale, game
    over, or not the sender's own move) or 2 (unreadable, schema-invalid, another game).

    The message names the move's source and says nothing the move's player may not know, so the
    mail transport sends it back to them as it is.

    Attributes:
        reason: the engine's reason code when the rules refused the move (an
            :class:`~rebis_pbm.engine.Reason`), else None.
        phrase: the message as a translatable :class:`~rebis_pbm.engine.phrases.Phrase`
            (``message`` may then be omitted: it is the phrase in English), which the shells
            give the mover in their language (:func:`rebis_pbm.present.i18n.refusal`); None when the
            message is English only.
    """

    def __init__(self, message: str | None = None, exit_code: int = ExitCode.REJECTED,
                 reason: str | None = None, phrase: Phrase | None = None):
        super().__init__(str(phrase) if message is None else message)
        self.exit_code = exit_code
        self.reason = reason
        self.phrase = phrase


class Busy(RebisError, RuntimeError):
    """Another command held the record's lock too long: try again later (exit 75).

    Attributes: ``record`` (the record path as given), ``lock_file``, ``timeout`` (seconds).
    """

    exit_code = ExitCode.BUSY

    def __init__(self, record: str, lock_file: str, timeout: float):
        self.record, self.lock_file, self.timeout = record, lock_file, timeout
        super().__init__(f"another rebis-pbm command is updating {record}; try again in a moment "
                         f"(waited {timeout:g} s for the lock file {lock_file}; nothing changed)")


class Failed(RebisError):
    """Something the referee (or a player's own command) must act on, with the exit code it
    ends with: a file that cannot be written before anything changed (2), or a move recorded
    whose views could not be written (4: the message says how to repair).

    Attributes:
        phrase: the message as a translatable :class:`~rebis_pbm.engine.phrases.Phrase`, for a
            player's command to say in their language (``play --send``); None when English only.
    """

    def __init__(self, message: str | None = None, exit_code: int = ExitCode.INPUT, *,
                 phrase: Phrase | None = None):
        super().__init__(str(phrase) if message is None else message)
        self.exit_code = exit_code
        self.phrase = phrase


def one_line(text: str) -> str:
    """``text`` with every character that is not printable (a line break or control character
    quoted from a file) shown as its escape, such as ``\\n``: one line of plain text.

    >>> one_line("bad\\nvalue")
    'bad\\\\nvalue'
    """
    if text.isprintable():
        return text
    # the no-break spaces of French typography (present/i18n.py) are printable to a reader
    return "".join(c if c.isprintable() or c in "\u00a0\u202f" else repr(c)[1:-1]
                   for c in text)


def exit_code_of(exc: BaseException) -> int | None:
    """The exit code a command ends with because of ``exc``: its own ``exit_code`` (the
    project's errors, the engine's :class:`~rebis_pbm.engine.IllegalMove`), 2 for any OSError
    (a file; :func:`rebis_pbm.files.atomic.os_error_message` words it), None for anything else (a
    bug).
    """
    code = getattr(exc, "exit_code", None)
    if isinstance(code, int):
        return code
    if isinstance(exc, OSError):
        return ExitCode.INPUT
    return None
