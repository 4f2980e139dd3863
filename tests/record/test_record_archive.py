"""The record archive (tests/records/): records written by rebis-pbm 0.1.0 in the format
rebis-pbm/1, and by the version that wrote rebis-pbm/2 in that format, which every later version
must keep reading, verifying and replaying identically.

Each record NAME.yaml is checked against NAME.expected.json, what the version that wrote it said
about it (tests/records/README.md). Everything runs through the installed console script
`rebis-pbm` in a subprocess, on a copy of the files in a scratch folder, as a user would run it:
these tests use no module of the package, so that they keep testing the same thing whatever the
package becomes. A record added to the folder later (with its expected file and its line in
SHA256SUMS) is covered by every test here once it is listed below with the format it is in.
The rebis-pbm/6 game's record, whose signed witness counts the referee's logged actions, is also
checked to fail once its last act is cut off (the attack rebis-pbm/6 defends against).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

ARCHIVE = Path(__file__).resolve().parents[1] / "records"
RECORDS = sorted(p.name[: -len(".yaml")] for p in ARCHIVE.glob("*.yaml")
                 if not p.name.endswith(".secret.yaml"))

# The games scripts/make-record-archive.py wrote with 0.1.0: none may disappear.
WRITTEN_BY_0_1_0 = {
    "finished-2p", "finished-3p", "finished-4p", "finished-zero", "finished-rules",
    "finished-random-seats", "finished-addresses", "finished-public-addresses", "abandoned",
    "unfinished", "red-token-pending",
}
# The games scripts/make-record-archive-v2.py wrote in the format rebis-pbm/2: none may disappear.
WRITTEN_IN_REBIS_PBM_2 = {
    "v2-fair-deal", "v2-referee-deal", "v2-signed", "v2-unfinished", "v2-deadline", "v2-ended",
}
# The games scripts/make-record-archive-v4.py wrote in the format rebis-pbm/4: none may disappear.
WRITTEN_IN_REBIS_PBM_4 = {"v4-signed"}
# The game scripts/make-record-archive-v5.py wrote in the format rebis-pbm/5 (the fair deal in
# two rounds): it may not disappear. It is checked as the rebis-pbm/2 games are.
WRITTEN_IN_REBIS_PBM_5 = {"v5-fair-deal"}
# The game scripts/make-record-archive-v6.py wrote in the format rebis-pbm/6 (the referee's signed
# witness counts the logged actions): it may not disappear. Checked as the rebis-pbm/4 game is.
WRITTEN_IN_REBIS_PBM_6 = {"v6-referee-acts"}
# What verify reports of a rebis-pbm/2 record besides the fields of stable_fields: who dealt, and
# the fingerprints of the players' keys (docs/audit.md). Their expected files hold them.
V2_FIELDS = ("deal_from", "deal_pending", "keys")
KEYS = ARCHIVE / "keys"   # the players' SSH keys of the signed games (test data)


# ------------------------------------------------------------------------------- helpers

@pytest.fixture(scope="module")
def script() -> str:
    """The installed `rebis-pbm` console script (make test installs it beside this Python)."""
    beside = Path(sys.executable).parent / "rebis-pbm"
    found = str(beside) if beside.exists() else shutil.which("rebis-pbm")
    if not found:
        pytest.fail("the rebis-pbm console script is not installed: run `make test`")
    return found


def run(script: str, *args: str, cwd: Path, stdin: str | None = None):
    """rebis-pbm ARGS in folder `cwd`, with no seed from the environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REBIS_PBM_")}
    return subprocess.run([script, *args], cwd=cwd, input=stdin, capture_output=True, text=True,
                          env=env, timeout=120)


def expected(name: str) -> dict:
    return json.loads((ARCHIVE / f"{name}.expected.json").read_text(encoding="utf-8"))


def copy_game(name: str, folder: Path) -> Path:
    """The record (and its secret, if archived) copied into `folder`, under the same names."""
    folder.mkdir(exist_ok=True)
    for file in (f"{name}.yaml", f"{name}.secret.yaml"):
        if (ARCHIVE / file).exists():
            shutil.copyfile(ARCHIVE / file, folder / file)
    return folder


