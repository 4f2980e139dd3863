"""A move in the clear passed off as a sealed one (issue 27, an eleventh tester): a closing
play's signed file is kept sealed (R8.1: its card lies face down), and its signature is checked
once the seed is revealed; a referee holding the seed recorded an unsigned, non-closing move in
a keyed player's seat with a sealed junk "signature", which verify skipped without the seed and
said it had checked. Only a closing play's file may be sealed: any other fails verify, with the
seed or without (exit 3)."""

from __future__ import annotations

import json
import shutil

from test_referee_key import move_bytes, play_signed, signed_game

from clitools import run_inproc
from rebis_pbm import app as referee
from rebis_pbm.engine import apply_move
from rebis_pbm.record import closes_shelf
from sshkeys import needs_ssh

pytestmark = needs_ssh


def test_attack_a_move_in_the_clear_with_a_sealed_signature_fails_verify(tmp_path, monkeypatch):
    game, key, keys = signed_game(tmp_path)
    for minute in (10, 15, 20):
        play_signed(game, keys, tmp_path, key, f"2025-01-01T00:{minute}:00Z")
    record, replay, seed = referee.open_game(game)
    state = replay.state
    from rebis_pbm.engine import legal_moves
    move = next(m for m in legal_moves(state) if not closes_shelf(apply_move(state, m)[1]))
    data = move_bytes(record, move)
    # The referee's own code: the player's signature check waved through, and the proof the
    # record keeps replaced by a sealed file of junk (the seal is the referee's to make).
    import rebis_pbm.app.moves as moves
    import rebis_pbm.record.model as model
    from rebis_pbm.crypto.signatures import seal_signed
    from rebis_pbm.record.entries import Proof
    monkeypatch.setattr(moves, "check_signature",
                        lambda record, move, data, signature, source: (data, "none"))
    monkeypatch.setattr(model, "Proof", lambda *a: Proof("", None, seal_signed(
        seed, record.game, move.turn, b"not the player's file", "none")))
    referee.submit_move(game, data, "forged.yaml", now="2025-01-01T00:25:00Z",
                        referee_key=key)
    monkeypatch.undo()
    entry = json.loads(json.dumps(referee.read_record(game).to_dict(None)["moves"][-1]))
    assert "signed_sealed" in entry and "sealed" not in entry["play"]
    public = tmp_path / "public" / "g.yaml"
    public.parent.mkdir()
    shutil.copy(game, public)  # the public record: no secret beside it
    for where in (public, game):
        out = run_inproc("verify", where, "--format", "json")
        problem = json.loads(out.out)["problem"]
        assert out.code == 3 and problem["code"] == "signature", out.out
        assert "sealed, but the move is no closing play" in problem["message"], problem
