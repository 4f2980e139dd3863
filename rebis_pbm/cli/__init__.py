"""The ``rebis-pbm`` command line: parses arguments, calls :mod:`rebis_pbm.app`, prints.

One module per command group: :mod:`.game` (``new``, ``apply``), :mod:`.read` (``view``,
``moves``, ``score``, ``schema``), :mod:`.check`, :mod:`.audit` (``verify``, ``reveal``),
:mod:`.bots` (``bot``, ``simulate``), :mod:`.mail`, :mod:`.git`, :mod:`.encryption` (``open``,
``seal``, ``keygen-referee``). Each is imported when one of its commands is run or listed, so
that ``view`` does not pay for defining ``new``'s options, nor mail for any other command's.

Every error is one sentence on standard error, ``rebis-pbm: ...``, and the exit code its
exception carries (:mod:`rebis_pbm.errors`, docs/cli.md); no traceback reaches a user.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import IO, Any, TypeVar

import click

from rebis_pbm.engine import IllegalMove
from rebis_pbm.errors import ExitCode, RebisError, UsageError, exit_code_of, one_line
from rebis_pbm.files.atomic import os_error_message

DEBUG_ENV = "REBIS_PBM_DEBUG"  # set: an internal error shows its traceback (for the referee)


def exit_codes_help(codes: Iterable[ExitCode] = ExitCode, width: int = 72) -> str:
    """The help's list of exit codes, from :class:`~rebis_pbm.errors.ExitCode` (their one
    declaration): a code a line (longer meanings wrapped under it), then which change nothing.
    ``\\b`` keeps click from re-wrapping it."""
    import textwrap

    codes = tuple(codes)
    lines = ["\b", "Exit codes:"]
    for code in codes:
        lines += textwrap.wrap(code.meaning, width, initial_indent=f"  {int(code):<2} ",
                               subsequent_indent=" " * 5, break_on_hyphens=False)
    unchanged = [str(int(code)) for code in codes if code.changes_nothing]
    said = ", ".join(unchanged[:-1]) + " and " + unchanged[-1] if len(unchanged) > 1 else \
        "".join(unchanged)
    return "\n".join([*lines, f"On {said} nothing on disk changes."])


EXIT_CODES = exit_codes_help()


class Failure(click.ClickException):
    """An error for the user: one sentence, an exit code, no traceback.

    Characters that are not printable (line breaks, control characters quoted from a file)
    are shown as escapes such as ``\\n``, so the message stays one line of plain text.
    """

    def __init__(self, message: str, exit_code: int):
        super().__init__(one_line(message))
        # click types exit_code as a class variable; a Failure carries its own, as click's Exit.
        self.exit_code = exit_code  # type: ignore[misc]

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"rebis-pbm: {self.format_message()}", err=True)


def _failure(exc: BaseException) -> Failure | None:
    """The sentence and exit code of one of the project's errors (or an OSError, worded by
    :func:`rebis_pbm.files.atomic.os_error_message`); None: a bug."""
    code = exit_code_of(exc)
    if code is None:
        return None
    if isinstance(exc, OSError) and not isinstance(exc, RebisError):
        return Failure(os_error_message(exc), code)
    if isinstance(exc, IllegalMove):
        return Failure(f"move rejected: {exc.message}", code)
    return Failure(str(exc), code)


class Command(click.Command):
    """A command whose :class:`~rebis_pbm.errors.UsageError` reads as click's own bad
    parameter (``Invalid value for '--player': ...``), naming the command's ``--help``."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            raise click.BadParameter(str(exc), ctx=ctx, param_hint=exc.option) from None


# click >= 8.2 reports a bare command group as this usage error; older versions print the help.
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


