"""Options given as text: one ``NAME=VALUE`` item, and a new game's ruleset from ``--rule``."""

from __future__ import annotations

from collections.abc import Iterable

from rebis_pbm.engine import Ruleset
from rebis_pbm.engine.ruleset import SETTABLE as SETTABLE_RULES  # the declarations
from rebis_pbm.errors import UsageError
from rebis_pbm.formats.yaml_reader import clip


def name_value(item: str, option: str, form: str, example: str) -> tuple[str, str]:
    """``"ann=fr"`` -> ``("ann", "fr")``: one item of a repeatable ``NAME=VALUE`` option
    (``new --key NAME=FILE``, ``--lang NAME=CODE``, ``--rule``, ``--player NAME=ADDRESS``, ``git
    apply --key``), split at its first ``=``. The one reading of such an item, and its sentence.

    >>> name_value("ann=ann.pub", "--key", "NAME=FILE", "ann=ann.pub")
    ('ann', 'ann.pub')

    Raises:
        UsageError: no ``=``, or nothing before or after it (option ``option``), e.g.
            ``'ann': write NAME=FILE, e.g. ann=ann.pub`` (``form`` and ``example`` as given).
    """
    name, sep, value = item.partition("=")
    if not sep or not name or not value:
        raise UsageError(f"{clip(item)!r}: write {form}, e.g. {example}", option)
    return name, value



def ruleset_from(zero: bool = False, rules: Iterable[str] = ()) -> Ruleset:
    """The ruleset of a new game: the rulings' defaults (R1-R4), the Zero option (R2), and
    ``rules`` as ``NAME=VALUE`` texts (NAME one of :data:`SETTABLE_RULES`).

    >>> ruleset_from(True, ["shelf_limit=20"]).shelf_limit
    20

    Raises:
        UsageError: a text that is not ``NAME=VALUE``, an unknown NAME, a value that is not a
            whole number where one is needed, or a value out of its range (option ``--rule``).
    """
    values: dict[str, object] = {"zero": zero}
    for item in rules:
        name, text = name_value(item, "--rule", "NAME=VALUE", "shelf_limit=20")
        if name not in SETTABLE_RULES:
            raise UsageError(f"{clip(item)!r}: write NAME=VALUE with NAME one of "
                             f"{', '.join(SETTABLE_RULES)}", "--rule")
        if name == "multiplier":
            values[name] = text
        else:
            try:
                values[name] = int(text)
            except ValueError:
                raise UsageError(f"{name} must be a whole number, not {clip(text)!r}",
                                 "--rule") from None
    try:
        ruleset = Ruleset(**values)  # type: ignore[arg-type]  # checked by Ruleset itself
    except ValueError as exc:
        raise UsageError(str(exc), "--rule") from None
    if ruleset.golden_dust + ruleset.gold == 0:
        raise UsageError("with golden_dust=0 and gold=0 the supply has no token from the start, "
                         "so the game would end after its first turn (R11); give golden_dust or "
                         "gold at least 1", "--rule")
    return ruleset
