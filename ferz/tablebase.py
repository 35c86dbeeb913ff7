"""ferz's own endgame tables, for chess and every variant without pieces in hand.

Built by retrograde analysis over ferz's own move generator (ferz.core.tbgen), so each table
follows its variant's rules as ferz plays them: mate and stalemate values, bare king, flags,
the palace and the flying general. One file per material (``KRvK.fzt``: White's pieces, then
Black's) in a folder per variant::

    from ferz.board import Board
    from ferz.tablebase import build, open_tablebase

    build("xiangqi", "KRvK", "tables/xiangqi")        # and the tables it leads to
    with open_tablebase("tables/xiangqi", "xiangqi") as tables:
        board = Board("4k4/9/9/9/9/9/9/9/9/3K1R3 w - - 0 1", variant="xiangqi")
        tables.probe_wdl(board)  # 1: the side to move wins
        tables.probe_dtm(board)  # plies to mate: positive won, negative lost, 0 drawn

Where a perpetual check loses (xiangqi), the tables apply it, and xiangqi's chasing rule too:
a side that can only keep the draw by checking at every move, or by chasing one enemy piece at
every move, against answers that never check (nor chase), loses (a distance of RULE plies or
more: not a mate distance, see ferz.core.tbgen). A draw that such a rule might decide
otherwise is stored as UNSURE and gets no answer (``probe_*`` as for a position no table
holds, TB_FAIL for the search): the draws answered are the game's. What they leave out, by
design: the n-move rule does not apply (as Syzygy's WDL without its 50-move flags), and under
a counting rule (makruk) a win is only reported when the mate fits in what is left of the
count with a bare king on the board (else no answer).

File format 1 (``.fzt``): the line ``FERZTB 1``, one line of JSON (variant, rules fingerprint,
material, piece codes and squares per slot, mirror flag, number of positions, longest mate;
the repetition rules applied, for xiangqi), then the values, one little-endian int16 per
index, zlib-compressed. See docs/tablebases.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import zlib
from array import array
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path

from .board import Board, Move, rules_for
from .core import tbgen
from .core.chase import Chases
from .core.evaluate import Evaluator
from .core.position import Position
from .core.rules import Rules

MAGIC = b"FERZTB 1\n"
SUFFIX = ".fzt"
WIN, MINWIN, DRAWN, INVALID, NONE = 32000, 2000, 1, -32768, -32767
RULE = 10000  # tbgen.TB_RULE: distances from here on are wins by the perpetual-check rule
UNSURE = 2  # tbgen.TB_UNSURE: a draw unless a repetition rule decides otherwise (no answer)
TB_FAIL = 99  # the search's "no verdict" (ferz.core.search)
MAX_PIECES = 5  # the most a table may have (a 6-man table would not fit in memory here)
MAX_POSITIONS = 1 << 31  # the largest index a table may have (4 GB of values)
MAX_HEADER = 1 << 20  # the longest header line read (a 5-piece header is about 3 KB)
#: what a variant may not have for its tables to be exact here (each one, the reason)
UNSUPPORTED = {
    "drops": "pieces in hand",
    "captures_to_hand": "pieces in hand",
    "check_counting": "check counting (the checks left are not in the index)",
    "blast_on_capture": "atomic captures",
    "seirawan_gating": "gating (pieces in hand)",
    "two_boards": "two boards",
    "bikjang": "bikjang (the history of facing kings)",
    "king_pass": "passing",
    "shatar_mate": "shatar's mate rule (the history of checks)",
    "cambodian_moves": "the king's and met's first leaps",
    "sittuyin_promotion": "sittuyin's promotions",
    "must_drop": "drops",
    "piece_demotion": "demotions",
    "promotion_on_capture": "promotions on capture",
}


class TablebaseError(ValueError):
    """A table that cannot be built, read or used (with the reason)."""


def refusal(rules: Rules) -> str | None:
    """Why ferz cannot build exact tables for these rules, or None if it can."""
    for name, reason in UNSUPPORTED.items():
        if getattr(rules, name):
            return f"{rules.name} has {reason}"
    if rules.material_counting != "none":
        return f"{rules.name} decides drawn ends by counting material"
    if rules.n_fold_value != "draw":
        return f"{rules.name} scores repetitions as {rules.n_fold_value}"
    return None


#: Rules fields added after tables were shipped that are derived from fields the hash already
#: holds (which letters a rule names): left out, so that those tables keep their fingerprint.
_DERIVED = frozenset({"chase_letters"})


def fingerprint(rules: Rules) -> str:
    """A hash of everything in the rules: a table is only read for the rules it was built by."""

    def plain(value: object) -> object:
        if isinstance(value, (set, frozenset)):
            return sorted(value)
        return str(value)

    fields = {k: v for k, v in asdict(rules).items() if k not in _DERIVED}
    text = json.dumps(fields, sort_keys=True, default=plain)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------- materials


def parse_material(rules: Rules, name: str) -> list[int]:
    """The piece codes of a material such as 'KRvK' (White's letters, 'v', Black's)."""
    if name.count("v") != 1 or not name.isalpha():
        raise TablebaseError(f"bad material {name!r}: White's letters, 'v', Black's, as KRvK")
    white, black = name.split("v")
    codes = []
    for colour, letters in enumerate((white, black)):
        for letter in letters:
            try:
                codes.append(2 * rules.piece_index(letter) + colour)
            except ValueError as error:
                raise TablebaseError(str(error)) from None
    for colour in range(2):
        royals = [c for c in codes if c & 1 == colour and rules.pieces[(c >> 1) - 1].royal]
        if any(p.royal for p in rules.pieces) and len(royals) != 1:
            raise TablebaseError(f"{name}: each side needs its one {royal_letter(rules)}")
    if len(codes) > MAX_PIECES:
        raise TablebaseError(f"{name}: tables have at most {MAX_PIECES} pieces")
    return codes


def royal_letter(rules: Rules) -> str:
    """The royal piece's letter (K), or '' without one."""
    return next((p.letter for p in rules.pieces if p.royal), "")


