"""A whole game in a public repository (issue 13's "done when"; docs/git.md, "A public
repository"): three players with SSH keys play to the end by signed, sealed moves, on a real
bare origin, each from their own clone, with the referee's job run after every push as CI runs
it (`rebis-pbm git apply` in a fresh clone, the seed and the referee's age identity in
environment variables, and no flag about encryption: the record says so).

Along the way five moves are refused, one per refusal path (a card the mover does not hold, a
signature by another key, a move file that is no move, a move out of turn, a move sealed to
another recipient); each reason reaches its mover only, encrypted.

Afterwards, against the secret (the replay of the finished record, whose seed is revealed):
no committed file in any revision, no commit message and no job output holds a hand or a card
only one player has seen (a draw, a face-down closing card) before the end, while each player's
decrypted view does (the positive control that makes the check able to fail); every public view
committed is the one the public record alone gives; every encrypted file opens for its reader
only; and `rebis-pbm verify` passes on the finished public record."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from test_git_job import bare_env, git

from rebis_pbm import app as referee
from rebis_pbm.bots import GreedyBot
from rebis_pbm.crypto import age as encryption
from rebis_pbm.engine import apply_move, setup
from rebis_pbm.errors import InputError
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.present import views
from rebis_pbm.record import parse_record
from rebis_pbm.record.public import public_replay
from sshkeys import ssh_key
from transport_support import PLAYERS, REPO, SMALL_RULES, exe, run, secret_key

pytestmark = pytest.mark.skipif(not (shutil.which("git") and shutil.which("ssh-keygen")),
                                reason="needs git and ssh-keygen (Debian: git, openssh-client; "
                                       ".ci/run installs them)")
GAME_ID = "public-game"
SEED = "a public repository game"
REFEREE_EMAIL = "referee@example.org"


@dataclass
class Table:
    """The game's world: the bare origin, each player's clone and private folder, the keys,
    the referee's secrets (as CI secrets hold them) and everything the jobs printed."""

    root: Path
    origin: Path
    keys: dict[str, Path]
    identity: str        # the referee's age identity file's text (a CI secret)
    secret: str          # the game's SALT:SEED (a CI secret)
    outputs: list[str] = field(default_factory=list)
    jobs: int = 0
    referee_key: Path | None = None  # the referee's SSH key (new --referee-key, a CI secret)

    def clone(self, name: str) -> Path:
        return self.root / "clones" / name

    def private(self, name: str) -> Path:
        return self.root / "private" / name


def referee_git(cwd: Path, *args: str) -> str:
    env = {**bare_env(cwd.parent / "home"), "GIT_AUTHOR_NAME": "Referee",
           "GIT_AUTHOR_EMAIL": REFEREE_EMAIL, "GIT_COMMITTER_NAME": "Referee",
           "GIT_COMMITTER_EMAIL": REFEREE_EMAIL}
    return git(cwd, *args, env=env)


