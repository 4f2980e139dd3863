"""A saved mail holding several witnesses or refusal statements, and a key the referee gave
(issue 27): verify checks every witness and every statement a file holds, so a decoy placed
first hides nothing; a move signed by a key ``replace-player`` logged is shown as such."""

from __future__ import annotations

import json
from email.message import EmailMessage
from pathlib import Path

import pytest
from test_referee_key import NOT_SIGNED, play_signed, signed_game

from clitools import run_inproc, run_script
from rebis_pbm import app as referee
from rebis_pbm.app.signing import sign_texts
from rebis_pbm.record.acts import record_witness, refusal_text
from sshkeys import needs_ssh, ssh_key

pytestmark = needs_ssh


def mail(path: Path, body: str, attachment: str, cte: str) -> Path:
    """A mail from the referee: ``body`` as its text, ``attachment`` as a text attachment,
    both in transfer encoding ``cte``, saved as ``path``."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "ref@example.org", "a@example.org", "v"
    message.set_content(body, cte=cte)
    message.add_attachment(attachment, subtype="plain", filename="view.txt", cte=cte)
    path.write_bytes(bytes(message))
    return path


def _ben_at_moves_2_and_4(tmp_path: Path) -> tuple[Path, str, bytes, str]:
    """A signed game played to move 4: the record, ben's text view at move 2, the record's
    bytes at move 2 (signed by the referee then) and ben's text view at move 4."""
    game, key, keys = signed_game(tmp_path)
    times = iter(f"2025-01-01T00:{m:02d}:00Z" for m in range(10, 60, 5))
    for _ in range(2):
        play_signed(game, keys, tmp_path, key, next(times))
    older = (tmp_path / "g.views/bo.txt").read_text()
    at_move_2 = game.read_bytes()
    for _ in range(2):
        play_signed(game, keys, tmp_path, key, next(times))
    return game, older, at_move_2, (tmp_path / "g.views/bo.txt").read_text()


@pytest.mark.parametrize("cte", ["8bit", "quoted-printable", "base64"])
def test_every_witness_of_a_saved_mail_must_hold(tmp_path, cte, console_script):
    """The attack: the referee mails ben his view at move 4 with his older view (move 2) first
    "for reference", then cuts the record back to move 2. The move-2 witness still holds, the
    move-4 one proves the cut (exit 3), whichever comes first in the mail."""
    game, older, at_move_2, latest = _ben_at_moves_2_and_4(tmp_path)
    saved = mail(tmp_path / "ben.eml", older, latest, cte)
    for run in (run_inproc, lambda *a: run_script(console_script, *a)):
        out = run("verify", game, "--witness", saved)
        assert out.code == 0, out.out + out.err
        assert "the record holds every witness (" in out.out and ": 2 witnesses)" in out.out
    game.write_bytes(at_move_2)  # the record as it was at move 2, signed by the referee then
    assert run_inproc("verify", game).code == 0  # the record alone reads as honest
    for run in (run_inproc, lambda *a: run_script(console_script, *a)):
        out = run("verify", game, "--witness", saved)
        assert out.code == 3, out.out + out.err
        assert "move 4" in out.out and "cut short" in out.out
    # The other order proves the same.
    swapped = mail(tmp_path / "swapped.eml", latest, older, cte)
    out = run_inproc("verify", game, "--witness", swapped)
    assert out.code == 3 and "cut short" in out.out


