"""FEN in the Fairy-Stockfish dialect: parse to a plain Setup and format back.

Supports multi-digit empty runs (`10`), promoted pieces (`+P`), pockets (`[Pp]` or an extra
rank), and KQkq / X-FEN / Shredder-FEN castling. Errors are ValueErrors naming the field.
Checks that need attacks (side not to move in check) are done by Position.set_fen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .defs import MAXHAND
from .rules import Rules

FILES = "abcdefghijklmnop"
# Largest halfmove clock and fullmove number a FEN may give: far beyond any real game, and far
# below the 32-bit ints the core keeps them in (the game ply is 2 * fullmove).
MAX_COUNTER = 1_000_000
MAX_COUNT_LIMIT = 1000  # a counting rule's limit in plies (Makruk's and Sittuyin's are <= 128)


@dataclass
class Setup:
    """A position as plain data, independent of the mailbox arrays."""

    pieces: dict[int, int]  # square -> piece code (2 * type + colour)
    side: int = 0
    castling: list[int] = field(default_factory=list)  # rook squares that keep a right
    ep: int = 0
    halfmove: int = 0
    fullmove: int = 1
    hand: dict[int, int] = field(default_factory=dict)  # piece code -> count
    checks: tuple[int, int] | None = None  # checks each side still has to give (3check)
    # makruk counting (countingRule): the limit in plies (0 = not counting) and the count so
    # far; FSF writes them in the e.p. and halfmove fields while a count runs (`b - 32 6 1`)
    count_limit: int = 0
    count_ply: int = 0
    # cambodianMoves: gates as (colour, file) on the colour's castling rank (Fairy-Stockfish's
    # gating letters in the castling field, `DEde`): an unmoved king or met there may leap
    gates: list[tuple[int, int]] = field(default_factory=list)


def _piece_code(rules: Rules, token: str) -> int:
    """Piece code of a FEN token: the type's letter in either case ('N', '+p', 'Q~').

    A trailing '~' marks a promoted piece in crazyhouse FENs; where the variant has no type
    of that name (no promoted twins), the plain piece is meant.
    """
    color = 0 if next(c for c in token if c.isalpha()).isupper() else 1
    candidates = [token, token[:-1]] if token.endswith("~") else [token]
    for name in candidates:
        try:
            return 2 * rules.piece_index(name) + color
        except ValueError:
            continue
    raise ValueError(f"piece placement: unknown piece {token!r} in {rules.name}")


def _parse_hand(rules: Rules, text: str, hand: dict[int, int]) -> None:
    """Read pocket letters into hand counts."""
    for char in text:
        if char == "-":
            continue
        if not char.isalpha():
            raise ValueError(f"pocket: unexpected character {char!r}")
        code = _piece_code(rules, char)
        hand[code] = hand.get(code, 0) + 1
        if hand[code] >= MAXHAND:  # the hash keys count up to MAXHAND - 1 of a piece
            raise ValueError(f"pocket: more than {MAXHAND - 1} {char!r} in hand")


def _parse_placement(rules: Rules, text: str, setup: Setup) -> None:
    """Read the piece-placement field (and a pocket) into the setup."""
    pocket = None
    if "[" in text:
        if not text.endswith("]"):
            raise ValueError("piece placement: pocket '[' without closing ']'")
        text, pocket = text[:-1].split("[", 1)
    rows = text.split("/")
    if len(rows) == rules.ranks + 1 and rules.drops and pocket is None:
        pocket = rows.pop()  # crazyhouse style: the pocket as an extra rank
    if len(rows) != rules.ranks:
        raise ValueError(f"piece placement: {len(rows)} ranks, {rules.name} has {rules.ranks}")
    for row_index, row in enumerate(rows):
        rank = rules.ranks - 1 - row_index
        file = 0
        i = 0
        while i < len(row):
            char = row[i]
            if _digits(char):
                j = i
                while j < len(row) and _digits(row[j]):
                    j += 1
                run = int(row[i:j])
                if run == 0:
                    raise ValueError(f"piece placement: empty run of 0 in rank {rank + 1}")
                file += run
                i = j
                continue
            token = ""
            if char == "+":
                token = "+"
                i += 1
                if i >= len(row) or not row[i].isalpha():
                    raise ValueError(f"piece placement: '+' without a piece in rank {rank + 1}")
                char = row[i]
            if not char.isalpha():
                raise ValueError(f"piece placement: unexpected {char!r} in rank {rank + 1}")
            token += char
            if i + 1 < len(row) and row[i + 1] == "~":
                token += "~"
                i += 1
            if file >= rules.files:
                raise ValueError(
                    f"piece placement: rank {rank + 1} has more than {rules.files} files"
                )
            setup.pieces[rules.square(file, rank)] = _piece_code(rules, token)
            file += 1
            i += 1
        if file != rules.files:
            raise ValueError(
                f"piece placement: rank {rank + 1} has {file} files, {rules.name} has {rules.files}"
            )
    if pocket is not None:
        if not (rules.drops or rules.seirawan_gating):
            raise ValueError(f"piece placement: {rules.name} has no pieces in hand")
        _parse_hand(rules, pocket, setup.hand)


def _royal_square(rules: Rules, setup: Setup, color: int) -> int | None:
    """Square of the colour's royal piece, if any."""
    for sq, code in setup.pieces.items():
        if code & 1 == color and rules.pieces[(code >> 1) - 1].royal:
            return sq
    return None


