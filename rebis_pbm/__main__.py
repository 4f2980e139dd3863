"""``python -m rebis_pbm``: the same as the ``rebis-pbm`` command."""

from rebis_pbm.start import main

if __name__ == "__main__":  # importing the module (doctest collection) runs nothing
    main()
