"""A player's move in one command, on their own machine: from their view to a sent move file.

``rebis-pbm play VIEW`` (docs/play.md) reads the player's YAML view (an encrypted ``.age`` one
opened with their identity), offers the legal moves told as :mod:`rebis_pbm.present.describe`
tells them, writes the chosen one as the move file the game expects (``turn-NNN-NAME.yaml``,
built from the listed document and the view's move template, so it carries every field they
carry), signs it with the player's SSH key, seals it to the referee in a game that takes sealed
moves, and sends it: by SMTP with the player's own settings, or by a commit pushed to their clone
of the game's repository. In a fair deal's join phase it writes the player's join instead, with
fresh random entropy. With ``--command`` it writes, signs and sends a player's command line
instead (:func:`command_line`, :func:`write_command`). It reads only the player's own view: no
record, no seed.
"""

from __future__ import annotations

import functools
import os
import subprocess
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from rebis_pbm.app.games import abandoned_no_move, no_move_to_make
from rebis_pbm.engine.phrases import N_, Phrase
from rebis_pbm.errors import ExitCode, Failed, InputError, Refused, UsageError
from rebis_pbm.files.atomic import PathLike, read_input, write_atomic
from rebis_pbm.files.names import (
    ANSWERS_FOLDER,
    COMMAND_SUFFIX,
    COMMANDS_FOLDER,
    ENCRYPTED,
    MOVES_FOLDER,
    SIGNATURE,
    command_file_name,
    move_file_name,
)

if TYPE_CHECKING:
    from rebis_pbm.present.describe import Described
    from rebis_pbm.present.infoset import ViewState
    from rebis_pbm.present.shapes import View

# The move template's fields that say the move itself; any other field it carries (the game,
# the chain digest a move answers, ...) goes into the move file as the template has it.
_ACTION_FIELDS = ("turn", "player", "golden_dust", "play", "gold_token", "red_token")
CONFIG_ENV = "REBIS_PBM_PLAY_CONFIG"  # the settings file, when not the default
DEFAULT_CONFIG = os.path.join("~", ".config", "rebis-pbm", "play.yaml")


class OpenedView(NamedTuple):
    """A player's view as :func:`open_view` read it.

    Attributes:
        view: the view's data (as ``view --format yaml`` wrote it).
        seen: the viewer's information set (:class:`~rebis_pbm.present.infoset.ViewState`);
            None in a fair deal's join phase, before the deal.
        lang: the viewer's language (the view's ``lang``, else ``en``).
    """

    view: View
    seen: ViewState | None
    lang: str


def open_view(path: PathLike, identity: PathLike | None = None) -> OpenedView:
    """Read a player's YAML (or JSON) view, decrypting a ``.age`` one with ``identity`` (an SSH
    private key or an age identity file, :func:`rebis_pbm.app.sealing.decrypt_file`).

    Raises:
        InputError: the file cannot be read or decrypted, is not a view, is a view of an older
            format or contradicts itself; an encrypted view without ``identity`` (exit 2).
    """
    from rebis_pbm.present.infoset import infoset_from_view

    source = os.fspath(path)
    if source.endswith(ENCRYPTED):
        if identity is None:
            raise InputError("this view is encrypted: give the key it is encrypted to with "
                             "--identity FILE (your SSH private key or age identity)",
                             source=source)
        from rebis_pbm.app.sealing import decrypt_file
        data = decrypt_file(path, identity)
    else:
        data, source = read_input(source, kind="view")
    from rebis_pbm.app.player import view_document
    view = cast("View", view_document(data, source).data)
    lang = view.get("lang") or "en"
    if view.get("phase") == "join":
        return OpenedView(view, None, lang)
    return OpenedView(view, infoset_from_view(view, source), lang)


def choices(opened: OpenedView) -> list[Described]:
    """The moves the view's viewer may make now, each with what it does, in their language
    (:func:`rebis_pbm.present.describe.described_moves`).

    Raises:
        UsageError: the spectator view, or a join-phase view (which has a join to send, not a
            move: :func:`join_file`), exit 2.
        Refused: it is not the viewer's move, or the game is over or abandoned (exit 1).
    """
    from rebis_pbm.present.describe import described_moves

    seen = opened.seen
    if seen is None:
        raise UsageError("this view is of the deal's join phase: send your join instead")
    if seen.viewer is None:
        raise UsageError("this is the spectator view, which shows no hand; use your own view "
                         "(rebis-pbm view GAME --player NAME --format yaml)")
    if seen.abandoned:
        raise Refused(phrase=abandoned_no_move(seen.viewer, seen.game))
    if seen.state.player_to_move != seen.viewer:
        raise Refused(phrase=no_move_to_make(seen.viewer, seen.state))
    return described_moves(seen.game, seen.state, opened.lang)


