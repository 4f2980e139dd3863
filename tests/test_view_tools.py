"""A player's own tools (issue 15): `moves --view` and `check MOVE --view` judge moves from the
player's YAML view alone, without the seed, and give exactly the referee's answers.

The property: over random positions (tests/infoset.py), the view of the player to move, written
as YAML and read back as a player's tools read it, lists the same legal moves as the referee's
`moves`, and answers every move the player could send (legal or not) as `apply --dry-run` does.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infoset import move_variants, play_prefix
from rebis_pbm import app as referee
from rebis_pbm.engine import IllegalMove, Ruleset, check_move, legal_moves, shuffled
from rebis_pbm.errors import Refused
from rebis_pbm.formats.schemas import validate
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.present import views
from rebis_pbm.present.infoset import infoset_from_view
from sshkeys import needs_ssh, ssh_key, ssh_sign

GAME = "tools"
NAMES = ("alice", "bob", "carol", "dave")


def verdict(state, move):
    try:
        check_move(state, move)
    except IllegalMove as exc:
        return ("refused", exc.code, exc.message)
    return ("legal",)


def view_state(replay, player):
    """The player's view as a YAML file holds it, read back as `--view` reads it."""
    text = views.render(views.build_view(GAME, replay, player), "yaml")
    loaded = load_yaml(text.encode(), source="view.yaml", kind="view")
    validate(loaded, "view")
    return infoset_from_view(loaded.data, "view.yaml").state


@st.composite
def positions(draw):
    players = draw(st.integers(2, 4))
    ruleset = Ruleset(
        zero=draw(st.booleans()),
        golden_dust=draw(st.sampled_from((9, 0, 1, 2))),
        gold=draw(st.integers(0, 3)),
        red=draw(st.integers(0, 1)),
        shelf_limit=draw(st.sampled_from((13, 5, 8, 20))),
        hand_size=draw(st.integers(1, 5)),
        multiplier=draw(st.sampled_from(("additive", "doubling"))),
    )
    seed = draw(st.text("abcdef0123", min_size=1, max_size=6))
    length = draw(st.integers(0, 120))
    return ruleset, NAMES[:players], seed, length, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_the_view_gives_the_referees_moves_and_verdicts(example):
    ruleset, seats, seed, length, rng_seed = example
    rng = random.Random(rng_seed)
    game = play_prefix(ruleset, seats, shuffled(ruleset.cards, seed), length, rng,
                       stop_at_red_token=rng.random() < 0.3)
    state = game.state
    if state.finished:
        return
    player = state.player_to_move
    mine = view_state(game.replay(), player)
    assert views.moves_listing(GAME, mine, "json") == views.moves_listing(GAME, state, "json")
    assert list(legal_moves(mine)) == list(legal_moves(state))
    for move in move_variants(state, rng, 40):
        if move.player != player and move.player in state.players:
            continue  # a view judges only its viewer's moves (refused as such, tested below)
        assert verdict(mine, move) == verdict(state, move), move


# ------------------------------------------------------------------ through the command line

MOVE = ("game: {game}\nturn: 1\nplayer: ana\n"
        "play:\n  cards: {card}\n  shelf: ana\n  sign: positive\n")


@pytest.fixture
def game(tmp_path):
    created = referee.create_game(tmp_path / "g.yaml", ["ana", "bob"], seed="view tools",
                                  insecure_seed=True)
    return tmp_path, created


def test_moves_from_the_view_are_the_referees_and_need_no_seed(cli, game):
    folder, _ = game
    referee_listing = cli("moves", str(folder / "g.yaml"), "--player", "ana").out
    (folder / "g.secret.yaml").unlink()  # the player has no seed
    done = cli("moves", "--view", str(folder / "g.views" / "ana.yaml"))
    assert done.code == 0, done.output
    assert done.out == referee_listing


