"""Moves as the engine sees them: what one player submits for one turn (R6-R8, R12).

A move names players by name and shelves by number (1 = the player's first shelf, in order of
creation), exactly as move files do (docs/formats.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from rebis_pbm.engine.cards import NEGATIVE, POSITIVE
from rebis_pbm.engine.enums import Sign

# A move file's sign word -> its member; any other text is kept as written, for check_move to
# refuse (bad_sign) rather than from_dict to fail.
_SIGN_OF_WORD: Final[dict[str, Sign]] = {sign.value: sign for sign in Sign}


class ShelfRef(NamedTuple):
    """A shelf in play: its owner's name and its number (from 1, in order of creation)."""

    player: str
    shelf: int


class Play(NamedTuple):
    """The turn's action (R7 or R8).

    Attributes:
        cards: one card number, or two equal numbers (a pair, own active shelf only, R7).
        owner: name of the player whose active shelf receives the cards (``play.shelf`` in a
            move file: a shelf is named there by its owner).
        sign: ``POSITIVE`` or ``NEGATIVE`` (R8; own shelf: positive only, R7). The words
            ``"positive"`` and ``"negative"`` are equal to them; any other text is refused by
            :func:`~rebis_pbm.engine.rules.check_move` (``bad_sign``).
    """

    cards: tuple[int, ...]
    owner: str
    sign: Sign | str = POSITIVE


class Move(NamedTuple):
    """One player's move for one turn.

    Either a turn's move (``play``, optional ``golden_dust`` first, ``gold_token`` when the play
    closes a shelf and the supply gives gold) or the game's last move (``red_token``, R12).

    Attributes:
        turn: the turn number the move is for (1 = the first turn of the game).
        player: the mover's name.
        golden_dust: tokens moved from the mover's reserve onto their own active shelf (R6 step 2).
        play: the action (R7/R8); None for the red-token move.
        gold_token: where the gold token taken for closing goes (R8.1).
        red_token: where the red token goes (R12).
    """

    turn: int
    player: str
    golden_dust: int = 0
    play: Play | None = None
    gold_token: ShelfRef | None = None
    red_token: ShelfRef | None = None

    def as_dict(self) -> dict[str, object]:
        """The move as a move file's body (without the ``game`` field), keys in file order:
        ``turn``, ``player``, then ``golden_dust`` (when not 0), ``play`` (``cards``: a number,
        or a list of two; ``shelf``; ``sign``), ``gold_token`` and ``red_token`` (``player``,
        ``shelf``) when present. Plain data only (the sign is its word, a plain ``str``, not a
        :class:`Sign` member), so that any YAML or JSON writer takes it (``yaml.safe_dump``)."""
        doc: dict[str, object] = {"turn": self.turn, "player": self.player}
        if self.golden_dust:
            doc["golden_dust"] = self.golden_dust
        if self.play is not None:
            cards = self.play.cards
            doc["play"] = {
                "cards": cards[0] if len(cards) == 1 else list(cards),
                "shelf": self.play.owner,
                "sign": str(self.play.sign),  # the word: str() of a Sign member is plain str
            }
        if self.gold_token is not None:
            doc["gold_token"] = {"player": self.gold_token.player, "shelf": self.gold_token.shelf}
        if self.red_token is not None:
            doc["red_token"] = {"player": self.red_token.player, "shelf": self.red_token.shelf}
        return doc

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Move:
        """Build a move from a schema-valid move document (``game`` is ignored here).

        Numbers are taken with ``int`` and names with ``str``, a no-op on a valid document; on a
        document of the wrong types (``turn: true``) the move then differs from the document,
        which :meth:`as_dict` shows (the record reader relies on it). The sign words become
        :class:`Sign` members; other text stays as it is, for ``check_move`` to refuse.

        Raises:
            KeyError, TypeError, ValueError: when ``doc`` was not validated against the move
                schema first.
        """
        play = doc.get("play")
        gold = doc.get("gold_token")
        red = doc.get("red_token")
        made = None
        if play is not None:
            given = play["cards"]
            cards = (int(given),) if isinstance(given, int) else tuple(int(c) for c in given)
            word = str(play.get("sign", POSITIVE))
            made = Play(cards, str(play["shelf"]), _SIGN_OF_WORD.get(word, word))
        return cls(
            turn=int(doc["turn"]),
            player=str(doc["player"]),
            golden_dust=int(doc.get("golden_dust", 0)),
            play=made,
            gold_token=None if gold is None else ShelfRef(str(gold["player"]), int(gold["shelf"])),
            red_token=None if red is None else ShelfRef(str(red["player"]), int(red["shelf"])),
        )


__all__ = ["NEGATIVE", "POSITIVE", "Move", "Play", "ShelfRef"]
