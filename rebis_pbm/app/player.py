"""A player's own tools: legal moves and a move's check from their view alone, with no seed."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, cast

from rebis_pbm.app.games import abandoned_no_move, no_move_to_make
from rebis_pbm.app.moves import move_document
from rebis_pbm.engine import IllegalMove, Move, check_move
from rebis_pbm.engine.phrases import N_, Phrase
from rebis_pbm.errors import ExitCode, InputError, RebisError, Refused
from rebis_pbm.files.atomic import PathLike, read_input
from rebis_pbm.formats.yaml_reader import Loaded, load_yaml, top_level_text
from rebis_pbm.present import views as views_mod

if TYPE_CHECKING:  # imported where used: only their commands pay for them
    from rebis_pbm.present.infoset import ViewState
    from rebis_pbm.present.shapes import View


def view_language(view_path: PathLike) -> str:
    """The language a player's YAML view names for its viewer (``lang:``, docs/views.md
    "Languages"), ``en`` when it names none or cannot be read: what that player's tools answer
    in. Reads only the view's top-level ``lang`` (not the whole view: :func:`read_view` did)."""
    try:
        data, _ = read_input(os.fspath(view_path), kind="view")
    except RebisError:
        return "en"
    return top_level_text(data, "lang") or "en"


def read_view(view_path: PathLike) -> ViewState:
    """Read a player's YAML (or JSON) view file and rebuild their information set from it
    (:func:`rebis_pbm.present.infoset.infoset_from_view`): what a player's tools judge moves on,
    without the record or the seed.

    Raises:
        InputError: the file cannot be read, is not a view, is a view of an older format
            (``rebis-pbm/view/1`` lacks the ruleset) or contradicts itself (exit 2).
        Refused: a view of a fair deal's join phase (exit 1): nobody has cards, there is no
            move to list or check before the deal; the sentence says what the viewer is to
            send instead (their join, which the view's ``move_template`` holds).
    """
    return _read_view(view_path)[0]


def view_document(data: bytes, source: str) -> Loaded:
    """A YAML (or JSON) view file's bytes read by the strict loader and checked: a view (not
    another of rebis-pbm's files, said so), of a format this version reads, valid against the
    view schema.

    Raises:
        InputError: any of these fails (one sentence, exit 2).
    """
    from rebis_pbm.formats.filekinds import wrong_kind
    from rebis_pbm.formats.schemas import validate
    from rebis_pbm.present.infoset import check_view_format
    loaded = load_yaml(data, source=source, kind="view")
    misfiled = wrong_kind(loaded.data, "view")
    if misfiled:
        raise InputError(misfiled, source=source)
    check_view_format(loaded.data, source)
    validate(loaded, "view")
    return loaded


def _read_view(view_path: PathLike) -> tuple[ViewState, View]:
    """:func:`read_view`, with the view's document (its witness names the history a move from
    it answers, rebis-pbm/4)."""
    from rebis_pbm.present.infoset import infoset_from_view
    data, source = read_input(os.fspath(view_path), kind="view")
    loaded = view_document(data, source)
    _refuse_join_phase(cast("dict[str, Any]", loaded.data), source)
    doc = cast("View", loaded.data)
    return infoset_from_view(doc, source), doc


def _refuse_join_phase(view: dict[str, Any], source: str) -> None:
    """Refused (exit 1) for a view of the join phase: no turn is played before the deal."""
    if view.get("phase") != "join":
        return
    viewer = view["viewer"]
    if viewer in view["waiting"]:
        template = N_("{source} is a view of game {game} before the deal (the deal waits for "
                      "joins by {waiting}), when there is no move to list or check: {viewer} has "
                      "no move to make yet, but a join to send: save the view's move_template "
                      "as a file (join: any text of your choosing) and send it to the referee")
    elif viewer == views_mod.PUBLIC:
        template = N_("{source} is a view of game {game} before the deal (the deal waits for "
                      "joins by {waiting}), when there is no move to list or check: the "
                      "spectator view has no move to make")
    else:
        template = N_("{source} is a view of game {game} before the deal (the deal waits for "
                      "joins by {waiting}), when there is no move to list or check: {viewer} has "
                      "joined and has nothing to send until the deal")
    raise Refused(phrase=Phrase(template, {"source": source, "game": view["game"],
                                           "waiting": ", ".join(view["waiting"]),
                                           "viewer": viewer}))