def _template(view: View) -> dict[str, Any]:
    """The view's move template as data (empty when the view has none)."""
    text = view.get("move_template")
    return dict(_template_items(text)) if isinstance(text, str) else {}


@functools.lru_cache(maxsize=16)
def _template_items(text: str) -> tuple[tuple[str, Any], ...]:
    # Read once per view: the mail's reply links write one move file per legal move.
    from rebis_pbm.formats.yaml_reader import load_yaml

    doc = load_yaml(text.encode(), source="move_template", kind="move").data
    return tuple(doc.items()) if isinstance(doc, dict) else ()


def move_file(opened: OpenedView, chosen: Described) -> tuple[str, str]:
    """The move file of ``chosen`` (one of :func:`choices`): its name, ``turn-NNN-NAME.yaml``
    (:func:`~rebis_pbm.app.moves.move_file_name`), and its text: a comment saying what it does,
    then the listed document with every other field the view's move template carries."""
    from rebis_pbm.formats.yaml_writer import dump_yaml

    doc: dict[str, Any] = {k: v for k, v in _template(opened.view).items()
                           if k not in _ACTION_FIELDS}
    doc.update(chosen.doc)
    name = move_file_name(int(cast(int, chosen.doc["turn"])), str(chosen.doc["player"]))
    return name, f"# {chosen.description}\n" + dump_yaml(doc)


class JoinText(NamedTuple):
    """A rebis-pbm/5 player's join text as ``play`` keeps it between the two rounds: ``path``
    (:func:`~rebis_pbm.files.names.join_text_file_name` in the move's folder), the ``text``
    and whether it is ``new`` (drawn now: :func:`keep_join_text` writes it)."""

    path: str
    text: str
    new: bool


def join_file(opened: OpenedView, out_dir: PathLike = ".") -> tuple[str, str, JoinText | None]:
    """The viewer's join in a fair deal's join phase (docs/shuffle.md), named
    ``turn-000-NAME.yaml`` as the git transport names joins, and the join text to keep.

    One round (before rebis-pbm/5): the view's join template with 128 bits of fresh random
    entropy as its ``join:`` text. rebis-pbm/5, round 1: the commitment
    (:func:`~rebis_pbm.record.commitments.commitment_of`) to 128 fresh random bits, which are
    returned to be kept (or the bits already kept in ``out_dir``, so that running ``play``
    twice commits to the same text); round 2: the join holding the kept text.

    Raises:
        Refused: the viewer has joined already, or the view is the spectator's, or (round 2)
            the kept join text is not in ``out_dir`` (exit 1).
    """
    import secrets

    from rebis_pbm.files.names import join_text_file_name
    from rebis_pbm.formats.yaml_writer import dump_yaml
    from rebis_pbm.record.commitments import commitment_of

    view = opened.view
    viewer = view["viewer"]
    doc = _template(view)
    if viewer not in view.get("waiting", []) or not doc:
        raise Refused(f"{viewer} has no join to send: the deal waits for "
                      f"{', '.join(view.get('waiting', [])) or 'nobody'}")
    kept: JoinText | None = None
    round_ = view.get("round")
    if round_ is None:
        doc["join"] = secrets.token_hex(16)
    else:
        path = os.path.join(os.fspath(out_dir), join_text_file_name(view["game"], viewer))
        try:
            with open(path, encoding="utf-8") as f:
                kept = JoinText(path, f.read(), False)
        except FileNotFoundError:
            if round_ == 2:
                raise Refused(f"{path}: your join text is not there: run rebis-pbm play in the "
                              f"folder where it wrote your commitment (option --out), which "
                              f"keeps it") from None
            kept = JoinText(path, secrets.token_hex(16), True)
        if round_ == 1:
            doc["commitment"] = commitment_of(view["game"], viewer, kept.text)
        else:
            doc["join"] = kept.text
    if opened.lang != "en" and round_ != 2:
        doc.setdefault("lang", opened.lang)
    return move_file_name(0, viewer), dump_yaml(doc), kept


