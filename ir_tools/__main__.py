"""``python -m ir_tools``: the same command line as ``ir-tools``."""

from .cli import run

run()
