"""The variant picker's catalogue: every variant the browser can play with a display name, its
family (chess, chess variants, shogi family, xiangqi family, regional, fairy), a line of rules,
its start position and look (for a small board picture), the names of its two sides (white and
black, sente and gote, red and black) and whether ferz has an opening book for it.

Built-in variants get the names their players use; a user's own variant (``ferz --variants
FILE``) is named from its description and placed by its look (a shogi-like or xiangqi-like
board joins that family, anything else is fairy)."""

from __future__ import annotations

import functools
from typing import Any

from . import boards

# The families in the order the picker shows them.
GROUPS = (
    ("chess", "Chess"),
    ("variants", "Chess variants"),
    ("shogi", "Shogi family"),
    ("xiangqi", "Xiangqi family"),
    ("regional", "Regional"),
    ("fairy", "Fairy"),
)

# name: (display name, family)
KNOWN: dict[str, tuple[str, str]] = {
    "chess": ("Chess", "chess"),
    "chess960": ("Chess960", "chess"),
    # chess with other rules, on the chess set
    "crazyhouse": ("Crazyhouse", "variants"),
    "kingofthehill": ("King of the Hill", "variants"),
    "3check": ("Three-check", "variants"),
    "5check": ("Five-check", "variants"),
    "antichess": ("Antichess", "variants"),
    "atomic": ("Atomic", "variants"),
    "horde": ("Horde", "variants"),
    "racingkings": ("Racing Kings", "variants"),
    "nocastle": ("No-castling chess", "variants"),
    "giveaway": ("Giveaway", "variants"),
    "suicide": ("Suicide chess", "variants"),
    "losers": ("Losers", "variants"),
    "codrus": ("Codrus", "variants"),
    "extinction": ("Extinction chess", "variants"),
    "kinglet": ("Kinglet", "variants"),
    "loop": ("Loop chess", "variants"),
    "chessgi": ("Chessgi", "variants"),
    "pocketknight": ("Pocket knight", "variants"),
    "placement": ("Placement chess", "variants"),
    "bughouse": ("Bughouse (one board)", "variants"),
    "koedem": ("Koedem", "variants"),
    "gardner": ("Gardner minichess", "variants"),
    "losalamos": ("Los Alamos chess", "variants"),
    # the shogi family
    "shogi": ("Shogi", "shogi"),
    "minishogi": ("Minishogi", "shogi"),
    "kyotoshogi": ("Kyoto shogi", "shogi"),
    "micro": ("Micro shogi", "shogi"),
    "judkins": ("Judkins shogi", "shogi"),
    "gorogoro": ("Goro goro shogi", "shogi"),
    "euroshogi": ("Euroshogi", "shogi"),
    "dobutsu": ("Dobutsu shogi", "shogi"),
    # the xiangqi family
    "xiangqi": ("Xiangqi", "xiangqi"),
    "minixiangqi": ("Minixiangqi", "xiangqi"),
    "manchu": ("Manchu chess", "xiangqi"),
    "supply": ("Supply chess", "xiangqi"),
    "janggi": ("Janggi", "xiangqi"),
    "janggitraditional": ("Janggi (traditional rules)", "xiangqi"),
    "janggimodern": ("Janggi (modern rules)", "xiangqi"),
    "janggicasual": ("Janggi (casual rules)", "xiangqi"),
    # the chess of other lands and times
    "makruk": ("Makruk (Thai chess)", "regional"),
    "cambodian": ("Ouk Khmer (Cambodian chess)", "regional"),
    "karouk": ("Kar Ouk", "regional"),
    "makpong": ("Makpong", "regional"),
    "ai-wok": ("Ai-wok", "regional"),
    "asean": ("ASEAN chess", "regional"),
    "sittuyin": ("Sittuyin (Burmese chess)", "regional"),
    "shatranj": ("Shatranj", "regional"),
    "courier": ("Courier chess", "regional"),
    "shatar": ("Shatar (Mongolian chess)", "regional"),
    # fairy pieces, other boards, other games
    "capablanca": ("Capablanca chess", "fairy"),
    "caparandom": ("Capablanca random", "fairy"),
    "capahouse": ("Capahouse", "fairy"),
    "grand": ("Grand chess", "fairy"),
    "embassy": ("Embassy chess", "fairy"),
    "gothic": ("Gothic chess", "fairy"),
    "janus": ("Janus chess", "fairy"),
    "centaur": ("Centaur chess", "fairy"),
    "modern": ("Modern chess", "fairy"),
    "chancellor": ("Chancellor chess", "fairy"),
    "shako": ("Shako", "fairy"),
    "amazon": ("Amazon chess", "fairy"),
    "almost": ("Almost chess", "fairy"),
    "chigorin": ("Chigorin chess", "fairy"),
    "hoppelpoppel": ("Hoppel-Poppel", "fairy"),
    "newzealand": ("New Zealand chess", "fairy"),
    "knightmate": ("Knightmate", "fairy"),
    "threekings": ("Three kings", "fairy"),
    "seirawan": ("Seirawan chess", "fairy"),
    "shouse": ("S-House (Seirawan crazyhouse)", "fairy"),
    "fairy": ("Fairy test chess", "fairy"),
    "breakthrough": ("Breakthrough", "fairy"),
    "clobber": ("Clobber", "fairy"),
    "clobber10": ("Clobber 10×10", "fairy"),
    "jesonmor": ("Jeson Mor", "fairy"),
}

