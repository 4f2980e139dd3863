"""What several commands share is defined once (issue 11): an option every command that queues
views takes, with one help and one environment variable; the check of a language."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from rebis_pbm import cli as cli_package
from rebis_pbm.cli import PICTURES_ENV, cli, pictures_option

PACKAGE = Path(cli_package.__file__).parent
QUEUING = [("mail", "in"), ("mail", "views"), ("tick",), ("git", "apply")]


def command(path: tuple[str, ...]) -> click.Command:
    ctx = click.Context(cli)
    found: click.Command | None = cli
    for name in path:
        assert isinstance(found, click.Group)
        found = found.get_command(ctx, name)
    assert found is not None, path
    return found


def option(cmd: click.Command, name: str) -> click.Option:
    [found] = [p for p in cmd.params if p.name == name]
    assert isinstance(found, click.Option)
    return found


@pytest.mark.parametrize("path", QUEUING, ids=" ".join)
def test_every_command_that_queues_views_takes_the_one_pictures_option(path):
    @pictures_option
    def reference(pictures: bool) -> None: ...

    the_one = option(click.command()(reference), "pictures")
    got = option(command(path), "pictures")
    assert (got.opts, got.secondary_opts, got.default, got.envvar, got.show_envvar, got.help) == \
        (the_one.opts, the_one.secondary_opts, True, PICTURES_ENV, True, the_one.help)
    assert got.help and "--no-pictures" in got.help and f"{PICTURES_ENV}=0" in got.help


def test_the_pictures_option_and_its_variable_are_spelt_in_one_module():
    spelt = sorted(p.name for p in PACKAGE.glob("*.py")
                   if "--no-pictures" in (text := p.read_text(encoding="utf-8"))
                   or "REBIS_PBM_MAIL_PICTURES" in text)
    assert spelt == ["__init__.py"]


# --- a language: one check, one sentence ---------------------------------------------------------

@pytest.fixture(scope="module")
def game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lang")
    done = CliRunner().invoke(cli, ["new", str(folder / "g.yaml"), "--player", "ann", "--player",
                                    "bo", "--insecure-seed", "--referee-deal", "--seed", "s"])
    assert done.exit_code == 0, done.output
    return folder / "g.yaml"


def lang_commands(game: Path) -> dict[str, list[str]]:
    """Every command that takes --lang, given the code 'xx' (the move file is never read)."""
    view = str(game.with_name("g.views") / "ann.yaml")
    return {"new": ["new", str(game.with_name("new.yaml")), "--player", "ann", "--player", "bo",
                    "--insecure-seed", "--referee-deal", "--seed", "s", "--lang", "ann=xx"],
            "view": ["view", str(game), "--player", "ann", "--lang", "xx"],
            "moves --view": ["moves", "--view", view, "--lang", "xx"],
            "check": ["check", str(game), "move.yaml", "--lang", "xx"],
            "check --view": ["check", "move.yaml", "--view", view, "--lang", "xx"],
            "apply": ["apply", str(game), "move.yaml", "--lang", "xx"],
            "replace-player": ["replace-player", str(game), "--player", "ann", "--lang", "xx"]}


def test_every_lang_option_refuses_a_bad_code_with_the_one_sentence(game):
    from rebis_pbm.errors import UsageError
    from rebis_pbm.present.i18n import check_language
    with pytest.raises(UsageError) as caught:
        check_language("xx")
    assert caught.value.option == "--lang"
    sentence = str(caught.value)
    record = game.read_bytes()
    for name, args in lang_commands(game).items():
        done = CliRunner().invoke(cli, args)
        assert done.exit_code == 2, (name, done.output)
        said = "--lang ann=xx: " + sentence if name == "new" else sentence
        assert f"Invalid value for --lang: {said}" in done.output, (name, done.output)
    assert game.read_bytes() == record and not game.with_name("new.yaml").exists()


def test_the_supported_languages_are_told_in_one_module():
    package = PACKAGE.parent
    telling = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                     if "is not a language rebis-pbm speaks" in p.read_text(encoding="utf-8"))
    assert telling == ["present/i18n.py"]
    # and no other module keeps its own test of a code against the list
    for path in package.rglob("*.py"):
        if path.name != "i18n.py":
            assert "in LANGUAGES" not in path.read_text(encoding="utf-8"), path


def test_a_join_in_a_language_not_spoken_is_answered_in_the_records(game):
    from rebis_pbm.app import mover_of
    join = b"game: x\nplayer: ann\njoin: abc\nlang: %s\n"
    assert mover_of(game, join % b"FR") == ("ann", "fr")
    assert mover_of(game, join % b"xx") == ("ann", "en")


# --- a player's SSH public key file: one reader ---------------------------------------------------

def openssh_line(private, comment: str) -> str:
    from cryptography.hazmat.primitives import serialization

    return private.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                             serialization.PublicFormat.OpenSSH).decode() \
        + f" {comment}"


def test_git_apply_reads_key_files_as_the_signing_module_does(tmp_path, monkeypatch):
    """`git apply --key NAME=FILE` reads FILE as `new --key` and `replace-player --key` do
    (fileio.read_input, signing.parse_keys): the key without its comment; a code host's list
    may hold keys of other kinds before it (passed over); the messages name the file."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519

    from rebis_pbm.cli.git import public_keys
    from rebis_pbm.crypto import signatures as signing
    from rebis_pbm.errors import InputError, UsageError
    ed = openssh_line(ed25519.Ed25519PrivateKey.generate(), "ann@laptop")
    ecdsa = openssh_line(ec.generate_private_key(ec.SECP256R1()), "ann@phone")
    listed, only_ecdsa = tmp_path / "ann.keys", tmp_path / "ec.pub"
    listed.write_text(f"{ecdsa}\n{ed}\n")
    only_ecdsa.write_text(ecdsa + "\n")
    read = []
    real = signing.parse_keys
    monkeypatch.setattr(signing, "parse_keys", lambda *a, **k: read.append(a) or real(*a, **k))
    assert public_keys((f"ann={listed}",)) == {"ann": " ".join(ed.split()[:2])}
    assert read == [(listed.read_text(), str(listed))]
    with pytest.raises(UsageError) as caught:
        public_keys((f"ann={only_ecdsa}",))
    assert caught.value.option == "--key"
    assert str(caught.value) == (f"{only_ecdsa}: holds no ssh-ed25519 or ssh-rsa public key; "
                                 f"give an OpenSSH .pub file")
    with pytest.raises(InputError, match="no such file"):
        public_keys((f"ann={tmp_path / 'missing.pub'}",))
    with pytest.raises(UsageError, match=re.escape("write NAME=FILE, e.g. ann=ann.pub")):
        public_keys(("ann",))
    # the same file, given to new --key (the signing keys): its ecdsa line is refused
    with pytest.raises(ValueError, match="line 1: this is not an OpenSSH public key"):
        real(listed.read_text(), str(listed))