def material_name(rules: Rules, codes: Iterable[int]) -> str:
    """The canonical name of a material: per side the letters, royal first, then by type
    from the last defined (K Q R B N P in chess, as Syzygy names them)."""
    sides: list[list[int]] = [[], []]
    for c in codes:
        sides[c & 1].append(c >> 1)

    def order(t: int) -> tuple[bool, int]:
        return (not rules.pieces[t - 1].royal, -t)

    return "v".join(
        "".join(rules.pieces[t - 1].letter for t in sorted(side, key=order)) for side in sides
    )


def children(rules: Rules, codes: list[int]) -> set[str]:
    """The materials one capture or one promotion leads to."""
    out = set()
    for i, c in enumerate(codes):
        piece = rules.pieces[(c >> 1) - 1]
        rest = codes[:i] + codes[i + 1 :]
        if not piece.royal and any(o & 1 != c & 1 for o in codes):  # someone can take it
            out.add(material_name(rules, rest))
        if piece.pawn:
            letters = rules.promotion_letters
            if c & 1 and rules.promotion_letters_black is not None:
                letters = rules.promotion_letters_black
            for letter in letters:
                out.add(material_name(rules, rest + [2 * rules.promotion_type(letter) + (c & 1)]))
    return out


# ---------------------------------------------------------------------------- the index


def mirror_maps(rules: Rules) -> tuple[list[int], list[int]]:
    """Per mailbox square, its file and its mirror image (left and right swapped)."""
    fl = [0] * rules.nsq
    mir = list(range(rules.nsq))
    for sq in rules.squares():
        fl[sq] = rules.file_of(sq)
        mir[sq] = sq + rules.files - 1 - 2 * fl[sq]
    return fl, mir


def empty_position(rules: Rules) -> Position:
    """A position of the rules with no piece on the board (the builders' workbench)."""
    pos = Position(rules)
    Evaluator(rules).install(pos)
    pos.set_fen(rules.start_fen)
    tbgen.clear(pos)
    return pos