def test_check_against_the_view_says_what_apply_dry_run_says(cli, game):
    folder, created = game
    hand = created.state.hands[0]
    missing = next(c for c in range(1, 10) if c not in hand)
    good, bad = folder / "good.yaml", folder / "bad.yaml"
    good.write_text(MOVE.format(game=created.record.game, card=min(hand)))
    bad.write_text(MOVE.format(game=created.record.game, card=missing))
    view = str(folder / "g.views" / "ana.yaml")
    ok = cli("check", str(good), "--view", view)
    assert ok.code == 0, ok.output
    refused = cli("check", str(bad), "--view", view)
    dry = cli("apply", str(folder / "g.yaml"), str(bad), "--dry-run")
    assert refused.code == dry.code == 1
    assert refused.err == dry.err
    assert f"you have no {missing} in your hand" in refused.err


def test_check_against_the_view_tells_a_card_not_held_before_where_it_would_go(cli, game):
    """The player's own check answers "you have no N" first (issue 29), even for a card played
    where no card may go (a - sign on one's own shelf, R7); the referee's apply of an unsigned
    move keeps the public reason first (tests/test_secrecy.py)."""
    folder, created = game
    missing = next(c for c in range(1, 10) if c not in created.state.hands[0])
    bad = folder / "negative.yaml"
    bad.write_text(MOVE.format(game=created.record.game, card=missing)
                   .replace("positive", "negative"))
    refused = cli("check", str(bad), "--view", str(folder / "g.views" / "ana.yaml"))
    assert refused.code == 1
    assert f"you have no {missing} in your hand" in refused.err
    dry = cli("apply", str(folder / "g.yaml"), str(bad), "--dry-run")
    assert dry.code == 1 and "R7" in dry.err and "in your hand" not in dry.err


def test_check_against_the_view_refuses_what_it_cannot_judge(cli, game, tmp_path):
    folder, created = game
    good = folder / "good.yaml"
    good.write_text(MOVE.format(game=created.record.game, card=min(created.state.hands[0])))
    # bob's view cannot judge ana's move; the spectator view shows no hand
    done = cli("check", str(good), "--view", str(folder / "g.views" / "bob.yaml"))
    assert done.code == 2 and "judge only bob's moves" in done.err
    done = cli("check", str(good), "--view", str(folder / "g.views" / "public.yaml"))
    assert done.code == 2 and "spectator view" in done.err
    # an unreadable view, a move for another game
    (tmp_path / "junk.yaml").write_text("view: [\n")
    done = cli("check", str(good), "--view", str(tmp_path / "junk.yaml"))
    assert done.code == 2
    other = folder / "other.yaml"
    other.write_text(MOVE.format(game="another-game", card=1))
    done = cli("check", str(other), "--view", str(folder / "g.views" / "ana.yaml"))
    assert done.code == 2 and "is a view of game" in done.err
    # not bob's move: moves --view says so (exit 1)
    done = cli("moves", "--view", str(folder / "g.views" / "bob.yaml"))
    assert done.code == 1 and "turn 1 is ana's" in done.err


def test_a_view_of_the_older_format_is_refused_with_advice(cli, game):
    folder, _ = game
    view = folder / "g.views" / "ana.yaml"
    text = view.read_text().replace("rebis-pbm/view/2", "rebis-pbm/view/1")
    view.write_text(text)
    done = cli("moves", "--view", str(view))
    assert done.code == 2 and "older format rebis-pbm/view/1" in done.err


def test_a_view_record_or_secret_sent_as_a_move_is_named(cli, game):
    folder, _ = game
    record = str(folder / "g.yaml")
    for file, words in ((folder / "g.views" / "ana.yaml", "this is a view"),
                        (folder / "g.yaml", "this is a game record, not a move"),
                        (folder / "g.secret.yaml", "secret seed file, not a move")):
        done = cli("apply", record, str(file), "--dry-run")
        assert done.code == 2, done.output
        assert words in done.err and "unknown field" not in done.err
    with pytest.raises(Refused, match="this is a view"):
        referee.submit_move(record, (folder / "g.views" / "ana.yaml").read_bytes(), "ana.yaml")


