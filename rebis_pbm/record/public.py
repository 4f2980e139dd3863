"""The public replay: a game as anyone can follow it from its record alone, without the seed.

Every card played face up is in the record; a closing play's card is sealed (R8.1) and the
deck, the hands and the cards dealt face down are not in it at all. None of them counts in what
is public: a face-down card weighs 0 and is worth 0, a hand counts by its size in a burden
(R12), and the score counts face-up cards and tokens only (R13). So the engine can play the
record's moves on the spectator's information set (every hidden card ``HIDDEN``), putting the
cards each move plays into its mover's hand first, and a stand-in that closes the shelf for a
sealed card: the resulting state is the spectator's information set of the real game.
"""

from __future__ import annotations

from rebis_pbm.engine import Move, apply_move, information_set
from rebis_pbm.engine.cards import HIDDEN
from rebis_pbm.engine.state import State, deal
from rebis_pbm.record.model import Record, Replay, SealedMove


def public_replay(record: Record, states: list[State] | None = None) -> Replay:
    """The spectator's replay of ``record`` (its moves already read and schema-checked): the
    state after the last move as :func:`~rebis_pbm.engine.information_set` of the real one for
    a spectator, the setup's events and each move with its events (draws and closing cards
    ``HIDDEN``; a sealed move stands in with a card that closes the shelf).

    ``states``, when given, receives the spectator's state after the deal and after each move
    (for the game page's table after every move, :mod:`rebis_pbm.present.site`).

    Raises:
        IllegalMove: a move the rules refuse even on public information (an edited record).
    """
    ruleset = record.ruleset
    state, setup_events = deal(ruleset, record.players, (HIDDEN,) * ruleset.card_count)
    state = information_set(state, None)
    if states is not None:
        states.append(state)
    stand_in = max(ruleset.cards)  # closes any shelf the real card closed (R8.1)
    history = []
    for entry in record.moves:
        move: Move = entry.with_card(stand_in) if isinstance(entry, SealedMove) else entry
        if move.play is not None:
            mover = state.to_move
            assert mover is not None  # a recorded move has a mover
            hands = list(state.hands)
            hand = list(hands[mover])
            for card in move.play.cards:
                if HIDDEN in hand:
                    hand.remove(HIDDEN)
                hand.append(card)
            hands[mover] = tuple(hand)
            state = state._replace(hands=tuple(hands))
        state, events = apply_move(state, move)
        state = information_set(state, None)
        history.append((move, events))
        if states is not None:
            states.append(state)
    return Replay(state, setup_events, tuple(history))

