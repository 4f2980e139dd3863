"""Writing views: each viewer's view of a game, its renderings, and the views folder on disk.

A view is what one player, or a spectator, may know (:mod:`rebis_pbm.present.views` builds and
renders it); here it is built from a record, kept for the last game rendered, and written plain
or, for a game in a public repository, encrypted with age to its player (docs/git.md).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from rebis_pbm.app.games import check_player, open_game, record_of
from rebis_pbm.engine import IllegalMove, State
from rebis_pbm.errors import ExitCode, Failed, UsageError
from rebis_pbm.files.atomic import PathLike, explain_os_error, make_folder, read_input, write_atomic
from rebis_pbm.files.names import ENCRYPTED, default_views_dir
from rebis_pbm.formats.yaml_reader import top_level_text
from rebis_pbm.present import views as views_mod
from rebis_pbm.record import BEFORE_V4, CorruptRecord, Record, Replay, secret_path

if TYPE_CHECKING:  # the view's shape, for the type checker only
    from rebis_pbm.present.shapes import View


def record_view(record: Record, replay: Replay, viewer: str | None,
                lang: str | None = None) -> View:
    """``views.build_view`` for a game: every card once the record reveals its seed, the
    addresses when the game made them public, the deadline when there is one;
    ``views.join_view`` in the join phase. Every view carries the record's witness (docs/audit.md,
    "Witnesses"). ``lang``: the language of its sentences (for a text view; default English,
    as YAML and JSON views always are)."""
    if record.joining():
        from rebis_pbm.app.deal_rounds import last_commitment
        view = views_mod.join_view(record.game, record.players, record.waiting_for(), viewer,
                                   lang, record.header_sha256,
                                   record.join_round() if record.two_rounds else None,
                                   last_commitment(record))
        if record.seed is not None:
            view["abandoned"] = True
            view.pop("move_template", None)
    else:
        view = views_mod.build_view(record.game, replay, viewer, revealed=record.seed is not None,
                                    abandoned=record.abandoned(replay.state),
                                    addresses=record.shown_addresses(), lang=lang,
                                    stand_ins=stand_ins(record))
        if record.header_extra.get("deadline") is not None and "to_move" in view:
            from rebis_pbm.record.deadlines import (
                deadline_of,  # only games with deadlines pay for the import
            )

            deadline = deadline_of(record)
            if deadline is not None:
                view["deadline"] = deadline  # docs/deadlines.md
    if record.format not in BEFORE_V4:  # rebis-pbm/4 (absences): who is away, the reader's zone
        from rebis_pbm.record.deadlines import absences_shown, time_zone_of
        zone = time_zone_of(record, viewer)  # the viewer's own view only (None: the spectator)
        if zone:
            view["time_zone"] = zone
        away = absences_shown(record)
        if away:
            view["away"] = [{"player": a.player, "from": a.start, "until": a.end} for a in away]
    if viewer is not None and record.lang(viewer) != "en":
        # The viewer's language, in their own view only, after their name: their tools answer
        # in it (check --view, moves --view; docs/views.md "Languages").
        items = list(view.items())
        at = [key for key, _ in items].index("viewer") + 1
        view = cast("View", dict([*items[:at], ("lang", record.lang(viewer)), *items[at:]]))
    if viewer is not None and viewer in record.players and record.player_keys(viewer):
        # the keys the viewer's moves must be signed with (public): check --view says so
        view["your_keys"] = list(record.player_keys(viewer))
        if record.pins_history and record.seed is None:  # the game goes on (issue 27)
            from rebis_pbm.record.witness import history_point
            view["command_point"] = history_point(record)  # what their signed commands name
    if record.referee_recipient:  # public: what players seal their moves to (rebis-pbm/3)
        view["referee_recipient"] = record.referee_recipient
    view["witness"] = {"game": record.game, "move": len(record.moves),
                       "chain_sha256": record.last_digest()}
    from rebis_pbm.record.acts import witness_actions, witness_header
    if witness_header(record) is not None:  # rebis-pbm/5 with a referee key: which game
        view["witness"]["header_sha256"] = str(record.header_sha256)
    acts = witness_actions(record)
    if acts is not None:  # rebis-pbm/6 with a referee key: how many acts, none cut off unseen
        view["witness"]["actions"] = acts
    if "move_template" in view and not record.joining() and record.pins_history:
        view["move_template"] = with_after(view["move_template"], record.last_digest())
    if "move_template" in view and viewer is not None and record.player_keys(viewer):
        # their move must be signed: the template says so, and how (issue 29)
        view["move_template"] = views_mod.signed_note(lang) + view["move_template"]
    if record.witness_signature is not None:  # the referee's word for it (rebis-pbm/4)
        view["witness_signature"] = record.witness_signature
    return view


def with_after(text: str, digest: str, fmt: str = "yaml") -> str:
    """Move files (a template, or a listing of YAML documents or a JSON list) naming the
    history they answer: ``after: DIGEST`` (the witness's chain digest) after each ``game``
    (issue 27; docs/formats.md). A signed move then pins the history its player saw."""
    if fmt == "json":
        import json

        def pinned(doc: dict[str, object]) -> dict[str, object]:
            return {"game": doc["game"], "after": digest, **doc}

        # a described listing's entries hold their move file under "move"
        docs = [{**d, "move": pinned(d["move"])} if "move" in d else pinned(d)
                for d in json.loads(text)]
        return json.dumps(docs, indent=2) + "\n"
    return "".join(line + (f"after: {digest}\n" if line.startswith("game: ") else "")
                   for line in text.splitlines(keepends=True))


def stand_ins(record: Record) -> dict[int, str]:
    """The moves the referee made for a player (``by: referee`` in the record: ``tick`` after a
    missed deadline, ``move-for``), as ``{turn: reason}`` (the reason as the record words it,
    e.g. ``missed deadline``)."""
    return {turn: str(stamp.get("reason", "")) for turn, stamp in enumerate(record.stamps, 1)
            if stamp.get("by") == "referee"}


def stand_in_reason(record: Record, turn: int) -> str | None:
    """Why the referee made the move of ``turn`` for its player (see :func:`stand_ins`), or
    None when the player made it."""
    return stand_ins(record).get(turn)


def player_view(game: PathLike, player: str | None) -> View:
    """The view of ``player`` (None: the spectator view) of the game in ``game``, as a dict
    that :func:`rebis_pbm.present.views.render` turns into text, YAML or JSON (docs/views.md).

    Raises:
        UsageError: ``player`` is not in the game; as :func:`open_game` otherwise.
    """
    if player is None:
        record, replay = public_game_state(game)
        return record_view(record, replay, None)
    record, replay, _ = open_game(game)
    check_player(record, player)
    return record_view(record, replay, player)


def rendered_view(game: PathLike, player: str | None, fmt: str,
                  lang: str | None = None) -> str:
    """The view of ``player`` (None: the spectator view) rendered as ``fmt`` (``text``,
    ``yaml``, ``json``, ``svg``: :func:`rebis_pbm.present.views.render`). The text and the picture's
    words are in ``lang`` (``en``, ``fr``, ``pt``), by default the player's own language as the
    record keeps it (``Record.lang``; the spectator view's is English); YAML and JSON are
    English (data).

    Raises:
        UsageError: ``player`` is not in the game, or ``lang`` is not a supported language
            (option ``--lang``), or ``svg`` before the deal (a fair deal's join phase, no table
            to draw; option ``--format``); as :func:`open_game` otherwise.
    """
    if lang is not None:
        from rebis_pbm.present.i18n import check_language
        lang = check_language(lang)
    if player is None:
        record, replay = public_game_state(game)
    else:
        record, replay, _ = open_game(game)
        check_player(record, player)
    if fmt == "svg" and record.joining():
        raise UsageError(f"game {record.game} waits for joins by "
                         f"{', '.join(record.waiting_for())}: before the deal there is no table "
                         f"to draw; use --format text, yaml or json", "--format")
    if fmt not in ("text", "svg"):
        lang = None
    elif lang is None:
        lang = record.lang(player)
    if fmt == "svg":
        return picture(record, replay, player, lang)
    return views_mod.render(record_view(record, replay, player, lang), fmt, lang)


def picture(record: Record, replay: Replay, viewer: str | None, lang: str | None = None) -> str:
    """The picture of ``viewer``'s view (None: the spectator's) as a standalone SVG document
    (:func:`rebis_pbm.present.svg.render_svg`), its words in ``lang`` (default English), as the mail
    draws it: from the English view (the picture finds the last move's shelves in its English
    account) with the last move told as the view built in ``lang`` tells it. Same information
    set as the view. Raises nothing of its own."""
    from rebis_pbm.present.svg import render_svg, told_last_move  # here: only a picture needs them

    last_move = None
    if lang not in (None, "en"):
        last_move = told_last_move(record_view(record, replay, viewer, lang))
    return render_svg(record_view(record, replay, viewer), lang=lang, last_move=last_move)


def _seed_at_hand(game: PathLike) -> bool:
    """Whether the seed is at hand outside the record: ``REBIS_PBM_SEED``, or the secret file."""
    from rebis_pbm.record import SEED_ENV

    return bool(os.environ.get(SEED_ENV)) or os.path.exists(secret_path(game))


def public_game_state(game: PathLike) -> tuple[Record, Replay]:
    """The game as a spectator may know it: :func:`open_game` when the seed is at hand (every
    digest checked), else, from the public record alone, the record's chain checked without the
    seed (docs/audit.md) and the moves replayed on public information
    (:func:`rebis_pbm.record.public.public_replay`): face-down cards count 0 and are never
    needed for the public view or the score.

    Raises:
        InputError: the record cannot be read (exit 2).
        CorruptRecord: the record fails verification (exit 3).
    """
    record, replay, _ = public_state(game)
    return record, replay


def public_state(game: PathLike, states: list[State] | None = None
                  ) -> tuple[Record, Replay, Any]:
    """:func:`public_game_state`, and ``verify``'s report on the record alone (under its file
    name only) when it was read without the seed, else None; ``states`` (a list) receives the
    public table after the deal and after every move on that path (``public_replay``)."""
    # A seed at hand is used (every digest checked), and a wrong one refused (SeedError) as
    # everywhere; the record is read without it only when there is none.
    if _seed_at_hand(game):
        record, replay, _ = open_game(game)
        return record, replay, None
    data, source = read_input(os.fspath(game), kind="record")
    record = record_of(data, source)  # read once: the bytes serve every check below
    if record.seed is not None:
        record, replay, _ = open_game(game)
        return record, replay, None
    from rebis_pbm.record.audit import verify as run_verify
    from rebis_pbm.record.public import public_replay

    # Under its file name only: no folder of the referee's in a page built from it.
    report = run_verify(data, os.path.basename(os.fspath(game)))
    if report.problem is not None:
        raise CorruptRecord(f"{source} fails verification at {report.problem.sentence()}; "
                            f"rebis-pbm verify {source} tells more", report.problem)
    try:
        return record, public_replay(record, states), report
    except IllegalMove as exc:  # a chain that holds but a move the rules refuse: edited
        raise CorruptRecord(f"{source} fails verification: {exc.message}") from None


def write_views(views_dir: PathLike, record: Record, replay: Replay, *,
                stale_only: bool = False, keys: dict[str, str] | None = None) -> int:
    """One view per player (YAML and text, mode 0600) and the public view (mode 0644).

    A view file that already holds exactly the right bytes and mode is left alone, so writing the
    views of an unchanged game changes nothing on disk. With ``stale_only``, only view files that
    exist but are out of date are rewritten (what an ``apply`` interrupted after writing the
    record leaves); no file or folder is created. Returns how many files were written.

    With ``keys`` (player -> SSH public key line), the private views are written only encrypted
    to their player: :func:`write_encrypted_views` (a game in a public repository). A record
    created with ``new --encrypt-views`` (rebis-pbm/3, :attr:`Record.views_encrypted`) is
    written so always, to the keys its players registered (:func:`registered_view_keys`), without
    ``keys``: no command can write its private views in plain text.

    Raises:
        OSError: a :class:`~rebis_pbm.files.atomic.FileError`, worded for people, when the folder or
            a file cannot be written.
        Failed, InputError: with ``keys``, a player has no usable key (see
            :func:`write_encrypted_views`).
    """
    if keys is None and record.views_encrypted:  # new --encrypt-views (rebis-pbm/3)
        keys = registered_view_keys(record)
    if keys is not None:
        if stale_only:  # an encrypted view cannot be compared: written again in full
            return 0 if not os.path.isdir(views_dir) else \
                write_encrypted_views(views_dir, record, replay, keys)
        return write_encrypted_views(views_dir, record, replay, keys)
    if not os.path.isdir(views_dir):
        if stale_only:
            return 0
        make_folder(views_dir, what="the views folder")  # its parent must exist
    written = 0
    for viewer in (*record.players, None):
        name = viewer or views_mod.PUBLIC
        mode = 0o644 if viewer is None else 0o600
        for fmt, suffix in (("yaml", ".yaml"), ("text", ".txt")):
            path = os.path.join(views_dir, f"{name}{suffix}")
            if stale_only and not os.path.exists(path):
                continue
            data = kept_rendering(record, replay, viewer, fmt).encode("utf-8")
            if not _holds(path, data, mode):
                # Views are derived from the record and rewritten on every apply: atomic, but
                # not fsynced (the record is).
                write_atomic(path, data, mode=mode, durable=False)
                written += 1
    return written


def registered_view_keys(record: Record) -> dict[str, str]:
    """Player -> the SSH public key their views are encrypted to: the first key they registered
    (``new --key``, their join, ``replace-player --key``); players without one are left out."""
    registered = {p: record.player_keys(p) for p in record.players}
    return {p: k[0] for p, k in registered.items() if k}


def _holds(path: str, data: bytes, mode: int) -> bool:
    """Does ``path`` already hold exactly ``data`` with permission bits ``mode``?"""
    try:
        found = os.stat(path)
        if (found.st_mode & 0o7777) != mode or found.st_size != len(data):
            return False  # after a move most views change length: nothing to read
        with open(path, "rb") as f:
            return f.read() == data
    except OSError:
        return False


def kept_rendering(record: Record, replay: Replay, viewer: str | None, fmt: str) -> str:
    """``views.render`` of ``record_view(record, replay, viewer)`` as ``fmt``, a text view in
    its player's language (``Record.lang``; YAML and JSON are English data), kept for the last
    game rendered (the same ``record`` and ``replay`` objects): the view files an ``apply``
    writes and the messages ``mail in`` builds for the same move are rendered once.

    Raises:
        as :func:`rebis_pbm.present.views.render` (an unknown ``fmt``: ValueError).
    """
    texts = _rendered.of(record, replay).texts
    lang = record.lang(viewer) if fmt == "text" else "en"
    key = (viewer, fmt, lang)
    text = texts.get(key)
    if text is None:
        chosen = None if lang == "en" else lang
        text = texts[key] = views_mod.render(kept_view(record, replay, viewer, chosen), fmt,
                                             chosen)
    return text


def kept_view(record: Record, replay: Replay, viewer: str | None,
              lang: str | None = None) -> View:
    """:func:`record_view`, kept like :func:`kept_rendering`'s texts: a move's views are built
    once for its view files and its messages. The dict is shared: read it, do not change it."""
    views = _rendered.of(record, replay).views
    key = (viewer, lang or "en")
    view = views.get(key)
    if view is None:
        view = views[key] = record_view(record, replay, viewer, lang)
    return view


class LastRendered:
    """The game whose views were built and rendered last (the same ``record`` and ``replay``
    objects): its views by ``(viewer, language)`` and its texts by ``(viewer, format,
    language)``. Another game replaces it."""

    __slots__ = ("_record", "_replay", "texts", "views")

    def __init__(self) -> None:
        self._record: Record | None = None
        self._replay: Replay | None = None
        self.texts: dict[tuple[str | None, str, str], str] = {}
        self.views: dict[tuple[str | None, str], View] = {}

    def of(self, record: Record, replay: Replay) -> LastRendered:
        """Itself, emptied first unless it holds the game ``record`` and ``replay``."""
        if self._record is not record or self._replay is not replay:
            self._record, self._replay = record, replay
            self.texts, self.views = {}, {}
        return self


_rendered = LastRendered()  # the process's last game rendered (see kept_rendering)


def check_views_dir(views_dir: PathLike, game_id: str, game: PathLike | None = None,
                    viewers: Sequence[str] = ()) -> None:
    """Refuse a views folder that holds another game's views (each view names its game), so
    that ``--views-dir`` pointed at the wrong folder overwrites nothing; with ``game`` (the
    record's path) and ``viewers`` (the players), refuse a folder where a view's file would be
    the record or its secret (``--views-dir .`` beside ``game.yaml`` with a player named game).

    Raises:
        UsageError: a view in the folder is of another game, or a view's file would replace the
            record or the secret (option ``--views-dir``, exit 2).
    """
    if game is not None:
        _refuse_own_files(views_dir, game, viewers)
    path = os.path.join(os.fspath(views_dir), views_mod.PUBLIC + ".yaml")
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 20)
    except OSError:
        return  # no views yet (or none readable): nothing to overwrite by mistake
    # Only the view's top-level `game` is read: parsing the whole view grew with the game.
    other = top_level_text(data, "game")
    if other is not None and other != game_id:
        raise UsageError(f"{os.fspath(views_dir)} holds the views of game {other}, not of "
                         f"game {game_id}; give this game's views folder (nothing was written)",
                         "--views-dir")


def _refuse_own_files(views_dir: PathLike, game: PathLike, viewers: Sequence[str]) -> None:
    """Raise UsageError when a view file in ``views_dir`` would be ``game`` or its secret."""
    own = {os.path.realpath(game): "the record", os.path.realpath(secret_path(game)): "the secret"}
    for name in (*viewers, views_mod.PUBLIC):
        for suffix in (".yaml", ".txt", ".yaml" + ENCRYPTED, ".txt" + ENCRYPTED):
            path = os.path.join(os.fspath(views_dir), name + suffix)
            what = own.get(os.path.realpath(path))
            if what is not None:
                raise UsageError(f"{os.fspath(views_dir)}: the view file {path} would replace "
                                 f"{what} {os.fspath(game)}; give the views a folder of their own "
                                 f"(the default is {default_views_dir(game)}; nothing was written)",
                                 "--views-dir")


def check_writable(game: PathLike) -> None:
    """Refuse to replace a record whose file is read-only (no write permission for anyone):
    whoever made it so meant it to stay (an archived game); the rename that writes a record
    would replace it regardless.

    Raises:
        Failed: the record is read-only (exit 2); nothing is written.
    """
    try:
        mode = os.stat(game).st_mode
    except OSError:
        return
    if not mode & 0o222:
        raise Failed(f"{os.fspath(game)} is read-only, so it was left as it is and nothing was "
                     f"written; make it writable (chmod u+w) to go on with the game")


def make_views_dir(views_dir: PathLike) -> bool:
    """Create the views folder unless it exists (its parent must: a typo must not create a
    tree); True when it was created here.

    Raises:
        Failed: it cannot be created (exit 2), said before anything is written.
    """
    try:
        return make_folder(views_dir, what="the views folder")
    except OSError as exc:
        said = explain_os_error(exc)
        raise Failed(f"{said.where}: {said.problem}, so nothing was written; {said.fix}") from None


def views_after_record(game: PathLike, views_dir: PathLike, record: Record, replay: Replay, *,
                        stale_only: bool = False) -> int:
    """Write the views once the record holds the move; a failure here must not read as "nothing
    changed", so it says what happened and how to repair it (exit 4: the disk, not the input)."""
    try:
        return write_views(views_dir, record, replay, stale_only=stale_only)
    except OSError as exc:
        said = explain_os_error(exc)
        what = f"{said.where}: {said.problem}" if said.where else said.problem
        raise Failed(f"the move was recorded in {game}, but the views could not be written "
                     f"({what}); {said.fix}, then run the same apply again to rewrite them",
                     ExitCode.BUG) from None


def write_encrypted_views(views_dir: PathLike, record: Record, replay: Replay,
                          keys: dict[str, str]) -> int:
    """Each player's view (YAML and text) only encrypted with age to that player's SSH public
    key, as ``NAME.yaml.age`` and ``NAME.txt.age`` (mode 0644: anyone may hold them); the public
    view plain, as :func:`write_views` writes it. A plain ``NAME.yaml`` or ``NAME.txt`` left in
    the folder (from before) is removed, so the folder can be committed to a public repository.

    ``keys``: player name -> SSH public key line (``ssh-ed25519 ...`` or ``ssh-rsa ...``). In a
    fair deal's join phase, a player who has not joined yet and has no key gets no private view
    until they do (no one holds a card before the deal; the public view says who is awaited).
    Each call encrypts afresh (age output differs each time), so every view file is rewritten.
    Before it is encrypted, every private view of the call is padded to one size, the smallest
    multiple of 16 KiB that holds the longest (:func:`~rebis_pbm.crypto.age.padded`:
    a last line of spaces), since age does not hide a file's length: 16 KiB for every view of a
    game with the default ruleset (docs/formats.md, "Padding of encrypted files").
    Returns how many files were written.

    Raises:
        Failed: a player has no key (exit 2, nothing written).
        InputError: a player's key is not one age encrypts to (exit 2, nothing written).
        OSError: a :class:`~rebis_pbm.files.atomic.FileError` when a file cannot be written.
    """
    from rebis_pbm.crypto.age import VIEW_PAD, bucket, encrypt_to_ssh_keys, padded

    # In a fair deal's join phase no one holds a card yet: a player who has not joined (and so
    # registered no key) gets no private view until they do; the public view says who is awaited.
    waiting = set(record.waiting_for()) if record.joining() else set()
    missing = [p for p in record.players if not keys.get(p) and p not in waiting]
    if missing:
        raise Failed(f"game {record.game}: {', '.join(missing)} ha"
                     f"{'s' if len(missing) == 1 else 've'} no public key, so "
                     f"{'their view' if len(missing) == 1 else 'their views'} cannot be written "
                     f"encrypted; register every player's SSH key first (nothing was written)")
    files: list[tuple[str, bytes, int]] = []
    private: list[tuple[str, bytes, str]] = []  # (file name, plain view, its reader's key)
    for viewer in (*record.players, None):
        if viewer is not None and not keys.get(viewer):
            continue  # waiting for their join (and key): no view yet
        view = record_view(record, replay, viewer)
        lang = record.lang(viewer)  # the text view speaks its player's language (YAML: English)
        text_view = view if lang == "en" else record_view(record, replay, viewer, lang)
        for fmt, suffix in (("yaml", ".yaml"), ("text", ".txt")):
            data = views_mod.render(text_view if fmt == "text" else view, fmt,
                                    lang).encode("utf-8")
            if viewer is None:
                files.append((f"{views_mod.PUBLIC}{suffix}", data, 0o644))
            else:
                private.append((f"{viewer}{suffix}{ENCRYPTED}", data, keys[viewer]))
    # age does not hide a length: every private view is padded to one size (docs/formats.md)
    size = bucket((len(data) for _, data, _ in private), VIEW_PAD)
    for name, data, key in private:
        viewer = name.split(".", 1)[0]
        files.append((name, encrypt_to_ssh_keys(padded(data, size), [key],
                                                source=f"{viewer}'s key"), 0o644))
    if not os.path.isdir(views_dir):
        make_folder(views_dir, what="the views folder")
    written = 0
    for name, data, mode in files:
        path = os.path.join(views_dir, name)
        if not _holds(path, data, mode):
            write_atomic(path, data, mode=mode, durable=False)
            written += 1
    for viewer in record.players:
        for suffix in (".yaml", ".txt"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(views_dir, viewer + suffix))
    return written