def castling_king_square(rules: Rules, setup: Setup, color: int) -> int | None:
    """Square of the piece that castles: the royal piece, or in a variant without one (giveaway)
    the castling king piece on its file of the castling rank (Fairy-Stockfish 11.1's e-file)."""
    if any(p.royal for p in rules.pieces):
        return _royal_square(rules, setup, color)
    rank = rules.castling_rank_of(color)
    sq = rules.square(rules.castling_king_file, rank)
    code = setup.pieces.get(sq)
    if (
        code is None
        or code & 1 != color
        or rules.pieces[(code >> 1) - 1].letter != (rules.castling_king)
    ):
        return None
    return sq


def _parse_castling(rules: Rules, text: str, setup: Setup) -> None:
    """Read KQkq, X-FEN or Shredder-FEN castling rights as rook squares."""
    if text == "-":
        return
    if rules.cambodian_moves:
        _parse_gates(rules, text, setup)
        return
    if rules.seirawan_gating:
        _parse_seirawan(rules, text, setup)
        return
    if not rules.castling:
        raise ValueError(f"castling: {rules.name} has no castling, expected '-'")
    rook_type = rules.piece_index(rules.castling_rook)
    for char in text:
        color = 0 if char.isupper() else 1
        rank = rules.castling_rank_of(color)
        king = castling_king_square(rules, setup, color)
        if king is None or rules.rank_of(king) != rank:
            raise ValueError(f"castling: right {char!r} but no king on its castling rank")
        king_file = rules.file_of(king)
        rook = 2 * rook_type + color
        upper = char.upper()
        if upper in ("K", "Q"):
            step = 1 if upper == "K" else -1
            files = range(rules.files - 1, king_file, -1) if step == 1 else range(0, king_file)
            found = [f for f in files if setup.pieces.get(rules.square(f, rank)) == rook]
            if not found:
                side = "king" if step == 1 else "queen"
                raise ValueError(f"castling: right {char!r} but no rook on the {side}side")
            rook_file = found[0]  # the outermost rook (X-FEN)
        elif upper in FILES[: rules.files].upper():
            rook_file = FILES.index(upper.lower())
            if setup.pieces.get(rules.square(rook_file, rank)) != rook or rook_file == king_file:
                raise ValueError(f"castling: right {char!r} but no rook on that file")
        else:
            raise ValueError(f"castling: unexpected character {char!r}")
        sq = rules.square(rook_file, rank)
        if sq in setup.castling:
            raise ValueError(f"castling: right {char!r} given twice")
        same_side = [
            r
            for r in setup.castling
            if rules.rank_of(r) == rank
            and (rules.file_of(r) > king_file) == (rook_file > king_file)
        ]
        if same_side:
            raise ValueError(f"castling: two rights on the same side for {char!r}")
        setup.castling.append(sq)


