"""Positions for the CLI tests, found by playing games with the engine and then rebuilt through
the CLI (`new` with the same seed, then `apply` of every move found).

The search is deterministic: seeds are tried in order and moves chosen by fixed rules, so the
same positions come back on every run; nothing is copied from a previous run's output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from clitools import apply_all, move_doc, new_game
from rebis_pbm.engine import (
    POSITIVE,
    IllegalMove,
    Move,
    Play,
    Ruleset,
    ShelfRef,
    apply_move,
    check_move,
    legal_moves,
    setup,
)


@dataclass
class Position:
    """A game reached by ``moves`` from ``seed``; ``candidate`` is the move the search looked for
    there (often one the rules refuse)."""

    seed: str
    players: tuple[str, ...]
    new_args: tuple[str, ...]
    moves: list
    state: object
    candidate: Move | None = None

    def build(self, folder: Path, game_id: str = "cli-game") -> Path:
        """Play this position through the CLI in ``folder``; returns the record's path."""
        game = new_game(folder / "game", self.players, self.seed, "--game-id", game_id,
                        *self.new_args)
        apply_all(game, [move_doc(m, game_id) for m in self.moves], folder / "played")
        return game


def ruleset_of(new_args: tuple[str, ...]) -> Ruleset:
    """The ruleset `new` builds from these options (only --zero and --rule NAME=INT here)."""
    values: dict = {}
    args = list(new_args)
    while args:
        arg = args.pop(0)
        if arg == "--zero":
            values["zero"] = True
        elif arg == "--rule":
            name, _, text = args.pop(0).partition("=")
            values[name] = text if name == "multiplier" else int(text)
    return Ruleset(**values)


def closes(state, move: Move) -> bool:
    """Does this play close another player's active shelf (R8.1)?"""
    play = move.play
    if play is None or play.owner == state.player_to_move:
        return False
    target = state.seat(play.owner)
    return state.active_shelf(target).weight + play.cards[0] > state.ruleset.shelf_limit


def first_legal(state) -> Move:
    """The first listed legal move: the smallest card on the mover's own shelf, while it fits."""
    return legal_moves(state)[0]


def closer(state) -> Move:
    """Close a shelf whenever possible, else load another player's shelf with the biggest card
    that keeps it open (so that shelves close, tokens run out and games end quickly)."""
    options = [m for m in legal_moves(state) if not m.golden_dust]
    closing = [m for m in options if closes(state, m)]
    if closing:
        return closing[0]
    onto_others = [m for m in options if m.play is not None and m.play.owner != state.player_to_move
                   and m.play.sign == POSITIVE]
    if onto_others:
        return max(onto_others, key=lambda m: m.play.cards[0])
    return options[0]


def search(want: Callable[[object], Move | None], *, chooser=first_legal,
           players=("alice", "bob"), new_args: tuple[str, ...] = (), seeds=200,
           max_turns=200) -> Position:
    """Play games (seed "cli-0", "cli-1", ...) with ``chooser`` until ``want(state)`` returns a
    move; the first hit is returned. ``want`` sees only states of games still in play."""
    ruleset = ruleset_of(new_args)
    for n in range(seeds):
        seed = f"cli-{n}"
        state, _ = setup(ruleset, tuple(players), seed)
        moves = []
        for _ in range(max_turns):
            if state.finished:
                break
            candidate = want(state)
            if candidate is not None:
                return Position(seed, tuple(players), tuple(new_args), moves, state, candidate)
            move = chooser(state)
            state, _ = apply_move(state, move)
            moves.append(move)
    raise AssertionError("no position found; widen the search")


def refused_with(state, move: Move, code: str) -> Move | None:
    """``move`` if the engine refuses it in ``state`` with ``code``, else None."""
    try:
        check_move(state, move)
    except IllegalMove as exc:
        return move if exc.code == code else None
    return None


def play(state, cards, shelf, sign=POSITIVE, **extra) -> Move:
    """A move for the player to move, this turn."""
    return Move(state.turn, state.player_to_move, play=Play(tuple(cards), shelf, sign), **extra)


def shelf_ref(player: str, shelf: int) -> ShelfRef:
    return ShelfRef(player, shelf)
