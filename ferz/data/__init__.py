"""Data that ships with ferz: match openings, EPD test suites and endgame tables (sources in
README.md here)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
OPENINGS = HERE / "openings.epd"
SUITES = HERE / "epd"
TABLES = HERE / "tables"


def tables(variant: str) -> Path | None:
    """The folder of ferz's own endgame tables bundled for a variant, or None."""
    folder = TABLES / variant
    return folder if variant.isidentifier() and folder.is_dir() else None


def suites() -> list[str]:
    """The names of the bundled EPD suites (`wac`, `bk`, `mate_in_2`, ...)."""
    return sorted(p.stem for p in SUITES.glob("*.epd"))


def suite(name: str) -> Path:
    """The path of a bundled EPD suite by name (`wac` or `wac.epd`); KeyError if unknown."""
    path = SUITES / (name if name.endswith(".epd") else name + ".epd")
    if path.parent != SUITES or not path.is_file():
        raise KeyError(f"no bundled suite {name!r} (bundled: {', '.join(suites())})")
    return path