class Spec:
    """Where each piece code of a variant can stand, and the mirror symmetry of its rules."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.pos = empty_position(rules)
        squares = rules.squares()
        self.nsq = rules.nsq
        self.fl, self.mir = mirror_maps(rules)
        npc = 2 * (len(rules.pieces) + 1)
        other = next((t for t, p in enumerate(rules.pieces, 1) if not p.royal), 1)
        enemy = [2 * other + 1, 2 * other]  # a piece of the other colour, per colour
        # moves of every piece code from every square (destination, code after the move):
        # quiet ones on an empty board, and captures of one enemy piece on each square
        self.quiet: dict[int, dict[int, list[tuple[int, int]]]] = {}
        self.reach: dict[int, dict[int, set[tuple[int, int]]]] = {}
        for code in range(2, npc):
            self.quiet[code] = {}
            self.reach[code] = {}
            for sq in squares:
                quiet = tbgen.moves_from(self.pos, code, sq, -1, 0)
                self.quiet[code][sq] = quiet
                into = {(to, c) for to, c in quiet}
                for target in squares:
                    if target != sq:
                        for to, c in tbgen.moves_from(self.pos, code, sq, target, enemy[code & 1]):
                            if to == target:
                                into.add((to, c))
                self.reach[code][sq] = into
        self.mirror = self._mirrored(squares)
        self.allowed = self._allowed(squares, npc)

    def _mirrored(self, squares: list[int]) -> bool:
        """Whether every piece moves the same way on the mirrored board (left and right)."""
        for table in self.reach.values():
            for sq in squares:
                mine = {(self.mir[to], c) for to, c in table[sq]}
                if mine != table[self.mir[sq]]:
                    return False
        return True

    def _allowed(self, squares: list[int], npc: int) -> dict[int, list[int]]:
        """The squares each piece code can ever stand on: its start squares and where its
        moves (promotions included) lead from there; all squares for a code not in the start
        position that no promotion makes."""
        pos = Position(self.rules)
        pos.set_fen(self.rules.start_fen)
        seen: dict[int, set[int]] = {code: set() for code in range(2, npc)}
        todo = [(pos.board[sq], sq) for sq in squares if pos.board[sq] > 1]
        for code, sq in todo:
            seen[code].add(sq)
        while todo:
            code, sq = todo.pop()
            for to, c in self.reach[code][sq]:
                if to not in seen[c]:
                    seen[c].add(to)
                    todo.append((c, to))
        out = {}
        for code in range(2, npc):
            where = seen[code] or set(squares)
            if self.mirror:
                where |= {self.mir[sq] for sq in where}
            out[code] = sorted(where)
        return out

    def table(self, name: str) -> tbgen.Table:
        """An empty table of a material (slots: royal pieces first, then by piece code)."""
        rules = self.rules
        codes = parse_material(rules, name)
        codes.sort(key=lambda c: (not rules.pieces[(c >> 1) - 1].royal, c))
        squares = [list(self.allowed[c]) for c in codes]
        if self.mirror:
            squares[0] = [sq for sq in squares[0] if self.fl[sq] <= (rules.files - 1) // 2]
        npc = 2 * (len(rules.pieces) + 1)
        return tbgen.Table(
            material_name(rules, codes), codes, squares, self.nsq, rules.files, npc,
            self.mirror, self.mir, self.fl,
        )  # fmt: skip

    def unmoves(self, table: tbgen.Table) -> list[list[list[int]]]:
        """Per slot and square, the squares the slot's piece could have come from by a quiet
        move (its moves on an empty board, inverted; every square for a piece that hops)."""
        out = []
        for j in range(table.k):
            code = table.codes[j]
            back: list[list[int]] = [[] for _ in range(self.nsq)]
            allowed = set(self.allowed[code])
            for fr in allowed:
                for to, c in self.quiet[code][fr]:
                    if c == code and to in allowed:
                        back[to].append(fr)
            if self._hops(code):
                for to in allowed:
                    back[to] = sorted(allowed - {to})
            out.append([sorted(set(b)) for b in back])
        return out

    def _hops(self, code: int) -> bool:
        """Whether the piece has an atom that needs a screen (its quiet moves on an empty
        board may then miss some)."""
        piece = self.rules.pieces[(code >> 1) - 1]
        return any(atom.hop and atom.move for atom in piece.atoms)


# ---------------------------------------------------------------------------- building


def plan(rules: Rules, name: str) -> list[str]:
    """The materials to build for `name`, smallest first (every capture and promotion)."""
    order: list[str] = []
    seen: set[str] = set()

    def visit(material: str) -> None:
        if material in seen:
            return
        seen.add(material)
        for child in sorted(children(rules, parse_material(rules, material))):
            visit(child)
        order.append(material)

    visit(material_name(rules, parse_material(rules, name)))
    return order


def build(
    variant: str,
    material: str,
    folder: str | os.PathLike[str],
    log: Callable[[str], None] | None = None,
    force: bool = False,
) -> list[Path]:
    """Build the table of `material` and every table it leads to into `folder` (tables
    already there, built for the same rules, are read instead); the files written."""
    rules = rules_for(variant)
    why = refusal(rules)
    if why:
        raise TablebaseError(f"no tables for {variant}: {why}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    spec = Spec(rules)
    tables: dict[bytes, tbgen.Table] = {}
    written = []
    for name in plan(rules, material):
        path = folder / (name + SUFFIX)
        table = spec.table(name)
        if path.exists() and not force:
            try:
                read_values(path, rules, table)
                tables[key_of(table)] = table
                continue
            except TablebaseError as error:
                if log:
                    log(f"{path}: {error}; building it again")
        start = time.perf_counter()
        builder = tbgen.Builder(table, spec.pos, tables, spec.unmoves(table), rules.en_passant)
        longest = builder.run()
        if rules.perpetual_check_illegal:
            # (wins by the rules: distances from RULE on)
            chases = Chases(rules) if rules.chasing_rule else None
            builder.perpetual(longest, None, chases)
            builder.exactness(chases)  # (draws a repetition may decide: UNSURE)
        seconds = time.perf_counter() - start
        tables[key_of(table)] = table
        write(path, rules, table, longest)
        written.append(path)
        if log:
            log(
                f"{name}: {table.size} positions in {seconds:.1f} s "
                f"({table.size / max(seconds, 1e-9):,.0f}/s), longest mate {longest} plies, "
                f"{path.stat().st_size} bytes"
            )
    return written


def key_of(table: tbgen.Table) -> bytes:
    """The key of a table among others: its piece codes, sorted."""
    return bytes(sorted(table.codes))


def header(rules: Rules, table: tbgen.Table, longest: int) -> dict[str, object]:
    """The JSON header of a table file."""
    return {
        "variant": rules.name,
        "rules": fingerprint(rules),
        "material": table.name,
        "codes": list(table.codes),
        "squares": [
            [rules.square_name(table.sqs[j * table.nsq + i]) for i in range(table.nsqs[j])]
            for j in range(table.k)
        ],
        "mirror": bool(table.mirror),
        "positions": table.size,
        "longest": longest,
        # (only where it applies: the other variants' headers, and files, stay as they were)
        **(
            {"perpetual": perpetual(rules), "unsure": UNSURE}
            if rules.perpetual_check_illegal
            else {}
        ),
    }


def perpetual(rules: Rules) -> str:
    """The header's note of the repetition rules a table applies (step 4, and step 5 where a
    perpetual chase loses too: docs/tablebases.md)."""
    return "check and chase lose" if rules.chasing_rule else "check loses"


def table_of_header(rules: Rules, head: dict[str, object]) -> tbgen.Table:
    """An empty table with the index a file's header describes (no Spec to compute: a probe
    opens a table in milliseconds); TablebaseError for a header that does not fit the rules."""
    try:
        codes = [int(c) for c in head["codes"]]  # type: ignore[attr-defined]
        squares = [[rules.parse_square(n) for n in slot] for slot in head["squares"]]  # type: ignore[attr-defined]
        name = str(head["material"])
        mirror = bool(head["mirror"])
    except (KeyError, TypeError, ValueError):
        raise TablebaseError(f"a broken header for {head.get('material')}") from None
    npc = 2 * (len(rules.pieces) + 1)
    if len(codes) != len(squares) or not all(2 <= c < npc for c in codes) or not codes:
        raise TablebaseError(f"a broken header for {name}")
    if len(codes) > MAX_PIECES or material_name(rules, codes) != name:
        raise TablebaseError(f"a broken header for {name}")
    size = 2
    for slot in squares:
        if not slot or len(set(slot)) != len(slot):
            raise TablebaseError(f"a broken header for {name}")
        size *= len(slot)
    if size != head.get("positions") or size > MAX_POSITIONS:
        raise TablebaseError(f"a broken header for {name}: {head.get('positions')} positions")
    fl, mir = mirror_maps(rules)
    return tbgen.Table(name, codes, squares, rules.nsq, rules.files, npc, mirror, mir, fl)


def write(path: Path, rules: Rules, table: tbgen.Table, longest: int) -> None:
    """Save a table (to a temporary name first: a stopped build leaves no half file)."""
    values = array("h", table.val)
    if sys.byteorder != "little":
        values.byteswap()
    head = json.dumps(header(rules, table, longest), separators=(",", ":")).encode()
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(MAGIC + head + b"\n" + zlib.compress(values.tobytes(), 9))
    tmp.replace(path)


def read_header(path: Path, values: bool = True) -> tuple[dict[str, object], bytes]:
    """A table file's header and (with `values`) its compressed values, reading no more of
    the file than that; TablebaseError for anything else."""
    try:
        with open(path, "rb") as handle:
            magic = handle.read(len(MAGIC))
            line = handle.readline(MAX_HEADER) if magic == MAGIC else b""
            body = handle.read() if values and line.endswith(b"\n") else b""
    except OSError as error:
        raise TablebaseError(f"cannot read {path}: {error.strerror}") from None
    if magic != MAGIC:
        raise TablebaseError(f"{path} is not a ferz table (format {MAGIC.strip().decode()})")
    try:
        head = json.loads(line) if line.endswith(b"\n") else None
    except (ValueError, UnicodeDecodeError):
        head = None
    if not isinstance(head, dict):
        raise TablebaseError(f"{path}: a broken header")
    return head, body


def read_values(path: Path, rules: Rules, table: tbgen.Table) -> int:
    """Fill `table` from its file, checked against the rules and the index; the longest
    mate."""
    head, body = read_header(path)
    return fill(path, rules, table, head, body)


def load(path: Path, rules: Rules) -> tbgen.Table:
    """The table of a file, its index from the header (the file read once)."""
    head, body = read_header(path)
    table = table_of_header(rules, head)
    fill(path, rules, table, head, body)
    return table


def other_rules(path: Path, head: dict[str, object], rules: Rules) -> str | None:
    """Why a table file's header is not one of these rules' tables, or None."""
    if head.get("variant") != rules.name:
        return f"{path}: built for {head.get('variant')}, not {rules.name}"
    if head.get("rules") != fingerprint(rules):
        return f"{path} was built for other rules of {rules.name}: build it again"
    if rules.perpetual_check_illegal and "perpetual" not in head:
        return f"{path} was built without the perpetual-check rule: build it again"
    if rules.perpetual_check_illegal and head.get("perpetual") != perpetual(rules):
        return f"{path} was built without the chasing rule: build it again"
    if rules.perpetual_check_illegal and head.get("unsure") != UNSURE:
        return f"{path} was built before its inexact draws were marked: build it again"
    return None


def fill(path: Path, rules: Rules, table: tbgen.Table, head: dict[str, object], body: bytes) -> int:
    """Fill `table` from a file's header and compressed values, checked against the rules
    and the index; the longest mate."""
    why = other_rules(path, head, rules)
    if why:
        raise TablebaseError(why)
    if head != {**header(rules, table, head.get("longest", 0)), "longest": head.get("longest")}:
        raise TablebaseError(f"{path}: its index does not match {table.name}")
    try:
        raw = zlib.decompressobj().decompress(body, 2 * table.size + 1)
    except zlib.error:
        raise TablebaseError(f"{path}: the values are damaged") from None
    if len(raw) != 2 * table.size:
        raise TablebaseError(f"{path}: {len(raw) // 2} values for {table.size} positions")
    values = array("h", raw)
    if sys.byteorder != "little":
        values.byteswap()
    table.val[:] = values
    longest = head.get("longest")
    return longest if isinstance(longest, int) else 0


# ---------------------------------------------------------------------------- probing


class Endgames:
    """The tables of one variant found in some folders, read on first use."""

    def __init__(self, variant: str = "chess") -> None:
        self.rules = rules_for(variant)
        self.variant = variant
        self.paths: dict[str, Path] = {}  # material -> file
        self.skipped: list[str] = []
        self._tables: dict[str, tbgen.Table | None] = {}
        self._by_codes: dict[bytes, tbgen.Table | None] = {}  # tbgen.material_key: a table
        self._work: Board | None = None

    def add_directory(self, directory: str | os.PathLike[str]) -> int:
        """Add the tables of a folder (their headers checked); the number added."""
        folder = Path(directory)
        if not folder.is_dir():
            raise TablebaseError(f"no such folder: {folder}")
        added = 0
        for path in sorted(folder.glob("*" + SUFFIX)):
            try:
                head, _ = read_header(path, values=False)
            except TablebaseError as error:
                self.skipped.append(str(error))
                continue
            why = other_rules(path, head, self.rules)
            if why:
                self.skipped.append(why)
                continue
            material = head.get("material")
            if isinstance(material, str):
                self.paths[material] = path
                self._tables.pop(material, None)
                self._by_codes.clear()
                added += 1
        return added

    def _table(self, material: str) -> tbgen.Table | None:
        """The loaded table of a material, or None (no file, or a bad one: skipped)."""
        if material in self._tables:
            return self._tables[material]
        table = None
        path = self.paths.get(material)
        if path is not None:
            try:
                table = load(path, self.rules)
            except TablebaseError as error:
                self.skipped.append(str(error))
                table = None
        self._tables[material] = table
        return table

    @property
    def largest(self) -> int:
        """The most pieces of a table found (0: none)."""
        return max((len(name) - 1 for name in self.paths), default=0)

    def probe_position(self, pos: Position, unsure: bool = False) -> int | None:
        """The table value of a core position without an e.p. square (see ferz.core.tbgen),
        or None if no table holds it or its draw is UNSURE (with `unsure`: UNSURE then)."""
        if pos.rules.name != self.rules.name or pos.castling or pos.ep:
            return None
        if pos.pcount[0] + pos.pcount[1] > MAX_PIECES:
            return None
        codes = tbgen.material_key(pos)
        if codes in self._by_codes:
            table = self._by_codes[codes]
        else:
            table = self._by_codes[codes] = self._table(material_name(self.rules, list(codes)))
        if table is None:
            return None
        value = table.probe(pos)
        if value in (NONE, INVALID) or (value == UNSURE and not unsure):
            return None
        return self._counted(pos, value)

    def search_probe(self, pos: Position) -> int:
        """The search's probe (ferz.core.search, step 3b): 2 won, 0 drawn, -2 lost for the
        side to move, TB_FAIL (99) without a verdict (no table, or an UNSURE draw: one that a
        repetition rule may decide)."""
        value = self.probe_position(pos)
        if value is None:
            return TB_FAIL
        if value >= MINWIN:
            return 2
        if value <= -MINWIN:
            return -2
        return 0

    def probe_value(self, board: Board, unsure: bool = False) -> int | None:
        """The table value of the position (see ferz.core.tbgen), or None if no table holds
        it or its draw is UNSURE (with `unsure`: UNSURE then)."""
        pos = board.position
        if pos.ep and board.rules.name == self.rules.name:
            return self._expand(board)
        return self.probe_position(pos, unsure)

    def root_moves(self, board: Board) -> list[tuple[Move, int]]:
        """Every legal move with its distance to mate from the mover's view (plies:
        positive won, negative lost, 0 drawn), best first: the fastest wins, then draws,
        then the longest losses; [] if the tables do not hold the position or the result of
        one of its moves. From a won position, a move into an UNSURE draw is listed as a
        draw (it does not win: what matters there); from a drawn one it leaves no answer."""
        value = self.probe_value(board)
        if value is None:
            return []
        out: list[tuple[Move, int]] = []
        for move in board.legal_moves:
            board.push(move)
            try:
                child = self.probe_value(board, unsure=value >= MINWIN)
            finally:
                board.pop()
            if child is None:
                return []
            if child == UNSURE:
                child = 0
            out.append((move, plies(tbgen.flip(child))))

        def rank(entry: tuple[Move, int]) -> tuple[int, int]:
            d = entry[1]
            return (0, d) if d > 0 else (1, 0) if d == 0 else (2, d)

        return sorted(out, key=rank)

    def _expand(self, board: Board) -> int | None:
        """The value of a position with an e.p. square: the best of its moves'."""
        best: int | None = None
        moves = board.legal_moves
        if not moves:
            return None
        for move in moves:
            board.push(move)
            try:
                child = self.probe_value(board)
            finally:
                board.pop()
            if child is None:
                return None
            value = tbgen.flip(child)
            best = value if best is None else max(best, value)
        return best

    def _counted(self, pos: Position, value: int) -> int | None:
        """The value under a counting rule (makruk, ASEAN): the tables ignore the count, which
        can only turn a win into a draw. Draws stand; a win or a loss only while a count runs
        against a bare king and the mate comes before it ends (with no count running, one
        starts at the next move or after the last pawn: no answer)."""
        if self.rules.counting_rule == "none" or abs(value) < MINWIN:
            return value
        left = pos.cnt_limit - pos.cnt_ply
        if pos.cnt_limit and min(pos.pcount[0], pos.pcount[1]) == 1 and plies_of(value) <= left:
            return value
        return None

    def probe_wdl(self, board: Board) -> int:
        """1 if the side to move wins, 0 drawn, -1 lost; KeyError if no table holds it."""
        value = self.get_wdl(board)
        if value is None:
            raise KeyError(f"no table holds {board.fen()}")
        return value

    def get_wdl(self, board: Board, default: int | None = None) -> int | None:
        """probe_wdl, or `default` if no table holds the position."""
        value = self.probe_value(board)
        if value is None:
            return default
        return 1 if value >= MINWIN else -1 if value <= -MINWIN else 0

    def probe_dtm(self, board: Board) -> int:
        """Plies to mate with best play: positive if the side to move wins, negative if it
        loses, 0 drawn (a mate on the board: -0 is given as 0); KeyError if no table."""
        value = self.get_dtm(board)
        if value is None:
            raise KeyError(f"no table holds {board.fen()}")
        return value

    def get_dtm(self, board: Board, default: int | None = None) -> int | None:
        """probe_dtm, or `default` if no table holds the position."""
        value = self.probe_value(board)
        return default if value is None else plies(value)

    def close(self) -> None:
        """Forget the loaded tables."""
        self._tables.clear()
        self._by_codes.clear()
        self.paths.clear()

    def __enter__(self) -> Endgames:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()


