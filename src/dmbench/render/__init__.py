"""PlantUML's verdict on each diagram and its drawing as SVG, offline, cached by source hash.

``render_diagrams`` is the whole interface: give it PlantUML sources, get one ``Rendering`` per
distinct source. What is not cached yet is drawn by a single Java process per batch (a JVM per
diagram costs about five times as much); a diagram PlantUML rejects is drawn after the least
repair that makes it accept it, with PlantUML's message kept, and one nothing draws says why.
"""

from dmbench.render.plantuml import (
    LAYOUT,
    PLANTUML_VERSION,
    RenderBatch,
    Rendering,
    cache_dir_for,
    render_diagrams,
)
from dmbench.render.png import draw_png, png_cache_dir_for

__all__ = [
    "LAYOUT",
    "PLANTUML_VERSION",
    "RenderBatch",
    "Rendering",
    "cache_dir_for",
    "draw_png",
    "png_cache_dir_for",
    "render_diagrams",
]
