"""Each player's language: French, Portuguese or English (docs/views.md, "Languages").

What is addressed to a player (their text view, the account of each move, their move template's
comments, their mails, the reason a move of theirs was refused) is written in their language;
YAML and JSON views stay English, keys and values alike (they are data), and so does the
referee's own command output.

The translations are gettext catalogs managed with Babel (``make catalogs``: extract, update,
compile), shipped in the package as ``rebis_pbm/locale/LANG/LC_MESSAGES/rebis_pbm.mo`` and read
with the standard library's :mod:`gettext` alone, imported (and a catalog read, once per process)
only when a language other than English is asked for: English readers pay nothing.

The game's own words are those of its French and Portuguese descriptions (docs/glossary.md):
étagère active / prateleira ativa, deck Bibliothèque / baralho da Biblioteca, jetons de mélange
/ fichas de mistura, poussière dorée / pó dourado, jeton doré / ficha dourada, jeton rouge /
ficha vermelha.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, BinaryIO

from rebis_pbm.engine.phrases import N_, Named, Phrase
from rebis_pbm.errors import UsageError

if TYPE_CHECKING:
    from gettext import NullTranslations

DOMAIN = "rebis_pbm"
ENGLISH = "en"
LANGUAGES = ("en", "fr", "pt")  # every language a player may choose (``new --lang``, ``lang:``)
LOCALE_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "locale")



# French typography (docs/glossary.md, "Typography"): one form throughout, a no-break space
# (U+00A0) before ; : ! ? and inside « », never a plain space that a line could break at.
NBSP = "\u00a0"
# The French vowels a name may begin with, accents taken off first (É, Œ, Ÿ); "y" counts
# (d'Yves). "h" does not: the rule is "de" before h (de Hélène, de Hugo), as h aspiré names are
# rare but "d'" before them is wrong, while "de" before a mute h is only less usual.
_FRENCH_VOWELS = frozenset("aeiouy")
# "de {name}", "que {name}" and "jusque {name}" in a French template: elided before a vowel.
_ELIDABLE = re.compile(r"\b([Dd]e|[Qq]ue|[Jj]usque) \{(\w+)(![rsa])?\}")


def begins_with_vowel(word: str) -> bool:
    """Does ``word`` begin with a French vowel sound, going by its first letter: a, e, i, o, u
    or y, with or without accent, in either case (Émile, Œdipe, Yves)? h is a consonant here.

    >>> [begins_with_vowel(n) for n in ("ana", "Émile", "œdipe", "yves", "hélène", "bob", "7")]
    [True, True, True, True, False, False, False]
    """
    if not word:
        return False
    base = unicodedata.normalize("NFD", word[0].casefold())[0]
    return base in _FRENCH_VOWELS or base in "œæ"


def of_name(name: str, lang: str | None) -> str:
    """The preposition "of" before ``name`` as ``lang`` writes it: in French "d'" before a vowel
    (:func:`begins_with_vowel`: ``d'ana``, ``d'Émile``) and "de " otherwise (``de bob``, ``de
    Hélène``); Portuguese writes "de " before a name (no article: ``de ana``), English "of ".
    The one place French elision with a name is decided; :func:`elide` applies it to templates.

    >>> of_name("ana", "fr"), of_name("hugo", "fr"), of_name("ana", "pt"), of_name("ana", "en")
    ("d'", 'de ', 'de ', 'of ')
    """
    if lang == "fr":
        return "d'" if begins_with_vowel(name) else "de "
    return "de " if lang == "pt" else "of "


def elide(template: str, params: Mapping[str, object], lang: str | None) -> str:
    """``template`` (a translation, before ``str.format``) with French elision before the
    names it is filled with: ``de {player}`` becomes ``d'{player}`` when ``params["player"]``
    begins with a vowel (:func:`of_name`), and so do ``que {x}`` (``qu'``) and ``jusque {x}``.
    Only a ``str`` parameter (a name, a word) elides: a number never does (``de 8``). In
    Portuguese a name takes no article (``de ana``), but words that begin with one contract
    with the preposition before them: ``em {shelf}`` with "a prateleira 1 de ana" gives "na
    prateleira 1 de ana" (and ``de`` gives "da", ``por`` "pela"). English is as it is.

    >>> elide("le tour de {player}", {"player": "ana"}, "fr")
    "le tour d'{player}"
    >>> elide("celui de {player}", {"player": "bob"}, "fr"), elide("que {p}", {"p": "Ian"}, "fr")
    ('celui de {player}', "qu'{p}")
    >>> elide("em {shelf}", {"shelf": "a tua prateleira 1"}, "pt")
    'n{shelf}'
    """
    if "{" not in template:
        return template
    if lang == "pt":
        return _CONTRACTABLE.sub(lambda m: _contracted(m, params), template)
    if lang != "fr":
        return template

    def one(m: re.Match[str]) -> str:
        value = params.get(m.group(2))
        if isinstance(value, str) and begins_with_vowel(value):
            return f"{m.group(1)[:-1]}'{{{m.group(2)}{m.group(3) or ''}}}"
        return m.group(0)
    return _ELIDABLE.sub(one, template)


# Portuguese: "em {x}", "de {x}", "por {x}" before words that begin with the article "a"/"o"
# ("a prateleira 1 de ana", "a tua prateleira"): the contractions na/no, da/do, pela/pelo.
_CONTRACTABLE = re.compile(r"\b(em|de|por) \{(\w+)\}")
_CONTRACTED = {"em": "n", "de": "d", "por": "pel"}


def _contracted(m: re.Match[str], params: Mapping[str, object]) -> str:
    value = params.get(m.group(2))
    if isinstance(value, str) and re.match(r"(a|o|as|os) ", value):
        return f"{_CONTRACTED[m.group(1)]}{{{m.group(2)}}}"
    return m.group(0)


class Message(str):
    """A translated template (``str.format`` fields): a ``str`` whose :meth:`format` first
    applies the language's elision (:func:`elide`) with the values it is given. What a
    non-English catalog's ``gettext`` and ``ngettext`` return for a message with a field, so
    that every ``_(msg).format(player=...)`` elides without its caller's help. Formatting
    gives a plain ``str``."""

    lang: str | None

    def __new__(cls, text: str, lang: str | None) -> Message:
        made = super().__new__(cls, text)
        made.lang = lang
        return made

    def format(self, /, *args: object, **kwargs: object) -> str:
        return str.format(elide(str(self), kwargs, self.lang), *args, **kwargs)

    def format_map(self, mapping: Mapping[str, object]) -> str:  # type: ignore[override]
        return str.format_map(elide(str(self), mapping, self.lang), mapping)


def _catalog(lang: str, f: BinaryIO) -> NullTranslations:
    """``lang``'s compiled catalog read from ``f``: a ``gettext.GNUTranslations`` whose messages
    with a field come as :class:`Message` (so that they elide when filled in)."""
    import gettext

    class Catalog(gettext.GNUTranslations):
        def gettext(self, message: str) -> str:
            said = super().gettext(message)
            return Message(said, lang) if "{" in said else said

        def ngettext(self, singular: str, plural: str, n: int) -> str:
            said = super().ngettext(singular, plural, n)
            return Message(said, lang) if "{" in said else said

    return Catalog(f)


class _English:
    """English, the language of the source: each message as it is (what
    ``gettext.NullTranslations`` does, without importing gettext for it)."""

    @staticmethod
    def gettext(message: str) -> str:
        return message

    @staticmethod
    def ngettext(singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural


_ENGLISH = _English()
_loaded: dict[str, NullTranslations] = {}


def check_language(code: str, given: str | None = None) -> str:
    """``code`` in lower case (as records keep it) if it is a supported language, in any case:
    the one check of a language given to rebis-pbm (every ``--lang``, and the API's ``lang``).

    Raises:
        UsageError: option ``--lang``; one sentence naming the supported languages, after
            ``given`` when given (how the command line said it, e.g. ``--lang ann=xx``).

    >>> check_language("fr"), check_language("PT")
    ('fr', 'pt')
    """
    if code.lower() not in LANGUAGES:
        said = (f"{code!r} is not a language rebis-pbm speaks; use one of "
                f"{', '.join(LANGUAGES)} (English, French, Portuguese)")
        raise UsageError(said if given is None else f"{given}: {said}", "--lang")
    return code.lower()


def translation(lang: str | None) -> NullTranslations | _English:
    """The catalog of ``lang`` (``en``, ``fr``, ``pt``): a ``gettext.GNUTranslations`` whose
    templates elide (:class:`Message`); for None and ``en``, English, with no catalog read.
    Cached per language.

    Raises:
        UsageError: ``lang`` is not a supported language (:func:`check_language`).
    """
    if not lang or lang == ENGLISH:
        return _ENGLISH
    found = _loaded.get(lang)
    if found is None:
        check_language(lang)
        with open(os.path.join(LOCALE_DIR, lang, "LC_MESSAGES", f"{DOMAIN}.mo"), "rb") as f:
            found = _loaded[lang] = _catalog(lang, f)
    return found


def spoken(lang: str | None) -> str | None:
    """``lang`` when rebis-pbm speaks it (any case), else None (English): for a language read
    from a file (a view's ``lang:``), where an unknown code is no reason to fail."""
    return lang.lower() if lang and lang.lower() in LANGUAGES else None


def gettext_for(lang: str | None) -> Callable[[str], str]:
    """``translation(lang).gettext``: the ``_`` of the functions that write in ``lang``."""
    return translation(lang).gettext


def in_every_language(message: str) -> tuple[str, ...]:
    """``message`` (a msgid) as each language of :data:`LANGUAGES` says it, English first."""
    return tuple(gettext_for(code)(message) for code in LANGUAGES)


def ngettext_for(lang: str | None) -> Callable[[str, str, int], str]:
    """``translation(lang).ngettext``: singular and plural by count."""
    return translation(lang).ngettext


# A sentence about a player, said to that player (issue 30): the template in the third person
# and the field that names the player, with the same sentence in the second person. A player
# reads a refusal or an answer about themself so (:func:`addressed`); the referee's own output
# keeps the third person. tests/test_native.py holds every "{player} ..." refusal to this table.
SECOND_PERSON: dict[tuple[str, str], str] = {
    (N_("{player} has no move to make: turn {turn} is {to_move}'s"), "player"):
        N_("you have no move to make: turn {turn} is {to_move}'s"),
    (N_("{player} has no move to make: the game is over"), "player"):
        N_("you have no move to make: the game is over"),
    (N_("{player} has no move to make: the deal waits for {player}'s join"), "player"):
        N_("you have no move to make: the deal waits for your join"),
    (N_("{player} has no move to make: {player} has joined; the deal waits for {players}"),
     "player"):
        N_("you have no move to make: you have joined; the deal waits for {players}"),
    (N_("{player} has no move to make: game {game} was abandoned (its seed was revealed with "
        "rebis-pbm reveal)"), "player"):
        N_("you have no move to make: game {game} was abandoned (its seed was revealed with "
           "rebis-pbm reveal)"),
    (N_("turn {turn} has already been played; the current turn is {current}, {to_move} to "
        "move"), "to_move"):
        N_("turn {turn} has already been played; the current turn is {current}, you to move"),
    (N_("turn {turn} has not begun; the current turn is {current}, {to_move} to move"),
     "to_move"):
        N_("turn {turn} has not begun; the current turn is {current}, you to move"),
    (N_("{source}: move rejected: the referee moved for {player} at turn {turn} before this "
        "move came (every view and verify say so); nothing changed"), "player"):
        N_("{source}: move rejected: the referee moved for you at turn {turn} before this move "
           "came (every view and verify say so); nothing changed"),
    (N_("turn {turn} is {to_move}'s, not {player}'s"), "player"):
        N_("turn {turn} is {to_move}'s, not yours"),
    (N_("{player} is already away from {start} to {end}; nothing was written"), "player"):
        N_("you are already away from {start} to {end}; nothing was written"),
    (N_("{player} is not away and has no absence to come; nothing was written"), "player"):
        N_("you are not away and have no absence to come; nothing was written"),
    (N_("{player} has had in {year} every absence the allowance gives ({slots} a year); "
        "nothing was written"), "player"):
        N_("you have had in {year} every absence the allowance gives ({slots} a year); nothing "
           "was written"),
    (N_("{player} has {left} of absence left in {year} (the allowance is {allowance} a year), "
        "less than the {asked} asked; nothing was written"), "player"):
        N_("you have {left} of absence left in {year} (the allowance is {allowance} a year), "
           "less than the {asked} asked; nothing was written"),
    (N_("{player} cannot resign before the deal: the bot cannot join for them; they send "
        "their join, or ask the referee"), "player"):
        N_("you cannot resign before the deal: the bot cannot join for you; send your join, or "
           "ask the referee"),
    (N_("{player} has resigned already; nothing changed"), "player"):
        N_("you have resigned already; nothing changed"),
    (N_("{player} registered a key, and the bot cannot sign moves for them: only the referee "
        "can end their part"), "player"):
        N_("you registered a key, and the bot cannot sign moves for you: ask the referee to "
           "end your part"),
    (N_("{source}: move rejected: {player} registered a key, so their move must name the "
        "history it answers: add after: {digest} (the chain_sha256 of your view's witness "
        "line, as your move template gives it) and sign the file again"), "player"):
        N_("{source}: move rejected: you registered a key, so your move must name the history "
           "it answers: add after: {digest} (the chain_sha256 of your view's witness line, as "
           "your move template gives it) and sign the file again"),
    (N_("{source}: move rejected: {player} registered a key, so their moves must be signed "
        "(ssh-keygen -Y sign -f KEY -n rebis-pbm FILE writes FILE.sig); no signature came "
        "with it"), "player"):
        N_("{source}: move rejected: you registered a key, so your moves must be signed "
           "(ssh-keygen -Y sign -f KEY -n rebis-pbm FILE writes FILE.sig); no signature came "
           "with it"),
    (N_("{source}: move rejected: its signature does not check against {player}'s key over "
        "this exact file (sign the file as sent, with ssh-keygen -Y sign -n rebis-pbm)"),
     "player"):
        N_("{source}: move rejected: its signature does not check against your key over this "
           "exact file (sign the file as sent, with ssh-keygen -Y sign -n rebis-pbm)"),
    (N_("the command's signature does not check against {player}'s key over the line "
        "\"{line}\" (sign a file holding exactly that line, with ssh-keygen -Y sign -n "
        "rebis-pbm)"), "player"):
        N_("the command's signature does not check against your key over the line "
           "\"{line}\" (sign a file holding exactly that line, with ssh-keygen -Y sign "
           "-n rebis-pbm)"),
    (N_("{source}: move rejected: {player} has joined already; a player joins once"), "player"):
        N_("{source}: move rejected: you have joined already; a player joins once"),
    (N_("{source}: move rejected: {player} registered a key, so their join must name "
        "the commitments it answers: add after: {after} (as the view's template gives "
        "it) and sign the file again"), "player"):
        N_("{source}: move rejected: you registered a key, so your join must name the "
           "commitments it answers: add after: {after} (as the view's template gives "
           "it) and sign the file again"),
    (N_("{source}: move rejected: a commitment in {player}'s name, signed by key "
        "{fingerprint}, is already recorded; a player commits once (if that key is "
        "not yours, someone else committed for you: tell the other players)"), "player"):
        N_("{source}: move rejected: a commitment in your name, signed by key "
           "{fingerprint}, is already recorded; a player commits once (if that key is "
           "not yours, someone else committed for you: tell the other players)"),
    (N_("{source}: move rejected: {player} has sent their commitment already; a "
        "player commits once"), "player"):
        N_("{source}: move rejected: you have sent your commitment already; a player "
           "commits once"),
    (N_("{source}: move rejected: {player} has a key registered already, so their "
        "commitment brings no other key: remove key: and sign with the registered key"), "player"):
        N_("{source}: move rejected: you have a key registered already, so your "
           "commitment brings no other key: remove key: and sign with the registered "
           "key"),
    (N_("{source}: move rejected: {player} registered a key, so their join must name "
        "this game's header: add header_sha256: {header} (as the join template gives "
        "it) and sign the file again"), "player"):
        N_("{source}: move rejected: you registered a key, so your join must name "
           "this game's header: add header_sha256: {header} (as the join template "
           "gives it) and sign the file again"),
    (N_("{player} registered a key, so their commands must be signed (ssh-keygen -Y sign -f "
        "KEY -n rebis-pbm FILE, with FILE holding the command line); no signature came with "
        "it"), "player"):
        N_("you registered a key, so your commands must be signed (ssh-keygen -Y sign -f KEY "
           "-n rebis-pbm FILE, with FILE holding the command line); no signature came with it"),
}


def addressed(phrase: Phrase, reader: str | None) -> Phrase:
    """``phrase`` as ``reader`` (a player's name; None: anyone) reads it: in the second person
    when it is a sentence about them (:data:`SECOND_PERSON`), else as it is.

    >>> addressed(Phrase(N_("{player} has no move to make: the game is over"),
    ...                  {"player": "ana"}), "ana").template
    'you have no move to make: the game is over'
    """
    if reader is None:
        return phrase
    for field in ("player", "to_move"):
        said = SECOND_PERSON.get((phrase.template, field))
        if said is not None and phrase.params.get(field) == reader:
            return Phrase(said, phrase.params)
    return phrase


def translate(text: Phrase | str, lang: str | None, reader: str | None = None) -> str:
    """``text`` in ``lang``: a :class:`~rebis_pbm.engine.phrases.Phrase` has its template and
    every parameter that is a phrase (or :class:`~rebis_pbm.engine.phrases.Named` words, such
    as a mail's "the attachment X") translated, then filled in; a plain ``str`` is returned as
    it is (a sentence with no catalog entry stays English). To ``reader`` (a player's name),
    a sentence about them is in the second person (:func:`addressed`)."""
    if not isinstance(text, Phrase):
        return text
    _ = gettext_for(lang)
    text = addressed(text, reader)
    return _(text.template).format(**{k: _param(v, lang, reader)
                                      for k, v in text.params.items()})


def separator(lang: str | None) -> str:
    """What joins the sentences of an account or a list of events in ``lang``: ``"; "``, and
    in French ``"\u00a0; "`` (a no-break space before the semicolon, :data:`NBSP`)."""
    return f"{NBSP}; " if lang == "fr" else "; "


def _param(value: object, lang: str | None, reader: str | None = None) -> object:
    """A phrase's parameter in ``lang``: a phrase, or words that carry one
    (:class:`~rebis_pbm.engine.phrases.Named`), translated; anything else as it is."""
    if isinstance(value, Named):
        value = value.phrase
    return translate(value, lang, reader) if isinstance(value, Phrase) else value


def refusal(exc: BaseException, lang: str | None, reader: str | None = None, *,
            command: bool = False) -> str:
    """The sentence of a refused move (:class:`~rebis_pbm.errors.Refused`) for its mover, in
    ``lang``: translated when the refusal carries a phrase (the rules' refusals, and the
    referee's own that name one); else ``str(exc)``, which for a language other than English
    is quoted in a sentence of that language (:data:`UNTRANSLATED`: the move file's YAML and
    schema errors, whose detail names the file's own fields). To ``reader`` (the player it is
    sent to), a sentence about them is in the second person (:func:`addressed`). A refused
    ``command`` (a player's command, never a move) is quoted as a command's
    (:data:`UNTRANSLATED_COMMAND`)."""
    phrase = getattr(exc, "phrase", None)
    if phrase is not None:
        return translate(phrase, lang, reader)
    if lang is None or lang == ENGLISH:
        return str(exc)
    # A sentence with no translation (the move file's YAML or schema errors, which quote the
    # file's own fields and values): said in the mover's language, its detail in English.
    return gettext_for(lang)(UNTRANSLATED_COMMAND if command else UNTRANSLATED).format(
        details=str(exc))


UNTRANSLATED = N_("Your move was not accepted; the reason, in English: {details}")
UNTRANSLATED_COMMAND = N_("Your command was not carried out; the reason, in English: {details}")


__all__ = ["LANGUAGES", "NBSP", "N_", "SECOND_PERSON", "Message", "Named", "Phrase", "addressed",
           "begins_with_vowel",
           "check_language", "elide", "gettext_for", "ngettext_for", "of_name", "refusal",
           "separator", "spoken", "translate", "translation"]
