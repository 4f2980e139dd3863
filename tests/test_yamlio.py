"""Tests for rebis_pbm.formats.yaml_reader and yaml_writer: one test per input class, fuzzing,
round trip."""

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebis_pbm.formats import yaml_reader as yamlio
from rebis_pbm.formats import yaml_writer
from rebis_pbm.formats.yaml_reader import (
    MAX_BYTES,
    MAX_DEPTH,
    MOVE_MAX_BYTES,
    InputError,
    Loaded,
    format_path,
    load_yaml,
    simple_data,
)
from rebis_pbm.formats.yaml_writer import dump_yaml


def load(text, kind="move", source="move.yaml"):
    data = text.encode("utf-8") if isinstance(text, str) else text
    return load_yaml(data, source=source, kind=kind)


def reject(text, kind="move", source="move.yaml") -> InputError:
    with pytest.raises(InputError) as info:
        load(text, kind=kind, source=source)
    err = info.value
    assert isinstance(err, ValueError)
    assert "Traceback" not in str(err)
    assert str(err).startswith(err.source)
    return err


# ------------------------------------------------------------------ accepted input

def test_plain_mapping_with_positions_and_scalars():
    got = load("game: g1\nturn: 3\nplay:\n  cards: [4, 7]\n  note: ok\n")
    assert isinstance(got, Loaded)
    assert got.data == {"game": "g1", "turn": 3, "play": {"cards": [4, 7], "note": "ok"}}
    assert got.positions[()] == (1, 1)
    assert got.positions[("turn",)] == (2, 7)
    assert got.positions[("play", "cards", 1)] == (4, 14)
    assert got.key_positions[("play", "note")] == (5, 3)
    assert got.scalars[("turn",)] == ("3", "tag:yaml.org,2002:int")
    assert got.source == "move.yaml"


def test_bom_is_stripped_and_crlf_and_cr_line_ends_accepted():
    crlf = load(b"\xef\xbb\xbfa: 1\r\nb: x\r\n")
    assert crlf.data == {"a": 1, "b": "x"}
    assert crlf.positions[("b",)] == (2, 4)
    cr = load(b"a: 1\rb: x\r")
    assert cr.data == {"a": 1, "b": "x"}
    assert cr.positions[("b",)] == (2, 4)


def test_yaml11_booleans_kept_with_original_text():
    got = load("a: no\nb: On\nc: true\n")
    assert got.data == {"a": False, "b": True, "c": True}
    assert got.scalars[("a",)] == ("no", "tag:yaml.org,2002:bool")
    assert got.scalars[("b",)] == ("On", "tag:yaml.org,2002:bool")


def test_octal_looking_int_loads_as_yaml11_but_text_is_kept():
    got = load("turn: 010\n")
    assert got.data == {"turn": 8}
    assert got.scalars[("turn",)] == ("010", "tag:yaml.org,2002:int")


def test_timestamp_stays_text_with_tag():
    got = load("when: 2024-05-01\n")
    assert got.data == {"when": "2024-05-01"}
    assert got.scalars[("when",)][1] == "tag:yaml.org,2002:timestamp"


def test_quoted_values_are_text_and_null_is_none():
    got = load("a: 'no'\nb: \"010\"\nc: ~\nd:\n")
    assert got.data == {"a": "no", "b": "010", "c": None, "d": None}


def test_floats_allowed_in_records_only():
    assert load("x: 1.5\n", kind="record").data == {"x": 1.5}
    err = reject("x: 1.5\n")
    assert "whole number" in err.message and err.path == ("x",) and err.line == 1


def test_stdin_source_is_shown_as_stdin():
    err = reject("", source="-")
    assert err.source == "<stdin>" and str(err).startswith("<stdin>: ")


def test_unknown_kind_is_a_programming_error():
    with pytest.raises(ValueError, match="kind"):
        load_yaml(b"a: 1", source="x", kind="nonsense")


