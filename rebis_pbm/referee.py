"""The former name of the application layer, kept so that programs written against it still run.

New code imports :mod:`rebis_pbm.app` (docs/api.md); every public name of it is here too.
"""

from rebis_pbm.app import *  # noqa: F403
from rebis_pbm.app import __all__  # noqa: F401
