"""The shape of a view: its parts as typed dicts, as schemas/view.schema.json has them.

A view is data (docs/views.md, docs/formats.md): a dict written as YAML or JSON, read back by a
player's tools (:mod:`.infoset`). These ``TypedDict`` classes name its keys and their types for
the type checker; at run time a view is a plain ``dict``, its keys in the order
:func:`rebis_pbm.present.build.build_view` writes them (the format's order). A key that only
some views carry (a join-phase view's ``waiting``, a game's ``end``) is not required.

The modules that build and render views import this one for the type checker only
(``TYPE_CHECKING``): making these classes costs 4 M instructions, which a command that reads a
view need not pay at every start. ``VIEW_FORMAT`` and ``PUBLIC`` are :mod:`.build`'s.
"""

# No ``from __future__ import annotations`` here: as strings, each annotation would be compiled
# into a ForwardRef when its class is made (twice the cost).
from typing import TypedDict


class CardView(TypedDict, total=False):
    """A card on a shelf: ``number`` and ``sign`` face up; ``face: down``, with its ``number``
    only where the viewer may know it; ``by``, who laid it (none for the card dealt at setup).
    ``{"number": n}`` alone is a card in the viewer's hand (the picture draws it so)."""

    number: int
    sign: str  # positive or negative
    face: str  # down
    by: str


class ShelfView(TypedDict):
    """A shelf: its number (from 1), whether it is the active one, weight, value, tokens,
    score (value times multiplier, R13) and cards bottom first."""

    shelf: int
    active: bool
    weight: int
    value: int
    tokens: list[str]  # golden_dust, gold, red, in the order placed
    score: int
    cards: list[CardView]


class BurdenView(TypedDict):
    """A player's burden so far (R12): their face-up - cards' numbers plus their hand."""

    negative: int
    hand: int
    total: int


class _PlayerRequired(TypedDict):
    name: str
    seat: int  # from 1
    hand: int  # cards in hand
    reserve: int  # golden dust in reserve
    score: int


class PlayerView(_PlayerRequired, total=False):
    """A player's entry: keys in the order ``name``, ``address``, ``seat``, ``hand``,
    ``reserve``, ``score``, ``burden``, ``shelves`` (``shelves`` last: the YAML writer of views
    relies on it). ``address`` only in games that made addresses public."""

    address: str
    burden: BurdenView
    shelves: list[ShelfView]


class Supply(TypedDict):
    """The tokens left in the supply, by kind."""

    golden_dust: int
    gold: int
    red: int


class _YouRequired(TypedDict):
    hand: list[int]
    reserve: int


class You(_YouRequired, total=False):
    """The viewer's own hand and reserve; ``drawn``: the card they drew as this turn began
    (None: the deck was empty), only when they are to move."""

    drawn: int | None


class EndWarning(TypedDict):
    """What may end the game after this turn (R11): ``last_turn``, ``last_card`` or
    ``last_token``, and its sentence."""

    warning: str
    text: str


class _EntryRequired(TypedDict):
    turn: int  # 0: the setup
    player: str | None
    text: str


class HistoryEntry(_EntryRequired, total=False):
    """A move of the view's history told to its viewer; with ``by: referee``, the move the
    referee made for its player, its ``reason`` and its ``account`` as the referee's."""

    by: str
    reason: str
    account: str


class PlayerBurden(TypedDict):
    """A player's burden at the end (R12)."""

    player: str
    negative: int
    hand: int
    total: int


class PlayerTotal(TypedDict):
    """A player's final score (R13)."""

    player: str
    total: int


class _EndRequired(TypedDict):
    reason: str  # deck_empty or tokens_exhausted (R11)
    burdens: list[PlayerBurden]


class EndView(_EndRequired, total=False):
    """How the game ended: ``red_token`` (who places it) before the last move, then the
    ``scores`` and ``winners``."""

    red_token: str
    scores: list[PlayerTotal]
    winners: list[str]


class RulesetView(TypedDict):
    """The ruleset in force (R1-R4), as the record holds it (``Ruleset.as_dict``): ``deck``
    maps a card number, as text, to its count."""

    deck: dict[str, int]
    zero: bool
    golden_dust: int
    gold: int
    red: int
    shelf_limit: int
    hand_size: int
    multiplier: str  # additive or doubling


class _WitnessFields(TypedDict):
    game: str
    move: int
    chain_sha256: str


class Witness(_WitnessFields, total=False):
    """The record's chain digest after its last entry and how many moves it holds; the
    header digest too in a rebis-pbm/5 game with a referee key, and the number of the
    referee's logged actions in a rebis-pbm/6 one."""

    header_sha256: str
    actions: int


Away = TypedDict("Away", {"player": str, "from": str, "until": str})
"""A player away (rebis-pbm/4): from and until when (UTC, ISO 8601)."""


class _ViewRequired(TypedDict):
    view: str  # build.VIEW_FORMAT
    game: str
    viewer: str  # a player's name, or build.PUBLIC
    phase: str  # join, play, red_token or finished


class View(_ViewRequired, total=False):
    """A view (``schemas/view.schema.json``). In the join phase: ``players_joined``,
    ``waiting`` and the viewer's ``move_template`` (their join); else ``turn``, ``ruleset``,
    ``deck``, ``supply``, ``players`` and ``history`` always, the rest as the game stands."""

    lang: str
    players_joined: list[str]
    waiting: list[str]
    round: int  # rebis-pbm/5 join phase: 1 (commitments) or 2 (joins)
    turn: int
    ruleset: RulesetView
    abandoned: bool
    to_move: str | None
    seed_revealed: bool
    deck: int
    supply: Supply
    warnings: list[EndWarning]
    you: You
    players: list[PlayerView]
    history: list[HistoryEntry]
    end: EndView
    move_template: str
    deadline: str
    time_zone: str  # rebis-pbm/4 (absences): the viewer's zone, their own view only
    away: list[Away]  # rebis-pbm/4 (absences)
    referee_recipient: str
    witness: Witness
    witness_signature: str  # the referee's signature of the witness line (rebis-pbm/4)
    your_keys: list[str]  # the viewer's registered public keys, their own view only
    command_point: str  # after D actions K: what the viewer's signed commands name (rebis-pbm/4)
