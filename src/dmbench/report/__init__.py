"""The report: a static HTML site of the package, every diagram drawn, with tables and plots.

``build_site(package_dir, out_dir)`` is the library call (the main job and the deposit use it);
``check_site`` is the link check every build runs on its own output.
"""

from dmbench.report.link_check import SiteCheck, check_site
from dmbench.report.site import SiteResult, build_site

__all__ = ["SiteCheck", "SiteResult", "build_site", "check_site"]
