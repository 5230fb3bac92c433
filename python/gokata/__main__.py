"""``python -m gokata``: the same as the ``gokata`` command."""

import sys

from gokata.cli import main

if __name__ == "__main__":
    sys.exit(main())