SIDES = {
    "shogi": ("sente", "gote"),  # Sente (White in FEN) moves first
    "xiangqi": ("red", "black"),  # Red (White in FEN) moves first
}


@functools.lru_cache(maxsize=256)
def side_name(variant: str, color: str) -> str:
    """A side as the variant's players name it: white/black, sente/gote, red/black."""
    try:
        family = str(boards.board_look(variant)["family"])
    except (KeyError, ValueError):
        family = "chess"
    white, black = SIDES.get(family, ("white", "black"))
    return white if color == "white" else black


def title_of(name: str, description: str) -> str:
    """A variant's display name: its known one, else the head of its description."""
    if name in KNOWN:
        return KNOWN[name][0]
    head = description.split(":")[0].split(",")[0].split("(")[0].strip()
    return head[:40] if 2 <= len(head) <= 40 else name.capitalize()


def rules_line(description: str) -> str:
    """The description as a line of rules: 'Crazyhouse: captured pieces...' without the name
    the picker already shows."""
    head, sep, rest = description.partition(": ")
    if sep and len(head) <= 30 and rest:
        return rest[0].upper() + rest[1:]
    return description


def has_book(variant: str) -> bool:
    """Whether ferz plays this variant from an opening book (the bundled book: chess only)."""
    if variant != "chess":
        return False
    from ..book import bundled_book

    return bundled_book() is not None


def entry(name: str) -> dict[str, Any]:
    """One variant as the picker shows it (its card, plus name, family, sides and book)."""
    card = boards.variant_card(name)
    family = card["look"]["family"]  # type: ignore[index]
    group = KNOWN[name][1] if name in KNOWN else family if family in SIDES else "fairy"
    return {
        **card,
        "title": title_of(name, str(card["description"])),
        "rules": rules_line(str(card["description"])) or "A variant of a variants file.",
        "group": group,
        "sides": list(SIDES.get(str(family), ("white", "black"))),
        "book": has_book(name),
    }


@functools.lru_cache(maxsize=4)
def _catalogue(names: tuple[str, ...]) -> list[dict[str, Any]]:
    order = {key: i for i, (key, _) in enumerate(GROUPS)}
    known = list(KNOWN)
    entries, seen = [], set()
    for n in names:  # a user's variant named like an alias (normal) is that variant: once
        found = entry(n)
        if found["name"] not in seen:
            seen.add(found["name"])
            entries.append(found)
    names = tuple(e["name"] for e in entries)
    # each family in the order above (the most played first), users' variants after
    rank = {n: known.index(n) if n in KNOWN else len(known) for n in names}
    entries.sort(key=lambda e: (order[e["group"]], rank[e["name"]], e["title"]))
    return entries


def catalogue() -> dict[str, Any]:
    """Every playable variant grouped by family: {groups: [{key, title}], variants: [...]}."""
    return {
        "groups": [{"key": k, "title": t} for k, t in GROUPS],
        "variants": _catalogue(tuple(boards.variant_names())),
    }
