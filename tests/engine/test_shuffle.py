"""The shuffle (R5, docs/shuffle.md).

``Reference`` below is a second implementation written from docs/shuffle.md alone; it shares no
code with rebis_pbm/engine/shuffle.py. The tests check it against ``shuffled`` for many seeds, check
every test vector printed in docs/shuffle.md against the code (parsed from the page, so the page and
the code cannot drift apart), show that rejection sampling is exercised, and that the engine does
not use ``random``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from rebis_pbm.engine import Ruleset, seat_order, setup, shuffled

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "shuffle.md"
ENGINE = ROOT / "rebis_pbm" / "engine"

DECK = "rebis-pbm/shuffle/v1"
SEATS = "rebis-pbm/seats/v1"
TWO_32 = 1 << 32


class Reference:
    """docs/shuffle.md, sections 1-4, written out plainly."""

    def __init__(self, seed: str, domain: str):
        data = seed.encode("utf-8")
        self.prefix = domain.encode("ascii") + struct.pack(">I", len(data)) + data
        self.blocks: list[bytes] = []
        self.read = 0           # words read so far (index of the next word)
        self.log = []           # (word index, n, word, bound, accepted)

    def block_input(self, i: int) -> bytes:
        return self.prefix + struct.pack(">Q", i)

    def word(self, k: int) -> int:
        block, offset = divmod(k, 8)
        while len(self.blocks) <= block:
            self.blocks.append(hashlib.sha256(self.block_input(len(self.blocks))).digest())
        return struct.unpack_from(">I", self.blocks[block], 4 * offset)[0]

    def uniform(self, n: int, rejection: bool = True) -> int:
        bound = (TWO_32 // n) * n
        while True:
            k = self.read
            w = self.word(k)
            self.read += 1
            ok = w < bound or not rejection
            self.log.append((k, n, w, bound, ok))
            if ok:
                return w % n

    def shuffle(self, items, rejection: bool = True) -> list:
        a = list(items)
        i = len(a) - 1
        while i >= 1:
            j = self.uniform(i + 1, rejection)
            a[i], a[j] = a[j], a[i]
            i -= 1
        return a


def reference(items, seed, domain=DECK, rejection=True):
    return tuple(Reference(seed, domain).shuffle(items, rejection))


def starting_deck(zero: bool) -> list[int]:
    """Section 5: every card sorted by number, the Zero option's 0s first (R1, R2)."""
    return ([0] * 9 if zero else []) + [n for n in range(1, 10) for _ in range(9)]


# ------------------------------------------------------------------------- code vs reference

SEEDS = ["rebis", "example", "", "ça-va", "c\u0327a-va", " ", "0", "\x00", "日本語", "🃏" * 5,
         "x" * 300, "game-2024-01-01", "Rebis", "rebis "] + [f"seed-{i}" for i in range(120)]


@pytest.mark.parametrize("zero", [False, True])
def test_reference_matches_the_code_on_the_deck_for_many_seeds(zero):
    start = starting_deck(zero)
    assert list(Ruleset(zero=zero).cards) == start
    for seed in SEEDS:
        assert shuffled(Ruleset(zero=zero).cards, seed) == reference(start, seed), seed


def test_reference_matches_the_code_on_positions_and_lengths():
    for seed in SEEDS[:40]:
        for n in (0, 1, 2, 3, 7, 8, 9, 16, 81, 90, 257):
            assert shuffled(range(n), seed) == reference(range(n), seed), (seed, n)
            assert shuffled(range(n), seed, SEATS.encode()) == reference(range(n), seed, SEATS)


def test_reference_matches_the_code_on_seats():
    for seed in SEEDS:
        for players in (("ana", "bea"), ("ana", "bea", "cal"), ("d", "c", "b", "a")):
            assert seat_order(players, seed) == reference(players, seed, SEATS)


def test_the_deal_uses_the_deck_stream_from_index_0():
    for seed in SEEDS[:20]:
        state, _ = setup(Ruleset(), ("ana", "bea", "cal"), seed)
        order = reference(starting_deck(False), seed)
        assert state.order == order
        assert [row[0].cards[0].number for row in state.shelves] == list(order[:3])


