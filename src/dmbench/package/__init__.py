"""The Frictionless data package: records, prompts, runs, outputs, scores and their checks."""

from dmbench.package.build import BuildResult, build, refresh
from dmbench.package.folder import require_package, settle_interrupted_swap
from dmbench.package.validate import Report, validate_package
from dmbench.sources.records import DATASETS, BenchmarkRecord, load_records

__all__ = [
    "DATASETS",
    "BenchmarkRecord",
    "BuildResult",
    "Report",
    "build",
    "load_records",
    "refresh",
    "require_package",
    "settle_interrupted_swap",
    "validate_package",
]