def test_an_unsigned_witness_beside_a_signed_one(tmp_path):
    """Every witness must hold: a typed one beside the referee's signed one proves nothing
    (exit 2); once the record contradicts the signed one, the proof of the rewrite wins
    (exit 3)."""
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    at_move_1 = game.read_bytes()
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:15:00Z")
    record, view = referee.read_record(game), (tmp_path / "g.views/ann.txt").read_text()
    # An unsigned copy of the very witness the referee signed beside it: the claim is signed.
    copy = mail(tmp_path / "copy.eml", record_witness(record) + "\n", view, "8bit")
    assert run_inproc("verify", game, "--witness", copy).code == 0
    # The true move-1 line, typed: it proves nothing, so the file does not hold.
    typed = f"Witness: game {record.game}, move 1, chain_sha256 {record.links[0].chain_sha256}\n"
    saved = mail(tmp_path / "m.eml", typed, view, "8bit")
    out = run_inproc("verify", game, "--witness", saved)
    assert out.code == 2 and NOT_SIGNED in out.err and "move 1)" in out.err
    game.write_bytes(at_move_1)
    out = run_inproc("verify", game, "--witness", saved)
    assert out.code == 3 and "cut short" in out.out, out.out + out.err


def test_a_decoy_before_a_real_refusal_does_not_deny_it(tmp_path, console_script):
    """The attack: the referee mails its real signed refusal as an attachment, with first in
    the body a copy of the statement carrying the signature of other words, and another
    statement it never signed. verify reports the real one and names the unsigned one; a
    mail of decoys alone is still not the referee's (exit 2)."""
    game, key, _ = signed_game(tmp_path)
    record = referee.read_record(game)
    claim = refusal_text(record, "cd" * 32, "bo", 1, "move rejected: you have no 99")
    real = claim + "\n" + sign_texts(key, [claim])[0]
    copy = claim + "\n" + sign_texts(key, [claim + " (copy)"])[0]
    other = refusal_text(record, "ef" * 32, "bo", 1, "the referee never said this") + "\n"
    body = "Your move was refused.\n\n" + copy + "\n" + other
    saved = mail(tmp_path / "refusal.eml", body, real, "8bit")
    for run in (run_inproc, lambda *a: run_script(console_script, *a)):
        out = run("verify", game, "--refusal", saved)
        assert out.code == 0, out.out + out.err
        assert "refusal.eml is a refusal signed by this game's referee" in out.out
        assert "move rejected: you have no 99" in out.out
        assert (f"refusal.eml also holds a refusal statement (game {record.game}, move 0, "
                "reason the referee never said this) that this game's referee did not sign"
                ) in " ".join(out.out.split())
    decoys = mail(tmp_path / "decoys.eml", body, "Nothing here.\n", "8bit")
    out = run_inproc("verify", game, "--refusal", decoys)
    assert out.code == 2 and NOT_SIGNED in out.err


def test_a_key_the_referee_gave_is_shown_as_such(tmp_path, console_script):
    """The attack: the referee gives ann a key it made (replace-player --key) and plays her
    seat with moves signed by it. verify cannot tell whose key it is, so it says that from
    that move ann's moves are signed by a key the referee gave, which only ann can confirm."""
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:15:00Z")
    made = ssh_key(tmp_path, "referee-made-ann")
    done = run_inproc("replace-player", game, "--player", "ann", "--key", f"{made}.pub",
                      "--now", "2025-01-01T00:20:00Z", "--referee-key", key)
    assert done.code == 0, done.out + done.err
    play_signed(game, {**keys, "ann": made}, tmp_path, key, "2025-01-01T00:25:00Z")
    record = referee.read_record(game)
    assert record.moves[2].player == "ann"
    out = run_script(console_script, "verify", game)
    assert out.code == 0, out.out + out.err
    text = " ".join(out.out.split())
    assert ("from move 3: SHA256:" in text and "logged by the referee (replace-player): moves "
            "from then on are signed by a key the referee gave, which only ann can confirm is "
            "theirs") in text
    assert "registered at new; from move 3" in text
    assert ("each move's signature by its player's key (ann's from move 3 by a key the referee "
            "gave (replace-player), ann's only on ann's word)") in text
    assert "each move's signature by its player's key;" not in text
    report = json.loads(run_inproc("verify", game, "--format", "json").out)
    changes = report["key_changes"]["ann"]
    assert [(c["from_move"], c["by"]) for c in changes] == [(1, "new"), (3, "replace-player")]
    assert changes[-1]["keys"] == report["keys"]["ann"]
    plain = tmp_path / "plain"
    plain.mkdir()
    unreplaced, _, _ = signed_game(plain)  # a game whose keys nobody replaced: as before
    out = run_inproc("verify", unreplaced)
    assert "each move's signature by its player's key;" in out.out
    assert "key_changes" not in json.loads(run_inproc("verify", unreplaced, "--format",
                                                      "json").out)


