"""``python -m dmbench``: the command line, for environments without the ``dmbench`` script."""

from dmbench.cli import main

main()