@needs_ssh
def test_a_signed_move_of_a_card_not_held_is_told_so_first(tmp_path):
    """A move signed by its player's key comes from them: apply tells the hand first (issue 29),
    where an unsigned move would hear R7's public reason (tests/test_secrecy.py)."""
    keys = {p: ssh_key(tmp_path, p) for p in ("ana", "bob")}
    created = referee.create_game(tmp_path / "g.yaml", ["ana", "bob"], seed="view tools",
                                  insecure_seed=True,
                                  keys={p: k.with_suffix(".pub").read_text()
                                        for p, k in keys.items()})
    missing = next(c for c in range(1, 10) if c not in created.state.hands[0])
    data = MOVE.format(game=created.record.game, card=missing).replace("positive", "negative")
    # rebis-pbm/4: a signed move names the history it answers (its view's witness)
    data = data.replace("turn: 1", f"after: {created.record.last_digest()}\nturn: 1").encode()
    with pytest.raises(IllegalMove) as public:  # unsigned, the engine answers R7 first
        check_move(created.state, referee.read_move(created.record, tmp_path / "g.yaml", data,
                                                    "m.yaml"))
    assert public.value.code == "negative_on_own_shelf"
    with pytest.raises(Refused) as caught:
        referee.submit_move(tmp_path / "g.yaml", data, "m.yaml",
                            signature=ssh_sign(keys["ana"], data))
    assert f"you have no {missing} in your hand" in str(caught.value)


@needs_ssh
def test_check_against_the_view_of_a_player_with_a_key_asks_for_the_signature(cli, tmp_path):
    """A newcomer's report: `check --view` approved an unsigned move that `apply` then refused
    because the player registered a key. The player's view names their keys (`your_keys`,
    public), and `check --view` refuses an unsigned move with `apply`'s sentence, checks the
    `.sig` beside the move, and reads an older view without the field as before."""
    import yaml
    keys = {p: ssh_key(tmp_path, p) for p in ("ana", "bob")}
    created = referee.create_game(tmp_path / "g.yaml", ["ana", "bob"], seed="view tools",
                                  insecure_seed=True,
                                  keys={p: k.with_suffix(".pub").read_text()
                                        for p, k in keys.items()})
    view = tmp_path / "g.views" / "ana.yaml"
    doc = yaml.safe_load(view.read_text())
    assert doc["your_keys"] == [" ".join(keys["ana"].with_suffix(".pub").read_text().split()[:2])]
    assert "your_keys" not in yaml.safe_load((tmp_path / "g.views" / "public.yaml").read_text())
    move = tmp_path / "m.yaml"
    data = MOVE.format(game=created.record.game, card=min(created.state.hands[0])).replace(
        "turn: 1", f"after: {created.record.last_digest()}\nturn: 1")
    move.write_text(data)
    unsigned = cli("check", str(move), "--view", str(view))
    applied = cli("apply", str(tmp_path / "g.yaml"), str(move), "--dry-run")
    assert unsigned.code == applied.code == 1, unsigned.output
    assert unsigned.err == applied.err
    assert "ana registered a key, so their moves must be signed" in unsigned.err
    sig = tmp_path / "m.yaml.sig"
    sig.write_bytes(ssh_sign(keys["bob"], move.read_bytes()))
    wrong = cli("check", str(move), "--view", str(view))
    assert wrong.code == 1 and "does not check against ana's key" in wrong.err
    sig.write_bytes(ssh_sign(keys["ana"], move.read_bytes()))
    signed = cli("check", str(move), "--view", str(view))
    assert signed.code == 0, signed.output
    # A view written before the field: read as before (the move judged on the rules alone).
    sig.unlink()
    older = tmp_path / "older.yaml"
    older.write_text(yaml.safe_dump({k: v for k, v in doc.items() if k != "your_keys"},
                                    sort_keys=False, allow_unicode=True))
    assert cli("check", str(move), "--view", str(older)).code == 0