def test_shuffle_is_a_permutation_and_leaves_its_input_alone():
    items = [5, 1, 1, 9, 0]
    out = shuffled(items, "x")
    assert isinstance(out, tuple) and sorted(out) == sorted(items)
    assert items == [5, 1, 1, 9, 0]
    assert shuffled([], "x") == () and shuffled(["only"], "x") == ("only",)


def test_domains_and_seeds_give_different_streams():
    deck = Ruleset().cards
    assert shuffled(deck, "rebis") != shuffled(deck, "rebis", SEATS.encode())
    assert shuffled(deck, "ça-va") != shuffled(deck, "c\u0327a-va"), "no Unicode normalisation"
    assert len({shuffled(range(81), s) for s in SEEDS}) == len(SEEDS)


def test_shuffle_does_not_depend_on_the_process_hash_seed():
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from rebis_pbm.engine import shuffled;"
            "print(shuffled(range(81), 'ça-va'))")
    outs = set()
    for hashseed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        outs.add(subprocess.run([sys.executable, "-c", code, str(ROOT)], env=env, check=True,
                                capture_output=True, text=True).stdout)
    assert outs == {f"{reference(range(81), 'ça-va')}\n"}


# ---------------------------------------------------------------------- the vectors of the doc


def doc_tables() -> dict[str, list[list[list[str]]]]:
    """The Markdown tables of docs/shuffle.md by ``###`` heading: heading -> tables, each a list
    of rows of cells (header and rule rows dropped)."""
    tables: dict[str, list[list[list[str]]]] = {}
    heading, previous = None, ""
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            heading = line[4:].strip()
        elif heading and line.startswith("|"):
            if not previous.startswith("|"):
                tables.setdefault(heading, []).append([])
            tables[heading][-1].append([c.strip() for c in line.strip().strip("|").split("|")])
        previous = line
    return {h: [rows[2:] for rows in found] for h, found in tables.items()}


def seed_of(cell: str) -> str:
    assert cell.startswith("`") and cell.endswith("`"), cell
    return json.loads(cell.strip("`"))


