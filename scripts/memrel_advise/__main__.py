"""python3 -m memrel_advise ADVISE.json --out DIR: advise.html and its chart (page.py)."""

import signal
import sys

import memrel_outputs.stopping

from .page import main

try:
    sys.exit(main())
except (KeyboardInterrupt, memrel_outputs.stopping.Stopped) as e:
    # Asked to stop (memrel passed the signal on): one line, 128 + signal, nothing left.
    number = getattr(e, "signal_number", signal.SIGINT)
    print(f"memrel advise: stopped by {signal.Signals(number).name}; no page written",
          file=sys.stderr)
    sys.exit(128 + number)
except SystemExit as e:
    # A string: one line naming the file (unusable input), exit 2 as the report's.
    if isinstance(e.code, str):
        print(e.code, file=sys.stderr)
        sys.exit(2)
    raise
