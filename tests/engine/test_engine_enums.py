"""The engine's closed sets are str-valued enums (rebis_pbm.engine.enums): each member is its
word, so records, views, JSON and the digests hold the same text as when they were plain str."""

from __future__ import annotations

import json
import random

import pytest
import yaml

from rebis_pbm.engine import (
    FINISHED,
    GOLD,
    GOLDEN_DUST,
    NEGATIVE,
    PLAY,
    POSITIVE,
    REASONS,
    RED,
    RED_TOKEN,
    SIGNS,
    TOKEN_KINDS,
    DrawCause,
    EndReason,
    IllegalMove,
    Move,
    Phase,
    Reason,
    Ruleset,
    Shelf,
    Sign,
    TokenKind,
    apply_move,
    check_move,
    legal_moves,
    setup,
)
from rebis_pbm.engine import events as ev
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record.digests import canonical, state_digest, state_document

ENUMS = (Phase, Sign, TokenKind, DrawCause, EndReason, Reason)
MEMBERS = [member for enum in ENUMS for member in enum]

# The words these sets held as plain str before they became enums; records and views hold them.
WORDS = {
    Phase: ("play", "red_token", "finished"),
    Sign: ("positive", "negative"),
    TokenKind: ("golden_dust", "gold", "red"),
    DrawCause: ("turn", "negative", "closed"),
    EndReason: ("deck_empty", "tokens_exhausted"),
    Reason: ("game_over", "unknown_player", "stale_turn", "future_turn", "not_your_turn",
             "red_token_expected", "red_token_too_early", "play_missing", "golden_dust_reserve",
             "card_not_in_hand", "no_such_card", "card_count", "pair_not_equal",
             "pair_on_other_shelf", "negative_on_own_shelf", "over_shelf_limit",
             "value_below_zero", "zero_negative", "gold_token_missing", "gold_token_not_allowed",
             "no_such_shelf", "bad_sign"),
}


@pytest.mark.parametrize("enum", ENUMS, ids=lambda e: e.__name__)
def test_each_set_holds_the_words_it_held_as_text(enum):
    assert tuple(member.value for member in enum) == WORDS[enum]
    assert tuple(enum) == WORDS[enum]  # members compare equal to their words


@pytest.mark.parametrize("member", MEMBERS, ids=repr)
def test_a_member_is_its_word_everywhere_text_goes(member):
    word = member.value
    assert isinstance(member, str) and member == word and hash(member) == hash(word)
    assert str(member) == f"{member}" == format(member, "") == "%s" % member == word  # noqa: UP031
    assert f"{member:>20}" == f"{word:>20}"
    assert json.dumps({"k": [member]}) == json.dumps({"k": [word]})
    assert json.dumps(member, indent=2) == json.dumps(word, indent=2)
    assert canonical({"k": member}) == canonical({"k": word})
    assert dump_yaml({"k": member, "l": [member]}) == dump_yaml({"k": word, "l": [word]})
    assert {word: 1}[member] == 1 and {member: 1}[word] == 1
    assert type(member)(word) is member


def test_the_module_constants_are_the_members():
    assert tuple(Phase) == (PLAY, RED_TOKEN, FINISHED)
    assert PLAY is Phase.PLAY and RED_TOKEN is Phase.RED_TOKEN and FINISHED is Phase.FINISHED
    assert POSITIVE is Sign.POSITIVE and NEGATIVE is Sign.NEGATIVE and tuple(Sign) == SIGNS
    assert (GOLDEN_DUST, GOLD, RED) == TOKEN_KINDS == tuple(TokenKind)
    assert GOLD is TokenKind.GOLD
    assert tuple(DrawCause) == (ev.TURN_DRAW, ev.NEGATIVE_DRAW, ev.CLOSED_DRAW)
    assert tuple(EndReason) == (ev.DECK_EMPTY, ev.TOKENS_EXHAUSTED)
    assert REASONS == tuple(Reason) == WORDS[Reason]


def test_an_unknown_word_is_no_member():
    with pytest.raises(ValueError):
        Sign("minus")


def played(seed: str, players: int = 3) -> list:
    """Every state of a random game, from the setup to its end."""
    rng = random.Random(seed)
    state, _ = setup(Ruleset(), ("ann", "bo", "cy", "di")[:players], seed)
    states = [state]
    while not state.finished:
        state, _ = apply_move(state, rng.choice(legal_moves(state)))
        states.append(state)
    return states


def _as_text(state):
    """``state`` with every enum member replaced by its plain word (what the engine held before)."""
    rows = tuple(tuple(Shelf(s.cards, tuple(str(t) for t in s.tokens)) for s in row)
                 for row in state.shelves)
    return state._replace(phase=str(state.phase), shelves=rows,
                          end_reason=None if state.end_reason is None else str(state.end_reason))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_state_digest_is_the_one_of_the_plain_words(players):
    for state in played(f"enums{players}", players):
        assert type(state.phase) is Phase
        assert all(type(t) is TokenKind for row in state.shelves for s in row for t in s.tokens)
        text = _as_text(state)
        assert type(text.phase) is str
        assert state_document(state) == state_document(text)
        assert canonical(state_document(state)) == canonical(state_document(text))
        assert state_digest(state, "k") == state_digest(text, "k")


def test_events_carry_members():
    seen = set()
    for seed in range(6):
        rng = random.Random(seed)
        state, events = setup(Ruleset(), ("ann", "bo"), f"ev{seed}")
        while True:
            for event in events:
                if isinstance(event, ev.Drew):
                    value = event.cause
                elif isinstance(event, ev.Played):
                    value = event.sign
                elif isinstance(event, (ev.TokenTaken, ev.TokenPlaced)) and event.kind:
                    value = event.kind
                elif isinstance(event, ev.GameEnded):
                    value = event.reason
                else:
                    continue
                assert type(value) in ENUMS, event
                seen.add(type(value))
            if state.finished:
                break
            state, events = apply_move(state, rng.choice(legal_moves(state)))
    assert seen == {DrawCause, Sign, TokenKind, EndReason}


def test_from_dict_reads_the_sign_words_as_members_and_keeps_other_text():
    move = Move.from_dict({"turn": 1, "player": "ann", "play": {"cards": 3, "shelf": "bo",
                                                                "sign": "negative"}})
    assert move.play is not None and move.play.sign is Sign.NEGATIVE
    assert move.as_dict()["play"] == {"cards": 3, "shelf": "bo", "sign": "negative"}
    assert type(move.as_dict()["play"]["sign"]) is str  # plain data: yaml.safe_dump takes it
    assert yaml.safe_dump(move.as_dict()) == yaml.safe_dump(
        {"turn": 1, "player": "ann", "play": {"cards": 3, "shelf": "bo", "sign": "negative"}})
    odd = Move.from_dict({"turn": 1, "player": "ann", "play": {"cards": 3, "shelf": "bo",
                                                               "sign": "minus"}})
    assert odd.play is not None and type(odd.play.sign) is str and odd.play.sign == "minus"
    state, _ = setup(Ruleset(), ("ann", "bo"), "s")
    with pytest.raises(IllegalMove) as info:
        check_move(state, odd)
    assert info.value.code is Reason.BAD_SIGN


def test_illegal_move_code_is_a_reason_and_its_word_is_accepted():
    assert IllegalMove(Reason.STALE_TURN, "m").code is Reason.STALE_TURN
    assert IllegalMove("stale_turn", "m").code is Reason.STALE_TURN
    with pytest.raises(ValueError):
        IllegalMove("no_such_reason", "m")