def test_format_path():
    assert format_path(("play", "cards", 1)) == "play.cards[1]"
    assert format_path(()) == ""
    assert format_path((0, "a")) == "[0].a"


# ------------------------------------------------------------------ rejected input

def test_too_large_move():
    err = reject(b"a: 1\n" + b"#" * MOVE_MAX_BYTES)
    assert "64 KiB" in err.message and str(MOVE_MAX_BYTES) in err.message
    # The same bytes are fine for a record, which has the larger cap.
    assert load(b"a: 1\n" + b"#" * MOVE_MAX_BYTES, kind="record").data == {"a": 1}
    assert MAX_BYTES > MOVE_MAX_BYTES


def test_not_utf8_names_byte_offset():
    err = reject(b"a: 1\nb: caf\xe9\n")
    assert "byte 11" in err.message and "UTF-8" in err.message and err.line == 2


def test_control_character_position():
    err = reject("a: 1\nb: x\x07y\n")
    assert (err.line, err.column) == (2, 5) and "U+0007" in err.message


@pytest.mark.parametrize("code", [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
@pytest.mark.parametrize("rest", ["", " é"])  # the ASCII fast path, and text beyond ASCII
def test_every_control_character_is_refused_where_it_is(code, rest):
    err = reject(f"a: 1{rest}\nb: x{chr(code)}y\n")
    assert (err.line, err.column) == (2, 5) and f"U+{code:04X}" in err.message
    assert simple_data(f"a: 1{rest}\nb: x{chr(code)}y\n".encode(), kind="record") is None


def test_tabs_and_line_ends_are_not_control_characters():
    assert load_yaml(b"a:\t1\r\nb: 2\rc: |\n  x\ty\n", source="t", kind="record").data == {
        "a": 1, "b": 2, "c": "x\ty\n"}


@pytest.mark.parametrize("text", ["", "   \n", "# only a comment\n", "---\n", b"\xef\xbb\xbf"])
def test_empty(text):
    err = reject(text)
    assert "empty" in err.message and "mapping" in err.message


@pytest.mark.parametrize("text, line", [("a: 1\n---\nb: 2\n", 2), ("a: 1\n---\n---\n", 2),
                                        ("a: 1\n--- 3\n", 2), ("a: 1\n---\n''\n", 2),
                                        ("a: 1\n# c\n---\n- x\n", 3)])
def test_two_documents_names_second_line(text, line):
    err = reject(text)
    assert "second YAML document" in err.message and err.line == line


@pytest.mark.parametrize("text", ["a: 1\n---\n", "a: 1\n---\n# the next move\n\n",
                                  "---\na: 1\n---\n", "a: 1\n...\n---\n"])
def test_a_trailing_empty_document_is_ignored(text):
    """A move copied from `rebis-pbm moves` with the next '---' line still holds one move."""
    assert load_yaml(text.encode(), source="m.yaml", kind="move").data == {"a": 1}


@pytest.mark.parametrize("text,word", [("- 1\n- 2\n", "not a list"),
                                       ("just text\n", "single value")])
def test_top_level_must_be_mapping(text, word):
    err = reject(text)
    assert "mapping" in err.message and word in err.message


def test_duplicate_key_gives_both_lines():
    err = reject("turn: 1\nplay:\n  x: 1\n  x: 2\n")
    assert "appears twice" in err.message and "lines 3 and 4" in err.message
    assert err.path == ("play", "x")


@pytest.mark.parametrize("text,word", [
    ("a: &x 1\nb: 2\n", "anchors"),
    ("a: &x 1\nb: *x\n", "anchors"),
    ("a: [1]\nb: *x\n", "aliases"),
    ("a: !!python/object:os.system x\n", "tags"),
    ("a: !foo x\n", "tags"),
    ("a: !!str 3\n", "!!str"),
    ("a: ! 3\n", "tags"),
    ("a: !!map {b: 1}\n", "tags"),
])
def test_anchors_aliases_tags_rejected(text, word):
    err = reject(text)
    assert word in err.message and err.line is not None
    reject(text, kind="record")


def test_merge_key_rejected():
    assert "merge" in reject("<<: {a: 1}\n").message


def test_deep_nesting_is_clean_error_without_recursion():
    deep = "a: " + "[" * 100_000
    err = reject(deep, kind="record")
    assert "nested" in err.message and str(MAX_DEPTH) in err.message
    ok = "a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n"
    assert load(ok).data["a"] == [[]] if MAX_DEPTH == 3 else load(ok).data is not None
    err = reject("a: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n")
    assert "nested" in err.message


def test_deep_block_mapping_nesting():
    text = "".join("  " * i + f"k{i}:\n" for i in range(60))
    assert "nested" in reject(text).message


def test_huge_integer_is_clean_error():
    err = reject("a: " + "9" * 100_000 + "\n", kind="record")
    assert "digits" in err.message and err.path == ("a",)
    assert load("a: " + "9" * 18 + "\n").data == {"a": 10**18 - 1}
    assert "digits" in reject("a: " + "9" * 19 + "\n").message


@pytest.mark.parametrize("text,word", [
    ("1: a\n", "number"),
    ("yes: a\n", "true or false"),
    ("~: a\n", "empty"),
    ("? [a]\n: 1\n", "not a list or mapping"),
    ("? \n: 1\n", "missing"),
    (": 1\n", "missing"),
])
def test_keys_must_be_text(text, word):
    err = reject(text)
    assert word in err.message


def test_non_finite_float_in_record():
    assert "finite" in reject("a: .nan\n", kind="record").message


@pytest.mark.parametrize("text,word,line", [
    ("a: b: c\n", "':'", 1),
    ("a: 1\n\tb: 2\n", "tab", 2),
    ("a: 'unclosed\n", "quoted", 2),
    ("a: [1, 2\n", "not valid YAML", None),
    ("a:\n  b: 1\n c: 2\n", "not valid YAML", 3),
])
def test_syntax_errors_have_position_and_plain_words(text, word, line):
    err = reject(text)
    assert "not valid YAML" in err.message and word in err.message
    assert err.line is not None and err.column is not None
    if line is not None:
        assert err.line == line


def test_str_format():
    err = InputError("bad", source="m.yaml", line=3, column=4, path=("a",))
    assert str(err) == "m.yaml:3:4: bad"
    assert str(InputError("bad", source="m.yaml", line=3)) == "m.yaml:3: bad"
    assert str(InputError("bad", source="-")) == "<stdin>: bad"


# ------------------------------------------------------------------ fuzzing

VALID = b"game: g1\nturn: 3\nplay:\n  cards: [1, 2]\n  sign: positive\n  note: 'x: y'\n"


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(data):
    for kind in ("move", "record"):
        try:
            got = load_yaml(data, source="f.yaml", kind=kind)
        except InputError as e:
            assert e.message and str(e)
        else:
            assert isinstance(got.data, dict)


def mutated(data, text: bytes, alphabet: bytes, extra: list[int]) -> bytearray:
    """``text`` with 1 to 6 bytes replaced, inserted or deleted, drawn from ``alphabet`` and
    ``extra`` (the characters YAML gives a meaning, and bytes that are not UTF-8)."""
    buf = bytearray(text)
    for _ in range(data.draw(st.integers(1, 6))):
        op = data.draw(st.sampled_from(["replace", "insert", "delete"]))
        i = data.draw(st.integers(0, len(buf)))
        if op == "delete" and i < len(buf):
            del buf[i]
        else:
            ch = data.draw(st.sampled_from(list(alphabet) + extra))
            if op == "insert" or i == len(buf):
                buf.insert(i, ch)
            else:
                buf[i] = ch
    return buf


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.data())
def test_fuzz_mutated_valid_yaml(data):
    buf = mutated(data, VALID, b":-[]{}&*!|>'\"#\t\n\r ,?%@`0yn.~", [0xFF, 0xC3, 0])
    try:
        got = load_yaml(bytes(buf), source="f.yaml", kind="move")
    except InputError as e:
        assert e.message
    else:
        assert isinstance(got.data, dict)
        for path in got.scalars:
            assert path in got.positions


# ------------------------------------------------------------------ writing

@pytest.mark.parametrize("word", ["no", "yes", "on", "off", "010", "1e3", "null", "~", "true",
                                  "1.5", "0x1F", "2024-05-01", ""])
def test_dump_quotes_ambiguous_strings(word):
    text = dump_yaml({"v": word})
    assert text != f"v: {word}\n"
    assert yaml.safe_load(text) == {"v": word}
    assert load(text).data == {"v": word}


def test_dump_keeps_key_order_and_short_int_lists_flow():
    text = dump_yaml({"z": 1, "a": [3, 1, 2], "m": {"y": True, "b": None}, "t": ["x"]})
    assert text.index("z:") < text.index("a:") < text.index("m:")
    assert "a: [3, 1, 2]" in text
    assert "- x" in text


def test_dump_unicode_and_long_lines():
    long = "é" * 500
    text = dump_yaml({"s": long})
    assert long in text and text.count("\n") == 1


json_scalars = (st.none() | st.booleans() | st.integers(-(10**18) + 1, 10**18 - 1)
                | st.text(max_size=20))
json_data = st.recursive(
    json_scalars,
    lambda inner: (st.lists(inner, max_size=4)
                   | st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.dictionaries(st.text(max_size=8), json_data, max_size=5))
def test_round_trip(value):
    text = dump_yaml(value)
    got = load_yaml(text.encode("utf-8"), source="r.yaml", kind="record")
    assert got.data == value


def test_python_loader_fallback_behaves_the_same(monkeypatch):
    monkeypatch.setattr(yamlio, "Loader", yaml.SafeLoader)
    assert load("a: [1, {b: no}]\n").data == {"a": [1, {"b": False}]}
    assert "appears twice" in reject("a: 1\na: 2\n").message
    assert "nested" in reject("a: " + "[" * 10_000, kind="record").message


def _representer_dump(data) -> str:
    """What dump_yaml wrote before it built the nodes itself: PyYAML's representer."""
    return yaml.dump(data, Dumper=yaml_writer._RebisDumper, sort_keys=False,
                     default_flow_style=False, allow_unicode=True, width=1 << 20)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(json_data | st.floats(allow_nan=False) | st.lists(st.floats(allow_nan=False), max_size=3))
def test_dump_writes_what_the_representer_writes(data):
    """dump_yaml builds the nodes of plain data itself (faster); the text must not change."""
    assert dump_yaml(data) == _representer_dump(data)


def test_dump_of_every_example_file_is_unchanged():
    from pathlib import Path

    files = sorted((Path(__file__).resolve().parent.parent / "examples").rglob("*.yaml"))
    assert len(files) > 10
    for path in files:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert dump_yaml(data) == _representer_dump(data), path


def test_dump_writes_a_str_subclass_as_its_text():
    """The engine's enums are str subclasses (Phase.PLAY is the text "play"): written as the
    equal plain text would be, by the fast path and by the representer (a float sends the whole
    value there), quoting included."""
    from rebis_pbm.engine import Phase, Sign, TokenKind

    class Odd(str):
        def __str__(self) -> str:
            return "something else"

    data = {"phase": Phase.RED_TOKEN, "sign": Sign.NEGATIVE,
            "tokens": [TokenKind.GOLD, TokenKind.GOLDEN_DUST], "odd": Odd("010")}
    plain = {"phase": "red_token", "sign": "negative", "tokens": ["gold", "golden_dust"],
             "odd": "010"}
    assert dump_yaml(data) == dump_yaml(plain)
    assert "phase: red_token\n" in dump_yaml(data) and "odd: '010'\n" in dump_yaml(data)
    assert dump_yaml({**data, "x": 1.5}) == dump_yaml({**plain, "x": 1.5})
    assert dump_yaml({**data, "x": 1.5}) == _representer_dump({**plain, "x": 1.5})


def _game_by_full_load(data: bytes):
    """What check_views_dir read a view's game with before: the whole document."""
    doc = yaml.safe_load(data)
    return doc["game"] if isinstance(doc, dict) and isinstance(doc.get("game"), str) else None


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.dictionaries(st.text(max_size=8), json_data, max_size=5), json_data)
def test_top_level_text_reads_what_a_full_load_reads(value, game):
    """top_level_text (a view's game, read from the events up to it) gives what loading the
    whole document gives, on every mapping dump_yaml writes."""
    data = dump_yaml({**value, "game": game} if game is not None else value).encode("utf-8")
    assert yamlio.top_level_text(data, "game") == _game_by_full_load(data)


@pytest.mark.parametrize("text", [
    "view: rebis-pbm/view/2\ngame: g1\n", "a: {game: x}\ngame: y\n", "- game: x\n", "x\n",
    "game: 12\n", "game: '12'\n", "game: !!str 5\n", "game: [a]\n", "{game: z}", "", "game:\n",
    "a: [1, {b: 2}]\nb: {c: [d]}\ngame: ok\n", "game: x\nbad: [", "game: true\n",
])
def test_top_level_text_cases(text):
    data = text.encode("utf-8")
    try:
        expected = _game_by_full_load(data)
    except yaml.YAMLError:  # broken after the entry: the entry is still read
        expected = "x"
    assert yamlio.top_level_text(data, "game") == expected


# ------------------------------------------------------------------ simple_data

def _strict_or_none(data: bytes, kind: str):
    try:
        return load_yaml(data, source="f.yaml", kind=kind).data
    except InputError:
        return None


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.dictionaries(st.text(max_size=8), json_data, max_size=5))
def test_simple_data_reads_what_dump_yaml_writes_as_the_strict_reader_does(value):
    """Every file rebis-pbm writes (plain data through dump_yaml) takes the quick read, and it
    gives the strict reader's data, types and key order included."""
    data = dump_yaml(value).encode("utf-8")
    got = yamlio.simple_data(data, kind="record")
    assert got == load_yaml(data, source="r.yaml", kind="record").data == value
    assert list(_keys(got)) == list(_keys(value))