def keep_join_text(kept: JoinText) -> None:
    """Write a new join text to its file (mode 0600), before the commitment that hides it.

    Raises:
        OSError: the file cannot be written.
    """
    if kept.new:
        write_atomic(kept.path, kept.text.encode("utf-8"), mode=0o600)


class Written(NamedTuple):
    """What :func:`write_move` wrote: ``move`` (the move file), ``signature`` (its ``.sig``, or
    None) and ``sealed`` (the ``.age`` files sealed to the referee, or empty)."""

    move: str
    signature: str | None
    sealed: tuple[str, ...]


def write_move(opened: OpenedView, name: str, text: str, out_dir: PathLike = ".",
               key: PathLike | None = None) -> Written:
    """Write the move file ``name`` holding ``text`` into ``out_dir`` (mode 0600: a closing
    play's card is a secret), sign it with ``key`` (``ssh-keygen -Y sign -n rebis-pbm``,
    writing ``NAME.yaml.sig``) and, when the view shows the referee's age recipient
    (``referee_recipient``), seal both to it (:func:`rebis_pbm.app.sealing.seal_move`, which
    pads the move first).

    Raises:
        Failed: ``ssh-keygen`` is missing or refused to sign (exit 2).
        InputError: as :func:`~rebis_pbm.app.sealing.seal_move`.
        OSError: a file cannot be written.
    """
    path = os.path.join(os.fspath(out_dir), name)
    write_atomic(path, text.encode(), mode=0o600)
    recipient = opened.view.get("referee_recipient")
    if recipient:
        from rebis_pbm.app.sealing import seal_move
        sealed = seal_move(path, [str(recipient)], ssh_key=key)
        signature = path + SIGNATURE if key is not None else None
        return Written(path, signature, tuple(sealed.written))
    if key is None:
        return Written(path, None, ())
    write_atomic(path + SIGNATURE, sign(path, key), mode=0o644)
    return Written(path, path + SIGNATURE, ())


def sign(path: PathLike, key: PathLike) -> bytes:
    """The SSH signature (armoured) of the file ``path`` made with the private ``key``, as
    ``ssh-keygen -Y sign -f KEY -n rebis-pbm`` writes it (docs/audit.md, "Signed moves").

    Raises:
        Failed: ``ssh-keygen`` is missing or refused to sign (exit 2).
    """
    from rebis_pbm.app.sealing import ssh_sign

    with open(path, "rb") as f:
        return ssh_sign(f.read(), key, os.fspath(path))


# --- a command instead of a move (docs/play.md, "Commands") ----------------------------------

class CommandLine(NamedTuple):
    """A command as ``play --command`` builds it from the player's view: its ``name``
    (``away``, ``back``, ...) and the ``line`` a referee accepts from them."""

    name: str
    line: str


def _not_written(text: str, values: dict[str, object]) -> Refused:
    """A refusal of ``play --command`` (exit 2: the player's input), nothing written."""
    return Refused(None, ExitCode.INPUT, phrase=Phrase(text, values))


