"""Engine options declared once as data, rendered by the UCI, xboard and web front ends."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["check", "spin", "combo", "button", "string"]
Value = bool | int | str | None


@dataclass
class Option:
    """One option: its UCI type, default, bounds or choices, and what happens when it changes."""

    name: str
    kind: Kind
    default: Value = None
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    help: str = ""
    on_change: Callable[[Value], None] | None = field(default=None, repr=False, compare=False)
    value: Value = None

    def __post_init__(self) -> None:
        self.value = self.default

    def parse(self, raw: Value) -> Value:
        """Convert a raw value (text from a protocol or a Python value) or raise ValueError."""
        if self.kind == "button":
            return None
        if self.kind == "check":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("true", "1", "on", "yes"):
                return True
            if text in ("false", "0", "off", "no"):
                return False
            raise ValueError(f"option {self.name}: expected true or false, got {raw!r}")
        if self.kind == "spin":
            try:
                number = int(str(raw).strip())
            except ValueError:
                raise ValueError(f"option {self.name}: expected an integer, got {raw!r}") from None
            if (self.min is not None and number < self.min) or (
                self.max is not None and number > self.max
            ):
                raise ValueError(f"option {self.name}: {number} is outside {self.min}..{self.max}")
            return number
        if self.kind == "combo":
            text = str(raw).strip()
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise ValueError(f"option {self.name}: {raw!r} is not one of {', '.join(self.choices)}")
        return "" if raw is None else str(raw)


class Options:
    """An ordered, case-insensitive collection of options."""

    def __init__(self, options: Iterable[Option] = ()) -> None:
        self._by_key: dict[str, Option] = {}
        for option in options:
            self.add(option)

    def add(self, option: Option) -> Option:
        """Declare an option; names are unique regardless of case."""
        key = option.name.lower()
        if key in self._by_key:
            raise ValueError(f"option {option.name} is declared twice")
        self._by_key[key] = option
        return option

    def __iter__(self) -> Iterator[Option]:
        return iter(self._by_key.values())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._by_key

    def __getitem__(self, name: str) -> Option:
        try:
            return self._by_key[name.lower()]
        except KeyError:
            raise KeyError(f"unknown option {name!r}") from None

    def get(self, name: str) -> Value:
        """The current value of an option."""
        return self[name].value

    def set(self, name: str, raw: Value) -> Value:
        """Validate and set an option, run its hook; on error nothing changes."""
        if name not in self:
            raise ValueError(f"unknown option {name!r}")
        option = self[name]
        value = option.parse(raw)
        if option.on_change is not None:
            option.on_change(value)  # may raise ValueError; then the old value stays
        if option.kind != "button":
            option.value = value
        return value
