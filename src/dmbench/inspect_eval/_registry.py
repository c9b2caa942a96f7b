"""What inspect_ai's ``inspect_ai`` entry point loads: ``inspect eval dmbench/domain_modelling``."""

from dmbench.inspect_eval.task import domain_modelling

__all__ = ["domain_modelling"]