def set_up(root: Path, record_format: str | None = None, referee_key: bool = False) -> Table:
    """The referee's set-up: keys, identity, `new --encrypt-views --referee-recipient --key`,
    the first (encrypted) views committed and pushed; the seed kept out of the repository.
    ``record_format``: an older format, the game made by the library as `new` made it then;
    ``referee_key``: with `new --referee-key` (rebis-pbm/4), the job given the key as CI gives
    it."""
    keys_dir = root / "keys"
    keys_dir.mkdir()
    keys = {p: ssh_key(keys_dir, p) for p in PLAYERS}
    signer = ssh_key(keys_dir, "referee") if referee_key else None
    identity_file = root / "referee.key"
    made = run("keygen-referee", identity_file)
    assert made.returncode == 0, made.stderr
    recipient = made.stdout.decode().split("Recipient (give it to the players): ")[1].split()[0]
    origin = root / "origin.git"
    git(root, "init", "--quiet", "--bare", "--initial-branch=main", str(origin))
    setup_dir = root / "setup"
    shutil.copytree(REPO / "examples" / "git", setup_dir)
    referee_git(setup_dir, "init", "--quiet", "--initial-branch=main")
    if record_format is not None:
        referee.create_game(setup_dir / "game.yaml", list(PLAYERS), addresses=dict(PLAYERS),
                            seed=SEED, insecure_seed=True, referee_deal=True, game_id=GAME_ID,
                            ruleset=referee.ruleset_from(False, SMALL_RULES[1::2]),
                            encrypt_views=True, referee_recipient=recipient,
                            keys={p: Path(f"{keys[p]}.pub").read_text() for p in PLAYERS},
                            record_format=record_format)
    else:
        created = run("new", setup_dir / "game.yaml", "--insecure-seed", "--referee-deal",
                      "--seed", SEED, "--game-id", GAME_ID, *SMALL_RULES, "--encrypt-views",
                      "--referee-recipient", recipient,
                      *(("--referee-key", str(signer)) if signer is not None else ()),
                      *(a for p, address in PLAYERS.items()
                        for a in ("--player", f"{p}={address}", "--key", f"{p}={keys[p]}.pub")))
        assert created.returncode == 0, created.stderr
    secret = root / "referee-only.secret.yaml"
    shutil.move(setup_dir / "game.secret.yaml", secret)
    referee_git(setup_dir, "add", "--all")
    referee_git(setup_dir, "add", "--force", "game.views")  # the encrypted views
    referee_git(setup_dir, "commit", "--quiet", "-m", "Start the game")
    referee_git(setup_dir, "push", "--quiet", str(origin), "main")
    (root / "clones").mkdir()
    for p in PLAYERS:
        git(root / "clones", "clone", "--quiet", str(origin), p)
        (root / "private" / p).mkdir(parents=True)
    return Table(root, origin, keys, identity_file.read_text(), secret_key(secret),
                 referee_key=signer)


def job(table: Table) -> subprocess.CompletedProcess:
    """The referee's job as CI runs it after a push: a fresh clone, `rebis-pbm git apply`, the
    seed and the identity in environment variables (their text, as CI secrets hold them)."""
    table.jobs += 1
    where = table.root / "jobs" / str(table.jobs)
    where.parent.mkdir(exist_ok=True)
    git(where.parent, "clone", "--quiet", f"file://{table.origin}", str(where))
    env = {**bare_env(where.parent / "home"), "REBIS_PBM_SEED": table.secret,
           "REBIS_PBM_AGE_IDENTITY": table.identity,
           **({"REBIS_PBM_REFEREE_KEY": str(table.referee_key)} if table.referee_key else {})}
    done = subprocess.run([exe(), "git", "apply", "--remote", "origin", "--branch", "main",
                           "--email", REFEREE_EMAIL], cwd=where, env=env, capture_output=True,
                          text=True, timeout=120)
    table.outputs.append(done.stdout + done.stderr)
    shutil.rmtree(where)
    return done


def status(table: Table, name: str) -> dict:
    clone = table.clone(name)
    git(clone, "pull", "--quiet", "--ff-only", "origin", "main")
    return load_yaml((clone / "game.yaml").read_bytes(), source="game.yaml",
                     kind="record").data["status"]


def my_view(table: Table, name: str):
    """``name`` pulls, decrypts their own view from their clone and reads it as their tools
    do."""
    status(table, name)
    sealed = table.clone(name) / "game.views" / f"{name}.yaml.age"
    path = table.private(name) / "view.yaml"
    path.write_bytes(encryption.decrypt(sealed.read_bytes(), table.keys[name]))
    return referee.read_view(path)


def witnessed(table: Table, name: str) -> str:
    """The chain digest ``name``'s own view witnessed (after a pull): the history their next
    move answers (``after``, rebis-pbm/4)."""
    status(table, name)
    sealed = table.clone(name) / "game.views" / f"{name}.yaml.age"
    view = load_yaml(encryption.decrypt(sealed.read_bytes(), table.keys[name]),
                     source="view", kind="view").data
    return str(view["witness"]["chain_sha256"])


