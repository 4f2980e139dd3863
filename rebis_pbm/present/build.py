"""Building views: a viewer's information set of a game as a view (docs/views.md), and their moves.

A view is built from the replayed state and history, cut down to the viewer's information set
(:func:`rebis_pbm.engine.information_set`): their own hand and draws, everything face up, hand
sizes, the face-down cards they placed themselves, the supply and reserves, and the public
history. Never another player's hand, the deck order, a face-down card the viewer did not place,
or the seed; once the record reveals the seed, every face-down card.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from rebis_pbm.engine import burdens, information_set, legal_moves, score_table, winners
from rebis_pbm.engine.scoring import Burden, PlayerScore
from rebis_pbm.engine.state import FINISHED, PLAY, RED_TOKEN, State
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.present.i18n import gettext_for
from rebis_pbm.present.kept import shelf_view
from rebis_pbm.present.wording import JOIN_PLACEHOLDER, PLAY_WRITES_IT, account
from rebis_pbm.record import Replay

if TYPE_CHECKING:  # the view's types: for the type checker only (shapes.py says why)
    from rebis_pbm.present.shapes import (
        BurdenView,
        EndView,
        EndWarning,
        HistoryEntry,
        PlayerView,
        RulesetView,
        View,
        You,
    )

VIEW_FORMAT = "rebis-pbm/view/2"  # 2: the ruleset in force (a player's tools need it), the
# record's witness, and the join phase's view
PUBLIC = "public"  # the spectator view's name; no player may take it

RECENT_MOVES = 4   # moves shown in a view's history: at least one round of a 4-player game
# The last state whose views were built (held, compared with is), its score table and its
# burdens: the same for every viewer (build_view).
_PUBLIC: tuple[State | None, tuple[PlayerScore, ...], tuple[Burden, ...]] = (None, (), ())


def build_view(game: str, replay: Replay, viewer: str | None, *, revealed: bool = False,
               abandoned: bool = False, addresses: dict[str, str] | None = None,
               lang: str | None = None, stand_ins: dict[int, str] | None = None) -> View:
    """The view of ``viewer`` (a player's name, or None for the public spectator view).

    ``revealed``: the record reveals the seed (the game is over, or abandoned), so anyone can
    compute every card; the view then shows every face-down card's number and says so
    (``seed_revealed``). Before that, a face-down card shows its number only to the player who
    laid it, and a card dealt face down at setup to nobody (R5, R8.1).

    ``abandoned``: the seed was revealed before the end (``Record.abandoned``): nobody is to
    move any more, so the view has no ``to_move``, no draw and no move template.

    ``addresses`` (player -> e-mail address) are shown in every player's entry; pass
    ``Record.shown_addresses()``, which is empty unless the game made them public.

    ``lang``: the language of the view's sentences (its history, warnings and move template's
    comments; :mod:`rebis_pbm.present.i18n`), for the text view of a player who reads another
    language
    than English. The YAML and JSON views are built in English (the default): they are data.

    ``stand_ins``: the moves the referee made for a player, ``{turn: reason}``
    (``referee.stand_ins``): their history entries say so, in ``by: referee``, ``reason`` and
    ``account`` (the move told as the referee's, :func:`account`; ``text`` stays the events
    told as they are, as views have always had it).

    Returns a dict matching ``schemas/view.schema.json`` (:class:`~rebis_pbm.present.shapes.View`),
    the caller's to change. Its shelves are copies of entries kept for the next view of the same
    shelves (a closed shelf is in every view of every later move): kept apart for each way a
    viewer may see a shelf, so that no view shows more than its viewer's information set (see
    :func:`rebis_pbm.present.kept.shelf_view`). Raises ValueError for an unknown viewer.
    """
    global _PUBLIC
    addresses = addresses or {}
    viewer_seat = None if viewer is None else replay.state.seat(viewer)
    # Built from the viewer's information set only: no hidden card is even within reach (once
    # the seed is revealed, every face-down card is public and the full state is shown).
    state = replay.state if revealed else information_set(replay.state, viewer_seat)
    if _PUBLIC[0] is not replay.state:
        # The scores (face-up cards and tokens, R13) and R12's burdens during the game (face-up -
        # cards and hand sizes) are public, the same in every viewer's information set: counted
        # once for the views of a state, not once per view.
        _PUBLIC = (replay.state, score_table(state), burdens(state))
    scores = {p.player: p for p in _PUBLIC[1]}
    burden_of: dict[str, BurdenView] = {
        b.player: {"negative": b.negative, "hand": b.hand, "total": b.total} for b in _PUBLIC[2]}
    players: list[PlayerView] = []
    for seat, name in enumerate(state.players):
        row = state.shelves[seat]
        shelf_scores = scores[name].shelves
        shelves = [shelf_view(real, seen, seat, number, number == len(row),
                              shelf_scores[number - 1].score, viewer_seat, state.players,
                              revealed)
                   for number, (real, seen) in enumerate(
                       zip(replay.state.shelves[seat], row, strict=True), start=1)]
        # cast: the type checker does not follow the address spread into a PlayerView
        players.append(cast("PlayerView", {
            "name": name,
            **({"address": addresses[name]} if name in addresses else {}),
            "seat": seat + 1,
            "hand": len(state.hands[seat]),
            "reserve": state.reserves[seat],
            "score": scores[name].total,
            "burden": burden_of[name],
            "shelves": shelves,
        }))
    view: View = {
        "view": VIEW_FORMAT,
        "game": game,
        "viewer": PUBLIC if viewer is None else viewer,
        "phase": state.phase,
        "turn": state.turn,
        "ruleset": cast("RulesetView", state.ruleset.as_dict()),
    }
    if abandoned:
        view["abandoned"] = True
    elif state.phase != FINISHED:
        view["to_move"] = state.player_to_move
    if revealed:
        view["seed_revealed"] = True
    view["deck"] = state.deck_count
    view["supply"] = {"golden_dust": state.supply.golden_dust, "gold": state.supply.gold,
                      "red": state.supply.red}
    if state.phase == PLAY and not abandoned:
        warnings = end_warnings(state.deck_count, state.supply.golden_dust, state.supply.gold,
                                lang)
        if warnings:
            view["warnings"] = warnings
    if viewer_seat is not None:
        you: You = {"hand": list(state.hands[viewer_seat]), "reserve": state.reserves[viewer_seat]}
        if state.phase == PLAY and state.to_move == viewer_seat and not abandoned:
            you["drawn"] = state.drawn
        view["you"] = you
    view["players"] = players
    view["history"] = _history(replay, viewer, lang, stand_ins or {})
    if state.phase in (RED_TOKEN, FINISHED):
        view["end"] = _end(state)
    if viewer_seat is not None and state.to_move == viewer_seat and not abandoned:
        view["move_template"] = move_template(game, state, lang)
    return view


LAST_TURN, LAST_CARD, LAST_TOKEN = "last_turn", "last_card", "last_token"


def end_warnings(deck: int, golden_dust: int, gold: int,
                 lang: str | None = None) -> list[EndWarning]:
    """What may end the game at the end of this turn (R11), for a game in play: from the deck
    count after this turn's draw and the supply's golden dust and gold only, which everyone
    sees, so a warning never tells a hidden card.

    Returns a list of ``{"warning": code, "text": sentence}``: ``last_turn`` (the deck is
    empty: the game ends after this turn), ``last_card`` (one card left: a - card or a closed
    shelf draws it, and the game ends after this turn), ``last_token`` (one golden dust or gold
    token left in the supply: closing a shelf takes it, and the game ends after this turn).
    The sentences are in ``lang`` (default English).

    >>> [w["warning"] for w in end_warnings(0, 3, 1)], end_warnings(5, 0, 2)
    (['last_turn'], [])
    >>> [w["warning"] for w in end_warnings(1, 0, 1)]
    ['last_card', 'last_token']
    """
    _ = gettext_for(lang)
    if deck == 0:
        return [{"warning": LAST_TURN, "text": _("Last turn: the deck is empty, so the game "
                                                 "ends after this turn (R11).")}]
    warnings: list[EndWarning] = []
    if deck == 1:
        warnings.append({"warning": LAST_CARD, "text": _(
            "One card is left in the deck: if this turn plays a - card or closes a shelf, that "
            "draw takes it and the game ends after this turn (R11).")})
    if golden_dust + gold == 1:
        text = (_("The last golden dust token is in the supply: closing a shelf this turn takes "
                  "it, and then no golden dust and no gold is left, so the game ends after this "
                  "turn (R11).") if golden_dust else
                _("The last gold token is in the supply: closing a shelf this turn takes it, and "
                  "then no golden dust and no gold is left, so the game ends after this turn "
                  "(R11)."))
        warnings.append({"warning": LAST_TOKEN, "text": text})
    return warnings


def _history(replay: Replay, viewer: str | None, lang: str | None = None,
             stand_ins: dict[int, str] | None = None) -> list[HistoryEntry]:
    entries: list[HistoryEntry] = []
    if len(replay.history) < RECENT_MOVES:
        entries.append({"turn": 0, "player": None,
                        "text": account(replay.setup_events, viewer, lang)})
    for move, events in replay.history[-RECENT_MOVES:]:
        entry: HistoryEntry = {"turn": move.turn, "player": move.player,
                               "text": account(events, viewer, lang)}
        reason = (stand_ins or {}).get(move.turn)
        if reason is not None:  # the referee made it for its player: told as the referee's
            entry["by"] = "referee"
            entry["reason"] = reason
            entry["account"] = account(events, viewer, lang, stand_in=reason)
        entries.append(entry)
    return entries


def _end(state: State) -> EndView:
    """How a game that has ended (phase red_token or finished) ended: why, the burdens (R12),
    then who places the red token, or the scores and the winners (R13)."""
    end: EndView = {
        "reason": cast(str, state.end_reason),  # set once the game ends (R11)
        "burdens": [{"player": b.player, "negative": b.negative, "hand": b.hand, "total": b.total}
                    for b in burdens(state)],
    }
    if state.phase == RED_TOKEN:
        end["red_token"] = cast(str, state.player_to_move)  # who places it (R12)
    else:
        end["scores"] = [{"player": p.player, "total": p.total} for p in score_table(state)]
        end["winners"] = list(winners(state))
    return end


def move_template(game: str, state: State, lang: str | None = None) -> str:
    """A move file for the player to move, ready to edit: a legal example with comments (in
    ``lang``, default English; the YAML keys and values stay as the move schema has them).

    It uses only what that player knows (their hand, public shelves, supply and reserve).
    """
    _ = gettext_for(lang)
    example = legal_moves(state)[0].as_dict()
    doc = {"game": game, **example}
    if state.phase == RED_TOKEN:
        notes = (_("Your last move: place the red token on any shelf in play (R12).\n"
                   "red_token: player = the shelf's owner, shelf = its number."))
    else:
        notes = (_("Your move: edit this example and send it (the referee can list every legal\n"
                   "move for you with rebis-pbm moves).\n"
                   "golden_dust: tokens from your reserve onto your active shelf first (R6).\n"
                   "play.cards: one number, or [n, n] for a pair on your own shelf (R7).\n"
                   "play.shelf: whose active shelf; play.sign: positive or negative (R8).\n"
                   "gold_token: {player, shelf} only when your card closes a shelf and the supply\n"
                   "  has no golden dust left (R8.1)."))
    return "".join(f"# {line}\n" for line in notes.split("\n")) + dump_yaml(doc)


def signed_note(lang: str | None = None) -> str:
    """The comment lines that open the move template of a player who registered a key (in
    ``lang``): their move must be signed, and how (issue 29: ``rebis-pbm play --key``, or the
    ``ssh-keygen`` line); a move file that carries them is still a move file."""
    _ = gettext_for(lang)
    notes = (_("You registered a key, so this move must be signed. The one command that\n"
               "writes it, signs it and sends it (docs/play.md):\n"
               "  rebis-pbm play VIEW.yaml --key ~/.ssh/id_ed25519 --send\n"
               "or sign the file you send: ssh-keygen -Y sign -f KEY -n rebis-pbm FILE\n"
               "(it writes FILE.sig: send both)."))
    return "".join(f"# {line}\n" for line in notes.split("\n"))


def moves_listing(game: str, state: State, fmt: str) -> str:
    """Every legal move of the player to move, each a complete move file that ``apply`` accepts.

    ``yaml``: one document per move, each after a ``---`` line; ``json``: a list of documents.
    It shows that player's hand, so it is for them alone (docs/views.md).
    """
    docs = [{"game": game, **m.as_dict()} for m in legal_moves(state)]
    if fmt == "json":
        return json.dumps(docs, indent=2) + "\n"
    if fmt == "yaml":
        return "".join("---\n" + dump_yaml(d) for d in docs)
    raise ValueError(f"unknown format {fmt!r}: use yaml or json")


def join_view(game: str, players: Sequence[str], waiting: Sequence[str], viewer: str | None,
              lang: str | None = None, header_sha256: str | None = None,
              round_: int | None = None, after: str | None = None) -> View:
    """The view of a game in its join phase (rebis-pbm/2 fair deal): nobody has cards yet.
    ``players`` in seat order, ``waiting`` the players whose join is still awaited; ``lang``
    the language of the move template's placeholder (default English); ``header_sha256`` the
    record's header digest, which the template names so that a signed join binds to this game,
    its seat order and its ruleset alone (docs/shuffle.md). ``round_`` (rebis-pbm/5): 1 while
    the deal waits for commitments, 2 while it waits for joins, whose template names ``after``
    (the last commitment's chain digest); neither template holds entropy: the player's own
    ``rebis-pbm play`` writes it."""
    view: View = {"view": VIEW_FORMAT, "game": game,
                  "viewer": PUBLIC if viewer is None else viewer, "phase": "join",
                  "players_joined": [p for p in players if p not in waiting],
                  "waiting": list(waiting)}
    if round_ is not None:
        view["round"] = round_
    if viewer is not None and viewer in waiting:
        bound = "" if header_sha256 is None else f"header_sha256: {header_sha256}\n"
        if round_ == 1:
            filler = gettext_for(lang)(PLAY_WRITES_IT)
            view["move_template"] = (f"game: {game}\nplayer: {viewer}\n{bound}"
                                     f"commitment: {filler}\n")
        elif round_ == 2:
            filler = gettext_for(lang)(PLAY_WRITES_IT)
            view["move_template"] = (f"game: {game}\nplayer: {viewer}\nafter: {after}\n"
                                     f"join: {filler}\n")
        else:
            filler = gettext_for(lang)(JOIN_PLACEHOLDER)
            view["move_template"] = f"game: {game}\nplayer: {viewer}\n{bound}join: {filler}\n"
    return view

