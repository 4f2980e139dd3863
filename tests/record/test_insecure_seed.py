"""A revealed game made with ``new --insecure-seed`` says so (docs/shuffle.md, section 8;
docs/audit.md, "Attacks and defences"): its salt is derived from its seed, so whoever guessed the
seed could compute every hand; the record cannot tell it before the reveal, and ``verify`` tells
it after. A game with a random salt says nothing of the kind."""

from __future__ import annotations

import json

import pytest

from clitools import run_inproc, run_script


@pytest.mark.parametrize("insecure", [True, False])
def test_verify_says_a_revealed_seed_was_given_as_insecure(tmp_path, insecure, console_script):
    game = tmp_path / "g.yaml"
    seeded = ["--insecure-seed", "--seed", "correct horse battery staple"] if insecure else []
    made = run_inproc("new", game, "--player", "ann", "--player", "bo", "--referee-deal",
                      "--game-id", "insecure-line", *seeded)
    assert made.code == 0, made.err
    before = run_inproc("verify", game)
    assert before.code == 0 and "--insecure-seed" not in before.out  # the salt: secret till then
    assert run_inproc("reveal", game, "--yes").code == 0
    for run in (run_inproc, lambda *a: run_script(console_script, *a)):
        said = run("verify", game)
        assert said.code == 0, said.out + said.err
        assert ("Seed: given with --insecure-seed (its salt is derived from it): whoever "
                "guessed the seed could compute every hand" in said.out) is insecure
    report = json.loads(run_inproc("verify", game, "--format", "json").out)
    assert report.get("insecure_seed", False) is insecure
