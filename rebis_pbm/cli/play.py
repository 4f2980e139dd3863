"""``rebis-pbm play VIEW``: choose a move from your view, write it, sign it, seal it, send it.

The player's own command (docs/play.md). Choices are numbered and read from standard input with
click's prompts, so the same dialogue works in a terminal and through a pipe. The use cases are
:mod:`rebis_pbm.app.play`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

import click

from rebis_pbm.cli import EXIT_CODES, cli

if TYPE_CHECKING:
    from rebis_pbm.present.describe import Described


def _number(question: str, low: int, high: int, _: Callable[[str], str]) -> int:
    """Ask ``question`` for a number from ``low`` to ``high`` (``low`` by default) until one
    comes, in the player's language (``_``): click's own checks would answer in English."""
    while True:
        answer = click.prompt(_("{question} [{default}]:").format(question=question,
                                                                    default=low),
                              default=str(low), show_default=False, prompt_suffix=" ")
        said = answer.strip()
        if said.isdigit() and low <= int(said) <= high:
            return int(said)
        click.echo(_("\"{answer}\" is not a number from {low} to {high}: type one of them.")
                   .format(answer=said, low=low, high=high), err=True)


def confirm(question: str, _: Callable[[str], str]) -> bool:
    """Ask ``question`` in the player's language (``_``): yes by default; the language's own
    yes and no (fr o/oui, n/non; pt s/sim, n/não) or the English ones, in any case."""
    yes = {"y", "yes", *_("y yes").split()}
    no = {"n", "no", *_("n no").split()}
    while True:
        answer = click.prompt(_("{question} [Y/n]:").format(question=question), default="",
                              show_default=False, prompt_suffix=" ").strip().casefold()
        if not answer or answer in yes:
            return True
        if answer in no:
            return False
        click.echo(_("Answer {yes} or {no}.").format(yes=_("y"), no=_("n")), err=True)


def _pick(title: str, options: list[str], _: Callable[[str], str]) -> int:
    """Number ``options``, ask for one (the first by default); its index. One option is taken
    without asking. ``_``: the player's language (a gettext)."""
    click.echo(title)
    for n, text in enumerate(options, 1):
        click.echo(f"  {n}. {text}")
    if len(options) == 1:
        return 0
    return _number(_("Your choice"), 1, len(options), _) - 1


def _cards(item: Described, _: Callable[[str], str]) -> str:
    cards = item.effect.cards
    return str(cards[0]) if len(cards) == 1 else \
        _("{first} and {second}").format(first=cards[0], second=cards[1])


def choose(listed: list[Described], reserve: int, lang: str | None = None) -> Described:
    """The player's choice among ``listed``: golden dust first (when the reserve holds some),
    then the card, then where it goes (each told as the listing tells it), asked in ``lang``."""
    from rebis_pbm.present.i18n import gettext_for

    _ = gettext_for(lang)
    if not listed[0].effect.cards:  # the red token's placement (R12): where, nothing else
        return listed[_pick(_("Where do you place the red token?"),
                            [d.description for d in listed], _)]
    dust = 0
    counts = sorted({d.effect.dust for d in listed})
    if reserve and len(counts) > 1:
        dust = _number(_("Golden dust tokens from your reserve onto your active shelf first "
                         "(0-{most})").format(most=counts[-1]), 0, counts[-1], _)
    listed = [d for d in listed if d.effect.dust == dust]
    cards: list[str] = []
    for d in listed:
        if _cards(d, _) not in cards:
            cards.append(_cards(d, _))
    card = cards[_pick(_("Which card do you play?"), cards, _)]
    targets = [d for d in listed if _cards(d, _) == card]
    return targets[_pick(_("Where?"), [d.description for d in targets], _)]


@cli.command(epilog=EXIT_CODES)
@click.argument("view_file", metavar="VIEW", type=click.Path(dir_okay=False))
@click.option("--identity", metavar="FILE", type=click.Path(dir_okay=False),
              help="Open an encrypted view (VIEW.yaml.age) with this SSH private key or age "
              "identity.")
