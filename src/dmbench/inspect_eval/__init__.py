"""dmbench through inspect_ai: the benchmark as an inspect task, and its eval logs as runs.

``task`` (with ``solver`` and ``scorer``) needs the optional extra ``dmbench[inspect]`` and is
loaded by inspect_ai through the ``inspect_ai`` entry point (``_registry``); ``logs`` turns an
eval log into a stored run and imports inspect_ai only when it reads one.
"""

from dmbench.inspect_eval.logs import ImportedRun, import_inspect_logs

__all__ = ["ImportedRun", "import_inspect_logs"]
