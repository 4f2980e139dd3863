"""Every file name and suffix rebis-pbm gives or looks for is declared once, in
rebis_pbm.files.names: the record, its secret file, views folder, mail queue and lock file, move
files (turn-NNN-NAME.yaml), their signatures (.sig) and sealed forms (.age)."""

from pathlib import Path

import pytest

from rebis_pbm.files import names

PACKAGE = Path(names.__file__).resolve().parent.parent


@pytest.mark.parametrize("declared", ['".sig"', '".age"', '".secret.yaml"', '".views"',
                                      '".mailq"', '.lock"', 'turn-{turn:03d}-{player}.yaml'])
def test_each_name_and_suffix_is_written_in_one_module(declared):
    holding = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                     if declared in p.read_text(encoding="utf-8"))
    assert holding == ["files/names.py"], (declared, holding)


@pytest.mark.parametrize(("record", "secret", "views", "queue", "lock"), [
    ("game.yaml", "game.secret.yaml", "game.views", "game.mailq", ".game.yaml.lock"),
    ("g/x.yaml", "g/x.secret.yaml", "g/x.views", "g/x.mailq", "g/.x.yaml.lock"),
    ("g/record", "g/record.secret.yaml", "g/record.views", "g/record.mailq", "g/.record.lock"),
])
def test_the_files_beside_a_record(record, secret, views, queue, lock):
    assert names.secret_path(record) == secret
    assert names.default_views_dir(Path(record)) == views
    assert names.default_queue(record) == Path(queue)
    assert names.lock_path(record) == lock


def test_move_file_names_and_what_reads_them():
    assert names.move_file_name(7, "alice") == "turn-007-alice.yaml"
    assert names.move_file_name(1234, "bo") == "turn-1234-bo.yaml"
    sealed = names.move_file_name(12, "bo") + names.ENCRYPTED
    assert names.MOVE_NAME.fullmatch(sealed).groups() == ("012", "bo", ".age")
    assert names.COMPANION.fullmatch(names.move_file_name(3, "ann") + names.SIGNATURE)
    assert names.COMPANION.fullmatch(sealed.replace(".yaml", ".yaml" + names.SIGNATURE))
    assert not names.MOVE_NAME.fullmatch("move-007-alice.yaml")
