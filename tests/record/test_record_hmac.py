"""The keyed record digest ``record_hmac`` of a rebis-pbm/3 record (docs/audit.md, "The keyed
record digest"): the attack of report 13 (finding 1) performed, and seen to fail.

The header and chain digests are plain SHA-256: whoever rewrites a record recomputes them (the
tester's method, :func:`rechain`). The attacker swaps bob's key for mallory's and re-signs bob's
past moves with mallory's key (real ``ssh-keygen``), or points the referee's recipient at their
own, or makes the views plain, or redirects bob's address without recomputing anything. Without
the seed such a record verifies as far as it can (``record_hmac`` listed as not checked); with
the seed, ``apply`` of a legal move and ``verify`` refuse it (exit 3) and nothing changes. The
referee's own changes (``replace-player --key/--address/--lang``, a join's ``lang:``) recompute
the digest and verify.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from clitools import secret_of
from rebis_pbm import app as referee
from rebis_pbm.crypto import age as encryption
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record import HEADER, Record, parse_record
from rebis_pbm.record.digests import chain_digest
from rebis_pbm.record.secret import SEED_ENV
from sshkeys import needs_ssh, ssh_key, ssh_sign

pytestmark = needs_ssh
PLAYERS = {"alice": "alice@example.org", "bob": "bob@example.org", "carol": "carol@example.org"}
SEED = "record hmac test seed"


def pub(key: Path) -> str:
    return " ".join(Path(f"{key}.pub").read_text().split()[:2])


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("keys")
    return {p: ssh_key(folder, p) for p in (*PLAYERS, "mallory")}


def play_signed(game: Path, keys: dict[str, Path], count: int, signer: str | None = None,
                dry_run: bool = False):
    """``count`` legal moves that close no shelf (so the record keeps their signed text in
    the clear), each signed by its mover's key (or ``signer``'s)."""
    done = None
    for _ in range(count):
        _, replay, _ = referee.open_game(game)
        move = open_move(replay.state)
        # no after: as a rebis-pbm/3 game's move files were written (a move naming its
        # history would show a header edit without the seed: tests/record/test_history_pin.py)
        data = dump_yaml({"game": "hmac", **move.as_dict()}).encode()
        done = referee.submit_move(game, data, f"turn-{move.turn:03d}.yaml", dry_run=dry_run,
                                   signature=ssh_sign(keys[signer or move.player], data))
    return done


def open_move(state):
    """A legal move that closes no shelf."""
    from rebis_pbm.engine import apply_move, legal_moves
    from rebis_pbm.record import closes_shelf

    return next(m for m in legal_moves(state) if not closes_shelf(apply_move(state, m)[1]))


@pytest.fixture(scope="module")
def base(tmp_path_factory, keys) -> Path:
    """A rebis-pbm/3 game in a public repository's settings (keys, encrypted views, the
    referee's recipient, addresses) after 4 signed moves (bob moved once)."""
    folder = tmp_path_factory.mktemp("base")
    game = folder / "game.yaml"
    recipient = encryption.new_identity()[1]
    # A rebis-pbm/3 record, as `new` wrote it then: what this page tests is record_hmac alone.
    # In rebis-pbm/4 a signed move also pins the header (after:), which catches a header edit
    # without the seed (tests/record/test_history_pin.py).
    referee.create_game(game, list(PLAYERS), addresses=dict(PLAYERS), seed=SEED,
                        insecure_seed=True, referee_deal=True, game_id="hmac",
                        encrypt_views=True, referee_recipient=recipient,
                        keys={p: Path(f"{keys[p]}.pub").read_text() for p in PLAYERS},
                        record_format="rebis-pbm/3")
    with seeded(folder):
        play_signed(game, keys, 4)
    return folder


class seeded:
    """REBIS_PBM_SEED set to the game's secret for the ``with`` block (in-process use cases)."""

    def __init__(self, folder: Path):
        self.secret = secret_of(folder / "game.secret.yaml")

    def __enter__(self):
        import os

        os.environ[SEED_ENV] = self.secret

    def __exit__(self, *exc):
        import os

        del os.environ[SEED_ENV]


@pytest.fixture
def game(tmp_path, base) -> Path:
    shutil.copytree(base, tmp_path / "g")
    return tmp_path / "g" / "game.yaml"


def rechain(doc: dict) -> dict:
    """What a forger without the seed can do: recompute the header digest and every chain
    digest (joins, moves, actions) of the record as edited (the tester's method)."""
    doc["header_sha256"] = Record.from_dict(doc).computed_header_sha256()
    prev = doc["header_sha256"]
    for part in ("joins", "moves"):
        for entry in doc.get(part, ()):
            entry.pop("chain_sha256")
            entry["chain_sha256"] = prev = chain_digest(prev, entry)
    prev = doc["header_sha256"]
    for action in doc.get("actions", ()):
        action.pop("chain_sha256")
        action["chain_sha256"] = prev = chain_digest(prev, action)
    return doc