def _hidden(path: Path, decoy: str, hidden: str, how: str) -> Path:
    """A mail from the referee whose plain first part holds ``decoy`` and whose other part
    holds ``hidden`` where a reader sees it but a byte search does not (the ninth tester):
    a UTF-16 text part, an HTML part with a character reference for a space, or a
    ``format=flowed`` part whose long lines are wrapped with soft line breaks."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "ref@example.org", "a@example.org", "v"
    message.set_content(decoy)
    if how == "utf-16":
        message.add_attachment(hidden.encode("utf-16"), maintype="text", subtype="plain",
                               params={"charset": "utf-16"}, filename="view.txt")
    elif how == "html":
        message.add_alternative("<pre>" + hidden.replace("Witness: ", "Witness:&#32;")
                                .replace("Refusal", "Ref<b></b>usal") + "</pre>",
                                subtype="html")
    else:  # flowed: every line cut at 40 characters, the cut marked by a space
        flowed = "".join(
            "".join(line[i:i + 40] + (" \r\n" if i + 40 < len(line) else "\r\n")
                    for i in range(0, max(len(line), 1), 40))
            for line in hidden.replace(" ", "\u00a0").splitlines())
        message.add_attachment(flowed.replace("\u00a0", " ").encode("utf-8"),
                               maintype="text", subtype="plain", filename="view.txt",
                               params={"format": "flowed", "delsp": "yes", "charset": "utf-8"})
    path.write_bytes(bytes(message))
    return path


@pytest.mark.parametrize("how", ["utf-16", "html", "flowed"])
def test_a_witness_where_only_a_reader_sees_it_still_holds_the_record_to_it(tmp_path, how):
    """The attack (the ninth tester): the referee mails ben his signed move-4 view in a part a
    byte search misses, his older move-2 view plainly first, then cuts the record back to
    move 2: verify reads the part as a mail reader shows it and finds the cut (exit 3)."""
    game, older, at_move_2, latest = _ben_at_moves_2_and_4(tmp_path)
    saved = _hidden(tmp_path / "ben.eml", older, latest, how)
    from rebis_pbm.record.witness import WITNESS_LINE
    raw = saved.read_bytes().decode("utf-8", "replace")
    assert all(line["move"] != "4" for line in WITNESS_LINE.finditer(raw))  # hidden in bytes
    out = run_inproc("verify", game, "--witness", saved)
    assert out.code == 0 and ": 2 witnesses)" in out.out, out.out + out.err
    game.write_bytes(at_move_2)
    out = run_inproc("verify", game, "--witness", saved)
    assert out.code == 3 and "move 4" in out.out and "cut short" in out.out, out.out + out.err


def test_a_refusal_where_only_a_reader_sees_it_is_still_the_referees(tmp_path):
    """The same hiding place for a refusal statement: a decoy first, the real signed one in a
    UTF-16 part; verify reports the real one."""
    game, key, _ = signed_game(tmp_path)
    record = referee.read_record(game)
    claim = refusal_text(record, "cd" * 32, "bo", 1, "move rejected: you have no 99")
    real = claim + "\n" + sign_texts(key, [claim])[0]
    decoy = claim + "\n" + sign_texts(key, [claim + " (copy)"])[0]
    saved = _hidden(tmp_path / "refusal.eml", decoy, real, "utf-16")
    out = run_inproc("verify", game, "--refusal", saved)
    assert out.code == 0 and "is a refusal signed by this game's referee" in out.out, \
        out.out + out.err
