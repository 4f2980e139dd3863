"""Bots: players that choose their own moves, from what the player they stand in for may know.

A bot is handed the mover's information set, ``information_set(state, mover)`` (the same object
the player's view is built from): their own hand and draw, the public shelves, hand and deck sizes,
supply and reserves. Every other card there is ``HIDDEN``. The bot lists the legal moves with the
engine's own :func:`~rebis_pbm.engine.legal_moves` and may look ahead with
:func:`~rebis_pbm.engine.apply_move` on that same information set, so it is a fair stand-in for a
person: a default move for a player who missed a deadline, or a player in ``rebis-pbm simulate``.

Bots are not part of any replay: the record keeps the moves they chose, never how. A seeded bot
draws from its own ``random.Random(seed)`` (never the global ``random``), so the same seed makes
the same choices in the same positions.

Strategies:

``random``
    Uniform over the legal moves (every golden dust count, card, shelf, sign and gold placement
    listed by ``legal_moves`` is one move, equally likely).
``greedy``
    One ply: play each legal move on the information set and keep the one that maximises the
    mover's score minus the sum of the other players' scores (R13) right after it. This plays
    cards on the mover's own best shelf, places golden dust where it multiplies, closes or
    subtracts from rivals' valuable shelves, and puts gold and red tokens on the mover's best
    shelf. Ties go to the first such move in ``legal_moves`` order, so the greedy bot needs no
    seed. It looks no further: the cards it would draw are ``HIDDEN`` to it.
"""

from __future__ import annotations

from rebis_pbm.engine import HIDDEN, Move, State, apply_move, legal_moves, scores

STRATEGIES = ("random", "greedy")


def _check_infoset(infoset: State) -> None:
    """Refuse a full state: a bot given the deck order would be a cheat, and a bug."""
    if infoset.to_move is None:
        raise ValueError("the game is over: there is no move to choose")
    if infoset.order.count(HIDDEN) != len(infoset.order):
        raise ValueError("a bot chooses from information_set(state, mover), never from the full "
                         "state (which holds the deck order and the other hands)")


class RandomBot:
    """Chooses uniformly among the legal moves, drawing from ``random.Random(seed)``.

    Args:
        seed: any text or integer; the same seed makes the same choices in the same positions.
    """

    strategy = "random"

    def __init__(self, seed: str | int = 0):
        import random  # here, not at the top: the CLI imports this module for every command

        self._rng = random.Random(seed)

    def choose(self, infoset: State) -> Move:
        """A legal move for the player to move in ``infoset`` (an ``information_set``).

        Raises:
            ValueError: ``infoset`` is a full state, or the game is over.
        """
        _check_infoset(infoset)
        return self._rng.choice(legal_moves(infoset))


class GreedyBot:
    """One-ply greedy: maximise own score minus the others' right after the move (ties: first).

    Args:
        seed: accepted for a uniform interface and ignored: the greedy bot draws nothing.
    """

    strategy = "greedy"

    def __init__(self, seed: str | int = 0):
        del seed

    def choose(self, infoset: State) -> Move:
        """The best legal move by the heuristic of the module docstring.

        Raises:
            ValueError: ``infoset`` is a full state, or the game is over.
        """
        _check_infoset(infoset)
        mover = infoset.to_move
        assert mover is not None  # _check_infoset refuses a finished game
        best: Move | None = None
        best_gain: int | None = None
        for move in legal_moves(infoset):
            after, _ = apply_move(infoset, move)
            totals = scores(after)
            gain = 2 * totals[mover] - sum(totals)
            if best_gain is None or gain > best_gain:
                best, best_gain = move, gain
        assert best is not None  # a game that goes on has a legal move
        return best


_BOTS: dict[str, type[RandomBot] | type[GreedyBot]] = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(strategy: str, seed: str | int = 0) -> RandomBot | GreedyBot:
    """A bot of ``strategy`` (one of :data:`STRATEGIES`) seeded with ``seed``.

    Raises:
        ValueError: unknown strategy (the message lists the known ones).
    """
    try:
        return _BOTS[strategy](seed)
    except KeyError:
        raise ValueError(f"unknown strategy {strategy!r}; use one of "
                         f"{', '.join(STRATEGIES)}") from None
