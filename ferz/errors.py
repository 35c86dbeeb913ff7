"""The failures a `ferz` command reports as one line (`ferz: error: ...`, exit 2) rather than
as a traceback: bad input is a ValueError, everything else that is not a bug is a `Failure`
(an engine that fails, a missing optional package). See README.md, "Errors"."""

from __future__ import annotations

#: the optional packages ferz imports, with the extra of pyproject.toml that installs each
EXTRAS = {
    "ray": "cluster",
    "starlette": "web",
    "uvicorn": "web",
    "websockets": "web",
    "chess": "bench",
    "numpy": "tune",
    "scipy": "tune",
    "torch": "train",
}


class Failure(Exception):
    """A command that cannot do what was asked for a reason outside ferz (not a bug): the
    command line prints its message as one line and exits 2."""


class MissingPackage(Failure):
    """An optional package that a feature needs is not installed."""

    def __init__(self, package: str, feature: str = "", pip: str = "") -> None:
        self.package = package
        pip = pip or package  # what `pip install` takes (ray: 'ray[default]')
        extra = EXTRAS.get(package)
        how = (
            f"pip install 'ferz[{extra}]' (or pip install {pip})" if extra else f"pip install {pip}"
        )
        needs = f"{feature} needs {package}" if feature else f"{package} is not installed"
        super().__init__(f"{needs}: {how}")


def missing_package(error: ImportError) -> MissingPackage | None:
    """The MissingPackage an ImportError means when one of the optional packages (EXTRAS) is
    absent, else None (any other missing module is a broken install, shown as a traceback)."""
    name = (getattr(error, "name", None) or "").split(".")[0]
    if not isinstance(error, ModuleNotFoundError) or name not in EXTRAS:
        return None
    return MissingPackage(name)