def _keys(value):
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.data())
def test_simple_data_never_accepts_what_the_strict_reader_refuses_or_reads_otherwise(data):
    """On mutated files the quick read either declines (None) or gives exactly the strict
    reader's data: it never accepts a file load_yaml refuses."""
    buf = mutated(data, VALID + b"n: 12\nz: -3\nt: 0\nb: yes\nq: ~\nd: 2024-05-01\n",
                  b":-[]{}&*!|>'\"#\t\n\r ,?%@`0yn.~x_+", [0xFF, 0])
    for kind in ("move", "record"):
        got = yamlio.simple_data(bytes(buf), kind=kind)
        if got is not None:
            assert got == _strict_or_none(bytes(buf), kind)
            assert type(got) is dict


@pytest.mark.parametrize("text", [
    "n: 010\n", "n: 0x1F\n", "n: 1_000\n", "n: +3\n", "n: 1:30\n", "n: 1.5\n", "n: .inf\n",
    "n: 1234567890123456789\n", "a: &x 1\nb: *x\n", "n: !!str 5\n", "<<: {a: 1}\n",
    "a: 1\na: 2\n", "yes: 1\n", "1: a\n", "? [a]\n: b\n", "- a\n", "x\n", "", "# only\n",
    "a: 1\n---\nb: 2\n", "a: 1\n---\n", "a: [\n", "a: b: c\n", "\xef\xbb\xbfa: \x07\n",
    "a: " + "[" * 40 + "]" * 40 + "\n", "n: 00\n", "n: -01\n",
])
def test_simple_data_declines_what_needs_the_strict_reader(text):
    """Odd integer spellings, floats, anchors, tags, merge keys, repeated or non-text keys, a
    document that is not one mapping, broken YAML: None, so that load_yaml reads it and says
    where (or gives its own reading, as for 010)."""
    assert yamlio.simple_data(text.encode("utf-8"), kind="record") is None