def send(table: Table, name: str, doc: dict, signer: str | None = None,
         to: str | None = None) -> str:
    """``name`` seals ``doc`` (signed by ``signer``'s key, their own by default) to the
    recipient the game's record names (`seal` without --to; ``to``: another) and pushes only
    the sealed files."""
    clone = table.clone(name)
    file = f"turn-{doc['turn']:03d}-{name}.yaml"
    if "after" not in doc and parse_record((clone / "game.yaml").read_bytes(),
                                           "game.yaml").pins_history:
        # rebis-pbm/4: the move names the history it answers, as the player's view witnessed it
        doc = {"game": doc["game"], "after": witnessed(table, name),
               **{k: v for k, v in doc.items() if k != "game"}}
    plain = table.private(name) / file
    plain.write_text(dump_yaml(doc))
    game: Path | None = clone / "game.yaml"
    if signer not in (None, name) and to is None:
        # seal refuses another's key when it has the record: a forger seals without it
        to, game = referee.referee_recipient_of(clone / "game.yaml"), None
    referee.seal_move(plain, [to] if to else [], table.keys[signer or name], game=game)
    for suffix in (".age", ".sig.age"):
        shutil.copy(f"{plain}{suffix}", clone / "moves" / f"{file}{suffix}")
    git(clone, "add", "moves")
    git(clone, "commit", "--quiet", "-m", f"{name}: turn {doc['turn']}", author=name)
    git(clone, "push", "--quiet", "origin", "main")
    return file


def refused(table: Table, name: str, turn: int) -> str:
    """The job refuses ``name``'s move of ``turn`` saying only where the reason is; returns the
    reason, which ``name`` alone decrypts."""
    done = job(table)
    rel = f"refusals/turn-{turn:03d}-{name}.txt.age"
    assert done.returncode != 0, done.stdout
    assert f"turn {turn} by {name} was refused; the reason is in {rel}" in done.stderr
    assert done.stderr.count(f"turn {turn} by {name}") == 1  # said once
    status(table, name)
    note = (table.clone(name) / rel).read_bytes()
    reason = encryption.decrypt(note, table.keys[name]).decode().strip()
    assert reason and reason not in done.stdout + done.stderr
    for other in PLAYERS:
        if other != name:
            with pytest.raises(InputError, match="not encrypted to"):
                encryption.decrypt(note, table.keys[other])
    return reason


def play(table: Table) -> dict[str, str]:
    """The whole game, each move chosen by the greedy bot from its mover's decrypted view;
    five refused moves on the way. Returns each refusal's reason by path."""
    reasons: dict[str, str] = {}
    while True:
        now = status(table, "alice")
        if now["phase"] == "finished":
            return reasons
        mover, turn = now["player"], now["turn"]
        seen = my_view(table, mover)
        assert seen.viewer == mover and seen.state.player_to_move == mover
        move = {"game": GAME_ID, **GreedyBot().choose(seen.state).as_dict()}
        if turn == 2:  # a card the mover does not hold
            hand = seen.state.hands[seen.state.to_move]
            bad = {**move, "play": {"cards": next(n for n in range(1, 10) if n not in hand),
                                    "shelf": mover, "sign": "positive"}}
            bad.pop("gold_token", None)
            send(table, mover, bad)
            reasons["illegal"] = refused(table, mover, turn)
            assert "move rejected" in reasons["illegal"]
        elif turn == 3:  # signed with another player's key
            signer = next(p for p in PLAYERS if p != mover)
            send(table, mover, move, signer=signer)
            reasons["signature"] = refused(table, mover, turn)
            assert "signature does not check" in reasons["signature"]
        elif turn == 4:  # not a move at all
            send(table, mover, {"game": GAME_ID, "turn": turn, "player": mover, "play": "x"})
            reasons["form"] = refused(table, mover, turn)
        elif turn == 5:  # out of turn: another player sends a move for this turn
            other = next(p for p in PLAYERS if p != mover)
            theirs = my_view(table, other).state
            hand = theirs.hands[theirs.players.index(other)]
            file = send(table, other, {"game": GAME_ID, "turn": turn, "player": other,
                                       "play": {"cards": hand[0], "shelf": other,
                                                "sign": "positive"}})
            reasons["turn"] = refused(table, other, turn)
            # The job removed the refused files in the refusal's commit: judged once.
            assert not (table.clone(other) / "moves" / f"{file}.age").exists()
            status(table, mover)
        elif turn == 6:  # sealed to another recipient than the game's
            send(table, mover, move, to=encryption.new_identity()[1])
            reasons["recipient"] = refused(table, mover, turn)
            assert "is not sealed to the game's referee recipient" in reasons["recipient"]
        send(table, mover, move)  # (again, in the same files, after a refusal)
        done = job(table)
        if done.returncode:  # the reason, for whoever reads the failure
            status(table, mover)
            note = table.clone(mover) / f"refusals/turn-{turn:03d}-{mover}.txt.age"
            pytest.fail(encryption.decrypt(note.read_bytes(), table.keys[mover]).decode())
        assert f"Turn {turn}: " in done.stdout