# --- the referee's address: one option ------------------------------------------------------------

def test_every_command_that_queues_messages_takes_the_one_referee_option():
    """`--referee ADDRESS` (or REBIS_PBM_REFEREE): one definition, one help, one check; `mail
    in` and `mail views` require it, `tick` and `git apply` take it to queue messages."""
    from rebis_pbm.cli import REFEREE_ENV, referee_option

    @referee_option()
    def reference(referee_address: str | None) -> None: ...

    the_one = option(click.command()(reference), "referee_address")
    for path in QUEUING:
        got = option(command(path), "referee_address")
        assert (got.opts, got.metavar, got.envvar, got.show_envvar, got.help, got.callback) == \
            (["--referee"], "ADDRESS", REFEREE_ENV, True, the_one.help, the_one.callback), path
        assert got.required == (path[0] == "mail"), path


def test_the_referee_option_and_its_variable_are_spelt_in_one_module():
    spelt = sorted(p.name for p in PACKAGE.glob("*.py")
                   if '"--referee"' in (text := p.read_text(encoding="utf-8"))
                   or '"REBIS_PBM_REFEREE"' in text)
    assert spelt == ["__init__.py"]


def test_every_referee_option_refuses_a_bad_address_with_the_one_sentence(game, tmp_path):
    from rebis_pbm.transports.mail.policy import check_address
    with pytest.raises(ValueError) as caught:
        check_address("nobody")
    said = f"Invalid value for --referee: {caught.value}"
    record = game.read_bytes()
    for path in QUEUING:
        args = {("mail", "in"): [str(game), "-"], ("mail", "views"): [str(game)],
                ("tick",): [str(game)], ("git", "apply"): []}[path]
        done = CliRunner().invoke(cli, [*path, *args, "--referee", "nobody"],
                                  env={"REBIS_PBM_REFEREE": None})
        assert done.exit_code == 2 and said in done.output, (path, done.output)
    assert game.read_bytes() == record and not list(tmp_path.iterdir())