def rewrite(game: Path, edit, recompute: bool = True) -> bytes:
    doc = yaml.safe_load(game.read_text())
    edit(doc)
    game.write_text(HEADER + dump_yaml(rechain(doc) if recompute else doc))
    return game.read_bytes()


def swap_bobs_key(keys):
    def edit(doc):
        doc["keys"]["bob"] = [pub(keys["mallory"])]
        for entry in doc["moves"]:  # bob's past face-up moves, re-signed with mallory's key
            if entry["player"] == "bob":
                assert "signed" in entry
                entry["signature"] = ssh_sign(keys["mallory"], entry["signed"].encode()).decode()
    return edit


def blind(cli, game: Path):
    """``verify`` of the record alone, as anyone can run it (no secret file beside it)."""
    public = game.parent / "public"
    public.mkdir(exist_ok=True)
    shutil.copy(game, public / "game.yaml")
    return cli("verify", public / "game.yaml")


def refused_with_the_seed(cli, game: Path, next_move: Path, env: dict) -> None:
    """``verify`` with the seed and ``apply`` of a legal move: exit 3, nothing changed."""
    before = game.read_bytes()
    views = {p.name: p.read_bytes() for p in (game.parent / "game.views").iterdir()}
    checked = cli("verify", game, env=env)
    assert checked.code == 3, checked.out + checked.err
    assert "record_hmac" in checked.out and "FAILED" in checked.out
    applied = cli("apply", game, next_move, env=env)
    assert applied.code == 3, applied.err
    assert "record_hmac" in applied.err and "nothing was written" in applied.err
    assert "Traceback" not in applied.err
    assert game.read_bytes() == before
    assert {p.name: p.read_bytes() for p in (game.parent / "game.views").iterdir()} == views


def next_move_file(game: Path, keys, signer: str) -> Path:
    """The legal move of the player to move (read before the tampering), signed by ``signer``:
    the move file and its ``.sig`` beside it."""
    with seeded(game.parent):
        _, replay, _ = referee.open_game(game)
    move = open_move(replay.state)
    path = game.parent / f"turn-{move.turn:03d}-{move.player}.yaml"
    path.write_text(dump_yaml({"game": "hmac", **move.as_dict()}))  # rebis-pbm/3: no after:
    Path(f"{path}.sig").write_bytes(ssh_sign(keys[signer], path.read_bytes()))
    return path


def test_a_swapped_key_with_every_public_digest_recomputed_is_refused_with_the_seed(
        cli, game, keys):
    env = {SEED_ENV: secret_of(game.parent / "game.secret.yaml")}
    # bob is to move after 4 moves (3 players): mallory moves as bob.
    move = next_move_file(game, keys, "mallory")
    assert "-bob.yaml" in move.name
    rewrite(game, swap_bobs_key(keys))
    # Without the seed the forgery passes every check anyone can make; it says what it could
    # not check.
    seen = blind(cli, game)
    assert seen.code == 0, seen.out + seen.err
    assert "Not checked" in seen.out and "record_hmac" in seen.out
    refused_with_the_seed(cli, game, move, env)


@pytest.mark.parametrize("setting", ["referee_recipient", "encrypt_views"])
def test_changed_encryption_settings_with_the_digests_recomputed_are_refused(cli, game, keys,
                                                                             setting):
    env = {SEED_ENV: secret_of(game.parent / "game.secret.yaml")}
    move = next_move_file(game, keys, "bob")
    attacker = encryption.new_identity()[1]

    def edit(doc):
        if setting == "encrypt_views":
            del doc["encrypt_views"]  # the views would be written in the clear
        else:
            doc["referee_recipient"] = attacker  # players would seal their moves to mallory
    rewrite(game, edit)
    assert blind(cli, game).code == 0
    refused_with_the_seed(cli, game, move, env)


def test_an_address_changed_alone_is_refused_with_the_seed(cli, game, keys):
    env = {SEED_ENV: secret_of(game.parent / "game.secret.yaml")}
    move = next_move_file(game, keys, "bob")
    rewrite(game, lambda doc: doc["addresses"].update(bob="mallory@example.org"),
            recompute=False)
    assert blind(cli, game).code == 0  # no unkeyed digest covers an address
    refused_with_the_seed(cli, game, move, env)


