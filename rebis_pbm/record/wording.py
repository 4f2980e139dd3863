"""The words the record's audit and the views share: counts, the winners, the join placeholder.

They sit here, below the presentation (:mod:`rebis_pbm.present.wording` takes them from here and
speaks them in a reader's language), because ``verify``'s report (:mod:`.audit`) writes them too,
in English, and the record's layer may not import the presentation's. Each is spelt once: the
templates are marked with :func:`~rebis_pbm.engine.phrases.N_` for the catalogs, and a function
that writes a sentence takes the reader's ``gettext`` (English, as written, by default).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rebis_pbm.engine.phrases import N_

Gettext = Callable[[str], str]  # a language's gettext: a msgid in, its translation out


def _as_written(message: str) -> str:
    """English: the message as it is (the source's language)."""
    return message


def counted(count: int, word: str) -> str:
    """"1 card", "2 cards": a count with its noun (regular plural, English).

    >>> counted(1, "card"), counted(0, "move"), counted(3, "move")
    ('1 card', '0 moves', '3 moves')
    """
    return f"{count} {word}{'' if count == 1 else 's'}"


WINNER = N_("Winner: {players}")
SHARED_WIN = N_("Shared win: {players}")
AND = N_(" and ")  # between the names of a shared win


def winners_line(winners: Sequence[str], _: Gettext = _as_written) -> str:
    """``Winner: bob`` or ``Shared win: ann and bo`` (R13), in the language of ``_`` (a
    gettext; English by default): the one wording of a finished game's winners, in the text
    view, the picture, ``score`` and ``verify``; no full stop (the callers' sentences differ).
    ``winners``: names, not empty.

    >>> winners_line(["bob"]), winners_line(["ann", "bo", "cy"])
    ('Winner: bob', 'Shared win: ann and bo and cy')
    """
    if len(winners) == 1:
        return _(WINNER).format(players=winners[0])
    return _(SHARED_WIN).format(players=_(AND).join(winners))


JOIN_PLACEHOLDER = N_("WRITE ANY TEXT OF YOUR CHOOSING")  # the join template's words
# The placeholder as the join template has written it in each language the tool speaks (the
# catalogs' translations of JOIN_PLACEHOLDER; tests/test_i18n.py holds them to it). Kept here as
# data, not read from the catalogs: a record's verdict must not change with a translation, so a
# wording the template once wrote stays listed.
JOIN_PLACEHOLDER_WORDS = ("WRITE ANY TEXT OF YOUR CHOOSING",  # en
                          "ÉCRIS LE TEXTE DE TON CHOIX",      # fr
                          "ESCREVE O TEXTO QUE QUISERES")     # pt
_PLACEHOLDERS = frozenset(words.casefold() for words in JOIN_PLACEHOLDER_WORDS)


def is_join_placeholder(text: str) -> bool:
    """Is ``text`` the join template's placeholder, in any language the tool speaks (whatever
    its case and surrounding spaces)? A join that keeps it adds nothing the referee, who wrote
    the template, does not know (docs/shuffle.md).

    >>> is_join_placeholder("  write any text of your choosing "), is_join_placeholder("x")
    (True, False)
    """
    return text.strip().casefold() in _PLACEHOLDERS


def witness_line(game: str, move: int, digest: str, header: str | None = None,
                 actions: int | None = None) -> str:
    """The witness as the text view and the mails write it (one line;
    :func:`rebis_pbm.record.witness.read_witnesses` reads it back).

    >>> witness_line("g1", 3, "ab")
    'Witness: game g1, move 3, chain_sha256 ab'
    >>> witness_line("g1", 3, "ab", "cd", 2)
    'Witness: game g1, move 3, chain_sha256 ab, header_sha256 cd, actions 2'

    ``header``: the record's header digest, which the witness of a rebis-pbm/5 game with a
    referee key names (``, header_sha256 H``), so that it tells which game it is of;
    ``actions``: the number of the referee's logged actions, which a rebis-pbm/6 game with a
    referee key names last (``, actions K``), so that no act is cut off unseen.
    """
    return (f"Witness: game {game}, move {move}, chain_sha256 {digest}"
            + ("" if header is None else f", header_sha256 {header}")
            + ("" if actions is None else f", actions {actions}"))
