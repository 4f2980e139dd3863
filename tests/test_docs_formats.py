"""docs/formats.md and docs/cli.md say what the tool does: their examples are checked against the
bundled example game and the commands' real output."""

from __future__ import annotations

import re

import yaml

from clitools import EXAMPLE_PLAYERS, EXAMPLE_SEED, EXAMPLES, REPO, new_game, run_inproc
from rebis_pbm.cli import EXIT_CODES

FORMATS = (REPO / "docs" / "formats.md").read_text()
CLI = (REPO / "docs" / "cli.md").read_text()


def yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.S)


def test_move_examples_are_the_example_games_moves():
    moves = [yaml.safe_load(b) for b in yaml_blocks(FORMATS)]
    moves = [m for m in moves if isinstance(m, dict) and {"game", "turn", "player"} <= set(m)
             and "format" not in m]
    kinds = set()
    for doc in moves:
        (path,) = EXAMPLES.glob(f"moves/turn-{doc['turn']:03d}-{doc['player']}.yaml")
        shipped = yaml.safe_load(path.read_text())
        if "play" in doc:
            doc["play"].setdefault("sign", "positive")     # the documented default
            kinds.add("pair" if isinstance(doc["play"]["cards"], list) else doc["play"]["sign"])
        kinds.update(k for k in ("golden_dust", "gold_token", "red_token") if k in doc)
        assert doc == shipped, path.name
    assert kinds == {"positive", "negative", "pair", "golden_dust", "gold_token", "red_token"}


def test_secret_example_is_the_example_games_secret():
    secret = next(b for b in yaml_blocks(FORMATS) if "seed:" in b)
    assert secret == (EXAMPLES / "game.secret.yaml").read_text()


def test_documented_exit_codes_match_the_help():
    codes = re.findall(r"^\s+(\d+)\s", EXIT_CODES, flags=re.M)
    assert codes == ["0", "1", "2", "3", "4", "75", "130"]
    for doc in (CLI, FORMATS):
        assert re.findall(r"^\| (\d+) \|", doc, flags=re.M) == codes


def test_apply_paragraph_in_cli_doc_is_the_real_output(tmp_path):
    shown = re.search(r"```\n(Turn 8: .*?)```", CLI, flags=re.S).group(1)
    game = new_game(tmp_path, EXAMPLE_PLAYERS, EXAMPLE_SEED, "--game-id", "example")
    for path in sorted((EXAMPLES / "moves").glob("turn-00[1-8]-*.yaml")):
        outcome = run_inproc("apply", game, path)
        assert outcome.code == 0
    assert outcome.out.strip() == " ".join(shown.split())