@click.option("--key", metavar="SSHKEY", type=click.Path(dir_okay=False),
              help="Sign the move with this SSH private key (ssh-keygen -Y sign -n rebis-pbm): "
              "needed when the game registered your key.")
@click.option("--out", "out_dir", metavar="DIR", type=click.Path(file_okay=False),
              default=".", show_default=True, help="Where to write the move file.")
@click.option("--yes", is_flag=True, help="Write (and send) the chosen move without asking.")
@click.option("--send", type=click.Choice(["smtp", "git"]), is_flag=False, flag_value="smtp",
              default=None, help="Send the move: by mail through your SMTP server (--send, "
              "the settings in --config), or committed and pushed in your clone (--send git).")
@click.option("--config", metavar="FILE", type=click.Path(dir_okay=False),
              help="Your mail settings for --send (default: $REBIS_PBM_PLAY_CONFIG, else "
              "~/.config/rebis-pbm/play.yaml).")
@click.option("--repo", metavar="DIR", type=click.Path(file_okay=False), default=".",
              show_default=True, help="With --send git: your clone of the game's repository "
              "(the folder of its game.yaml).")
@click.option("--move", "number", metavar="N", type=click.IntRange(min=1),
              help="Take move N of the listing (`rebis-pbm moves --view VIEW --format text`) "
              "instead of asking.")
@click.option("--quiet", is_flag=True, help="Do not print the view first.")
@click.option("--command", "words", metavar="WORDS",
              help="Send this command instead of a move (\"away 2026-12-10 2026-12-17\", "
              "\"back\", \"history\", ...): written as GAME-PLAYER-command.txt with the game "
              "and the point of the history your view gives, signed with --key.")
def play(view_file: str, identity: str | None, key: str | None, out_dir: str, yes: bool,
         send: str | None, config: str | None, repo: str, number: int | None,
         quiet: bool, words: str | None) -> None:
    """Choose your move from your own VIEW, write it as its move file, sign it (--key), seal
    it for a public game, and send it (--send). In a fair deal's join phase, write your join.
    With --command, write, sign and send that command instead.

    Choices are numbered; type the number (or pipe the numbers in).
    """
    try:
        if words is not None:
            if number is not None:
                raise click.BadParameter("--move chooses a move, --command sends a command "
                                         "instead: give one of them", param_hint="'--command'")
            _command(view_file, identity, key, out_dir, yes, send, config, repo, words)
            return
        _play(view_file, identity, key, out_dir, yes, send, config, repo, number, quiet)
    except click.Abort:  # standard input ended (or Ctrl-C) before the dialogue did
        from rebis_pbm.cli import Failure
        from rebis_pbm.errors import ExitCode
        raise Failure("no answer was given (standard input ended); nothing was written",
                      ExitCode.INPUT) from None


