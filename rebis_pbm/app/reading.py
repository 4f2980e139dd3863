"""Reading a game for people: legal moves, score, verify, reveal, the spectators' page, bots."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from rebis_pbm.app.games import check_player, for_mover, open_game, read_record, require_record
from rebis_pbm.app.views import (
    check_views_dir,
    check_writable,
    make_views_dir,
    public_game_state,
    public_state,
    record_view,
    with_after,
    write_views,
)
from rebis_pbm.engine import Move, State, burdens, score_table, winners
from rebis_pbm.errors import Failed, InputError, Refused, SeedError
from rebis_pbm.files.atomic import PathLike, read_input, write_atomic
from rebis_pbm.files.lock import locked
from rebis_pbm.files.names import (
    PLAYERS_FOLDERS,
    QUEUE_SUFFIX,
    RECORD_SUFFIX,
    SECRET_SUFFIX,
    VIEWS_SUFFIX,
    default_views_dir,
)
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.record import HEADER, Record, dump_record, parse_record, secret_path

if TYPE_CHECKING:  # imported where used: only their commands pay for them
    from rebis_pbm.present.site import JoinGame, PublicGame
    from rebis_pbm.record.audit import Report


def legal_moves_listing(game: PathLike, player: str, fmt: str = "yaml") -> str:
    """Every legal move of ``player``, who must be the one to move, each a complete move file
    with what it does in ``player``'s language (YAML documents separated by ``---``, each after
    a comment line; a JSON list of ``{description, move}``; or numbered text lines):
    :func:`rebis_pbm.present.describe.described_listing`.

    Raises:
        as :func:`for_mover`.
    """
    try:  # the fast read (no schema machinery), which every later read in this process reuses
        record = open_game(game).record
    except SeedError:
        record = read_record(game)  # a join needs no seed; anything else raises it again below
    check_player(record, player)
    if record.joining() and record.seed is None and player in record.waiting_for():
        from rebis_pbm.app.deal_rounds import last_commitment
        from rebis_pbm.app.joins import join_listing
        return join_listing(record.game, player, fmt, record.lang(player), record.header_sha256,
                            round_=record.join_round() if record.two_rounds else None,
                            after=last_commitment(record),
                            has_key=bool(record.player_keys(player)))
    record, state = for_mover(game, player)
    from rebis_pbm.present.describe import described_listing

    listing = described_listing(record.game, state, fmt, record.lang(player))
    return with_after(listing, record.last_digest(), fmt) if record.pins_history else listing


def score(game: PathLike) -> dict[str, Any]:
    """The score of the game shelf by shelf (R13), the burdens (R12) and, once it is over, the
    winners: ``{"game", "phase", "turn", "scores": [{"player", "total", "shelves": [{"shelf",
    "active", "value", "tokens", "multiplier", "score"}]}], "burdens": [{"player", "negative",
    "hand", "total"}], "winners": [names] or None}``.

    Raises:
        as :func:`public_game_state` (no seed is needed: face-down cards count 0).
    """
    record, replay = public_game_state(game)
    state = replay.state
    if state is None:
        raise Refused(f"game {record.game} has no score yet: the deal waits for joins by "
                      f"{', '.join(record.waiting_for())}")
    return {
        "game": record.game,
        "phase": str(state.phase),
        "turn": state.turn,
        "scores": [{"player": p.player, "total": p.total, "shelves": [
            {"shelf": s.shelf, "active": s.active, "value": s.value, "tokens": s.tokens,
             "multiplier": s.multiplier, "score": s.score} for s in p.shelves]}
            for p in score_table(state)],
        "burdens": [{"player": b.player, "negative": b.negative, "hand": b.hand,
                     "total": b.total} for b in burdens(state)],
        "winners": list(winners(state)) if state.finished else None,
    }


def verify(game: PathLike, seed_file: PathLike | None = None,
           witnesses: Sequence[PathLike] = (), refusals: Sequence[PathLike] = (),
           referee: str | None = None) -> Report:
    """Check that the record in ``game`` is the game that was played, by the rules, and
    unedited (docs/audit.md). Anyone can: without the seed, the form, the header digest and
    each move's turn, seat order and chain digest; with it (revealed in the record, the secret
    file ``seed_file``, ``REBIS_PBM_SEED`` or the secret file beside the record), every move
    replayed and every keyed digest.

    ``witnesses``: saved views or mails (:func:`rebis_pbm.record.witness.read_witnesses`), each
    holding one witness or several: the record must still hold every one's chain digest at its
    move, else the report fails naming it; in a game with a referee key only the witnesses its
    referee signed count, and one it did not sign raises InputError once the signed ones hold.
    ``refusals``: saved refusal mails or refusal files (rebis-pbm/4, a game with a referee key):
    each must carry a statement this game's referee signed
    (:func:`rebis_pbm.record.refusals.signed_refusals`; other statements beside it are named as
    not signed), and the record must hold the header digest and the chain digest it names, as a
    witness's. ``referee``: the fingerprint of the referee key the reader trusts
    (:func:`rebis_pbm.app.signing.published_referee`): a record not signed by it fails (code
    ``referee``, :func:`rebis_pbm.record.audit.pin_referee`), one with no referee key included.

    Returns:
        a :class:`rebis_pbm.record.audit.Report`; ``report.verified`` says whether it passed.

    Raises:
        InputError: the record, the seed file, a witness or a refusal cannot be read, a
            witness or refusal is not signed by the game's referee, or the record is another
            of rebis-pbm's files, such as a move or a secret file (exit 2).
        SeedError: the seed file is another game's.
    """
    from rebis_pbm.record import SEED_ENV, read_secret
    from rebis_pbm.record.audit import verify as run_verify

    data, source = read_input(os.fspath(game), kind="record")

    def find(record: Record) -> tuple[str, str] | None:
        if seed_file is not None:
            return read_secret(seed_file, record), os.fspath(seed_file)
        if record.seed is not None:
            return None  # the record's own seed is the one to check
        if os.environ.get(SEED_ENV):
            return os.environ[SEED_ENV], SEED_ENV
        sidecar = secret_path(game)
        if os.path.exists(sidecar):
            return read_secret(sidecar, record), sidecar
        return None

    from rebis_pbm.record.refusals import (
        describe_refusal,
        read_refusals,
        refusal_witnesses,
        signed_refusals,
    )
    from rebis_pbm.record.witness import read_witnesses, signed_witnesses
    seen = [w for path in witnesses for w in read_witnesses(os.fspath(path))]
    read = [read_refusals(os.fspath(path)) for path in refusals]
    said = [r for statements in read for r in statements]
    unsigned: list[InputError] = []
    others: list[str] = []
    if seen or said:  # the referee's signature first (rebis-pbm/4): unsigned, it proves nothing
        try:
            signed: Record | None = parse_record(data, source)
        except InputError:
            signed = None  # the report says what is wrong with the record
        if signed is not None:
            # every witness a file holds must hold; an unsigned one proves nothing, so the
            # record is checked against the signed ones first: a rewrite they prove (exit 3)
            # outweighs an unsigned line beside them (exit 2)
            seen, unsigned = signed_witnesses(signed, seen)
            said = []
            for statements in read:  # one signed statement in a file is what the file says
                held, not_signed = signed_refusals(signed, statements)
                said += held
                others += not_signed
    report = run_verify(data, source, find,
                        seen + [w for refused in said for w in refusal_witnesses(refused)])
    if referee is not None:
        from rebis_pbm.record.audit import pin_referee
        pin_referee(report, referee)
    if report.verified and unsigned:
        raise unsigned[0]
    if report.verified:
        report.checked.extend(describe_refusal(refused) for refused in said)
        report.checked.extend(others)
    if report.problem is not None and report.problem.code == "schema":
        _refuse_other_kind(data, source)
    return report


def _refuse_other_kind(data: bytes, source: str) -> None:
    """Raise InputError (exit 2) when the record's bytes are another of rebis-pbm's files (a
    move, a view, a secret file): a file given in the wrong place is not a record that fails
    verification (see :mod:`rebis_pbm.formats.filekinds`)."""
    from rebis_pbm.formats.filekinds import wrong_kind
    try:
        doc = load_yaml(data, source=source, kind="record").data
    except InputError:
        return
    misfiled = wrong_kind(doc, "record")
    if misfiled:
        raise InputError(misfiled, source=source)


def record_paths(paths: Iterable[PathLike]) -> list[str]:
    """The records that ``paths`` name: a file as given; for a folder, every record in it and
    its subfolders (a ``.yaml`` file that starts with the header rebis-pbm writes on every
    record, :data:`~rebis_pbm.record.HEADER`), by name, leaving out views, mail queues, hidden
    folders and a git game's folders its players write to
    (:data:`~rebis_pbm.files.names.PLAYERS_FOLDERS`: a copy or a game of their own pushed to
    ``moves/`` is no record of the league). Each record once, in the order given.

    Raises:
        InputError: a path that does not exist, or a folder with no record (exit 2).
    """
    first_line = HEADER.splitlines(keepends=True)[0].encode()
    found: list[str] = []
    for path in (os.fspath(p) for p in paths):
        if not os.path.isdir(path):
            if not os.path.exists(path):
                raise InputError("there is no such game record or folder; check the name",
                                 source=path)
            found.append(path)
            continue
        before = len(found)
        for folder, subfolders, files in os.walk(path):
            subfolders[:] = sorted(d for d in subfolders if not d.startswith(".")
                                   and not d.endswith((VIEWS_SUFFIX, QUEUE_SUFFIX))
                                   and d not in PLAYERS_FOLDERS)
            for name in sorted(files):
                if not name.endswith(RECORD_SUFFIX) or name.endswith(SECRET_SUFFIX):
                    continue
                file = os.path.join(folder, name)
                try:
                    with open(file, "rb") as f:
                        if f.read(len(first_line)) != first_line:
                            continue
                except OSError:
                    continue
                found.append(file)
        if len(found) == before:
            raise InputError("this folder holds no game record (a .yaml file written by "
                             "rebis-pbm, in it or below it)", source=path)
    unique: dict[str, str] = {}
    for file in found:  # one file named twice (a folder and a file in it) is verified once
        unique.setdefault(os.path.realpath(file), file)
    return list(unique.values())


def _verify_one(game: str) -> Report:
    """:func:`verify` of one of many records: a record that cannot be read at all is a failed
    report (code ``unreadable``), not an exception."""
    from rebis_pbm.errors import RebisError
    from rebis_pbm.record.audit import Report
    from rebis_pbm.record.verify import Problem

    try:
        return verify(game)
    except (RebisError, OSError) as exc:
        return Report(game, problem=Problem("unreadable", f"the record cannot be read: {exc}"))


def _verify_chunk(games: list[str]) -> list[Report]:
    return [_verify_one(game) for game in games]


def verify_many(paths: Iterable[PathLike], jobs: int = 1,
                progress: Callable[[int], object] | None = None,
                referee: str | None = None) -> list[Report]:
    """:func:`verify` of every record ``paths`` name (see :func:`record_paths`), on ``jobs``
    processes, in one process each: reports in the order of the records, the same for any
    ``jobs``. Each record's seed is found as :func:`verify` finds it (revealed, else
    ``REBIS_PBM_SEED``, else its own secret file). A record that cannot be read is a failed
    report (problem code ``unreadable``). ``progress(n)`` is called as ``n`` more records are
    done. ``referee``: the fingerprint of the referee key every record must be signed by, as
    for :func:`verify`.

    Returns:
        a list of :class:`rebis_pbm.record.audit.Report`.

    Raises:
        InputError: as :func:`record_paths` (exit 2), before any record is verified.
    """
    games = record_paths(paths)
    reports = []
    if jobs <= 1 or len(games) <= 1:
        for game in games:
            reports.append(_verify_one(game))
            if progress:
                progress(1)
    else:
        from concurrent.futures import ProcessPoolExecutor

        size = max(1, min(50, len(games) // (jobs * 8)))  # small chunks: a smooth bar
        chunks = [games[i:i + size] for i in range(0, len(games), size)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for done in pool.map(_verify_chunk, chunks):
                reports += done
                if progress:
                    progress(len(done))
    if referee is not None:
        from rebis_pbm.record.audit import pin_referee
        reports = [pin_referee(report, referee) for report in reports]
    return reports


class Revealed(NamedTuple):
    """What :func:`reveal` did: ``record`` and ``state`` after it; ``already`` when the record
    revealed its seed before (nothing written)."""

    record: Record
    state: State
    already: bool


def reveal(game: PathLike, *, confirm: bool, views_dir: PathLike | None = None,
           referee_key: PathLike | None = None) -> Revealed:
    """Write the seed of an abandoned game into its record, so that anyone can verify it; the
    game ends for good (``apply`` refuses every further move) and the views show every card.

    Raises:
        Failed: ``confirm`` is false: nothing written, the sentence says what it would do
            (exit 2).
        as :func:`open_game`, and Failed when the views folder cannot be made.
    """
    require_record(game)
    with locked(game):
        record, replay, seed = open_game(game)
        state = replay.state
        if record.seed is not None:
            return Revealed(record, state, True)
        if not confirm:
            raise Failed(f"this would write the seed of game {record.game} into "
                         f"{os.fspath(game)}: every hand, the deck and every face-down card "
                         f"become known and the game ends for good at turn {state.turn} "
                         f"({state.player_to_move} to move); nothing was written. Run again "
                         f"with --yes to do it")
        revealed = record.revealed(seed)
        if revealed.referee_key is not None:  # rebis-pbm/4: the reveal is a signed act
            from rebis_pbm.app.signing import signed_record
            from rebis_pbm.record.deadlines import now_text
            revealed = signed_record(revealed.with_action({"action": "reveal",
                                                           "at": now_text(None)}), referee_key)
        views_dir = views_dir or default_views_dir(game)
        check_views_dir(views_dir, record.game, game, record.players)
        check_writable(game)
        make_views_dir(views_dir)  # a bad views folder is refused before the record changes
        write_atomic(game, dump_record(revealed, state, seed))
        write_views(views_dir, revealed, replay)  # "abandoned", every card shown
    return Revealed(revealed, state, False)


def public_game(game: PathLike) -> PublicGame:
    """What a spectator may know of the game in ``game``, for its web page
    (:mod:`rebis_pbm.present.site`): the public table after every move, the public view, the score,
    and ``verify``'s verdict on the record alone. Read with the seed when it is at hand, else
    from the public record alone (:func:`public_game_state`), so a spectator or a CI job
    without the seed can build it; only public information is kept either way.

    Raises:
        as :func:`public_game_state`.
    """
    from rebis_pbm.engine import setup
    from rebis_pbm.present.site import PublicGame, public_frames, score_data
    from rebis_pbm.record.audit import verify as run_verify
    states: list[State] = []
    record, replay, report = public_state(game, states)
    if report is not None:  # the public record alone: its report is the one to show
        frames = public_frames(record.game, states[0], replay.setup_events, replay.history,
                               states)
    else:
        seed = open_game(game).seed
        start, setup_events = setup(record.ruleset, record.players, record.deal_seed(seed))
        frames = public_frames(record.game, start, setup_events, replay.history)
        data, _ = read_input(os.fspath(game), kind="record")
        # The record alone, under its file name only: never the secret file, whose report
        # could name a mover's cards, and no folder of the referee's.
        report = run_verify(data, os.path.basename(os.fspath(game)))
    return PublicGame(record.game, frames, record_view(record, replay, None),
                      score_data(replay.state), report.verified, report.render_text(),
                      record.seed, record.seed_sha256)


def write_site(game: PathLike, out_dir: PathLike, lang: str | None = None) -> list[str]:
    """Write the spectators' web page of the game in ``game`` into ``out_dir`` (see
    :func:`public_game` and :func:`rebis_pbm.present.site.write_site`); returns the files written,
    the page first.

    Raises:
        as :func:`open_game`; OSError when ``out_dir`` cannot be written.
    """
    from rebis_pbm.present import site
    require_record(game)
    joining = public_join(game)
    if joining is not None:  # before the deal: no table yet, the page of the join phase
        return site.write_join_site(out_dir, joining, lang)
    return site.write_site(out_dir, public_game(game), lang)


def public_join(game: PathLike) -> JoinGame | None:
    """What a spectator may know of a fair deal's join phase, for its web page: the players,
    whom the deal waits for (the record's ``status``: its ``phase: join`` and ``waiting``
    fields), the deadline if any, and ``verify``'s verdict on the record alone (no seed needed:
    nothing is dealt yet). None once the cards are dealt.

    Raises:
        InputError: the record cannot be read (exit 2). CorruptRecord: it fails verification
            (exit 3).
    """
    from rebis_pbm.app.games import record_of
    from rebis_pbm.errors import CorruptRecord
    from rebis_pbm.present.site import JoinGame
    from rebis_pbm.record.audit import verify as run_verify
    from rebis_pbm.record.deadlines import deadline_of

    data, source = read_input(os.fspath(game), kind="record")
    record = record_of(data, source)
    found = record.status(None) if record.joining() else None
    if found is None or found.get("phase") != "join":
        return None
    # Under its file name only: no folder of the referee's in a page built from it.
    report = run_verify(data, os.path.basename(os.fspath(game)))
    if report.problem is not None:
        raise CorruptRecord(f"{source} fails verification at {report.problem.sentence()}; "
                            f"rebis-pbm verify {source} tells more", report.problem)
    waiting = tuple(str(name) for name in found.get("waiting", ()))
    return JoinGame(record.game, tuple(record.players), waiting, deadline_of(record),
                    report.verified, report.render_text(), record.seed_sha256,
                    bool(found.get("abandoned")),
                    record.join_round() if record.two_rounds else None)


def bot_move(game: PathLike, player: str, strategy: str = "random",
             seed: str | None = None) -> tuple[Record, Move]:
    """A legal move for ``player`` (who must be the one to move) chosen by a bot that sees only
    ``player``'s information set (docs/bots.md).

    Raises:
        as :func:`for_mover`.
    """
    from rebis_pbm.bots import make_bot
    from rebis_pbm.engine import information_set

    record, state = for_mover(game, player)
    if seed is None:
        import secrets

        seed = secrets.token_hex(16)
    move = make_bot(strategy, seed).choose(information_set(state, state.to_move))
    return record, move
