"""PlantUML as the test oracle: its own model of many diagrams, read in one JVM.

``PlantumlModel.java`` (beside this file, in ``plantuml_oracle/``) is compiled against the pinned
jar with ``javac`` once per session and run once over every file not yet cached; its verdicts are
cached by the source's sha256 under ``$DMBENCH_RENDER_CACHE``, as the drawings are.
``comparable`` turns PlantUML's model and the standard reading's into the same plain form, on the
points issue 31 names: the classes and their kinds, the relationships (unordered ends with the
multiplicity at each end) and, per class, its member lines told apart as attributes and methods.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

from dmbench.core import atomic
from dmbench.core.hashing import sha256_text
from dmbench.render.plantuml import _jar, find_java

JAVA_SOURCE = Path(__file__).parent / "plantuml_oracle" / "PlantumlModel.java"


def _cache_dir() -> Path:
    root = Path(os.environ.get("DMBENCH_RENDER_CACHE") or tempfile.gettempdir())
    return root / "plantuml-oracle"


def _compiled(cache: Path) -> Path:
    """The helper's class folder, compiled once per source and jar."""
    key = sha256_text(JAVA_SOURCE.read_text("utf-8") + str(_jar()))[:16]
    classes = cache / f"classes-{key}"
    if not (classes / "PlantumlModel.class").exists():
        work = Path(tempfile.mkdtemp(dir=cache, prefix=".javac-"))
        javac = shutil.which("javac") or str(Path(find_java()).resolve().with_name("javac"))
        subprocess.run(
            [javac, "-nowarn", "-cp", str(_jar()), "-d", str(work), str(JAVA_SOURCE)],
            check=True,
            capture_output=True,
        )
        if not classes.exists():  # another worker may have compiled it meanwhile
            work.rename(classes)
    return classes


def plantuml_models(texts: list[str]) -> dict[str, dict]:
    """PlantUML's verdict and model of each text, by the text's sha256."""
    cache = _cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    by_sha = {sha256_text(text): text for text in texts}
    found = {}
    for sha in by_sha:
        entry = cache / f"{sha}.json"
        if entry.exists():
            found[sha] = json.loads(entry.read_text("utf-8"))
    missing = {sha: text for sha, text in by_sha.items() if sha not in found}
    if missing:
        classes = _compiled(cache)
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            files = []
            for sha, text in missing.items():
                (Path(tmp) / f"{sha}.puml").write_text(text, encoding="utf-8")
                files.append(f"{sha}.puml")
            run = subprocess.run(
                [find_java(), "-XX:+UseSerialGC", "-Djava.awt.headless=true",
                 "-DPLANTUML_SECURITY_PROFILE=SANDBOX", "-cp", f"{_jar()}:{classes}",
                 "PlantumlModel", *files],
                cwd=tmp, capture_output=True, text=True, encoding="utf-8", check=True,
            )
        for line in run.stdout.splitlines():
            model = json.loads(line)
            sha = model.pop("file").removesuffix(".puml")
            atomic.write_json(cache / f"{sha}.json", model)
            found[sha] = model
    return found


#: PlantUML's kinds of classifier, as the standard reading names them (``Class.kind``).
KINDS = {
    "CLASS": "class", "ABSTRACT_CLASS": "abstract class", "INTERFACE": "interface",
    "ENUM": "enum", "ENTITY": "entity", "STRUCT": "struct", "PROTOCOL": "protocol",
    "ANNOTATION": "annotation", "EXCEPTION": "exception", "METACLASS": "metaclass",
    "STEREOTYPE": "stereotype", "DATACLASS": "dataclass", "RECORD": "record",
    "CIRCLE": "circle", "OBJECT": "object",
}
"""Entities that are not classifiers (notes, the point of an association class, lollipops)
and links to them are not compared: the model has no place for them."""
EMPTY = "Empty description"
"""PlantUML 1.2025's verdict on a block with nothing in it: no diagram at all, which the
standard reading reads as the empty model (the drawing step says 'not drawn')."""
_SEPARATOR = re.compile(r"^\s*(--|\.\.|==|__)")