def revisions(clone: Path) -> list[str]:
    return git(clone, "rev-list", "--all").split()


def trees(clone: Path) -> dict[str, dict[str, bytes]]:
    """Every revision's files: commit -> path -> content, read with one `git cat-file --batch`
    for all the blobs (each read once)."""
    listed = {c: dict(line.split(" ", 2)[2].split("\t", 1)[::-1]
                      for line in git(clone, "ls-tree", "-r", c).splitlines())
              for c in revisions(clone)}
    oids = sorted({oid for files in listed.values() for oid in files.values()})
    out = subprocess.run(["git", "cat-file", "--batch"], cwd=clone, check=True,
                         input="".join(f"{o}\n" for o in oids).encode(),
                         capture_output=True).stdout
    content, at = {}, 0
    for oid in oids:
        head_end = out.index(b"\n", at)
        size = int(out[at:head_end].split()[2])
        content[oid] = out[head_end + 1:head_end + 1 + size]
        at = head_end + 1 + size + 1
    return {c: {path: content[oid] for path, oid in files.items()} for c, files in listed.items()}


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Table, dict[str, str], Path]:
    """The whole game played once for the tests below: the table, each refusal's reason, and a
    fresh clone of the finished game (as a spectator makes it)."""
    root = tmp_path_factory.mktemp("public-game")
    table = set_up(root)
    reasons = play(table)
    final = root / "final"
    git(root, "clone", "--quiet", str(table.origin), str(final))
    return table, reasons, final