_BUNDLED: dict[str, Endgames | None] = {}  # bundled() per variant, opened once


def bundled(variant: str) -> Endgames | None:
    """The tables bundled with ferz for a variant (ferz.data.tables), None without."""
    if variant not in _BUNDLED:
        from . import data

        folder = data.tables(variant)
        tables = None
        if folder is not None:
            try:
                tables = open_tablebase(folder, variant)
            except (TablebaseError, KeyError, ValueError):
                tables = None
        _BUNDLED[variant] = tables if tables is not None and tables.paths else None
    return _BUNDLED[variant]


def note(tables: Endgames, board: Board) -> str | None:
    """What the tables say of a position as lichess shows it ("tablebase: White wins, mate in
    8"; "tablebase: draw"), None where they do not hold it or their draw may not be the
    game's (xiangqi's UNSURE draws)."""
    value = tables.probe_value(board)
    if value is None:
        return None
    if abs(value) < MINWIN:
        return "tablebase: draw"  # (an UNSURE draw has no answer: probe_value gave None)
    dtm = plies(value)
    if dtm == 0:
        return None  # the game is over
    mover, other = ("White", "Black") if board.turn else ("Black", "White")
    if by_rule(value):
        return f"tablebase: {mover if dtm > 0 else other} wins ({rule_text(tables.rules)} loses)"
    moves = (dtm + 1) // 2 if dtm > 0 else (-dtm) // 2
    return f"tablebase: {mover if dtm > 0 else other} wins, mate in {moves}"


