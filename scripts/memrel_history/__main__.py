"""`memrel history changes`: python -m memrel_history --db DB [options]."""

import sys

from memrel_history.changes import main

sys.exit(main(sys.argv[1:]))