def test_a_whole_game_in_a_public_repository_keeps_every_hand_hidden(played):
    table, reasons, final = played
    assert set(reasons) == {"illegal", "signature", "form", "turn", "recipient"}
    verified = run("verify", final / "game.yaml")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    said = verified.stdout.decode()
    assert said.startswith("Verified: ") and "Referee's recipient: age1" in said

    # A CI secret holding another identity than the record's recipient stops the job.
    wrong = Table(table.root, table.origin, table.keys, encryption.new_identity()[0],
                  table.secret)
    stopped = job(wrong)
    assert stopped.returncode == 2 and "the referee identity (the identity given as text) is " \
        "not game public-game's" in stopped.stderr and "AGE-SECRET" not in stopped.stderr
    table.outputs += wrong.outputs

    # The secret: the finished record reveals its seed; the game replayed from it.
    game = referee.open_game(final / "game.yaml")
    record = game.record
    assert record.seed is not None and record.views_encrypted
    states = [setup(record.ruleset, record.players, record.deal_seed(record.seed))[0]]
    for move, _ in game.replay.history:
        states.append(apply_move(states[-1], move)[0])
    finished = len(record.moves)

    # What anyone sees: every plain file of every revision, every commit message, every job's
    # output. Encrypted files are kept aside, by path.
    plain: list[bytes] = [m.encode() for m in git(final, "log", "--all", "--format=%B")
                          .split("\n")] + [o.encode() for o in table.outputs]
    sealed: dict[str, set[bytes]] = {}
    moves_at: dict[str, int] = {}
    every = trees(final)
    for commit, files in every.items():
        record_at = parse_record(files["game.yaml"], "game.yaml")
        moves_at[commit] = len(record_at.moves)
        for path, data in files.items():
            if path.endswith(".age"):
                assert data.startswith(encryption.AGE_HEADER), (commit, path)
                sealed.setdefault(path, set()).add(data)
                continue
            assert not path.startswith(("refusals/", "moves/turn-")), (commit, path)
            assert not path.startswith("game.views/") or path in (
                "game.views/public.yaml", "game.views/public.txt"), (commit, path)
            if data not in plain:
                plain.append(data)
            if path.startswith("game.views/public.") and record_at.seed is None:
                # The spectator view is what the public record alone tells (no seed).
                fmt = "yaml" if path.endswith(".yaml") else "text"
                public = referee.record_view(record_at, public_replay(record_at), None)
                assert data.decode() == views.render(public, fmt), (commit, path)

    # What only one player has seen, turn by turn: their hand, and each sentence of a move's
    # account that their account has and the public one has not (a draw, a closing card).
    secrets: dict[str, set[str]] = {p: set() for p in PLAYERS}
    for count in range(finished):
        for p in PLAYERS:
            hand = states[count].hands[record.players.index(p)]
            secrets[p].add("Your hand: " + " ".join(str(c) for c in hand))
    for _, events in game.replay.history[:-1]:
        public = set(views.account(events).rstrip(".").split("; "))
        for p in PLAYERS:
            secrets[p] |= set(views.account(events, p).rstrip(".").split("; ")) - public
    # The positive control: each player's own views hold their secrets (so the search below
    # looks for what a leak would show).
    shown: dict[str, str] = {p: "" for p in PLAYERS}
    for commit, files in every.items():
        for p in PLAYERS:
            if moves_at[commit] < finished:
                shown[p] += encryption.decrypt(files[f"game.views/{p}.txt.age"],
                                               table.keys[p]).decode()
    for p in PLAYERS:
        missing = [s for s in secrets[p] if s not in shown[p]]
        assert not missing, (p, missing)
        assert any("drew" in s for s in secrets[p]), secrets[p]
    assert any("face down" in s or "closed" in s for p in PLAYERS for s in secrets[p]), secrets
    for data in plain:
        text = data.decode("utf-8", "replace")
        for p in PLAYERS:
            for s in secrets[p]:
                assert s not in text, (p, s)
        for reason in reasons.values():
            assert reason not in text

    # Each encrypted file opens for its reader only: a view for its player, a refusal for its
    # mover, a sealed move for the referee (not even its sender), but for the move and signature
    # sealed to a stranger's recipient, which no one here opens.
    identity = table.root / "referee.key"
    strays = []
    for path, versions in sealed.items():
        name = Path(path).name
        reader = name.split(".")[0] if path.startswith("game.views/") else \
            name.split(".")[0].split("-", 2)[2] if path.startswith("refusals/") else "referee"
        for data in versions:
            opened_by = []
            for who, key in (*table.keys.items(), ("referee", identity)):
                try:
                    encryption.decrypt(data, key)
                    opened_by.append(who)
                except InputError as exc:
                    assert "not encrypted to" in exc.message
            if opened_by != [reader]:
                assert not opened_by and reader == "referee", (path, opened_by)
                strays.append(path)
    assert sorted(strays) == [f"moves/turn-006-{record.players[2]}.yaml{s}.age"
                              for s in ("", ".sig")]


@pytest.mark.skipif(not shutil.which("age"), reason="needs the age program (Debian: age; .ci/run "
                    "installs it); the rest of the game is checked without it")
def test_each_player_opens_their_own_views_with_age_and_no_one_elses(played):
    """The standard `age -d -i KEY` opens a player's own views, and no one else's."""
    table, _, final = played
    for p, key in table.keys.items():
        for other in PLAYERS:
            done = subprocess.run(["age", "-d", "-i", str(key),
                                   str(final / "game.views" / f"{other}.txt.age")],
                                  capture_output=True)
            if other == p:
                assert done.returncode == 0 and f"view of {p}".encode() in done.stdout
            else:
                assert done.returncode != 0 and not done.stdout


def test_the_length_attack_learns_nothing_from_the_games_encrypted_files(played):
    """Issue 13's attack, finding 4: every age file committed in the game, in every revision,
    is measured as the tester did (the plaintext length from the file's size). Each kind has one
    length: every view (YAML and text, every player, every turn) 16 KiB, every refusal 4 KiB,
    every sealed move 1024 bytes; every sealed signature (all ed25519 here) one length."""
    from test_padding import plaintext_length

    _, _, final = played
    lengths: dict[str, set[int]] = {}
    for files in trees(final).values():
        for path, data in files.items():
            if path.endswith(".age"):
                kind = ("view" if path.startswith("game.views/") else
                        "refusal" if path.startswith("refusals/") else
                        "signature" if path.endswith(".sig.age") else "move")
                lengths.setdefault(kind, set()).add(plaintext_length(data))
    assert lengths.pop("view") == {encryption.VIEW_PAD}
    assert lengths.pop("refusal") == {encryption.REFUSAL_PAD}
    assert lengths.pop("move") == {encryption.MOVE_PAD}
    assert len(lengths.pop("signature")) == 1 and not lengths