def command_line(opened: OpenedView, words: str, signed: bool) -> CommandLine:
    """The line the referee accepts for the command ``words`` (as a player types it, read by
    :func:`rebis_pbm.app.commands.parse_command`), from the viewer's own view: the words (their
    spaces made single: a mail's subject is read so), the view's game id when they name none,
    then, for a command carried out only at a point of the history
    (:data:`~rebis_pbm.app.commands.POINTED`: ``away``, ``back``) when the view gives one
    (``command_point``, a keyed player's view of a rebis-pbm/4 or later game), that point.
    ``signed``: a key was given to sign it.

    Raises:
        Refused: (exit 2, nothing written) the spectator view; words that are no command, an
            ``away`` without its two dates, or words that name another game or end with another
            point than the view's; a player who registered a key (``your_keys``) and gave
            none to sign it.
    """
    from rebis_pbm.app.commands import COMMANDS, POINTED, parse_command

    view = opened.view
    game = str(view["game"])
    if view.get("viewer") is None:
        raise _not_written(N_("this is the spectator view, which is nobody's: write your "
                              "command from your own view"), {})
    said = " ".join(words.split())
    command = parse_command(said) if said else None
    if command is None or command.name not in COMMANDS:
        raise _not_written(N_("\"{words}\" is not a command: write one of {commands}"),
                           {"words": said, "commands": ", ".join(COMMANDS)})
    if command.game is not None and command.game != game:
        raise _not_written(N_("this command names game {named}, but your view is of game "
                              "{game}; nothing was written"),
                           {"named": command.game, "game": game})
    if command.name == "away" and len(command.args) != 2:
        raise _not_written(N_("away takes the two dates of your absence: away FROM TO (e.g. "
                              "away 2026-12-10 2026-12-17)"), {})
    point = view.get("command_point")
    typed = said[len(command.words):].strip() if command.after is not None else None
    if typed is not None and typed != point:
        raise _not_written(N_("write the command without its end \"{typed}\": the point of "
                              "the history your view gives is added to it"),
                           {"typed": typed})
    if view.get("your_keys") and not signed:
        raise _not_written(N_("you registered a key, so your commands must be signed: give "
                              "your SSH private key with --key; nothing was written"), {})
    line = command.words + ("" if command.game is not None else f" {game}")
    if point and command.name in POINTED:
        line += f" {point}"
    return CommandLine(command.name, line)


def write_command(opened: OpenedView, command: CommandLine, out_dir: PathLike = ".",
                  key: PathLike | None = None) -> Written:
    """Write ``command``'s line and a line feed into ``out_dir`` as
    :func:`~rebis_pbm.files.names.command_file_name` (``GAME-PLAYER-command.txt``, mode 0600
    as a move file), and sign it with ``key`` (``FILE.sig``, :func:`sign`); never sealed (a
    command's line holds nothing secret).

    Raises:
        Failed: ``ssh-keygen`` is missing or refused to sign (exit 2).
        OSError: a file cannot be written.
    """
    path = os.path.join(os.fspath(out_dir),
                        command_file_name(str(opened.view["game"]), str(opened.view["viewer"])))
    write_atomic(path, (command.line + "\n").encode(), mode=0o600)
    if key is None:
        return Written(path, None, ())
    write_atomic(path + SIGNATURE, sign(path, key), mode=0o644)
    return Written(path, path + SIGNATURE, ())


def command_in_repo(repo: PathLike, player: str, name: str) -> str:
    """The name ``play --command --send git`` gives a command file in the clone ``repo``'s
    ``commands/`` (docs/git.md, "Commands"): ``PLAYER-NAME-N.txt``, N the least number from 1
    that neither a command waiting in ``commands/`` nor an answer in ``answers/`` (``.txt``,
    or ``.txt.age``) has, so that a command collides with no other and its answer replaces
    none."""
    top = os.fspath(repo)
    n = 1
    while any(os.path.exists(os.path.join(top, folder, f"{player}-{name}-{n}{suffix}"))
              for folder, suffix in ((COMMANDS_FOLDER, COMMAND_SUFFIX),
                                     (ANSWERS_FOLDER, COMMAND_SUFFIX),
                                     (ANSWERS_FOLDER, COMMAND_SUFFIX + ENCRYPTED))):
        n += 1
    return f"{player}-{name}-{n}{COMMAND_SUFFIX}"


# --- sending ---------------------------------------------------------------------------------

class MailSettings(NamedTuple):
    """The player's own mail settings (docs/play.md, "Settings"): where ``play --send`` sends.

    Attributes:
        smtp: the SMTP server's host; ``port`` its port.
        tls: ``starttls``, ``smtps`` (TLS from the first byte) or ``none``.
        sender: the player's address (the one the game registered for them).
        referee: the referee's address.
        user: the SMTP login, or None for a server that needs none.
        password_env: the environment variable that holds the password, or None.
        password_command: a command that prints the password (e.g. ``pass show mail``), or
            None. The password is never stored.
    """

    smtp: str
    port: int
    tls: str
    sender: str
    referee: str
    user: str | None
    password_env: str | None
    password_command: str | None


_SETTINGS = ("smtp", "tls", "from", "referee", "user", "password_env", "password_command")