def plantuml_comparable(model: dict) -> dict:
    """PlantUML's model on the compared points: kinds by name, relationship ends, member lines."""
    if model["verdict"] == "rejected" and model["error"].startswith(EMPTY):
        model = {"entities": [], "links": []}
    entities = [e for e in model["entities"] if e["type"] in KINDS]
    shorts = Counter(e["name"] for e in entities)
    entities = [  # two classes of one short name are told apart by their full names
        e if shorts[e["name"]] == 1 else {**e, "name": e["qualified"]} for e in entities
    ]
    names = {e["qualified"]: e["name"] for e in entities}
    links = Counter(
        tuple(sorted([(names[link["from"]], link["q1"]), (names[link["to"]], link["q2"])],
                     key=repr))
        for link in model["links"]
        if not link["invisible"] and link["from"] in names and link["to"] in names
    )
    links.update(_associations_through_points(model, names))
    return {
        "classes": {e["name"]: KINDS[e["type"]] for e in entities},
        "relationships": links,
        "members": {
            e["name"]: [f for f in e["fields"] if f.strip() and not _SEPARATOR.match(f)]
            for e in entities if e["fields"] and not e["type"] == "CIRCLE"
        },
        "methods": {e["name"]: len(e["methods"]) for e in entities if e["methods"]},
    }


def _associations_through_points(model: dict, names: dict) -> list[tuple]:
    """The association of each association class: PlantUML draws it as two links through a
    point (``A -- point -- B``, the multiplicities at the class ends), the first two of the
    point's links; the third goes to the association class."""
    ends: dict[str, list] = {}
    for link in model["links"]:
        for point, other, quantity in ((link["from"], link["to"], link["q2"]),
                                       (link["to"], link["from"], link["q1"])):
            if point.startswith("apoint") and point not in names and other in names:
                ends.setdefault(point, []).append((names[other], quantity))
    return [tuple(sorted(pair[:2], key=repr)) for pair in ends.values() if len(pair) >= 2]


def reading_comparable(diagram) -> dict:
    """The standard reading's model in the form of ``plantuml_comparable``.

    A member line PlantUML keeps as one field is one group here: the attributes the reading
    took from that line (a comma-separated line may give several), each named in the line."""
    classes = {name: "class" for name in diagram.implicit_classes}
    members: dict[str, list[list[str]]] = {}
    for cls in diagram.classes:
        classes[cls.name] = cls.kind or ("abstract class" if cls.is_abstract else "class")
        if cls.attributes:
            members[cls.name] = _groups((a.line, a.name) for a in cls.attributes)
    for enum in (*diagram.enums, *(e for c in diagram.classes for e in c.nested_enums)):
        classes[enum.name] = "enum"
        if enum.values:
            members[enum.name] = _groups(zip(enum.value_lines or enum.values, enum.values))
    links: Counter = Counter()
    for r in diagram.relationships:
        if r.association_members is None:
            links[_pair((r.source, r.source_cardinality), (r.target, r.target_cardinality))] += 1
    links.update(_associations(diagram.relationships))
    return {"classes": classes, "relationships": links, "members": members}


def _pair(one: tuple, other: tuple) -> tuple:
    return tuple(sorted([one, other], key=repr))


def _associations(relationships) -> list[tuple]:
    """PlantUML makes ``(A, B) .. C`` the association of an earlier link of A and B (drawn
    through a point, counted already as that link) or, with none, a new link of the two."""
    found, taken = [], set()
    for k, r in enumerate(relationships):
        if r.association_members is None:
            continue
        a, b = r.association_members
        earlier = next((j for j, s in enumerate(relationships[:k]) if j not in taken
                        and s.association_members is None and {s.source, s.target} == {a, b}),
                       None)
        if earlier is None:
            found.append(_pair((a, None), (b, None)))
        else:
            taken.add(earlier)
    return found


def _groups(items) -> list[list[str]]:
    groups: dict = {}
    for key, name in items:
        groups.setdefault(key, []).append(name)
    return list(groups.values())


def disagreements(plantuml: dict, reading: dict) -> list[str]:
    """What the two models say differently, one phrase each (empty when they agree)."""
    found = []
    if plantuml["classes"] != reading["classes"]:
        only_p = {k: v for k, v in plantuml["classes"].items() if reading["classes"].get(k) != v}
        only_r = {k: v for k, v in reading["classes"].items() if plantuml["classes"].get(k) != v}
        found.append(f"classes: PlantUML {only_p}, reading {only_r}")
    if plantuml["relationships"] != reading["relationships"]:
        found.append(
            f"relationships: PlantUML {dict(plantuml['relationships'] - reading['relationships'])}"
            f", reading {dict(reading['relationships'] - plantuml['relationships'])}"
        )
    for name in sorted(set(plantuml["members"]) | set(reading["members"])):
        fields = plantuml["members"].get(name, [])
        groups = reading["members"].get(name, [])
        if len(fields) != len(groups) or any(
            not all(_names(n, field) for n in group) for field, group in zip(fields, groups)
        ):
            found.append(f"members of {name}: PlantUML {fields}, reading {groups}")
    return found


def _names(name: str, field: str) -> bool:
    """Whether ``field`` holds ``name`` as a word, not inside a longer one."""
    return re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", field) is not None