def test_a_public_game_deals_in_two_rounds_from_sealed_commitments_and_joins(tmp_path):
    """rebis-pbm/5 in a public repository (docs/git.md, docs/shuffle.md section 9): each player
    decrypts their join-phase view and runs their own `rebis-pbm play` on it, which seals the
    signed commitment to the referee's recipient (the join text stays in their private folder);
    the job applies it; then the same for the joins; the last one deals, and verify passes."""
    root = tmp_path
    keys_dir = root / "keys"
    keys_dir.mkdir()
    keys = {p: ssh_key(keys_dir, p) for p in PLAYERS}
    identity_file = root / "referee.key"
    made = run("keygen-referee", identity_file)
    assert made.returncode == 0, made.stderr
    recipient = made.stdout.decode().split("Recipient (give it to the players): ")[1].split()[0]
    origin = root / "origin.git"
    git(root, "init", "--quiet", "--bare", "--initial-branch=main", str(origin))
    setup_dir = root / "setup"
    shutil.copytree(REPO / "examples" / "git", setup_dir)
    referee_git(setup_dir, "init", "--quiet", "--initial-branch=main")
    created = run("new", setup_dir / "game.yaml", "--insecure-seed", "--seed", SEED,
                  "--game-id", GAME_ID, *SMALL_RULES, "--encrypt-views", "--referee-recipient",
                  recipient, *(a for p, address in PLAYERS.items()
                               for a in ("--player", f"{p}={address}",
                                         "--key", f"{p}={keys[p]}.pub")))
    assert created.returncode == 0, created.stderr
    secret = root / "referee-only.secret.yaml"
    shutil.move(setup_dir / "game.secret.yaml", secret)
    referee_git(setup_dir, "add", "--all")
    referee_git(setup_dir, "add", "--force", "game.views")
    referee_git(setup_dir, "commit", "--quiet", "-m", "Start the game")
    referee_git(setup_dir, "push", "--quiet", str(origin), "main")
    (root / "clones").mkdir()
    for p in PLAYERS:
        git(root / "clones", "clone", "--quiet", str(origin), p)
        (root / "private" / p).mkdir(parents=True)
    table = Table(root, origin, keys, identity_file.read_text(), secret_key(secret))
    for round_ in (1, 2):
        for name in PLAYERS:
            status(table, name)
            sealed = table.clone(name) / "game.views" / f"{name}.yaml.age"
            view = table.private(name) / "view.yaml"
            view.write_bytes(encryption.decrypt(sealed.read_bytes(), keys[name]))
            assert f"round: {round_}" in view.read_text()
            done = run("play", view, "--yes", "--quiet", "--out", table.private(name),
                       "--key", keys[name])
            assert done.returncode == 0, done.stderr
            clone = table.clone(name)
            for suffix in (".age", ".sig.age"):
                shutil.copy(table.private(name) / f"turn-000-{name}.yaml{suffix}",
                            clone / "moves" / f"turn-000-{name}.yaml{suffix}")
            assert not list(clone.rglob("*.join-text"))  # the join text stays private
            git(clone, "add", "moves")
            git(clone, "commit", "--quiet", "-m", f"{name}: the deal, round {round_}",
                author=name)
            git(clone, "push", "--quiet", "origin", "main")
            applied = job(table)
            assert applied.returncode == 0, applied.stdout + applied.stderr
    final = status(table, "alice")
    assert final["phase"] == "play" and final["turn"] == 1
    record = table.clone("alice") / "game.yaml"
    assert "commitment:" in record.read_text() and "join:" in record.read_text()
    verified = run("verify", record, env={"REBIS_PBM_SEED": table.secret})
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert b"Deal: fair (two rounds" in verified.stdout
