"""`rebis-pbm league DIR` (issue 28, item 4; docs/league.md): standings over a shard's verified
records, each player's missed turns and stand-in moves, the games in progress with whose turn it
is; text, JSON and an HTML page; a record that fails verify listed and counted nowhere.

The expected numbers are worked out here from the records themselves (their status, which
verify checks against the moves, and their move entries), and from `score`, never from
`league`'s own output."""

from __future__ import annotations

import html
import json
import shutil
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from rebis_pbm import app as referee
from rebis_pbm.app.league import rank
from rebis_pbm.present.league import FINISHED, PLAYING, GameLine, points_text
from rebis_pbm.record.deadlines import parse_duration

START = datetime(2025, 1, 1, tzinfo=timezone.utc)
SMALL = ["golden_dust=2", "gold=1"]  # a game of a dozen moves


def at(hours: int) -> str:
    return (START + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


class Clock:
    hours = 0

    def next(self, by: int = 1) -> str:
        self.hours += by
        return at(self.hours)


def new(shard: Path, name: str, players: list[str]) -> Path:
    (shard / name).mkdir(parents=True)
    game = shard / name / "game.yaml"
    referee.create_game(game, players, seed=f"league {name}", insecure_seed=True, game_id=name,
                        ruleset=referee.ruleset_from(False, SMALL),
                        deadline=parse_duration("72h"), now=at(0))
    return game


def to_move(game: Path) -> str | None:
    state = referee.open_game(game).replay.state
    return None if state.finished else state.player_to_move


def play(game: Path, clock: Clock, moves: int | None = None, *, late_every: int = 0,
         asked_every: int = 0) -> None:
    """Moves by the greedy bot as the players' own, until the end (or ``moves`` of them); every
    ``late_every``-th the player is late and `tick` moves for them; every ``asked_every``-th the
    referee moves for them at their request (`move-for`)."""
    done = 0
    while (player := to_move(game)) is not None and (moves is None or done < moves):
        done += 1
        if late_every and done % late_every == 0:
            referee.tick(game, now=clock.next(73))
        elif asked_every and done % asked_every == 0:
            referee.move_for(game, player, now=clock.next())
        else:
            record, move = referee.bot_move(game, player, "greedy", seed=f"{done}")
            data = json.dumps({"game": record.game, **move.as_dict()}).encode()
            referee.submit_move(game, data, f"move {done}", now=clock.next())


@pytest.fixture(scope="module")
def shard(tmp_path_factory) -> Path:
    """A shard of four games as `git apply --games` keeps them: g1 and g2 finished (with
    missed deadlines and a move made at a player's request), g3 in progress, and "tampered", a
    finished game whose record was edited afterwards."""
    folder = tmp_path_factory.mktemp("league") / "shard"
    clock = Clock()
    play(new(folder, "g1", ["ana", "bob"]), clock, late_every=4)
    play(new(folder, "g2", ["ana", "bob", "cy"]), clock, late_every=5, asked_every=7)
    play(new(folder, "g3", ["bob", "cy"]), clock, 3)
    tampered = new(folder, "tampered", ["dee", "ana"])
    play(tampered, clock)
    text = tampered.read_text()
    edited = text.replace("turn: 2\n  player: ana\n", "turn: 2\n  player: ana\n  by: referee\n"
                          "  reason: missed deadline\n", 1)
    assert edited != text
    tampered.write_text(edited)
    return folder


def record_doc(game: Path) -> dict:
    return yaml.safe_load(game.read_text())


def expected_table(games: list[Path], cli) -> dict[str, dict]:
    """Each player's line, from the records' status and move entries and `score`."""
    table: dict[str, dict] = {}
    for game in games:
        doc = record_doc(game)
        status = doc["status"]
        scored = json.loads(cli("score", game, "--format", "json").out)
        for player in doc["players"]:
            line = table.setdefault(player, {"games": 0, "finished": 0, "wins": 0,
                                             "shared_wins": 0, "points": Fraction(0),
                                             "score": 0, "missed_turns": 0, "stand_ins": 0})
            line["games"] += 1
            mine = [m for m in doc["moves"] if m["player"] == player and m.get("by") == "referee"]
            line["stand_ins"] += len(mine)
            line["missed_turns"] += sum(m["reason"] == "missed deadline" for m in mine)
            if status["phase"] == "finished":
                assert scored["winners"] == status["winners"]
                line["finished"] += 1
                line["score"] += status["scores"][player]
                if player in status["winners"]:
                    shared = len(status["winners"]) > 1
                    line["shared_wins" if shared else "wins"] += 1
                    line["points"] += Fraction(1, len(status["winners"]))
    return table


def test_the_standings_match_the_verified_records(cli, shard):
    counted = [shard / n / "game.yaml" for n in ("g1", "g2", "g3")]
    expected = expected_table(counted, cli)
    # the shard holds what the test means it to: missed turns, a move at a request, a game on
    assert sum(line["missed_turns"] for line in expected.values()) >= 3
    assert sum(line["stand_ins"] - line["missed_turns"] for line in expected.values()) >= 1
    assert record_doc(counted[2])["status"]["phase"] != "finished"

    done = cli("league", shard, "--format", "json")
    assert done.code == 0, done.err
    data = json.loads(done.out)
    got = {s["player"]: {k: v for k, v in s.items() if k not in ("player", "rank")}
           for s in data["standings"]}
    for line in got.values():
        line["points"] = Fraction(line["points"])
    assert got == expected
    # ranked by points, then wins, then score
    order = sorted(expected, key=lambda p: (-expected[p]["points"], -expected[p]["wins"],
                                            -expected[p]["score"], p))
    assert [s["player"] for s in data["standings"]] == order
    assert data["standings"][0]["rank"] == 1


def test_a_tampered_record_is_listed_as_failing_and_counted_nowhere(cli, shard):
    tampered = shard / "tampered" / "game.yaml"
    assert cli("verify", tampered).code == 3  # verify itself says it fails
    data = json.loads(cli("league", shard, "--format", "json").out)
    [left] = data["not_counted"]
    assert left["file"] == str(tampered) and left["game"] == "tampered"
    assert left["reason"].startswith("fails verification at ")
    assert "dee" not in {s["player"] for s in data["standings"]}  # dee played only there
    ana = next(s for s in data["standings"] if s["player"] == "ana")
    assert ana["games"] == 2  # g1 and g2; not the tampered game
    assert "tampered" not in {g["game"] for g in data["games"]}
    text = cli("league", shard).out
    assert "Not counted:" in text and f"{tampered} (game tampered): fails verification" in text


def test_games_in_progress_say_whose_turn_it_is(cli, shard):
    g3 = shard / "g3" / "game.yaml"
    public = json.loads(cli("view", g3, "--public", "--format", "json").out)
    data = json.loads(cli("league", shard, "--format", "json").out)
    [playing] = data["in_progress"]
    assert (playing["game"], playing["state"], playing["to_move"], playing["turn"]) == \
        ("g3", PLAYING, public["to_move"], public["turn"])
    assert playing["deadline"] == public["deadline"]
    assert playing["winners"] == [] and playing["file"] == str(g3)
    finished = {g["game"]: g for g in data["games"] if g["state"] == FINISHED}
    assert set(finished) == {"g1", "g2"}
    for name, game in finished.items():
        assert game["winners"] == record_doc(shard / name / "game.yaml")["status"]["winners"]
    text = cli("league", shard).out
    assert f"g3 ({g3}): turn {public['turn']}: {public['to_move']} to move (deadline " \
        f"{public['deadline']})" in text
    assert "Games in progress:" in text and "Games over:" in text
    assert text.splitlines()[0] == "League of 3 verified games; 1 record not counted."


def test_the_json_document_has_its_documented_shape(cli, shard):
    data = json.loads(cli("league", shard, "--format", "json").out)
    assert set(data) == {"league", "rules", "standings", "in_progress", "games", "not_counted"}
    assert data["league"] == "rebis-pbm/league/1"
    assert all(set(s) == {"rank", "player", "games", "finished", "wins", "shared_wins",
                          "points", "score", "missed_turns", "stand_ins"}
               for s in data["standings"])
    assert all(set(g) == {"file", "game", "players", "state", "turn", "to_move", "waiting",
                          "deadline", "winners", "scores", "stand_ins", "missed_turns"}
               for g in data["games"])
    assert all(set(n) == {"file", "game", "reason"} for n in data["not_counted"])
    assert all(isinstance(s["points"], str) for s in data["standings"])


def test_the_html_page_is_written_with_every_player(cli, shard, tmp_path):
    out = tmp_path / "league.html"
    done = cli("league", shard, "--html", out)
    assert done.code == 0, done.err
    assert f"Wrote the league page {out}." in done.out
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    assert '<table class="score">' in page and "Not counted" in page
    for player in ("ana", "bob", "cy"):
        assert f"<td>{player}</td>" in page
    assert html.escape("bob to move") in page or "cy to move" in page
    assert out.stat().st_mode & 0o777 == 0o644
    assert "<td>dee</td>" not in page


def test_a_copy_of_a_game_counts_once(cli, shard, tmp_path):
    copy = tmp_path / "shard"
    shutil.copytree(shard, copy)
    shutil.copytree(copy / "g1", copy / "zz-g1-again")
    data = json.loads(cli("league", copy, "--format", "json").out)
    assert [g["game"] for g in data["games"]] == ["g1", "g2", "g3"]
    again = next(n for n in data["not_counted"] if n["file"].endswith("zz-g1-again/game.yaml"))
    assert again["reason"].startswith("another record of game g1 is counted")


def test_a_record_a_player_pushed_to_a_games_folders_is_no_record_of_the_league(cli, shard,
                                                                             tmp_path):
    """The attacks (a tenth tester): in a git shard a player pushes to ``NAME/moves/`` an old
    copy of another game's record (found first, it knocked the real, finished one out as "a
    copy") or a game of their own they refereed alone (a win for them). Records in a game's
    players' folders (moves, commands, refusals, answers) are not the league's: the table is
    the real games', and neither file is listed."""
    copy = tmp_path / "shard"
    shutil.copytree(shard, copy)
    honest = json.loads(cli("league", copy, "--format", "json").out)
    clock = Clock()
    own = new(tmp_path / "elsewhere", "bonus", ["ana", "dee"])
    play(own, clock)
    for i, (name, stale) in enumerate((("g1", (shard / "g3" / "game.yaml").read_bytes()),
                                       ("g1", own.read_bytes()))):
        for folder in ("moves", "commands", "refusals", "answers"):
            (copy / name / folder).mkdir(exist_ok=True)
            (copy / name / folder / f"turn-99{i}-ana.yaml").write_bytes(stale)
    data = json.loads(cli("league", copy, "--format", "json").out)
    assert data == honest
    assert all(g["game"] != "bonus" for g in data["games"])
    # `verify FOLDER` leaves the same folders out: as many records as in the shard
    counted = [json.loads(cli("verify", folder, "--format", "json").out)["records"]
               for folder in (copy, shard)]
    assert counted[0] == counted[1] == 4, counted


def test_records_at_the_top_of_a_folder_count_as_well(cli, shard, tmp_path):
    flat = tmp_path / "flat"
    flat.mkdir()
    for name in ("g1", "g2"):
        shutil.copy(shard / name / "game.yaml", flat / f"{name}.yaml")
    data = json.loads(cli("league", flat, "--format", "json").out)
    assert [g["game"] for g in data["games"]] == ["g1", "g2"] and not data["not_counted"]


def test_a_folder_without_records_is_refused(cli, tmp_path):
    cli("league", tmp_path).refused(2, ["holds no game record"])


def test_shared_wins_split_the_point_and_share_a_rank():
    def won(game: str, winners: tuple[str, ...], scores: dict[str, int]) -> GameLine:
        return GameLine(f"{game}.yaml", game, tuple(scores), FINISHED, 20, None, (), None,
                        winners, scores, {}, {})

    lines = [won("a", ("ann", "bo"), {"ann": 40, "bo": 40, "cy": 10}),
             won("b", ("ann", "bo", "cy"), {"ann": 9, "bo": 9, "cy": 9}),
             won("c", ("cy",), {"cy": 50, "ann": 1})]
    table = {s.player: s for s in rank(lines)}
    assert table["ann"].points == Fraction(1, 2) + Fraction(1, 3)
    assert table["cy"].points == 1 + Fraction(1, 3)
    assert (table["ann"].wins, table["ann"].shared_wins) == (0, 2)
    assert (table["cy"].wins, table["cy"].shared_wins, table["cy"].score) == (1, 1, 69)
    assert [s.player for s in rank(lines)] == ["cy", "ann", "bo"]  # ann, bo: equal but score
    assert points_text(table["cy"].points) == "1 1/3" and points_text(table["ann"].points) \
        == "5/6"


def test_a_fair_deal_waiting_for_joins_is_in_progress_and_says_whose_joins(cli, shard, tmp_path):
    folder = tmp_path / "shard"
    shutil.copytree(shard, folder)
    (folder / "g4").mkdir()
    referee.create_game(folder / "g4" / "game.yaml", ["ana", "eve"], seed="fair",
                        insecure_seed=True, game_id="g4", referee_deal=False)
    data = json.loads(cli("league", folder, "--format", "json").out)
    joining = next(g for g in data["in_progress"] if g["game"] == "g4")
    assert (joining["state"], joining["waiting"], joining["to_move"], joining["turn"]) == \
        ("waiting for joins", ["ana", "eve"], None, 0)
    eve = next(s for s in data["standings"] if s["player"] == "eve")
    assert (eve["games"], eve["finished"], eve["points"]) == (1, 0, "0")
    assert "g4 (" in cli("league", folder).out and "the deal waits for joins by ana, eve" in \
        cli("league", folder).out


def test_tied_players_are_ordered_without_regard_to_case_or_accents():
    """A tie is broken by the name as a reader orders it: carol before José before Zoë (a
    code point order put José and Zoë, capitals, before carol); the name itself then keeps
    the order total (José before jose)."""
    lines = [GameLine("a.yaml", "a", ("Zoë", "carol", "José", "jose", "Émile"), PLAYING, 3,
                      "carol", (), None, (), {}, {}, {})]
    assert [s.player for s in rank(lines)] == ["carol", "Émile", "José", "jose", "Zoë"]