def _parse_gates(rules: Rules, text: str, setup: Setup) -> None:
    """Read gating letters (a file each, upper case for White) as gates."""
    files = FILES[: rules.files]
    for char in text:
        if char.lower() not in files:
            raise ValueError(f"castling: {char!r} is not a gate file of {rules.name}")
        gate = (0 if char.isupper() else 1, files.index(char.lower()))
        if gate in setup.gates:
            raise ValueError(f"castling: gate {char!r} given twice")
        setup.gates.append(gate)


def _parse_ep(rules: Rules, text: str, setup: Setup) -> None:
    """Read the en-passant square and check that a pawn just double-stepped past it."""
    if text == "-":
        return
    try:
        sq = rules.parse_square(text)
    except ValueError as error:
        raise ValueError(f"en passant: {error}") from None
    mover = setup.side ^ 1  # the side that made the double step
    forward = 1 if mover == 0 else -1
    file, rank = rules.file_of(sq), rules.rank_of(sq)
    victim = rules.square(file, rank + forward) if 0 <= rank + forward < rules.ranks else None
    origin = rules.square(file, rank - forward) if 0 <= rank - forward < rules.ranks else None
    code = setup.pieces.get(victim) if victim is not None else None
    pawn_there = code is not None and code & 1 == mover and rules.pieces[(code >> 1) - 1].pawn
    if not (rules.en_passant and pawn_there and sq not in setup.pieces):
        raise ValueError(f"en passant: {text} is not behind a pawn that just made a double step")
    if origin is None or origin in setup.pieces:
        raise ValueError(f"en passant: {text} is impossible, the double step's origin is occupied")
    setup.ep = sq


def _digits(text: str) -> bool:
    """Whether text is a run of ASCII digits (str.isdigit also accepts '²' and other scripts)."""
    return text.isascii() and text.isdigit()


def _parse_counter(text: str, name: str, minimum: int, maximum: int = MAX_COUNTER) -> int:
    """A move counter in minimum..maximum (the core keeps counters in 32-bit ints)."""
    if not _digits(text):
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {text!r}")
    value = int(text)
    if not minimum <= value <= maximum:
        shown = text if len(text) <= 20 else text[:20] + "..."
        raise ValueError(f"{name}: {shown} is out of range ({minimum} to {maximum})")
    return value


def _parse_checks(rules: Rules, text: str) -> tuple[int, int]:
    """Check counters: Fairy-Stockfish's `W+B` (checks each side still has to give) or
    lichess's `+W+B` (checks each side has given, counted down from the start position's)."""
    match = re.fullmatch(r"(\+?)([0-9])\+([0-9])", text)
    if match is None:
        raise ValueError(f"check counters: expected like 3+3 (or +0+0), got {text!r}")
    white, black = int(match.group(2)), int(match.group(3))
    if not match.group(1):
        return white, black
    start = _start_checks(rules)
    if white > start[0] or black > start[1]:
        raise ValueError(f"check counters: {text!r} counts more checks than the game allows")
    return start[0] - white, start[1] - black


def _start_checks(rules: Rules) -> tuple[int, int]:
    """The check counters of the variant's start position (1+1 when it gives none, as FSF)."""
    for token in rules.start_fen.split()[1:]:
        match = re.fullmatch(r"([0-9])\+([0-9])", token)
        if match:
            return int(match.group(1)), int(match.group(2))
    return 1, 1