def seed_source(value):
    """verify's `seed`: 'revealed in the record', or the seed file, kept by its bare name."""
    if isinstance(value, str) and value.endswith(".yaml"):
        return Path(value).name
    return value


def verify_report(script: str, name: str, folder: Path) -> dict:
    done = run(script, "verify", f"{name}.yaml", "--format", "json", cwd=folder)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    return json.loads(done.stdout)


def stable_fields(report: dict, v2: bool = False) -> dict:
    """The fields of verify's JSON report a user relies on (not its file path, not the wording
    of the lists of checks); with ``v2``, also who dealt and the players' key fingerprints."""
    return {**({field: report[field] for field in V2_FIELDS} if v2 else {}),
        "game": report["game"],
        "verified": report["verified"],
        "complete": report["complete"],
        "moves": report["moves"],
        "seed": seed_source(report["seed"]),
        "problem": report["problem"],
        "status": report["status"],
    }


# ------------------------------------------------------------------------ the archive itself

def test_the_archive_keeps_every_record_with_its_expected_outcome():
    assert set(RECORDS) >= WRITTEN_BY_0_1_0, "a record of the archive was removed"
    assert set(RECORDS) >= WRITTEN_IN_REBIS_PBM_2, "a record of the archive was removed"
    assert set(RECORDS) >= WRITTEN_IN_REBIS_PBM_4, "a record of the archive was removed"
    assert set(RECORDS) >= WRITTEN_IN_REBIS_PBM_5, "a record of the archive was removed"
    assert set(RECORDS) >= WRITTEN_IN_REBIS_PBM_6, "a record of the archive was removed"
    for name in RECORDS:
        assert (ARCHIVE / f"{name}.expected.json").is_file(), f"{name}.yaml has no expected file"
    for path in ARCHIVE.glob("*.expected.json"):
        assert path.name[: -len(".expected.json")] in RECORDS, f"{path.name} has no record"