def numbers(cell: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", cell)]


def items_of(cell: str) -> range:
    low, high = re.fullmatch(r"(\d+)\.\.(\d+)", cell).groups()
    return range(int(low), int(high) + 1)


TABLES = doc_tables()


def test_doc_has_every_vector_table():
    assert {h: len(t) for h, t in TABLES.items()} == {
        "A shuffle step by step": 1, "Blocks and words": 1, "The deck: its first 10 cards": 2,
        "Seats": 1, "Rejection": 1}
    assert all(rows for found in TABLES.values() for rows in found)


def test_doc_step_by_step_vector():
    ref = Reference("example", DECK)
    a = list(range(10))
    (rows,) = TABLES["A shuffle step by step"]
    assert len(rows) == 9
    for row, i in zip(rows, range(9, 0, -1), strict=True):
        j = ref.uniform(i + 1)
        _, n, word, bound, accepted = ref.log[-1]
        a[i], a[j] = a[j], a[i]
        assert accepted
        assert row[:5] == [str(i), str(n), str(word), str(bound), str(j)]
        assert numbers(row[5]) == a
    assert tuple(a) == shuffled(range(10), "example")


def test_doc_byte_layout_example():
    text = DOC.read_text(encoding="utf-8")
    block = text.split("hashes these 38 bytes:")[1].split("```")[1]
    data = bytearray()
    for line in block.strip().splitlines():
        for token in line.split():  # hex bytes first, then a comment
            if not re.fullmatch(r"[0-9a-f]{2}", token):
                break
            data.append(int(token, 16))
    expected = Reference("ça-va", DECK).block_input(0)
    assert len(expected) == 38
    assert data == expected


def test_doc_blocks_and_words():
    (rows,) = TABLES["Blocks and words"]
    assert len(rows) >= 3
    for seed_cell, digest, words in rows:
        ref = Reference(seed_of(seed_cell), DECK)
        assert hashlib.sha256(ref.block_input(0)).hexdigest() == digest
        assert [ref.word(k) for k in range(8)] == numbers(words)


def test_doc_deck_vectors_are_what_the_code_deals():
    rows = TABLES["The deck: its first 10 cards"][0]
    seeds = {seed_of(r[0]) for r in rows}
    assert {"rebis", "example", "", "ça-va"} <= seeds
    assert any(r[1] == "true" for r in rows), "a Zero-deck vector"
    for seed_cell, zero, cards in rows:
        seed, zero = seed_of(seed_cell), {"true": True, "false": False}[zero]
        deck = shuffled(Ruleset(zero=zero).cards, seed)
        assert list(deck[:10]) == numbers(cards), seed
        assert len(deck) == (90 if zero else 81)
        state, _ = setup(Ruleset(zero=zero), ("ana", "bea"), seed)
        assert list(state.order[:10]) == numbers(cards)


def test_doc_position_vectors():
    rows, positions = TABLES["The deck: its first 10 cards"]
    found = 0
    for seed_cell, items, result in positions:
        seed, items = seed_of(seed_cell), items_of(items)
        assert shuffled(items, seed) == tuple(numbers(result))
        if len(items) == 81:  # positions -> cards of the default deck agree with the deck vector
            cards = [p // 9 + 1 for p in numbers(result)]
            assert tuple(cards) == shuffled(Ruleset().cards, seed)
            row = next(r for r in rows if seed_of(r[0]) == seed and r[1] == "false")
            assert cards[:10] == numbers(row[2])
        found += 1
    assert found >= 2


def test_doc_seat_vectors():
    (rows,) = TABLES["Seats"]
    assert rows
    for seed_cell, listed, order in rows:
        players = tuple(p.strip() for p in listed.split(","))
        assert seat_order(players, seed_of(seed_cell)) == tuple(p.strip() for p in order.split(","))


def test_doc_rejection_vector_exercises_rejection_sampling():
    ((row,),) = TABLES["Rejection"]
    seed_cell, items, step, rejected_cell, accepted_cell, j, first10 = row
    seed, items = seed_of(seed_cell), items_of(items)
    i, n, bound = numbers(step)
    k_bad, w_bad = numbers(rejected_cell)
    k_ok, w_ok = numbers(accepted_cell)
    ref = Reference(seed, DECK)
    result = ref.shuffle(items)
    rejections = [entry for entry in ref.log if not entry[4]]
    assert rejections == [(k_bad, n, w_bad, bound, False)], "exactly this word is rejected"
    assert n == i + 1 and bound == (TWO_32 // n) * n and w_bad >= bound
    assert ref.log[k_ok] == (k_ok, n, w_ok, bound, True) and k_ok == k_bad + 1
    assert w_ok % n == int(j)
    assert tuple(result) == shuffled(items, seed)
    assert list(result[:10]) == numbers(first10)
    # Without rejection the result differs: the code does reject.
    assert reference(items, seed, rejection=False) != shuffled(items, seed)


@pytest.mark.parametrize("seed", ["example", "ça-va"])
def test_rejection_sampling_across_many_words(seed):
    """A long list reads many words with large n, where a word is rejected about once per
    shuffle of 100000 items; the code and the reference agree, and ignoring rejection would not."""
    items = range(100000)
    ref = Reference(seed, DECK)
    result = ref.shuffle(items)
    assert any(not entry[4] for entry in ref.log)
    assert tuple(result) == shuffled(items, seed)
    assert reference(items, seed, rejection=False) != tuple(result)


# ------------------------------------------------------------------------------- no `random`


BANNED = {"random", "secrets", "numpy"}


def test_engine_source_never_imports_random():
    for path in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [(node.module or "").split(".")[0]]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
                names = [getattr(node.args[0], "value", "")] if node.args else []
            else:
                continue
            assert not BANNED & set(names), f"{path.name}:{node.lineno} imports {names}"


def test_importing_and_using_the_engine_loads_no_random_module():
    """In an isolated interpreter (no site packages, whose .pth hooks may import random), the
    engine, a setup and a shuffle leave ``random`` unloaded."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]);"
            "from rebis_pbm.engine import Ruleset, setup, legal_moves, apply_move, seat_order;"
            "s, _ = setup(Ruleset(zero=True), seat_order(('a', 'b', 'c'), 'x'), 'x');"
            "s, _ = apply_move(s, legal_moves(s)[0]);"
            "print(sorted(m for m in ('random', 'secrets', '_random') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(ROOT)], check=True,
                         capture_output=True, text=True).stdout
    assert out.strip() == "[]"