def parse(rules: Rules, fen: str) -> Setup:
    """Parse a FEN for the given rules; ValueError names the field that is wrong."""
    if not isinstance(fen, str):
        raise ValueError("FEN must be a string")
    fields = fen.split()
    if len(fields) == 4 and _digits(fields[2]) and _digits(fields[3]):
        fields[2:2] = ["-", "-"]  # shogi-style FEN (`[-] w 0 1`): no castling, no e.p.
    checks = None
    if len(fields) > 4 and ("+" in fields[4] or (rules.check_counting and len(fields) == 7)):
        if not rules.check_counting:
            raise ValueError(f"check counters: {rules.name} does not count checks")
        checks = _parse_checks(rules, fields.pop(4))
    elif rules.check_counting:
        checks = (1, 1)  # Fairy-Stockfish: without counters the next check wins
    if not 1 <= len(fields) <= 6:
        raise ValueError(f"FEN has {len(fields)} fields, expected 1 to 6")
    setup = Setup(pieces={}, checks=checks)
    _parse_placement(rules, fields[0], setup)
    side = fields[1] if len(fields) > 1 else "w"
    if side not in ("w", "b"):
        raise ValueError(f"side to move: expected 'w' or 'b', got {side!r}")
    setup.side = 0 if side == "w" else 1
    _validate_pieces(rules, setup)
    _parse_castling(rules, fields[2] if len(fields) > 2 else "-", setup)
    counting = rules.counting_rule != "none" and len(fields) > 3 and _digits(fields[3])
    if counting:
        setup.count_limit = _parse_counter(fields[3], "counting limit", 1, MAX_COUNT_LIMIT)
    else:
        _parse_ep(rules, fields[3] if len(fields) > 3 else "-", setup)
    if len(fields) > 4:
        setup.halfmove = _parse_counter(fields[4], "halfmove clock", 0)
        if counting:
            setup.count_ply = setup.halfmove
    if len(fields) > 5:
        setup.fullmove = _parse_counter(fields[5], "fullmove number", 1)
    return setup


def _start_royals(rules: Rules) -> tuple[int, int]:
    """Royal pieces per side: one each if the variant has a royal type, unless its start
    position gives one side none (horde-like games; a start without any king is an error)."""
    cached = rules.__dict__.get("_start_royals")
    if cached is None:
        cached = rules.__dict__["_start_royals"] = _count_start_royals(rules)
    return cached


def _count_start_royals(rules: Rules) -> tuple[int, int]:
    """_start_royals, computed from the start position."""
    if not any(p.royal for p in rules.pieces):
        return (0, 0)
    start = Setup(pieces={})
    try:
        _parse_placement(rules, rules.start_fen.split()[0], start)
    except (ValueError, IndexError):
        return (1, 1)
    counts = [0, 0]
    for code in start.pieces.values():
        if rules.pieces[(code >> 1) - 1].royal:
            counts[code & 1] += 1
    for code, number in start.hand.items():  # sittuyin: the kings start in hand
        if rules.pieces[(code >> 1) - 1].royal:
            counts[code & 1] += number
    if counts == [0, 0]:
        return (1, 1)
    return (min(counts[0], 1), min(counts[1], 1))


def _validate_pieces(rules: Rules, setup: Setup) -> None:
    """Royal counts, confined pieces and pawn ranks that no game can reach."""
    expected = _start_royals(rules)
    for color, name in ((0, "white"), (1, "black")):
        royals = [
            sq
            for sq, code in setup.pieces.items()
            if code & 1 == color and rules.pieces[(code >> 1) - 1].royal
        ]
        held = sum(
            number
            for code, number in setup.hand.items()
            if code & 1 == color and rules.pieces[(code >> 1) - 1].royal
        )
        # atomic: a king may have exploded (the game is over, its FEN still reads back)
        gone = rules.blast_on_capture and len(royals) + held == 0
        if (len(royals) + held != expected[color] and not gone) or len(royals) > 1:
            count = len(royals) + held
            raise ValueError(
                f"piece placement: {name} has {count} kings, expected {expected[color]}"
            )
        if sum(1 for code in setup.pieces.values() if code & 1 == color) > 64:
            raise ValueError(f"piece placement: {name} has more than 64 pieces")
    for sq, code in setup.pieces.items():
        # A confined piece (xiangqi's general and advisors in the palace, its elephants on
        # their side of the river) never stands outside its region in any game.
        region = rules.pieces[(code >> 1) - 1].region
        if region is not None and (rules.file_of(sq), rules.rank_of(sq)) not in region[code & 1]:
            colour = "white" if code & 1 == 0 else "black"
            raise ValueError(
                f"piece placement: {colour} {rules.pieces[(code >> 1) - 1].name} on"
                f" {rules.square_name(sq)} is outside the squares it is confined to"
            )
    black_double = rules.double_step_ranks_black
    if black_double is None:
        black_double = rules.double_step_ranks
    firsts = (min(rules.double_step_ranks, default=0), min(black_double, default=0))
    for sq, code in setup.pieces.items():
        piece = rules.pieces[(code >> 1) - 1]
        if not piece.pawn:
            continue
        first = firsts[code & 1]
        rank = rules.rank_of(sq) if code & 1 == 0 else rules.ranks - 1 - rules.rank_of(sq)
        # In the promotion zone only where promotion is optional (grand chess) and not on the
        # last rank, which a pawn could never leave.
        zone = rank in rules.promotion_ranks and rules.promotion_letters
        if rank < first or (zone and (rules.mandatory_promotion or rank == rules.ranks - 1)):
            raise ValueError(
                f"piece placement: pawn on {rules.square_name(sq)} cannot stand on that rank"
            )