def read_settings(path: PathLike | None = None) -> MailSettings:
    """The mail settings in ``path`` (default: ``REBIS_PBM_PLAY_CONFIG``, else
    ``~/.config/rebis-pbm/play.yaml``), a YAML mapping: ``smtp: HOST[:PORT]``, ``from``,
    ``referee``, and optionally ``tls`` (``starttls``, the default; ``smtps``; ``none``),
    ``user``, ``password_env``, ``password_command``. A ``password`` field is refused: the
    password is never stored.

    Raises:
        InputError: the file is missing or unreadable, not such a mapping, has an unknown field
            or a password, or lacks ``smtp``, ``from`` or ``referee`` (exit 2).
    """
    import yaml

    file = os.path.expanduser(os.fspath(path) if path is not None
                              else os.environ.get(CONFIG_ENV) or DEFAULT_CONFIG)
    try:
        with open(file, "rb") as f:
            doc = yaml.safe_load(f.read(65536))
    except OSError as exc:
        raise InputError(f"the settings for --send cannot be read ({exc.strerror}); write them "
                         f"as docs/play.md says (smtp, from, referee)", source=file) from None
    except yaml.YAMLError:
        raise InputError("the settings for --send are not YAML", source=file) from None
    if not isinstance(doc, dict):
        raise InputError("the settings for --send must be a mapping (smtp, from, referee, ...)",
                         source=file)
    if "password" in doc:
        raise InputError("the settings must not hold the password: name the environment "
                         "variable that holds it (password_env) or a command that prints it "
                         "(password_command)", source=file)
    unknown = sorted(str(k) for k in doc if k not in _SETTINGS)
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r} in the settings; the fields are "
                         f"{', '.join(_SETTINGS)}", source=file)
    missing = [k for k in ("smtp", "from", "referee") if not doc.get(k)]
    if missing:
        raise InputError(f"the settings lack {', '.join(missing)}", source=file)
    tls = str(doc.get("tls", "starttls"))
    if tls not in ("starttls", "smtps", "none"):
        raise InputError(f"tls must be starttls, smtps or none, not {tls!r}", source=file)
    host, _, port = str(doc["smtp"]).rpartition(":") if ":" in str(doc["smtp"]) else \
        (str(doc["smtp"]), "", "")
    if port and not port.isdigit():
        raise InputError(f"smtp must be HOST or HOST:PORT, not {doc['smtp']!r}", source=file)
    number = int(port) if port else (465 if tls == "smtps" else 587 if tls == "starttls" else 25)

    def text(key: str) -> str | None:
        value = doc.get(key)
        return None if value is None else str(value)

    return MailSettings(host, number, tls, str(doc["from"]), str(doc["referee"]), text("user"),
                        text("password_env"), text("password_command"))


def _password(settings: MailSettings) -> str | None:
    """The SMTP password, from the environment variable or the command the settings name."""
    if settings.password_env:
        value = os.environ.get(settings.password_env)
        if value is None:
            raise UsageError(f"the environment variable {settings.password_env} (password_env "
                             f"in the settings) is not set", "--config")
        return value
    if settings.password_command:
        import shlex
        try:
            done = subprocess.run(shlex.split(settings.password_command), capture_output=True,
                                  text=True)
        except OSError as exc:
            raise Failed(f"password_command could not be run: {exc.strerror}") from None
        if done.returncode != 0:
            raise Failed(f"password_command failed (exit {done.returncode})")
        return done.stdout.rstrip("\n")
    return None


# What a mail of ``play --send`` says, by what it sends: its one line of text, and the failure.
_MAIL_TEXT = {"move": N_("My move is attached (sent with rebis-pbm play)."),
              "command": N_("My command is the subject of this mail (sent with rebis-pbm "
                            "play).")}
_NOT_SENT = {"move": N_("could not send through {server}: {reason}; the move file is written, "
                        "send it again or attach it to a mail to the referee"),
             "command": N_("could not send through {server}: {reason}; the command file is "
                           "written, send it again or mail its line to the referee as the "
                           "subject")}