def test_simple_data_reads_bom_crlf_and_plain_scalars_as_the_strict_reader():
    data = (b"\xef\xbb\xbfa: 0\r\nb: -3\r\nc: 'x: y'\r\nd: 2024-05-01\r\n"
            b"e:\r\nf: no\r\ng: [1, 2]\r\n")
    expected = {"a": 0, "b": -3, "c": "x: y", "d": "2024-05-01", "e": None, "f": False,
                "g": [1, 2]}
    assert yamlio.simple_data(data, kind="record") == expected
    assert load_yaml(data, source="f", kind="record").data == expected


def test_simple_data_respects_the_size_cap_and_the_kinds():
    assert yamlio.simple_data(b"a: 1\n" + b"#" * yamlio.MOVE_MAX_BYTES, kind="move") is None
    assert yamlio.simple_data(b"a: 1\n", kind="move") == {"a": 1}
    with pytest.raises(ValueError, match="kind"):
        yamlio.simple_data(b"a: 1\n", kind="nothing")


def test_simple_data_reads_every_archived_record_as_the_strict_reader():
    from pathlib import Path

    records = sorted((Path(__file__).parent / "records").glob("*.yaml"))
    assert records
    for path in records:
        data = path.read_bytes()
        got = yamlio.simple_data(data, kind="record")
        assert got is not None, path.name
        assert got == load_yaml(data, source=path.name, kind="record").data, path.name


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.text("0123456789abcdefx_:.+-eE", min_size=60, max_size=66)
       | st.from_regex(r"0b[01]{62}|[0-9]{64}|[0-9a-f]{64}|0x[0-9a-f]{62}", fullmatch=True))