def render(rules: Rules, setup: Setup) -> str:
    """Format a setup as FEN (X-FEN castling: KQkq unless a rook is not the outermost)."""
    rows = []
    for rank in range(rules.ranks - 1, -1, -1):
        row, empty = "", 0
        for file in range(rules.files):
            code = setup.pieces.get(rules.square(file, rank))
            if code is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += _letter(rules, code)
        rows.append(row + (str(empty) if empty else ""))
    placement = "/".join(rows)
    if rules.drops or rules.seirawan_gating:
        pocket = "".join(
            _letter(rules, code) * count
            for code, count in sorted(setup.hand.items(), key=lambda kv: (kv[0] & 1, -kv[0]))
            if count
        )
        placement += f"[{pocket}]"
    if rules.seirawan_gating:
        castling = _format_seirawan(rules, setup) or "-"
    else:
        castling = (_format_castling(rules, setup) + _format_gates(setup)) or "-"
    ep = rules.square_name(setup.ep) if setup.ep else "-"
    halfmove = setup.halfmove
    if setup.count_limit:
        ep, halfmove = str(setup.count_limit), setup.count_ply
    side = "wb"[setup.side]
    if rules.check_counting:
        white, black = setup.checks if setup.checks is not None else (1, 1)
        ep += f" {white}+{black}"
    return f"{placement} {side} {castling} {ep} {halfmove} {setup.fullmove}"


def _letter(rules: Rules, code: int) -> str:
    """FEN token of a piece code: its type's letter ('+P' shogi, 'Q~' crazyhouse), cased."""
    letter = rules.pieces[(code >> 1) - 1].letter
    return letter if code & 1 == 0 else letter.lower()


def _format_castling(rules: Rules, setup: Setup) -> str:
    """Castling field: K/Q for outermost rooks, file letters otherwise (X-FEN)."""
    out = []
    for color in (0, 1):
        king = castling_king_square(rules, setup, color)
        rank = rules.castling_rank_of(color)
        if king is None or rules.rank_of(king) != rank:
            continue  # (a king off its castling rank has no rights; the rights there are not its)
        rights = sorted(
            (sq for sq in setup.castling if rules.rank_of(sq) == rank),
            key=lambda sq: -rules.file_of(sq),
        )
        for sq in rights:
            file = rules.file_of(sq)
            kingside = file > rules.file_of(king)
            rook = setup.pieces.get(sq)
            between = range(file + 1, rules.files) if kingside else range(0, file)
            outer = any(setup.pieces.get(rules.square(f, rank)) == rook for f in between)
            letter = FILES[file].upper() if outer else ("K" if kingside else "Q")
            out.append(letter if color == 0 else letter.lower())
    return "".join(out)


def _format_gates(setup: Setup) -> str:
    """Gating letters: White's gate files in upper case, then Black's (as FSF writes them)."""
    return "".join(
        FILES[file].upper() if color == 0 else FILES[file] for color, file in sorted(setup.gates)
    )


# --- gating and two-board games (vargate)