def _play(view_file: str, identity: str | None, key: str | None, out_dir: str, yes: bool,
          send: str | None, config: str | None, repo: str, number: int | None,
          quiet: bool) -> None:
    from rebis_pbm.app import play as use
    from rebis_pbm.engine.phrases import N_
    from rebis_pbm.errors import Failed, Refused
    from rebis_pbm.present.i18n import gettext_for, refusal

    opened = use.open_view(view_file, identity)
    _ = gettext_for(opened.lang)
    settings = use.read_settings(config) if send == "smtp" else None  # refused before choosing
    if send == "git":
        use.git_folder(repo)
    if not quiet and opened.seen is not None:
        from rebis_pbm.present.views import render
        click.echo(render(opened.view, "text", opened.lang))
    kept = None
    if opened.seen is None:
        name, text, kept = use.join_file(opened, out_dir)
        what, subject = "", (N_("the deal: my commitment") if "commitment:" in text
                             else N_("the deal: my join"))
        turn = 0
    else:
        try:
            listed = use.choices(opened)
        except Refused as exc:  # said to the viewer, in their language (issue 30)
            raise Refused(refusal(exc, opened.lang, opened.view.get("viewer")), exc.exit_code,
                          exc.reason, exc.phrase) from None
        if number is not None:
            if number > len(listed):
                raise click.BadParameter(f"there are {len(listed)} moves to choose from",
                                         param_hint="'--move'")
            chosen = listed[number - 1]
        else:
            chosen = choose(listed, opened.seen.state.reserves[opened.seen.state.to_move or 0],
                            opened.lang)
        name, text = use.move_file(opened, chosen)
        what = chosen.description
        subject, turn = N_("turn {turn}: my move"), int(cast(int, chosen.doc["turn"]))
    click.echo(_("Your move: {what}").format(what=what) if opened.seen is not None
               else _("Your join:"))
    click.echo(text, nl=False)
    if not yes and not confirm(_("Write this move and send it?") if send
                               else _("Write this move?"), _):
        click.echo(_("Nothing written."))
        return
    if kept is not None and kept.new:
        use.keep_join_text(kept)
        click.echo(_("Your join text is kept in {file} (keep it private and keep it: round 2 "
                     "of the deal needs it).").format(file=kept.path))
    written = use.write_move(opened, name, text, out_dir, key)
    click.echo(_("Written: {files}").format(files=", ".join(
        [written.move, *([written.signature] if written.signature else []),
         *written.sealed])))
    try:
        if send == "smtp":
            assert settings is not None
            # the subject in the player's language: the referee routes by "[Rebis GAME]" alone
            use.send_mail(settings, opened.view["game"], _(subject).format(turn=turn),
                          use.files_to_send(written, public=False), opened.lang)
            click.echo(_("Sent to {referee}.").format(referee=settings.referee))
        elif send == "git":
            done = use.send_git(repo, use.files_to_send(written, public=True),
                                f"{opened.view['viewer']}: {subject.format(turn=turn)}")
            click.echo(_("Committed and pushed: {files}.").format(files=", ".join(done)))
    except Failed as exc:  # said to the player, in their language
        if exc.phrase is None:
            raise
        raise Failed(refusal(exc, opened.lang), exc.exit_code) from None


def _command(view_file: str, identity: str | None, key: str | None, out_dir: str, yes: bool,
             send: str | None, config: str | None, repo: str, words: str) -> None:
    """``play --command WORDS``: the command line built from the view, written, signed, sent."""
    from rebis_pbm.app import play as use
    from rebis_pbm.errors import Failed, Refused
    from rebis_pbm.files.names import COMMANDS_FOLDER, SIGNATURE
    from rebis_pbm.present.i18n import gettext_for, refusal

    opened = use.open_view(view_file, identity)
    _ = gettext_for(opened.lang)
    viewer = opened.view.get("viewer")
    try:
        command = use.command_line(opened, words, signed=key is not None)
    except Refused as exc:  # said to the viewer, in their language
        raise Refused(refusal(exc, opened.lang, viewer), exc.exit_code, exc.reason,
                      exc.phrase) from None
    settings = use.read_settings(config) if send == "smtp" else None  # refused before writing
    target = None
    if send == "git":
        use.git_folder(repo, COMMANDS_FOLDER)
        target = use.command_in_repo(repo, str(viewer), command.name)
    click.echo(_("Your command: {line}").format(line=command.line))
    if not yes and not confirm(_("Write this command and send it?") if send
                               else _("Write this command?"), _):
        click.echo(_("Nothing written."))
        return
    written = use.write_command(opened, command, out_dir, key)
    files = use.files_to_send(written, public=False)
    click.echo(_("Written: {files}").format(files=", ".join(files)))
    try:
        if send == "smtp":
            assert settings is not None
            # the line is the subject, which the referee's mail in reads a command from; the
            # signature alone is attached (a second text part could be read as the mail's text)
            use.send_mail(settings, str(opened.view["game"]), command.line, files[1:],
                          opened.lang, kind="command")
            click.echo(_("Sent to {referee}.").format(referee=settings.referee))
        elif send == "git":
            assert target is not None
            names = [target, *([target + SIGNATURE] if written.signature else [])]
            done = use.send_git(repo, files, f"{viewer}: command {command.name}",
                                folder=COMMANDS_FOLDER, names=names)
            click.echo(_("Committed and pushed: {files}.").format(files=", ".join(done)))
    except Failed as exc:  # said to the player, in their language
        if exc.phrase is None:
            raise
        raise Failed(refusal(exc, opened.lang), exc.exit_code) from None