def test_digest_texts_are_what_the_resolver_reads_as_text(value):
    """The quick test for a digest never calls text what PyYAML's resolver reads otherwise."""
    if yamlio._digest_text(value):
        assert yamlio._resolve_scalar(value, True, False) == yamlio.TAG_STR


def test_digest_texts_include_every_digest_of_the_archive():
    import hashlib
    digests = [hashlib.sha256(str(n).encode()).hexdigest() for n in range(200)]
    assert all(yamlio._digest_text(d) for d in digests)
    assert not yamlio._digest_text("0b" + "01" * 31) and not yamlio._digest_text("1" * 64)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.from_regex(r"[0-9a-f]{64}|[0-9]{20}e[0-9]{43}|0b[01]{62}|[0-9]{64}",
                              fullmatch=True),
                min_size=1, max_size=4))
def test_dump_writes_digests_as_the_representer_does(digests):
    """Digests are written as the representer writes them, the ones a YAML 1.2 reader would
    take for a number (123e45...) quoted, and read back as the same text."""
    data = {"moves": [{"state_hmac": d, "chain_sha256": d} for d in digests]}
    text = dump_yaml(data)
    assert text == _representer_dump(data)
    assert load_yaml(text.encode(), source="r", kind="record").data == data
    assert yamlio.simple_data(text.encode(), kind="record") == data