def test_the_commands_that_queue_beside_a_game_take_the_one_queue_option():
    """`--queue DIR` of `mail in`, `mail views`, `mail out` and `tick`: one definition
    (`git apply --queue` is another option: it has no default)."""
    from rebis_pbm.cli import queue_option

    @queue_option
    def reference(queue) -> None: ...

    the_one = option(click.command()(reference), "queue")
    for path in (("mail", "in"), ("mail", "views"), ("mail", "out"), ("tick",)):
        got = option(command(path), "queue")
        assert (got.opts, got.help, got.type.file_okay, got.type.type) == \
            (["--queue"], the_one.help, False, the_one.type.type), path
    spelt = sorted(p.name for p in PACKAGE.glob("*.py")
                   if 'option("--queue"' in p.read_text(encoding="utf-8"))
    assert spelt == ["__init__.py", "git.py"]


# --- NAME=VALUE options: one reading, one sentence ------------------------------------------------

NAME_VALUE = [("new", "--key", "NAME=FILE", "ann"), ("new", "--lang", "NAME=CODE", "ann="),
              ("new", "--rule", "NAME=VALUE", "shelf_limit"),
              ("new", "--player", "NAME=ADDRESS", "ann="),
              ("git apply", "--key", "NAME=FILE", "=a")]


@pytest.mark.parametrize("name, opt, form, item", NAME_VALUE, ids=lambda v: v)
def test_every_name_value_option_refuses_a_malformed_item_with_the_one_sentence(
        tmp_path, monkeypatch, name, opt, form, item):
    from rebis_pbm.app import name_value
    from rebis_pbm.errors import UsageError
    with pytest.raises(UsageError) as caught:
        name_value(item, opt, form, "x=y")
    assert caught.value.option == opt
    assert str(caught.value) == f"{item!r}: write {form}, e.g. x=y"
    monkeypatch.chdir(tmp_path)
    args = ["new", "g.yaml", "--player", "ann", "--player", "bo"] if name == "new" else \
        name.split()
    done = CliRunner().invoke(cli, [*args, opt, item])
    assert done.exit_code == 2, done.output
    assert f"Invalid value for {opt}: {item!r}: write {form}, e.g. " in done.output, done.output
    assert list(tmp_path.iterdir()) == []


def test_name_value_items_are_split_in_one_place():
    package = PACKAGE.parent
    splitting = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                       if 'partition("=")' in p.read_text(encoding="utf-8"))
    assert splitting == ["app/options.py"]
    app = (package / "app" / "options.py").read_text(encoding="utf-8")
    assert app.count('partition("=")') == 1


# --- tick reads and replays the record once -------------------------------------------------------

def test_tick_reads_and_replays_the_record_once(tmp_path, monkeypatch):
    """`tick` on a game whose player missed their deadline: the record is read and replayed
    once, and the referee's move (and the next check of the deadline) goes on from what tick
    read, not from a read of its own; the game then is the one a read gives."""
    import importlib
    import pkgutil

    from rebis_pbm import app as referee
    from rebis_pbm.app import games
    from rebis_pbm.record import verify
    from rebis_pbm.record.deadlines import parse_duration

    game = tmp_path / "g.yaml"
    referee.create_game(game, ["ana", "bob"], seed="once", insecure_seed=True,
                        addresses={"ana": "ana@example.org", "bob": "bob@example.org"},
                        deadline=parse_duration("72h"), now="2025-01-01T00:00:00Z")
    games._opened.clear()
    opened, replays = [], []
    real_open, real_read = referee.open_game, verify.read_game
    # open_game as every module of the application layer calls it, and the replay it runs
    for found in pkgutil.iter_modules(referee.__path__, "rebis_pbm.app."):
        module = importlib.import_module(found.name)
        if getattr(module, "open_game", None) is real_open:
            monkeypatch.setattr(module, "open_game",
                                lambda *a: opened.append(a) or real_open(*a))
    monkeypatch.setattr(games, "read_game", lambda *a: replays.append(a) or real_read(*a))
    done = referee.tick(game, now="2025-01-05T00:00:00Z")
    assert done.moved == [(1, "ana", "missed deadline")] and done.remind is None
    assert (len(opened), len(replays)) == (1, 1)
    monkeypatch.undo()
    after = referee.open_game(game)
    assert referee.tick(game, now="2025-01-05T00:00:00Z") == ([], None)
    assert after.replay.state.turn == 2 and after.replay.state.player_to_move == "bob"


