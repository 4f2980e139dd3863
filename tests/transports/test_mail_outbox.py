"""The transports' one interface (rebis_pbm.transports.Outbox): the commands that tell players
where a game stands outside a transport's own loop (``tick``, ``git apply --queue``) obtain an
outbox through ``outbox_for`` and never import the mail transport's modules themselves; the
mail outbox queues into the game's queue beside its record."""

from __future__ import annotations

import ast
from pathlib import Path

from test_mail_cli import REFEREE, SEED, invoke

from rebis_pbm.transports import Outbox, outbox_for
from rebis_pbm.transports.mail.maildir import maildir_new
from rebis_pbm.transports.mail.outbox import MailOutbox
from transport_support import REPO, new_args


def test_tick_and_git_apply_queue_mail_through_the_outbox_interface():
    """tick (cli/deadlines.py) and the git job (transports/git/notify.py, the one module of the
    git transport that tells players) obtain an outbox through outbox_for; no module of the git
    transport imports the mail transport's."""
    package = REPO / "rebis_pbm"
    for path in (package / "cli" / "deadlines.py", package / "transports" / "git" / "notify.py"):
        tree = ast.parse(path.read_text())
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "rebis_pbm.transports" in imported, path.name
        mail = {m for m in imported if m and m.startswith("rebis_pbm.transports.mail")}
        assert mail <= {"rebis_pbm.transports.mail.policy"}, path.name  # an address's form only
    for path in (package / "transports" / "git").glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not {m for m in imported if m and m.startswith("rebis_pbm.transports.mail")}, \
            path.name


def test_the_mail_outbox_queues_beside_the_record(tmp_path: Path):
    game = tmp_path / "game.yaml"
    assert invoke(*new_args(game, SEED, "g1")).exit_code == 0
    outbox: Outbox = outbox_for(game, REFEREE, pictures=False)
    assert isinstance(outbox, MailOutbox)
    assert outbox.where == tmp_path / "game.mailq"
    assert outbox.queue_views() == 4  # three players and the referee
    assert len(maildir_new(outbox.where)) == 4
    assert outbox.queue_views(("bob",)) == 1
    assert outbox.queue_stand_in_views() == 0  # no move since: nothing missing
    assert outbox.queue_reminder("2025-01-01T00:00:00Z") is None  # no deadline in this game
    elsewhere = outbox_for(game, REFEREE, tmp_path / "q", pictures=False)
    assert elsewhere.where == tmp_path / "q" and elsewhere.queue_views(("alice",)) == 1