# ------------------------------------------------------- writing as text, against the emitter
# dump_yaml writes the text itself (yaml_writer._text_document) and leaves to PyYAML's emitter
# (yaml_writer._dump_events, what it wrote before) only what it is not sure of; the two must give
# the same bytes for every input. _dump_events is the oracle here.

# Texts whose writing the emitter decides by analysis: quoting, YAML 1.1 words and numbers,
# indicators, spaces at the ends, unicode, control characters, line breaks, long texts.
tricky_words = st.sampled_from([
    "yes", "no", "on", "off", "y", "n", "Yes", "NO", "~", "null", "Null", "true", "False", "010",
    "0x1F", "0o17", "0b1", "1e3", "1.5", "-1", "+1", ".inf", "-.inf", ".nan", "1_000", "12:30",
    "2024-05-01", "2024-05-01 10:00:00", "", " ", "-", "- a", "-a", "?", "? a", "?a", ":", "a: b",
    "a:b", "a:", "#", "a #b", "a#b", "'", '"', "'a'", '"a"', "a ", " a", "a  b", "---", "...",
    "--- a", "@a", "`a", "!a", "&a", "*a", "%a", "|", ">", "[a]", "{a}", "a, b", ",", "=", "<<",
    "é", "日本", "Zoë<&>", "o'neil&co", "\t", "a\tb", "\x00", "\x07", "\x7f", "\x85", "\xa0",
    "\u2028", "\u2029", "\ufeff", "\U0001F600", "a\nb", "a\n", "\n", "a\n\n", " a\nb", "a\rb",
    "a\r\nb", "a" * 200, "a b " * 40, "é" * 64, "é" * 65, "k" * 128, "k" * 129, "_", "_a", "a_1",
    "0" * 64, "ab" * 32, "0b" + "1" * 62, "1e" + "5" * 62, "f" * 64, "F" * 64,
    # texts over lines: a | block when the emitter writes one (a signature, a signed move)
    "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH+/=\n-----END SSH SIGNATURE-----\n",
    "game: x\nplay:\n  cards: [5, 5]\n", "a\n\nb\n", "a\n  b\n", "a \nb\n", "a\n\n\n",
    "a\nb \n", "é\nb\n", "a\n\tb\n", "#a\n---\n", " \na\n", "a\n \n", "a\x7f\nb\n",
    # base64 (a sealed signed move): plain when YAML reads it as text
    "+1", "+a", "/a", "=", "==", "a=", "+/=", "0x1F", "0b1", "1e3", "12", "+12", "0o17", "Yes",
    "A" * 2000 + "=", "U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgWhEE+/9Pu/==",
])
tricky_texts = (tricky_words | st.text(max_size=20)
                | st.text(st.sampled_from(list(":-#?'\" \n\t\rabyesnoNl01.~,[]{}&*!|>%@`é")),
                          max_size=10)
                | st.builds(lambda a, b: a + b, tricky_words, tricky_words)
                | st.text(st.sampled_from(list("aZ09+/=eExob.")), min_size=1, max_size=12)
                | st.lists(st.text(st.sampled_from(list(" a#-:\t\xe9")), max_size=4),
                           min_size=1, max_size=4).map(lambda lines: "\n".join(lines) + "\n"))