@pytest.mark.parametrize("edit", [
    lambda doc: doc.update(langs={"carol": "fr"}),
    lambda doc: doc.update(public_addresses=True),
    lambda doc: doc.pop("record_hmac"),
    lambda doc: doc.update(record_hmac="0" * 64),
], ids=["langs", "public_addresses", "dropped", "zeroed"])
def test_every_field_the_keyed_digest_covers_is_checked_by_a_read_with_the_seed(game, edit):
    from rebis_pbm.errors import CorruptRecord
    from rebis_pbm.record.audit import verify

    data = rewrite(game, edit, recompute=False)
    secret = secret_of(game.parent / "game.secret.yaml")
    report = verify(data, "game.yaml", lambda record: (secret, "the test's seed"))
    assert report.problem is not None and report.problem.code == "record_digest"
    assert secret not in report.render_text()
    with seeded(game.parent), pytest.raises(CorruptRecord, match="record_hmac"):
        referee.open_game(game)
    assert verify(data, "game.yaml").verified  # not checked without the seed


def test_the_referees_own_changes_recompute_the_digest(cli, game, keys):
    """replace-player --key/--address/--lang writes a record that verifies with the seed, and
    the player's next move, signed with the new key, is applied."""
    env = {SEED_ENV: secret_of(game.parent / "game.secret.yaml")}
    changed = cli("replace-player", game, "--player", "bob", "--key", f"{keys['mallory']}.pub",
                  "--address", "bob@example.net", "--lang", "fr", env=env)
    assert changed.code == 0, changed.err
    checked = cli("verify", game, env=env)
    assert checked.code == 0 and "record_hmac" in checked.out, checked.out
    # verify tells the players what changed: a new key is the change they must see.
    assert "the referee replaced bob's address and key and language" in checked.out
    only_key = cli("replace-player", game, "--player", "carol", "--key",
                   f"{keys['carol']}.pub", env=env)
    assert only_key.code == 0, only_key.err
    assert "the referee replaced carol's key\n" in cli("verify", game, env=env).out
    move = next_move_file(game, keys, "mallory")
    applied = cli("apply", game, move, env=env)
    assert applied.code == 0, applied.err
    doc = yaml.safe_load(game.read_text())
    assert doc["addresses"]["bob"] == "bob@example.net" and doc["langs"] == {"bob": "fr"}
    assert cli("verify", game, env=env).code == 0


def test_a_join_with_a_language_recomputes_the_digest(tmp_path, keys):
    from rebis_pbm.record.audit import verify

    game = tmp_path / "game.yaml"
    # rebis-pbm/3, as the base game above: in rebis-pbm/4 the first move's after: pins the joins
    referee.create_game(game, list(PLAYERS), seed=SEED, insecure_seed=True, referee_deal=False,
                        game_id="hmac", record_format="rebis-pbm/3")
    with seeded(tmp_path):
        for p in PLAYERS:
            # a signed join names the game's header (rebis-pbm/4)
            doc = {"game": "hmac", "player": p, "join": f"{p}'s entropy", "key": pub(keys[p]),
                   "header_sha256": yaml.safe_load(game.read_text())["header_sha256"]}
            if p == "bob":
                doc["lang"] = "pt"
            data = dump_yaml(doc).encode()
            referee.submit_move(game, data, f"{p}-join.yaml",
                                signature=ssh_sign(keys[p], data))
        play_signed(game, keys, 1)
    secret = secret_of(tmp_path / "game.secret.yaml")
    report = verify(game.read_bytes(), "game.yaml", lambda record: (secret, "the test's seed"))
    assert report.complete, report.problem
    assert parse_record(game.read_bytes(), "game.yaml").langs == {"bob": "pt"}
    # bob's join key swapped for mallory's, in the entry and in the signed join text, the join
    # re-signed by her, the chain recomputed: it passes every check but the keyed one.
    def edit(doc):
        (join,) = [j for j in doc["joins"] if j["player"] == "bob"]
        signed = dump_yaml({**yaml.safe_load(join["signed"]), "key": pub(keys["mallory"])})
        join.update(key=pub(keys["mallory"]), signed=signed,
                    signature=ssh_sign(keys["mallory"], signed.encode()).decode())
    data = rewrite(game, edit)
    assert verify(data, "game.yaml").verified
    report = verify(data, "game.yaml", lambda record: (secret, "the test's seed"))
    assert report.problem is not None and report.problem.code == "record_digest"