# --- exit codes: declared once, in errors.ExitCode ------------------------------------------------

def test_the_help_and_docs_cli_say_exactly_the_exit_codes_errors_declares():
    """errors.ExitCode is the one list: the help's EXIT_CODES is generated from it, and
    docs/cli.md's table names each code once, its meaning starting with the enum's words."""
    from rebis_pbm.cli import EXIT_CODES, exit_codes_help
    from rebis_pbm.errors import ExitCode

    assert exit_codes_help() == EXIT_CODES
    listed = re.findall(r"^  (\d+) +(.*(?:\n {5}.*)*)", EXIT_CODES, flags=re.M)
    assert [(int(code), " ".join(text.split())) for code, text in listed] == \
        [(int(code), code.meaning) for code in ExitCode]
    unchanged = [int(code) for code in ExitCode if code.changes_nothing]
    assert unchanged == [1, 2, 3, 75]  # the exits that promise nothing was written
    said = "On 1, 2, 3 and 75 nothing on disk changes"
    assert EXIT_CODES.endswith(said + ".")

    doc = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    table = doc.split("## Exit codes", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\| (\d+) \| (.*) \|$", table, flags=re.M)
    assert [int(code) for code, _ in rows] == [int(code) for code in ExitCode]
    for (code, meaning), declared in zip(rows, ExitCode, strict=True):
        assert meaning.replace("`", "").startswith(declared.meaning), (code, declared.meaning)
    assert said in doc


def test_exit_codes_are_numbers_in_one_module():
    """No other module names an exit code by its number: each says ExitCode.NAME."""
    package = PACKAGE.parent
    numbered = re.compile(r"(exit_code\s*=|exit\(|Exit\()\s*(\d+)\b")
    found = sorted(f"{p.relative_to(package)}: {m.group(0)}" for p in package.rglob("*.py")
                   for m in numbered.finditer(p.read_text(encoding="utf-8")))
    assert found == []


# --- ruleset parameters: one declaration each (engine.ruleset.PARAMETERS) -------------------------

REPO = Path(__file__).parents[2]


def schema_ruleset() -> tuple[dict, dict]:
    """The record schema's ruleset definition, and the schema (to resolve its $refs)."""
    import json

    record = json.loads((REPO / "schemas" / "record.schema.json").read_text(encoding="utf-8"))
    return record["$defs"]["ruleset"], record


def resolved(node: dict, schema: dict) -> dict:
    while "$ref" in node:
        assert node["$ref"].startswith("#/$defs/"), node
        node = schema["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node


def test_ruleset_fields_defaults_and_record_order_come_from_the_declarations():
    import dataclasses

    from rebis_pbm.engine.ruleset import PARAMETERS, SETTABLE, Ruleset

    fields = [f for f in dataclasses.fields(Ruleset) if f.init]
    assert [f.name for f in fields] == ["deck", *(p.name for p in PARAMETERS)]
    assert [f.default for f in fields[1:]] == [p.default for p in PARAMETERS]
    assert list(Ruleset().as_dict()) == ["deck", *(p.name for p in PARAMETERS)]
    assert tuple(p.name for p in PARAMETERS if p.settable) == SETTABLE
    assert "zero" not in SETTABLE  # it has its own option, --zero


def test_ruleset_checks_each_parameter_by_its_declaration():
    from rebis_pbm.engine.ruleset import PARAMETERS, Ruleset

    for p in PARAMETERS:
        if p.choices:
            good, bad = list(p.choices), ["", p.choices[0].upper()]
        elif isinstance(p.default, bool):
            good, bad = [True, False], [0, 1, "true"]
        else:
            good, bad = [p.low, p.high], [p.low - 1, p.high + 1, str(p.low), float(p.low), True]
        for value in good:
            assert getattr(Ruleset(**{p.name: value}), p.name) == value
            assert Ruleset.from_dict({p.name: value}) == Ruleset(**{p.name: value})
        for value in bad:
            with pytest.raises(ValueError, match=f"^ruleset field '{p.name}' must be "):
                Ruleset(**{p.name: value})


def test_the_record_and_view_schemas_agree_with_the_declarations():
    """schemas/record.schema.json's ruleset (the view's is a $ref to it) holds exactly the
    declared parameters, each with the declared type, bounds or words; all are required."""
    import json

    from rebis_pbm.engine.ruleset import DECK_LIMIT, PARAMETERS

    ruleset, record = schema_ruleset()
    names = ["deck", *(p.name for p in PARAMETERS)]
    assert list(ruleset["properties"]) == names
    assert ruleset["required"] == names and ruleset["additionalProperties"] is False
    for p in PARAMETERS:
        got = resolved(ruleset["properties"][p.name], record)
        if p.choices:
            assert got == {"enum": list(p.choices)}, p.name
        elif isinstance(p.default, bool):
            assert got == {"type": "boolean"}, p.name
        else:
            assert (got["type"], got["minimum"], got["maximum"]) == ("integer", p.low, p.high), \
                p.name
    deck = ruleset["properties"]["deck"]
    count = resolved(deck["additionalProperties"], record)
    assert (count["minimum"], count["maximum"]) == (0, DECK_LIMIT)
    number = re.compile(deck["propertyNames"]["pattern"])
    assert all(number.search(str(n)) for n in range(DECK_LIMIT + 1))
    assert not any(number.search(t) for t in (str(DECK_LIMIT + 1), "-1", "01", "1\n"))
    view = json.loads((REPO / "schemas" / "view.schema.json").read_text(encoding="utf-8"))
    assert view["properties"]["ruleset"]["$ref"] == "record.schema.json#/$defs/ruleset"


def test_rule_is_set_and_told_from_the_declarations():
    """`new --rule NAME=VALUE` takes exactly the settable parameters (the application layer's
    list is the engine's), its help names each with its values, and docs/cli.md names them."""
    from rebis_pbm import app
    from rebis_pbm.app.options import SETTABLE_RULES
    from rebis_pbm.cli.game import rule_help
    from rebis_pbm.engine.ruleset import PARAMETERS, SETTABLE
    from rebis_pbm.errors import UsageError

    assert tuple(SETTABLE_RULES) == SETTABLE
    for p in PARAMETERS:
        value = p.choices[-1] if p.choices else p.high
        if p.settable:
            assert getattr(app.ruleset_from(False, [f"{p.name}={value}"]), p.name) == value
            assert f"{p.name}={p.allowed}, {p.help} ({p.rulings})" in rule_help()
        else:
            with pytest.raises(UsageError, match="NAME one of " + ", ".join(SETTABLE)):
                app.ruleset_from(False, [f"{p.name}={value}"])
            assert f"{p.name}=" not in rule_help()
    [row] = [line for line in (REPO / "docs" / "cli.md").read_text(encoding="utf-8").splitlines()
             if line.startswith("| `--rule NAME=VALUE` |")]
    named = [n for n in re.findall(r"`(\w+)`", row) if n in {p.name for p in PARAMETERS}]
    assert named == list(SETTABLE)


def test_the_views_ruleset_line_says_each_parameter_in_its_declared_words():
    from rebis_pbm.engine.ruleset import PARAMETERS, Ruleset
    from rebis_pbm.present.views import ruleset_text

    for ruleset in (Ruleset(), Ruleset(zero=True, golden_dust=7, gold=0, red=0, shelf_limit=21,
                                       hand_size=6, multiplier="doubling")):
        line = ruleset_text(ruleset.as_dict())
        for p in PARAMETERS:
            value = getattr(ruleset, p.name)
            if isinstance(p.default, bool):
                assert (p.view in line) == value, (p.name, line)
            else:
                assert p.view.format(value=value) in line, (p.name, line)
