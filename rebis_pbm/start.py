"""The start of the ``rebis-pbm`` command (and of ``python -m rebis_pbm``): the command line of
:mod:`rebis_pbm.cli`, with Python's cycle collector kept from work that finds nothing.

A command is one short process. The modules it imports make hundreds of thousands of objects
that live until it ends, and the collector scanned them again and again while they were made,
then once more at exit: about 35 M instructions of every command (7 % of the import floor of
docs/performance.md), for no garbage. So the collector is off while the command line's modules
are imported, what they made is frozen (:func:`gc.freeze`: never scanned again), and it is on
for the command itself, so that a long command (``verify`` of many records, ``mail in`` of a
folder of games) still frees what it no longer holds, scanning young objects less often
(:data:`YOUNG`). At the end the command's own objects are frozen too: the exit then has nothing
to scan. Memory is freed as before, by reference counts.
"""

from __future__ import annotations

import gc

YOUNG = 20_000  # allocations between two scans of the young objects while a command runs


def main() -> None:
    """Console-script entry point: run the command line (:func:`rebis_pbm.cli.main`), which
    exits with the command's exit code (docs/cli.md)."""
    gc.disable()
    try:
        from rebis_pbm.cli import main as command_line
    finally:
        gc.freeze()
        # The young objects are scanned every YOUNG allocations rather than 700: a command
        # makes many at a time (a record's moves, a mail's parts), and holds most of them.
        gc.set_threshold(YOUNG, *gc.get_threshold()[1:])
        gc.enable()
    try:
        command_line()
    finally:
        gc.freeze()


if __name__ == "__main__":  # importing the module (doctest collection) runs nothing
    main()