tricky_scalars = (st.none() | st.booleans() | st.integers(-(10**18) + 1, 10**18 - 1)
                  | st.integers() | tricky_texts)
tricky_data = st.recursive(
    tricky_scalars,
    lambda inner: (st.lists(inner, max_size=4) | st.lists(st.integers(-3, 20), max_size=18)
                   | st.dictionaries(tricky_texts, inner, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tricky_data)
def test_text_writer_writes_what_the_emitter_writes(data):
    """The text writer or its fall-back to the emitter: the emitter's bytes, for any plain data
    (the caches of texts and keys kept from one example to the next, as in a process)."""
    assert dump_yaml(data) == yaml_writer._dump_events(data)


@pytest.mark.parametrize("text", ["x " * 40_000, "a" * 70_000, "a\nb", "é" * 65])
def test_text_writer_long_and_multi_line_texts(text):
    """Texts long enough to reach the line width, or over several lines, as keys and values."""
    for data in ({"v": text}, {text: 1}, {"l": [text, {"k": text}]}, {"a": {text: [text]}}):
        assert dump_yaml(data) == yaml_writer._dump_events(data)


def test_text_writer_leaves_floats_and_other_keys_to_the_emitter():
    for data in ({"a": 1.5}, {1: "a"}, {None: 1}, {"a": [{"b": 0.1}]}, "a", 3, None, {"k" * 129: 1},
                 {"a": "b\nc"}, {"a": "b\n\n"}, {"a": " b\n"}, {"a": "b \nc\n"}, {"a": ["b\n"]},
                 {"a": ("t",)}):
        assert yaml_writer._text_document(data) is None, data
        assert dump_yaml(data) == yaml_writer._dump_events(data)


def test_text_writer_takes_enums_as_their_text():
    from rebis_pbm.engine import Phase, Sign, TokenKind

    data = {Phase.PLAY: [Sign.NEGATIVE, {TokenKind.GOLD: TokenKind.GOLDEN_DUST}],
            "sign": Sign.POSITIVE}
    plain = {"play": ["negative", {"gold": "golden_dust"}], "sign": "positive"}
    assert yaml_writer._text_document(data) == yaml_writer._dump_events(plain) == dump_yaml(plain)


def _yaml_files():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    return sorted([*(root / "tests" / "records").glob("*.yaml"),
                   *(root / "examples").rglob("*.yaml")])


def _multi_line(data) -> bool:
    if isinstance(data, dict):
        return any(map(_multi_line, data.values()))
    if isinstance(data, list):
        return any(map(_multi_line, data))
    return isinstance(data, str) and "\n" in data


def test_text_writer_on_every_record_and_example_file():
    """Every record of tests/records and every example file: byte for byte as the emitter
    writes it, and by the text writer (not the fall-back: records and views are what it is
    for), a signed record's signatures and signed texts included."""
    files = _yaml_files()
    assert len(files) > 20
    assert any(_multi_line(load_yaml(path.read_bytes(), source=str(path), kind="record").data)
               for path in files)  # signed records are among them
    for path in files:
        data = load_yaml(path.read_bytes(), source=str(path), kind="record").data
        assert yaml_writer._text_document(data) is not None, path
        assert dump_yaml(data) == yaml_writer._dump_events(data), path


def test_text_writer_writes_a_signature_as_a_block():
    signature = "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"
    data = {"moves": [{"turn": 1, "signature": signature, "signed": "game: g\n\nturn: 1\n"}]}
    assert yaml_writer._text_document(data) == (
        "moves:\n- turn: 1\n  signature: |\n    -----BEGIN SSH SIGNATURE-----\n    U1NIU0lH\n"
        "    -----END SSH SIGNATURE-----\n  signed: |\n    game: g\n\n    turn: 1\n")
    assert load_yaml(dump_yaml(data).encode(), source="t", kind="record").data == data


def test_text_writer_writes_base64_plain_as_the_emitter_does():
    import base64

    sealed = base64.b64encode(bytes(range(256)) * 4).decode()  # '+' and '/' inside, '=' at the end
    assert yaml_writer._str_text(sealed) == sealed
    for text in (sealed, "+12", "1e3", "="):
        data = {"signed_sealed": text}
        assert dump_yaml(data) == yaml_writer._dump_events(data)


def test_text_writer_on_the_views_of_bot_games():
    """The views (every viewer) of every third turn of the pictures' bot games: the same bytes
    whole and in the pieces views.py writes them in."""
    import importlib
    import sys
    from pathlib import Path

    from rebis_pbm.present import views
    sys.path.insert(0, str(Path(__file__).parent))
    golden = importlib.import_module("test_svg_golden")  # the pictures' games
    for name, ruleset, seats, seed, stand_ins, _ in golden.GAMES:
        replays = golden.played(ruleset, seats, seed)
        for turn in range(0, len(replays), 3):
            for viewer in (*seats, None):
                view = views.build_view(name, replays[turn], viewer, stand_ins=stand_ins,
                                        revealed=replays[turn].state.finished)
                assert dump_yaml(view) == yaml_writer._dump_events(view), (name, turn, viewer)
                assert views.render(view, "yaml").endswith(yaml_writer._dump_events(view))