def test_older_formats_have_no_keyed_record_digest():
    from rebis_pbm.errors import InputError

    seen = set()
    for path in sorted((Path(__file__).resolve().parent.parent / "records").glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        if not isinstance(doc, dict) or "header_sha256" not in doc or doc["format"] in seen:
            continue
        if doc["format"] not in ("rebis-pbm/1", "rebis-pbm/2"):  # the archive's later ones
            assert "record_hmac" in doc, path.name
            continue
        seen.add(doc["format"])
        assert "record_hmac" not in doc
        doc["record_hmac"] = "0" * 64
        with pytest.raises(InputError, match="has no record_hmac"):
            parse_record((HEADER + dump_yaml(doc)).encode(), path.name)
    assert seen == {"rebis-pbm/1", "rebis-pbm/2"}


def test_record_hmac_is_computed_as_docs_audit_md_says(base):
    """An independent computation from the record's YAML, by docs/audit.md's formula."""
    import hashlib
    import hmac
    import json

    doc = yaml.safe_load((base / "game.yaml").read_text())
    document = {"domain": "rebis-pbm/record-digest/v1", "header_sha256": doc["header_sha256"],
                "chain_sha256": doc["moves"][-1]["chain_sha256"],
                "actions_sha256": (doc["actions"][-1]["chain_sha256"] if doc.get("actions")
                                   else None),
                "addresses": doc.get("addresses", {}),
                "public_addresses": doc.get("public_addresses", False),
                "langs": doc.get("langs", {})}
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    key = secret_of(base / "game.secret.yaml").encode()
    assert doc["record_hmac"] == hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
    assert list(doc)[-2:] == ["record_hmac", "status"]


def test_a_record_relabelled_as_an_older_format_is_refused_with_the_seed(cli, game, keys):
    """The downgrade: rebis-pbm/3 relabelled rebis-pbm/2, which has no record_hmac and no
    encryption settings, then a forged replace_player action gives alice mallory's key and
    address, every public digest recomputed. The format is bound to the secret (each format
    commits to SALT:SEED in its own domain), so the relabelled record's commitment is not its
    seed's: verify with the seed and apply refuse it (exit 3) and change nothing."""
    env = {SEED_ENV: secret_of(game.parent / "game.secret.yaml")}
    move = next_move_file(game, keys, "bob")

    def downgrade(doc):
        doc["format"] = "rebis-pbm/2"
        for field in ("record_hmac", "encrypt_views", "referee_recipient", "langs"):
            doc.pop(field, None)
        doc["addresses"]["alice"] = "m@evil.example"
        doc["actions"] = [*doc.get("actions", ()), {
            "after": len(doc["moves"]), "action": "replace_player", "at": "2026-12-01T00:00:00Z",
            "player": "alice", "address": "m@evil.example", "key": pub(keys["mallory"]),
            "chain_sha256": ""}]
    rewrite(game, downgrade)
    before = game.read_bytes()
    checked = cli("verify", game, env=env)
    assert checked.code == 3, checked.out + checked.err
    assert "FAILED" in checked.out and "commitment" in checked.out
    applied = cli("apply", game, move, env=env)
    assert applied.code == 3, applied.err
    assert "says format rebis-pbm/2, but its seed commits to it as a rebis-pbm/3" in applied.err
    assert "Traceback" not in applied.err
    assert game.read_bytes() == before


def test_each_salted_format_commits_to_the_secret_in_its_own_domain():
    from rebis_pbm.record.digests import commitment, salted

    secret = salted("a seed", "0123456789abcdef" * 2)
    assert len({commitment("rebis-pbm/2", secret), commitment("rebis-pbm/3", secret)}) == 2


def test_a_read_with_the_seed_checks_no_recorded_signature_the_keyed_digest_covers(game, keys):
    """Issue 31: the referee's own read (every command but verify) does not check the recorded
    signatures again when record_hmac holds, since only the seed's holder can compute it and it
    covers every entry; verify still checks each one. Shown with a record whose bob signature was
    replaced by the seed's holder (record_hmac recomputed): open_game reads it, verify refuses
    it at bob's move. A forger without the seed cannot do this (the tests above)."""
    from rebis_pbm.record.audit import verify

    secret = secret_of(game.parent / "game.secret.yaml")

    def resign(doc):
        for entry in doc["moves"]:
            if entry["player"] == "bob":
                entry["signature"] = ssh_sign(keys["mallory"], entry["signed"].encode()).decode()
    rewrite(game, resign)
    doc = yaml.safe_load(game.read_text())
    rekeyed = Record.from_dict(doc).keyed(secret)
    doc["record_hmac"] = rekeyed.record_hmac
    game.write_text(HEADER + dump_yaml(doc))
    with seeded(game.parent):
        record, replay, _ = referee.open_game(game)
    assert len(record.moves) == 4 and replay.state.turn == 5
    report = verify(game.read_bytes(), "game.yaml", lambda record: (secret, "the test's seed"))
    assert report.problem is not None and report.problem.code == "signature"
    assert report.problem.player == "bob"