def _parse_seirawan(rules: Rules, text: str, setup: Setup) -> None:
    """seirawanGating's castling field, read as Fairy-Stockfish reads it: K and Q give a
    castling right and open the gates of its rook and of the king; a file letter opens that
    gate (and is a Shredder-FEN right only for a side with an empty hand in a game without
    captures to hand); a king on an open gate whose side has no right then castles with each
    rook on an open gate. Gates of a side that has nothing to gate (empty hand, no captures
    to hand) are dropped, as Fairy-Stockfish drops them at that side's next move."""
    rook_type = rules.piece_index(rules.castling_rook)
    gates: set[tuple[int, int]] = set()
    for char in text:
        color = 0 if char.isupper() else 1
        rank = rules.castling_rank_of(color)
        king = castling_king_square(rules, setup, color)
        king_file = rules.file_of(king) if king is not None and rules.rank_of(king) == rank else -1
        rook = 2 * rook_type + color
        upper = char.upper()
        if upper in ("K", "Q"):
            if king_file < 0:
                raise ValueError(f"castling: right {char!r} but no king on its castling rank")
            files = range(rules.files - 1, king_file, -1) if upper == "K" else range(king_file)
            found = [f for f in files if setup.pieces.get(rules.square(f, rank)) == rook]
            if not found:
                side = "king" if upper == "K" else "queen"
                raise ValueError(f"castling: right {char!r} but no rook on the {side}side")
            gates |= {(color, found[0]), (color, king_file)}
            _add_right(rules, setup, rules.square(found[0], rank), king_file, char)
        elif upper.lower() in FILES[: rules.files]:
            file = FILES.index(upper.lower())
            gates.add((color, file))
            sq = rules.square(file, rank)
            if (
                not _holds(setup, color)
                and not rules.captures_to_hand
                and setup.pieces.get(sq) == rook
                and 0 <= king_file != file
            ):
                _add_right(rules, setup, sq, king_file, char)
        else:
            raise ValueError(f"castling: unexpected character {char!r}")
    for color in (0, 1):
        rank = rules.castling_rank_of(color)
        king = castling_king_square(rules, setup, color)
        if (
            king is None
            or rules.rank_of(king) != rank
            or (color, rules.file_of(king)) not in gates
            or any(rules.rank_of(r) == rank for r in setup.castling)
            or not (_holds(setup, color) or rules.captures_to_hand)
        ):
            continue
        for file in sorted(f for c, f in gates if c == color):
            sq = rules.square(file, rank)
            if setup.pieces.get(sq) == 2 * rook_type + color and file != rules.file_of(king):
                kingside = file > rules.file_of(king)
                if not any(
                    rules.rank_of(r) == rank
                    and (rules.file_of(r) > rules.file_of(king)) == kingside
                    for r in setup.castling
                ):
                    setup.castling.append(sq)
    setup.gates = sorted(g for g in gates if rules.captures_to_hand or _holds(setup, g[0]))


def _holds(setup: Setup, color: int) -> bool:
    """Whether the colour has a piece in hand."""
    return any(n > 0 for code, n in setup.hand.items() if code & 1 == color)


def _add_right(rules: Rules, setup: Setup, sq: int, king_file: int, char: str) -> None:
    """Add the castling right of the rook on sq (one per side of the king)."""
    if sq in setup.castling:
        raise ValueError(f"castling: right {char!r} given twice")
    kingside = rules.file_of(sq) > king_file
    for r in setup.castling:
        if rules.rank_of(r) == rules.rank_of(sq) and (rules.file_of(r) > king_file) == kingside:
            raise ValueError(f"castling: two rights on the same side for {char!r}")
    setup.castling.append(sq)


def _format_seirawan(rules: Rules, setup: Setup) -> str:
    """seirawanGating's castling field: each side's rights (KQ), then its open gates that
    the rights do not imply (the rooks' and the king's files), as `KQBCDFGkqbcdfg`."""
    rights = _format_castling(rules, setup)
    out = ""
    for color in (0, 1):
        mine = "".join(c for c in rights if c.isupper() == (color == 0))
        implied = {
            rules.file_of(sq) for sq in setup.castling if (setup.pieces.get(sq, 0) & 1) == color
        }
        king = castling_king_square(rules, setup, color)
        if implied and king is not None:
            implied.add(rules.file_of(king))
        gates = "".join(FILES[f] for c, f in setup.gates if c == color and f not in implied)
        out += mine + (gates.upper() if color == 0 else gates)
    return out