def test_the_records_are_byte_for_byte_as_written():
    """SHA256SUMS lists every record and secret of the archive: none was edited or regenerated."""
    sums = {}
    for line in (ARCHIVE / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, file = line.split("  ")
        sums[file] = digest
    files = {p.name for p in ARCHIVE.glob("*.yaml")}
    assert set(sums) == files, "SHA256SUMS must list exactly the archive's .yaml files"
    for file, digest in sums.items():
        assert hashlib.sha256((ARCHIVE / file).read_bytes()).hexdigest() == digest, (
            f"{file} differs from the file rebis-pbm wrote: the archive is never edited")


@pytest.mark.parametrize("name", RECORDS)
def test_each_record_is_in_the_format_it_was_written_in(name):
    record = yaml.safe_load((ARCHIVE / f"{name}.yaml").read_text(encoding="utf-8"))
    assert name in (WRITTEN_BY_0_1_0 | WRITTEN_IN_REBIS_PBM_2 | WRITTEN_IN_REBIS_PBM_4
                    | WRITTEN_IN_REBIS_PBM_5 | WRITTEN_IN_REBIS_PBM_6), (
        f"{name}.yaml: list a record added to the archive with the format it was written in")
    assert record["format"] == ("rebis-pbm/1" if name in WRITTEN_BY_0_1_0 else
                                "rebis-pbm/4" if name in WRITTEN_IN_REBIS_PBM_4 else
                                "rebis-pbm/5" if name in WRITTEN_IN_REBIS_PBM_5 else
                                "rebis-pbm/6" if name in WRITTEN_IN_REBIS_PBM_6 else
                                "rebis-pbm/2")


# ------------------------------------------------------------------ what a version must say

@pytest.mark.parametrize("name", RECORDS)
def test_verify_passes_and_reports_the_same_game(script, tmp_path, name):
    report = verify_report(script, name, copy_game(name, tmp_path))
    assert report["verified"] is True and report["problem"] is None
    v2 = name not in WRITTEN_BY_0_1_0
    if v2:
        assert set(V2_FIELDS) <= set(expected(name)["verify"]), "a rebis-pbm/2 expected file " \
            "holds who dealt and the key fingerprints"
    assert stable_fields(report, v2) == expected(name)["verify"]


@pytest.mark.parametrize("name", RECORDS)
def test_score_is_the_same(script, tmp_path, name):
    done = run(script, "score", f"{name}.yaml", "--format", "json", cwd=copy_game(name, tmp_path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected(name)["score"]


def contains(archived, now, where: str = "view") -> None:
    """Every field and value of the ``archived`` view is still in the view shown ``now``; new
    fields may be added (views are presentation, records the contract: tests/records/README.md).
    The view's format tag (``view``) may have moved on."""
    if isinstance(archived, dict):
        assert isinstance(now, dict), where
        for key, value in archived.items():
            if where == "view" and key == "view":
                continue
            assert key in now, f"{where}.{key} is gone"
            contains(value, now[key], f"{where}.{key}")
    elif isinstance(archived, list):
        assert isinstance(now, list) and len(now) == len(archived), where
        for i, (a, b) in enumerate(zip(archived, now, strict=True)):
            contains(a, b, f"{where}[{i}]")
    else:
        assert archived == now, f"{where}: {archived!r} became {now!r}"


def table_lines(lines) -> list[str]:
    """The lines of a text view that show cards: the hand, and each shelf's cards (up to the
    " | " after which weights, tokens and scores are worded)."""
    return [line.split(" | ")[0] for line in lines
            if line.startswith("Your hand:") or line.startswith("  shelf ")]


@pytest.mark.parametrize("name", RECORDS)
def test_every_view_is_the_same(script, tmp_path, name):
    """Each player's view and the spectator's: the YAML view still holds every field and value
    0.1.0 showed (new fields may be added), the JSON view the same data as the YAML one, and the
    text view the same hand and the same cards on every shelf."""
    folder = copy_game(name, tmp_path)
    views = expected(name)["views"]
    players = yaml.safe_load((folder / f"{name}.yaml").read_text(encoding="utf-8"))["players"]
    assert set(views) == {*players, "public"}

    def view(who: str, form: str):
        which = ["--public"] if who == "public" else ["--player", who]
        done = run(script, "view", f"{name}.yaml", *which, "--format", form, cwd=folder)
        assert done.returncode == 0, (who, form, done.stderr)
        return done.stdout

    jobs = [(who, form) for who in views for form in ("text", "yaml", "json")]
    with ThreadPoolExecutor(max_workers=4) as pool:
        out = dict(zip(jobs, pool.map(lambda job: view(*job), jobs), strict=True))
    for who, want in views.items():
        assert table_lines(out[who, "text"].split("\n")) == table_lines(want["text"]), \
            f"text view of {who}"
        shown = yaml.safe_load(out[who, "yaml"])
        contains(want["yaml"], shown)
        assert json.loads(out[who, "json"]) == shown, f"JSON view of {who}"


@pytest.mark.parametrize("name", RECORDS)
def test_a_game_in_play_goes_on_and_an_ended_one_does_not(script, tmp_path, name):
    """In a copy: a game still in play (its secret archived beside it) lists the same legal moves,
    accepts the first one, and still verifies; a finished or abandoned game has no move to make."""
    folder = copy_game(name, tmp_path)
    want = expected(name)
    status = want["verify"]["status"]
    if "moves" not in want:
        assert status["phase"] == "finished" or status.get("abandoned")
        player = status.get("player") or want["score"]["scores"][0]["player"]
        done = run(script, "moves", f"{name}.yaml", "--player", player, cwd=folder)
        assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
        return
    player = want["moves"]["player"]
    assert (folder / f"{name}.secret.yaml").exists(), "a game in play keeps its secret"
    done = run(script, "moves", f"{name}.yaml", "--player", player, "--format", "json",
               cwd=folder)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)  # each move with what it does (issue 29)
    assert all(entry["description"] for entry in listed)
    legal = [entry["move"] for entry in listed]
    assert legal == want["moves"]["legal"]
    (folder / "next.yaml").write_text(yaml.safe_dump(legal[0], sort_keys=False), encoding="utf-8")
    done = run(script, "apply", f"{name}.yaml", "next.yaml", "--as", player, cwd=folder)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    report = verify_report(script, name, folder)
    assert report["verified"] is True and report["complete"] is True
    assert report["moves"] == want["verify"]["moves"] + 1


# ------------------------------------------------------------------ and the check can fail

CARD = re.compile(r"^(    cards: \[?)(\d)", re.MULTILINE)


@pytest.mark.parametrize("name", RECORDS)
def test_a_record_with_one_card_edited_fails_verification(script, tmp_path, name):
    """The first card number written in the record's moves, changed by one byte in a copy:
    verify fails (exit 3) at that move. So the tests above can tell a record that verifies."""
    folder = copy_game(name, tmp_path)
    record = folder / f"{name}.yaml"
    text = record.read_text(encoding="utf-8")
    found = CARD.search(text, text.index("\nmoves:\n"))
    assert found, "no card number in the moves"
    digit = int(found.group(2))
    edited = text[: found.start(2)] + str(digit % 9 + 1) + text[found.end(2):]
    record.write_text(edited, encoding="utf-8")
    turn = int(re.findall(r"^- turn: (\d+)$", text[: found.start()], re.MULTILINE)[-1])
    done = run(script, "verify", f"{name}.yaml", "--format", "json", cwd=folder)
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    report = json.loads(done.stdout)
    assert report["verified"] is False
    assert report["problem"]["turn"] == turn, report["problem"]


# ------------------------------------------------------------ rebis-pbm/2: keys and witnesses

SSH_KEYGEN = shutil.which("ssh-keygen")
SIGNED = [name for name in RECORDS if name not in WRITTEN_BY_0_1_0 and expected(name)["verify"]
          .get("keys")]


@pytest.mark.skipif(SSH_KEYGEN is None, reason="needs ssh-keygen (Debian: openssh-client; "
                    ".ci/run installs it)")
def test_verify_reports_the_fingerprints_of_the_archived_keys():
    """The key fingerprints verify reported for each signed game (its expected file, which
    test_verify_passes_and_reports_the_same_game compares with today's verify) are those
    `ssh-keygen -l` prints for the players' public keys archived in keys/: the check a player
    makes that the record holds their key."""
    assert SIGNED, "the archive holds a signed game"
    prints = {}
    for pub in KEYS.glob("*.pub"):
        done = subprocess.run([SSH_KEYGEN, "-l", "-f", str(pub)], capture_output=True, text=True,
                              check=True)
        prints[done.stdout.split()[1]] = pub.stem
    for name in SIGNED:
        for player, fingerprints in expected(name)["verify"]["keys"].items():
            for fingerprint in fingerprints:
                assert prints.get(fingerprint, "").split("-")[0] == player, (name, player)


def canonical(value) -> bytes:
    """docs/audit.md, "Canonical form" (the record's values: no floats)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      allow_nan=False).encode("utf-8")


def rechain(text: str, first: int) -> str:
    """The record's text with the chain digests of move ``first`` (0-based) and every move after
    it recomputed (docs/audit.md, "The chain digest"), as a forger who knows the revealed seed
    would: only a signature can then tell the forgery."""
    data = yaml.safe_load(text)
    moves = data["moves"]

    def prev(index: int) -> str:
        if index:
            return moves[index - 1]["chain_sha256"]
        joins = data.get("joins") or []
        return joins[-1]["chain_sha256"] if joins else data["header_sha256"]

    def digest(index: int) -> str:
        entry = {k: v for k, v in moves[index].items() if k != "chain_sha256"}
        return hashlib.sha256(canonical({"entry": entry, "prev": prev(index)})).hexdigest()

    assert first == 0 or digest(first - 1) == moves[first - 1]["chain_sha256"], "forger's chain"
    for index in range(first, len(moves)):
        new = digest(index)
        # the field only: a rebis-pbm/4 signed move file names its predecessor's digest too
        # (after:), in bytes its player signed, which a forger cannot rewrite
        field = f"chain_sha256: {moves[index]['chain_sha256']}"
        assert text.count(field) == 1
        text = text.replace(field, f"chain_sha256: {new}")
        moves[index]["chain_sha256"] = new
    return text


# rebis-pbm/2's signed games: from rebis-pbm/4 on a signed move also names the chain digest it
# answers (after:, in its signed text), which this forger's text replacement cannot rechain;
# that forgery (real signatures carried into another history) is tests/record/test_history_pin.py's.
@pytest.mark.parametrize("name", [n for n in SIGNED if n in WRITTEN_IN_REBIS_PBM_2])
def test_a_signed_game_forged_with_its_chain_recomputed_fails_at_the_signature(script, tmp_path,
                                                                              name):
    """Attack: in a copy of a finished signed game, one move's signature is swapped for another
    signature by the same player (of another of their moves) and every chain digest after it is
    recomputed, as anyone can once the seed is revealed. verify still checks the archived
    signatures: it fails (exit 3) at that move, on its signature."""
    folder = copy_game(name, tmp_path)
    record = folder / f"{name}.yaml"
    text = record.read_text(encoding="utf-8")
    moves = yaml.safe_load(text)["moves"]
    first = next(m for m in moves if "signature" in m)  # its signature in clear
    other, (index, victim) = first, [(i, m) for i, m in enumerate(moves) if "signature" in m
                                     and m["player"] == first["player"]][1]

    def block(signature: str) -> str:
        return "".join(f"    {line}\n" for line in signature.splitlines())

    assert text.count(block(victim["signature"])) == 1
    forged = rechain(text.replace(block(victim["signature"]), block(other["signature"])), index)
    record.write_text(forged, encoding="utf-8")
    done = run(script, "verify", f"{name}.yaml", "--format", "json", cwd=folder)
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    problem = json.loads(done.stdout)["problem"]
    assert (problem["code"], problem["turn"]) == ("signature", victim["turn"]), problem


WITNESSED = [name for name in RECORDS if any(
    "witness" in view["yaml"] for view in expected(name)["views"].values())]


@pytest.mark.parametrize("name", WITNESSED)
def test_the_archived_views_are_witnesses_the_record_holds(script, tmp_path, name):
    """Every view archived with a rebis-pbm/2 game, saved as a player saves it, passes
    `verify --witness`; the same view claiming one more move than the record holds fails
    (exit 3, problem code witness), as for a record cut short."""
    folder = copy_game(name, tmp_path)
    views = expected(name)["views"]
    given = []
    for who, view in views.items():
        (folder / f"{who}.view.yaml").write_text(yaml.safe_dump(view["yaml"], sort_keys=False),
                                                 encoding="utf-8")
        given += ["--witness", f"{who}.view.yaml"]
    done = run(script, "verify", f"{name}.yaml", *given, "--format", "json", cwd=folder)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    ahead = dict(views["public"]["yaml"])
    ahead["witness"] = {**ahead["witness"], "move": ahead["witness"]["move"] + 1}
    (folder / "ahead.view.yaml").write_text(yaml.safe_dump(ahead, sort_keys=False),
                                            encoding="utf-8")
    done = run(script, "verify", f"{name}.yaml", "--witness", "ahead.view.yaml", "--format",
               "json", cwd=folder)
    if "witness_signature" in ahead:
        # rebis-pbm/4 with a referee key: the edited witness no longer fits the referee's
        # signature, so it proves nothing (exit 2) rather than a record cut short
        assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
        assert "not signed by this game's referee" in done.stderr
        return
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    assert json.loads(done.stdout)["problem"]["code"] == "witness"


REFEREE_SIGNED = [name for name in RECORDS if "referee_key" in expected(name)]


@pytest.mark.skipif(SSH_KEYGEN is None, reason="needs ssh-keygen (Debian: openssh-client; "
                    ".ci/run installs it)")
@pytest.mark.parametrize("name", REFEREE_SIGNED)
def test_the_referees_signatures_are_checked_with_the_archived_referee_key(script, tmp_path,
                                                                         name):
    """A rebis-pbm/4 game with a referee key (keys/referee): verify checks the referee's
    signatures (witness, stand-in moves, logged actions) with the key whose fingerprint
    `ssh-keygen -l` prints for keys/referee.pub; one logged action's signature swapped for the
    record's witness signature fails (exit 3, code signature)."""
    done = subprocess.run([SSH_KEYGEN, "-l", "-f", str(KEYS / "referee.pub")],
                          capture_output=True, text=True, check=True)
    assert done.stdout.split()[1] == expected(name)["referee_key"]
    folder = copy_game(name, tmp_path)
    out = run(script, "verify", f"{name}.yaml", cwd=folder)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"the referee's signatures (key {expected(name)['referee_key']})" in out.stdout
    record = folder / f"{name}.yaml"
    text = record.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert any(m.get("by") == "referee" for m in data["moves"]), "a stand-in move"
    action = data["actions"][0]["referee_signature"]
    witness = data["witness_signature"]

    def block(signature: str) -> str:
        return "".join(f"    {line}\n" for line in signature.splitlines())

    assert text.count(block(action)) == 1
    record.write_text(text.replace(block(action), block(witness)), encoding="utf-8")
    out = run(script, "verify", f"{name}.yaml", "--format", "json", cwd=folder)
    assert out.returncode == 3, (out.returncode, out.stdout, out.stderr)
    assert json.loads(out.stdout)["problem"]["code"] == "signature"


# ------------------------------ signature malleability: the canonical form only (13th tester)

@pytest.mark.skipif(SSH_KEYGEN is None, reason="needs ssh-keygen (Debian: openssh-client; "
                    ".ci/run installs it)")
@pytest.mark.parametrize("how", ["inner-length", "trailing-byte", "outer-length"])
def test_a_signed_game_with_a_malleated_move_signature_fails_at_the_signature(script, tmp_path,
                                                                             how):
    """Attack: in a copy of v2-signed, one of alice's real move signatures respelled (its
    mathematics kept: the key blob's inner length byte changed, a byte appended, the outer
    length one more) and, as that signature is under the chain digest, every chain digest from
    that move on recomputed (the seed is revealed). ssh-keygen -Y verify refuses the respelled
    signature; so does verify (exit 3, code signature, at that move)."""
    from sshkeys import malleated, ssh_verifies

    name = "v2-signed"
    folder = copy_game(name, tmp_path)
    record = folder / f"{name}.yaml"
    text = record.read_text(encoding="utf-8")
    moves = yaml.safe_load(text)["moves"]
    index, victim = [(i, m) for i, m in enumerate(moves)
                     if "signature" in m and m["player"] == "alice"][1]
    signed = victim["signed"].encode("utf-8")
    forged = malleated(victim["signature"], how)
    assert ssh_verifies(KEYS / "alice.pub", signed, victim["signature"], tmp_path)
    assert not ssh_verifies(KEYS / "alice.pub", signed, forged, tmp_path)

    def block(signature: str) -> str:
        return "".join(f"    {line}\n" for line in signature.splitlines())

    assert text.count(block(victim["signature"])) == 1
    record.write_text(rechain(text.replace(block(victim["signature"]), block(forged)), index),
                      encoding="utf-8")
    done = run(script, "verify", f"{name}.yaml", "--format", "json", cwd=folder)
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    problem = json.loads(done.stdout)["problem"]
    assert (problem["code"], problem["turn"]) == ("signature", victim["turn"]), problem


@pytest.mark.skipif(SSH_KEYGEN is None, reason="needs ssh-keygen (Debian: openssh-client; "
                    ".ci/run installs it)")
@pytest.mark.parametrize("name", sorted(WRITTEN_IN_REBIS_PBM_6))
def test_a_malleated_referee_signature_is_not_the_referees(script, tmp_path, name):
    """Attack: the referee's real signatures respelled (the key blob's inner length byte
    changed), nothing recomputed: the record's logged action then fails verify (exit 3, code
    signature); a saved view's witness signature, which ssh-keygen -Y verify refuses, fails
    verify --witness (exit 2, not signed by this game's referee), where the real one passes."""
    from sshkeys import malleated, ssh_verifies

    folder = copy_game(name, tmp_path)
    view = dict(expected(name)["views"]["public"]["yaml"])
    witness = view["witness"]
    line = (f"Witness: game {witness['game']}, move {witness['move']}, chain_sha256 "
            f"{witness['chain_sha256']}, header_sha256 {witness['header_sha256']}, actions "
            f"{witness['actions']}").encode()
    forged = malleated(view["witness_signature"], "inner-length")
    referee = KEYS / "referee.pub"
    assert ssh_verifies(referee, line, view["witness_signature"], tmp_path, "rebis-pbm-referee")
    assert not ssh_verifies(referee, line, forged, tmp_path, "rebis-pbm-referee")
    for who, signature in (("real", view["witness_signature"]), ("forged", forged)):
        (folder / f"{who}.view.yaml").write_text(
            yaml.safe_dump({**view, "witness_signature": signature}, sort_keys=False),
            encoding="utf-8")
    done = run(script, "verify", f"{name}.yaml", "--witness", "real.view.yaml", cwd=folder)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    done = run(script, "verify", f"{name}.yaml", "--witness", "forged.view.yaml", cwd=folder)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "not signed by this game's referee" in done.stderr

    record = folder / f"{name}.yaml"
    text = record.read_text(encoding="utf-8")
    action = yaml.safe_load(text)["actions"][0]["referee_signature"]

    def block(signature: str) -> str:
        return "".join(f"    {line}\n" for line in signature.splitlines())

    assert text.count(block(action)) == 1
    record.write_text(text.replace(block(action), block(malleated(action, "inner-length"))),
                      encoding="utf-8")
    out = run(script, "verify", f"{name}.yaml", "--format", "json", cwd=folder)
    assert out.returncode == 3, (out.returncode, out.stdout, out.stderr)
    assert json.loads(out.stdout)["problem"]["code"] == "signature"


# ------------------------------------------------- rebis-pbm/6: the witness counts the acts

@pytest.mark.parametrize("name", sorted(WRITTEN_IN_REBIS_PBM_6))
def test_the_archived_witnesses_count_the_referees_logged_actions(name):
    """A rebis-pbm/6 game with a referee key: every archived view's witness counts the record's
    logged actions (``actions: K``, K >= 1: the archived game logged an act between moves)."""
    data = yaml.safe_load((ARCHIVE / f"{name}.yaml").read_text(encoding="utf-8"))
    assert "referee_key" in data and data["actions"], "a referee key and a logged act"
    for who, view in expected(name)["views"].items():
        assert view["yaml"]["witness"]["actions"] == len(data["actions"]), who
        assert "witness_signature" in view["yaml"], who


@pytest.mark.parametrize("name", sorted(WRITTEN_IN_REBIS_PBM_6))
def test_a_rebis_pbm_6_record_with_its_last_act_cut_off_fails_verification(script, tmp_path,
                                                                          name):
    """Attack (docs/audit.md, the stripping row): in a copy of the finished game, whose seed is
    public, a spectator cuts the last logged action off and recomputes ``record_hmac`` by
    docs/audit.md's formula, so that every remaining signature checks. The referee's signed
    witness line counts the acts: verify fails (exit 3, code signature)."""
    import hmac

    folder = copy_game(name, tmp_path)
    record = folder / f"{name}.yaml"
    text = record.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    key = f"{data['salt']}:{data['seed']}".encode()

    def record_hmac(actions: list) -> str:
        document = {"domain": "rebis-pbm/record-digest/v1",
                    "header_sha256": data["header_sha256"],
                    "chain_sha256": data["moves"][-1]["chain_sha256"],
                    "actions_sha256": actions[-1]["chain_sha256"] if actions else None,
                    "addresses": data.get("addresses", {}),
                    "public_addresses": data.get("public_addresses", False),
                    "langs": data.get("langs", {})}
        return hmac.new(key, canonical(document), hashlib.sha256).hexdigest()

    assert record_hmac(data["actions"]) == data["record_hmac"], "the forger's formula"
    kept = data["actions"][:-1]
    start, end = text.index("\nactions:\n"), text.index("\nwitness_signature:")
    cut = (text[:start] + text[start:end][: text[start:end].rindex("\n- ")] + text[end:]
           if kept else text[:start] + text[end:])
    digest = record_hmac(kept)
    cut = cut.replace(f"record_hmac: {data['record_hmac']}", f"record_hmac: {digest}")
    stripped = yaml.safe_load(cut)
    assert stripped.get("actions", []) == kept and stripped["record_hmac"] == digest
    record.write_text(cut, encoding="utf-8")
    done = run(script, "verify", f"{name}.yaml", "--format", "json", cwd=folder)
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)
    problem = json.loads(done.stdout)["problem"]
    assert problem["code"] == "signature", problem
    assert "acts were removed or added since the referee signed" in problem["message"], problem
