"""Write fastjsonschema's compiled check of each shipped schema it can compile (``make
schema-checks``): ``rebis_pbm/formats/_fastchecks/<name>.py``, the code
``fastjsonschema.compile`` would generate and run at every start, generated once here instead
(fastjsonschema's own
``compile_to_code``). Compiling the move schema was about 22 million instructions of every
``apply``, ``check`` and ``mail in``.

Each file names the SHA-256 of the schema text it was generated from and fastjsonschema's
version; :func:`rebis_pbm.formats.schemas.quickly_accepted` uses it only when both still match, and
compiles the schema itself otherwise, so a stale file costs time, never correctness.
tests/test_schemas_fast.py fails when a file is stale for the installed fastjsonschema.

Usage: python scripts/compile-schema-checks.py [--check]
"""

from __future__ import annotations

import sys
from pathlib import Path

from rebis_pbm.formats import schemas

OUT = Path(__file__).resolve().parent.parent / "rebis_pbm" / "formats" / "_fastchecks"


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for name in schemas.SCHEMA_NAMES:
        code = schemas.fast_check_code(name)
        if code is None:
            continue
        path = OUT / f"{name}.py"
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != code:
                stale.append(path)
        else:
            path.write_text(code, encoding="utf-8")
            print(f"wrote {path}")
    for path in stale:
        print(f"{path} is stale: run make schema-checks", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
