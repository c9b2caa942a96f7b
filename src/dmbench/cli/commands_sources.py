"""Commands that import upstream inputs: ``sources fetch``, ``build``."""

COMMANDS: list = []
