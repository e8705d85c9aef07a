"""``python -m ir_tools``: the same command line as ``ir-tools``."""

import sys

from .cli import main

sys.exit(main())
