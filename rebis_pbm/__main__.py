"""``python -m rebis_pbm``: the same as the ``rebis-pbm`` command."""

from .cli import main

main()