def send_mail(settings: MailSettings, game: str, subject: str, files: list[str],
              lang: str | None = None, kind: str = "move") -> None:
    """Send ``files`` (the move file, and its ``.sig``) to the referee as attachments of one
    message from the player, subject ``[Rebis GAME] SUBJECT`` (as the referee's ``mail in``
    routes it), its one line of text in the player's language ``lang``, through the settings'
    SMTP server. ``kind`` ``command``: ``SUBJECT`` is a command line (which ``mail in`` reads
    from the subject, unfolded), ``files`` its signature alone, and the text says so.

    Raises:
        Failed: the server cannot be reached or refuses the message (exit 2; with a phrase).
        UsageError: the password's environment variable is not set (exit 2).
    """
    import smtplib
    import ssl
    from email.message import EmailMessage
    from email.utils import make_msgid

    msg = EmailMessage()
    msg["From"] = settings.sender
    msg["To"] = settings.referee
    msg["Subject"] = f"[Rebis {game}] {subject}"
    msg["Message-ID"] = make_msgid(domain=settings.sender.rpartition("@")[2] or None)
    from rebis_pbm.present.i18n import gettext_for
    said = gettext_for(lang)(_MAIL_TEXT[kind])
    msg.set_content(said + "\n")
    for file in files:
        with open(file, "rb") as f:
            data = f.read()
        mime = ("application", "yaml") if file.endswith((".yaml", ".yml")) else \
            ("application", "octet-stream")
        msg.add_attachment(data, maintype=mime[0], subtype=mime[1],
                           filename=os.path.basename(file))
    password = _password(settings)
    where = f"{settings.smtp}:{settings.port}"
    try:
        if settings.tls == "smtps":
            server: smtplib.SMTP = smtplib.SMTP_SSL(settings.smtp, settings.port, timeout=60,
                                                    context=ssl.create_default_context())
        else:
            server = smtplib.SMTP(settings.smtp, settings.port, timeout=60)
        with server:
            if settings.tls == "starttls":
                server.starttls(context=ssl.create_default_context())
            if settings.user:
                server.login(settings.user, password or "")
            server.send_message(msg)
    except (OSError, smtplib.SMTPException) as exc:
        raise Failed(phrase=Phrase(_NOT_SENT[kind], {"server": where, "reason": str(exc)})
                     ) from None


def git_folder(repo: PathLike, folder: str = MOVES_FOLDER) -> str:
    """The moves folder of the game whose clone is ``repo`` (the folder of its ``game.yaml``):
    ``REPO/moves`` (``folder``: ``REPO/FOLDER``, e.g. ``commands``).

    Raises:
        InputError: ``repo`` is not in a git work tree (exit 2).
    """
    done = subprocess.run(["git", "-C", os.fspath(repo), "rev-parse", "--show-toplevel"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise InputError("this is not a clone of the game's repository (git finds none here); "
                         "give your clone's folder with --repo", source=os.fspath(repo))
    return os.path.join(os.fspath(repo), folder)


def send_git(repo: PathLike, files: list[str], message: str, folder: str = MOVES_FOLDER,
             names: list[str] | None = None) -> list[str]:
    """Copy ``files`` into the game's ``moves/`` folder (``folder``) in the clone ``repo``,
    under their own names (or ``names``, one for each), commit them (with the player's own
    git identity, which the game's job checks) and push. Returns the paths committed, relative
    to ``repo``.

    Raises:
        InputError: ``repo`` is no clone (exit 2).
        Failed: git refused to commit or push (its last line, exit 2; with a phrase).
    """
    into = git_folder(repo, folder)
    os.makedirs(into, exist_ok=True)
    added = []
    for n, file in enumerate(files):
        with open(file, "rb") as f:
            data = f.read()
        target = os.path.join(into, os.path.basename(file) if names is None else names[n])
        write_atomic(target, data, mode=0o644)
        added.append(os.path.relpath(target, os.fspath(repo)))
    for args in (["add", "--", *added], ["commit", "-q", "-m", message, "--", *added],
                 ["push", "-q"]):
        done = subprocess.run(["git", "-C", os.fspath(repo), *args], capture_output=True,
                              text=True)
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip()).splitlines() or ["no reason"]
            raise Failed(phrase=Phrase(N_("git {command} failed in {repo}: {reason}"), {
                "command": args[0], "repo": os.fspath(repo), "reason": said[-1]}))
    return added


def files_to_send(written: Written, public: bool) -> list[str]:
    """What goes to the referee: the sealed files in a game that takes sealed moves (the plain
    move never goes into a public repository), else the move and its signature."""
    if public and written.sealed:
        return list(written.sealed)
    return [written.move, *([written.signature] if written.signature else [])]
