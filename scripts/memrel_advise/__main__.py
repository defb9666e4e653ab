"""python3 -m memrel_advise ADVISE.json --out DIR: advise.html and its chart (page.py)."""

import sys

from .page import main

try:
    sys.exit(main())
except SystemExit as e:
    # A string: one line naming the file (unusable input), exit 2 as the report's.
    if isinstance(e.code, str):
        print(e.code, file=sys.stderr)
        sys.exit(2)
    raise
