"""``python -m rebis_pbm.cli``: the same command line as ``rebis-pbm``."""

from rebis_pbm.start import main

if __name__ == "__main__":  # importing the module (doctest collection) runs nothing
    main()
