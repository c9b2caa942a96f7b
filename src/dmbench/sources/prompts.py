"""The four upstream prompt files the LLM candidates send, pinned by sha256.

The prompts are research data under the upstream licence, so the project never commits them:
``dmbench build`` copies them from the pinned sources into the package's ``prompts/`` folder
(:func:`install_prompts`), and every reader goes through :func:`load_prompt`, which refuses a file
whose bytes differ from the published ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dmbench.core import atomic, paths
from dmbench.core.hashing import sha256_bytes
from dmbench.core.inputs import decode
from dmbench.errors import InputError, SourceError, UnknownNameError
from dmbench.sources.pins import BENCHMARK_REPO, pinned

PROMPTS_DIR = "prompts"


@dataclass(frozen=True, slots=True)
class PromptFile:
    """One pinned upstream prompt file: where it comes from, which candidate uses it in which role."""
    name: str
    upstream_path: str
    role: str
    candidate: str

    @property
    def sha256(self) -> str:
        """The hash pinned for the upstream file in ``sources/pins.json``, the one list of them."""
        return pinned(f"{BENCHMARK_REPO}/{self.upstream_path}").sha256


_CHEN = "Candidates/AutomatedDomainModelling_zenodo/zero_shot"
PROMPTS: dict[str, PromptFile] = {
    prompt.name: prompt
    for prompt in (
        PromptFile(
            "chen_system.txt",
            f"{_CHEN}/prompt_system.txt",
            "stage 1 system message",
            "chen",
        ),
        PromptFile(
            "chen_task.txt",
            f"{_CHEN}/prompt_task.txt",
            "stage 1 first user turn (DSL format instruction)",
            "chen",
        ),
        PromptFile(
            "chen_translate.txt",
            f"{_CHEN}/prompt_translate.txt",
            "stage 2 system message (DSL to PlantUML translator)",
            "chen",
        ),
        PromptFile(
            "calamo_system.txt",
            "Candidates/text2uml-kaiser/zero_shot/prompt.txt",
            "system message",
            "calamo",
        ),
    )
}


def _candidates_paths(root: Path, prompt: PromptFile) -> list[Path]:
    """A package directory, a sources directory, or the benchmark repository itself."""
    return [
        root / PROMPTS_DIR / prompt.name,
        root / BENCHMARK_REPO / prompt.upstream_path,
        root / prompt.upstream_path,
    ]


def load_prompt_bytes(root: Path, name: str) -> bytes:
    """A pinned prompt's bytes, refused unless they hash to the pin, so a run never uses a prompt
    other than the one it names."""
    if name not in PROMPTS:
        raise UnknownNameError(f"unknown prompt {name!r}; known: {', '.join(sorted(PROMPTS))}")
    prompt = PROMPTS[name]
    for path in _candidates_paths(Path(root), prompt):
        if path.is_file():
            data = path.read_bytes()
            digest = sha256_bytes(data)
            if digest != prompt.sha256:
                raise SourceError(
                    f"{path}: sha256 {digest} differs from the pinned {prompt.sha256}; "
                    "re-fetch the sources with `dmbench sources fetch`"
                )
            return data
    raise SourceError(
        f"prompt {name!r} not found under {root} (looked for {PROMPTS_DIR}/{name} and "
        f"{prompt.upstream_path}); run `dmbench build` or pass the sources directory"
    )


def load_prompt(root: Path, name: str) -> str:
    """The prompt's exact text (UTF-8, no newline translation, no stripping)."""
    return load_prompt_bytes(root, name).decode("utf-8")


def default_root() -> Path:
    """The built package's ``prompts/`` when present, else the upstream sources."""
    here = paths.package_dir()
    return here if (here / PROMPTS_DIR).is_dir() else paths.default_sources_dir()


def load_prompts(
    root: Path | None, names: tuple[str, ...]
) -> tuple[dict[str, str], dict[str, str]]:
    """The texts of ``names`` and their sha256s, read from ``root`` or :func:`default_root`."""
    base = Path(root) if root is not None else default_root()
    texts = {name: load_prompt(base, name) for name in names}
    return texts, {name: PROMPTS[name].sha256 for name in names}


def load_variant(
    folder: Path, names: tuple[str, ...]
) -> tuple[dict[str, str], dict[str, str]]:
    """A prompt variant: the texts of ``names`` from ``folder`` (same file names as the pinned
    prompts, any content) and their sha256s, which the run records."""
    folder = Path(folder)
    missing = [name for name in names if not (folder / name).is_file()]
    if missing:
        raise InputError(
            f"--prompts {folder}: no {', '.join(missing)}",
            hint=f"a prompt variant holds the pinned prompts' file names: {', '.join(names)}",
        )
    texts, hashes = {}, {}
    for name in names:
        data = (folder / name).read_bytes()
        texts[name] = decode(data, str(folder / name))
        hashes[name] = sha256_bytes(data)
    return texts, hashes


def install_prompts(sources: Path, package_dir: Path) -> list[Path]:
    """Copy the checked prompt files into ``<package_dir>/prompts/`` for the build."""
    written = []
    for name in PROMPTS:
        target = Path(package_dir) / PROMPTS_DIR / name
        atomic.write_bytes(target, load_prompt_bytes(sources, name))
        written.append(target)
    return written
