"""``python -m rebis_pbm``: the same as the ``rebis-pbm`` command (every command registered)."""

from .cli import main

if __name__ == "__main__":
    main()
