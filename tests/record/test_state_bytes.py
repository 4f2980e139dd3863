"""The keyed state digest's document is written directly (``digests.state_bytes``, faster than
building the document and encoding it): its bytes must be exactly ``canonical(state_document)``,
or every record's digests would change (docs/audit.md, "State document")."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebis_pbm.engine import Ruleset, apply_move, legal_moves, setup
from rebis_pbm.record import digests
from rebis_pbm.record.digests import canonical, state_bytes, state_digest, state_document

LONG = Ruleset(deck=tuple((n, 40) for n in range(1, 10)), golden_dust=99, gold=99)


def _states(ruleset: Ruleset, names: tuple[str, ...], seed: str, rng: random.Random,
            limit: int = 400):
    state, _ = setup(ruleset, names, seed)
    yield state
    while not state.finished and limit:
        state, _ = apply_move(state, rng.choice(legal_moves(state)))
        limit -= 1
        yield state


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from([Ruleset(), Ruleset(zero=True), LONG]),
       st.lists(st.sampled_from(["ann", "bo", "zoë", 'q"uote', "back\\slash", "tab\tx", "日本"]),
                min_size=2, max_size=4, unique=True),
       st.integers(0, 10**6))
def test_state_bytes_are_the_canonical_form_of_the_state_document(ruleset, names, seed):
    rng = random.Random(seed)
    for state in _states(ruleset, tuple(names), f"seed-{seed}", rng, limit=60):
        assert state_bytes(state) == canonical(state_document(state))


def test_the_deck_text_follows_the_deck_from_game_to_game():
    """The deck's text is kept for the last shuffled deck seen: states of two games read in
    turns, and the same game again, still give their own deck."""
    rng = random.Random(7)
    one = list(_states(Ruleset(), ("ann", "bo"), "one", rng))
    two = list(_states(LONG, ("ann", "bo", "cy"), "two", rng, limit=80))
    for a, b in zip(one, two, strict=False):
        for state in (a, b, a):
            assert state_bytes(state) == canonical(state_document(state))
    last = one[-1]
    assert last.deck_count == 0 or b'"deck":[' + str(last.deck[0]).encode() in state_bytes(last)


def test_a_name_that_is_not_unicode_is_refused_as_canonical_refuses_it():
    state, _ = setup(Ruleset(), ("ann", "b\ud800"), "s")
    with pytest.raises(ValueError, match="lone surrogates"):
        canonical(state_document(state))
    with pytest.raises(ValueError, match="lone surrogates"):
        state_digest(state, "key")
    digests._TEXTS.clear()
