"""``python -m olearn train FILE --learner NAME ...``: see :mod:`olearn.cli`."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
