"""dmbench: a reproducible benchmark for automated domain modelling."""

__version__ = "0.1.0"