class Group(click.Group):
    """Turns the project's errors into one sentence and an exit code (never a traceback).

    Commands defined in other modules (:data:`LAZY_COMMANDS`) are imported only when one of them
    is run or listed (click's "lazily loading subcommands" pattern).
    """

    command_class = Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            import importlib

            importlib.import_module(LAZY_COMMANDS[cmd_name], __package__)  # registers it
        return super().get_command(ctx, cmd_name)

    def main(self, args: Any = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        # click prints a usage error as three lines (usage, hint, error); ours are one sentence.
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as exc:
            if not standalone_mode:
                raise
            if isinstance(exc, _NO_ARGS_IS_HELP):  # bare `rebis-pbm`: the help is the message
                click.echo(exc.format_message(), err=True)
                sys.exit(ExitCode.INPUT)
            hint = f"; see '{exc.ctx.command_path} --help'" if exc.ctx is not None else ""
            click.echo(f"rebis-pbm: {exc.format_message().rstrip('.')}{hint}", err=True)
            sys.exit(ExitCode.INPUT)
        except click.ClickException as exc:
            if not standalone_mode:
                raise
            exc.show()
            sys.exit(exc.exit_code)
        if standalone_mode:
            sys.exit(code if isinstance(code, int) else ExitCode.OK)
        return code

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt:
            # click would report "Aborted!" with exit 1, which reads as "move rejected".
            raise Failure("interrupted; every file is either fully written or untouched, so run "
                          "the same command again to finish (apply then says if the move was "
                          "already applied)", ExitCode.INTERRUPTED) from None
        except Exception as exc:  # the last line of defence: no traceback reaches a user
            failure = _failure(exc)
            if failure is None:
                if os.environ.get(DEBUG_ENV):
                    raise  # the referee asked for the traceback
                # The exception's text could quote game state (a hand, the deck): not shown.
                failure = Failure(f"internal error ({type(exc).__name__}); this is a bug in "
                                  f"rebis-pbm, please report it with the command you ran (set "
                                  f"{DEBUG_ENV}=1 to see the details)", ExitCode.BUG)
            raise failure from None


Group.group_class = Group  # subgroups (`mail`) report errors the same way


@click.group(cls=Group, epilog=EXIT_CODES, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rebis-pbm")
def cli() -> None:
    """Referee for the card game Rebis played by e-mail or through a git repository.

    A referee creates a game with `new`, then runs `apply` on each move file a player sends; every
    player reads their own view. See docs/ for the rules, the file formats and the shuffle.
    """


def main() -> None:
    """Console-script entry point."""
    try:
        cli.main(prog_name="rebis-pbm")
    except KeyboardInterrupt:
        click.echo("rebis-pbm: interrupted; run the same command again", err=True)
        sys.exit(ExitCode.INTERRUPTED)


F = TypeVar("F", bound=Callable[..., Any])  # a command's function, as click's decorators take it


def game_argument(f: F) -> F:
    """The GAME argument of the commands that take a record."""
    return click.argument("game", type=click.Path(dir_okay=False, readable=False))(f)


PICTURES_ENV = "REBIS_PBM_MAIL_PICTURES"  # =0: no picture in mail, e.g. on a cron line


def pictures_option(f: F) -> F:
    """``--pictures/--no-pictures`` (or REBIS_PBM_MAIL_PICTURES=0): whether the views' messages a
    command queues carry their picture (the default, docs/mail.md). The one definition of the
    option, its help and its environment variable, for every command that queues views (``mail
    in``, ``mail views``, ``tick``, ``git apply``); here, not in :mod:`.mail`, so that those
    commands need not import the mail commands for it."""
    return click.option("--pictures/--no-pictures", default=True, envvar=PICTURES_ENV,
                        show_envvar=True,
                        help="Whether the views' messages it queues carry the picture of the "
                        "table (an HTML part with an inline SVG, above the same text; the "
                        "default). Drawing it costs more than the rest of a move: --no-pictures "
                        f"(or {PICTURES_ENV}=0) leaves it out for speed.")(f)


def queue_option(f: F) -> F:
    """``--queue DIR`` (a ``Path``, or None for the default beside the record): the Maildir a
    command queues its messages in. The one definition for the commands that queue beside a
    game (``mail in``, ``mail views``, ``mail out``, ``tick``); ``git apply --queue`` is another
    option (no default: nothing is queued without it)."""
    from pathlib import Path  # here: the commands that need no queue import no pathlib

    return click.option("--queue", type=click.Path(file_okay=False, path_type=Path),
                        help="The Maildir of messages waiting to be sent (default: GAME's name "
                        "with .mailq, beside it).")(f)


REFEREE_ENV = "REBIS_PBM_REFEREE"  # the referee's address, e.g. exported once for cron lines


def referee_option(required: bool = False) -> Callable[[F], F]:
    """``--referee ADDRESS`` (or REBIS_PBM_REFEREE), passed as ``referee_address``: the From of
    the messages a command queues, checked as an address when given. The one definition of the
    option, its help and its environment variable, for every command that queues messages
    (``mail in``, ``mail views``: ``required``; ``tick``, ``git apply``: only to queue them)."""
    def add(f: F) -> F:
        return click.option("--referee", "referee_address", metavar="ADDRESS",
                            envvar=REFEREE_ENV, show_envvar=True, required=required,
                            callback=_checked_referee,
                            help="The referee's address: the From of every message queued; "
                            "the referee also receives the public view (docs/mail.md).")(f)
    return add


REFEREE_KEY_ENV = "REBIS_PBM_REFEREE_KEY"  # the referee's SSH private key file (rebis-pbm/4)


def referee_key_option(f: F) -> F:
    """``--referee-key FILE`` (or REBIS_PBM_REFEREE_KEY), passed as ``referee_key``: the key a
    game created with ``new --referee-key`` signs its witnesses and the referee's acts with
    (docs/audit.md). The one definition, for every command that writes a record."""
    return click.option("--referee-key", "referee_key", metavar="FILE", envvar=REFEREE_KEY_ENV,
                        show_envvar=True, type=click.Path(dir_okay=False),
                        help="The referee's SSH private key, for a game created with new "
                        "--referee-key: it signs the views' witness and the referee's acts "
                        "(docs/audit.md).")(f)


def _checked_referee(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from rebis_pbm.transports.mail.policy import check_address
    try:
        return check_address(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param_hint="--referee") from None


# Commands registered by their own modules (`@cli.command()`), imported when first needed:
# command name -> module (see Group). One line per command.
LAZY_COMMANDS = {
    "new": ".game",
    "apply": ".game",
    "view": ".read",
    "moves": ".read",
    "score": ".read",
    "schema": ".read",
    "verify": ".audit",
    "reveal": ".audit",
    "bot": ".bots",
    "simulate": ".bots",
    "mail": ".mail",
    "check": ".check",
    "site": ".site",
    "git": ".git",
    "tick": ".deadlines",
    "move-for": ".deadlines",
    "extend": ".deadlines",
    "replace-player": ".deadlines",
    "end-game": ".deadlines",
    "away": ".deadlines",
    "back": ".deadlines",
    "open": ".encryption",
    "seal": ".encryption",
    "keygen-referee": ".encryption",
    "league": ".league",
    "notify": ".notify",
    "play": ".play",
}


def announce_turn(game: str, now: str | None = None) -> None:
    """Post the game's chat notices once a command changed it (a move, the deal, a stand-in
    move) or a deadline nears (:func:`rebis_pbm.transports.announce`); a failure is one line
    on standard error, never the command's failure (the move stands)."""
    from rebis_pbm.transports import announce

    note = announce(game, now=now)
    if note is not None:
        click.echo(f"rebis-pbm: note: {note}", err=True)