def rule_name(rules: Rules) -> str:
    """The repetition rule that decides the tables' wins not by mate, for these rules."""
    return "perpetual check or chase" if rules.chasing_rule else "perpetual check"


def rule_text(rules: Rules) -> str:
    """What a win by a repetition rule is won by, for these rules' texts."""
    return f"a {rule_name(rules)}"


def by_rule(value: int) -> bool:
    """Whether a table value is a win or a loss by the perpetual-check or chasing rule, not
    by mate."""
    return abs(value) >= MINWIN and plies_of(value) >= RULE


def plies_of(value: int) -> int:
    """The distance to mate of a win or a loss, in plies."""
    return WIN - abs(value)


def plies(value: int) -> int:
    """A table value as plies to mate: positive won, negative lost, 0 drawn (RULE or more:
    won or lost by the perpetual-check or chasing rule, RULE plus the plies to where it
    starts)."""
    if value >= MINWIN:
        return WIN - value
    if value <= -MINWIN:
        return -(WIN + value)
    return 0


def open_tablebase(
    directory: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], variant: str = "chess"
) -> Endgames:
    """The Endgames of `variant` in one folder or several."""
    tables = Endgames(variant)
    folders = [directory] if isinstance(directory, (str, os.PathLike)) else list(directory)
    for folder in folders:
        tables.add_directory(folder)
    return tables


__all__ = [
    "Endgames",
    "TablebaseError",
    "build",
    "bundled",
    "by_rule",
    "note",
    "open_tablebase",
    "parse_material",
    "plan",
    "refusal",
]
