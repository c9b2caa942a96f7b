"""PlantUML diagrams drawn as SVG by the real PlantUML, offline, cached by source hash.

``render_diagrams`` is the whole interface: give it PlantUML sources, get one SVG per distinct
source. What is not cached yet is drawn by a single Java process for the whole batch (a JVM per
diagram costs about five times as much); a diagram PlantUML rejects becomes a small SVG card with
PlantUML's own message, so a report always has something to show.
"""

from dmbench.render.plantuml import (
    LAYOUT,
    PLANTUML_VERSION,
    RenderBatch,
    Rendering,
    cache_dir_for,
    render_diagrams,
)

__all__ = [
    "LAYOUT",
    "PLANTUML_VERSION",
    "RenderBatch",
    "Rendering",
    "cache_dir_for",
    "render_diagrams",
]