def _viewer_to_move(seen: ViewState, source: str) -> str:
    """The viewer of ``seen`` (a :class:`~rebis_pbm.present.infoset.ViewState`), who must be the
    one to move; Refused (exit 1) or InputError (exit 2, a spectator view) otherwise."""
    if seen.viewer is None:
        raise InputError("this is the spectator view, which shows no hand; use your own view "
                         "(rebis-pbm view GAME --player NAME --format yaml)", source=source)
    state = seen.state
    if seen.abandoned:
        raise Refused(phrase=abandoned_no_move(seen.viewer, seen.game))
    if state.player_to_move != seen.viewer:
        raise Refused(phrase=no_move_to_make(seen.viewer, state))
    return seen.viewer


def legal_moves_from_view(view_path: PathLike, fmt: str = "yaml",
                          lang: str | None = None) -> str:
    """Every legal move of the view's viewer, from their view file alone: the same listing as
    :func:`legal_moves_listing` gives the referee on the same position, each move told in
    ``lang`` (default: the view's language):
    :func:`rebis_pbm.present.describe.described_listing`.

    Raises:
        as :func:`read_view`; Refused (exit 1) when it is not the viewer's move; InputError for
        a spectator view.
    """
    seen, doc = _read_view(view_path)
    _viewer_to_move(seen, os.fspath(view_path))
    from rebis_pbm.present.describe import described_listing

    listing = described_listing(seen.game, seen.state, fmt, lang or seen.lang)
    witness = doc.get("witness")
    template = doc.get("move_template")
    if (isinstance(witness, dict) and isinstance(witness.get("chain_sha256"), str)
            and isinstance(template, str) and "\nafter: " in template):
        # the history the view saw, which a move made from it answers, in a game whose moves
        # name it (rebis-pbm/4: the referee's template does)
        from rebis_pbm.app.views import with_after
        listing = with_after(listing, witness["chain_sha256"], fmt)
    return listing


def check_against_view(view_path: PathLike, data: bytes, source: str,
                       signature: bytes | None = None) -> Move:
    """Check a move file against the rules as the referee will, from the mover's own view
    file: the move's form (as :func:`read_move`), its game, then the rules (R6-R12) on the
    information set the view holds. When the view names the viewer's keys (``your_keys``:
    they registered one), the move must be signed as ``apply`` requires: ``signature`` (the
    ``.sig`` file beside the move) over ``data`` by one of them, else the same refusal.
    ``apply --dry-run`` gives the same verdict on the same
    position for the view's viewer (a move already applied aside: the referee accepts it again
    as "already applied", the view, being newer, calls it stale).

    Returns:
        the move, legal now.

    Raises:
        InputError: the view cannot be read (exit 2), or the move is another player's (a view
            can judge only its viewer's moves).
        Refused: the move is unreadable, schema-invalid or for another game (exit 2); against
            the rules, or unsigned (or wrongly signed) by a viewer with a key, with the
            referee's sentence (exit 1).
    """
    seen, view = _read_view(view_path)
    doc = move_document(data, source, joins=False)
    if doc["game"] != seen.game:
        raise Refused(None, ExitCode.INPUT, phrase=Phrase(N_(
            "{source}: this move is for game {other}, but {view} is a view of game {game}"),
            {"source": source, "other": doc["game"], "view": os.fspath(view_path),
             "game": seen.game}))
    move = Move.from_dict(doc)
    if seen.viewer is None:
        _viewer_to_move(seen, os.fspath(view_path))
    if move.player != seen.viewer and move.player in seen.state.players \
            and move.player == seen.state.player_to_move:
        raise InputError(f"this view is {seen.viewer}'s, so it can judge only {seen.viewer}'s "
                         f"moves, not {move.player}'s; check the move with {move.player}'s view",
                         source=os.fspath(view_path))
    keys = view.get("your_keys")
    if keys and move.player == seen.viewer:  # apply refuses an unsigned move of theirs first
        from rebis_pbm.app.moves import signed_with
        signed_with(tuple(keys), move.player, data, signature, source)
    if seen.abandoned:
        raise Refused(phrase=Phrase(N_("{source}: move rejected: game {game} was abandoned (its "
                                       "seed was revealed with rebis-pbm reveal); no more moves "
                                       "can be played"), {"source": source, "game": seen.game}))
    try:
        check_move(seen.state, move, hand_first=True)  # the player's own: hand first
    except IllegalMove as exc:
        raise Refused(reason=exc.code, phrase=Phrase(N_("{source}: move rejected: {reason}"), {
            "source": source, "reason": exc.phrase or exc.message})) from None
    return move
