"""A friendly, python-chess-like board over the compiled core: FEN, moves, SAN/UCI, outcomes.

Rich objects (Move, Outcome) exist only here; the core works on ints. Every method that takes
user input raises a ValueError subclass on bad input and leaves the board unchanged.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property

from .core import attacks, endrules, tables
from .core import fen as fenlib
from .core.attacks import in_check
from .core.defs import (
    CASTLE,
    DROP,
    EP,
    MAX_GAME_PLY,
    MAXP,
    NO_END,
    NORMAL,
    PROMO,
    encode,
    move_from,
    move_kind,
    move_promo,
    move_to,
)
from .core.position import Position
from .core.rules import PieceType, Rules

# python-chess's transformations that Board.transform applies, as maps of (file, rank, files,
# ranks) to a square (None: pushed off the board); the diagonal flips need a square board.
TRANSFORMS: dict[str, Callable[[int, int, int, int], tuple[int, int] | None]] = {
    "flip_vertical": lambda f, r, nf, nr: (f, nr - 1 - r),
    "flip_horizontal": lambda f, r, nf, nr: (nf - 1 - f, r),
    "flip_diagonal": lambda f, r, nf, nr: (r, f),
    "flip_anti_diagonal": lambda f, r, nf, nr: (nr - 1 - r, nf - 1 - f),
    "shift_down": lambda f, r, nf, nr: (f, r - 1) if r > 0 else None,
    "shift_up": lambda f, r, nf, nr: (f, r + 1) if r < nr - 1 else None,
    "shift_left": lambda f, r, nf, nr: (f - 1, r) if f > 0 else None,
    "shift_right": lambda f, r, nf, nr: (f + 1, r) if f < nf - 1 else None,
}
DIAGONAL = ("flip_diagonal", "flip_anti_diagonal")
SAME_RANKS = ("flip_horizontal", "shift_left", "shift_right")  # pawns keep their direction

PASS_SAN = "pass"  # SAN of a pass (janggi's kingPass); "--" and "@@@@" are read too
SAN_RE = re.compile(r"^(\+?[A-Z]?)([a-p]?)(\d{0,2})(x?)([a-p]\d{1,2})(?:=?([A-Za-z+]))?$")


class InvalidFenError(ValueError):
    """A FEN that cannot describe a position of this variant."""


class IllegalMoveError(ValueError):
    """A move that is garbled or not legal in the current position."""


class AmbiguousMoveError(IllegalMoveError):
    """A SAN move that matches more than one legal move."""


@dataclass(frozen=True)
class Move:
    """A move of a particular board: its core code and its UCI text."""

    code: int
    text: str

    def uci(self) -> str:
        """The move in UCI notation."""
        return self.text

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Outcome:
    """How a game ended: termination reason and winner (True white, False black, None draw)."""

    termination: str
    winner: bool | None

    def result(self) -> str:
        """The PGN result string."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner else "0-1"

    def reason(self) -> str:
        """Why the game ended, in words ("White mates", "Stalemate: Black wins")."""
        if self.termination == "checkmate" and self.winner is not None:
            return "White mates" if self.winner else "Black mates"
        text = REASONS.get(self.termination, self.termination.replace("_", " ").capitalize())
        if self.winner is not None:
            text += ": White wins" if self.winner else ": Black wins"
        return text


def describe(outcome) -> tuple[str, str]:
    """(PGN result, reason) of a ferz Outcome or of a python-chess one."""
    name = getattr(outcome.termination, "name", str(outcome.termination)).lower()
    done = Outcome(name, outcome.winner)
    return done.result(), done.reason()


REASONS = {
    "fifty_moves": "Fifty-move rule",
    "seventyfive_moves": "Seventy-five-move rule",
    "variant_win": "Variant rule",
    "variant_loss": "Variant rule",
    "variant_draw": "Variant rule",
}


def rules_for(variant: str) -> Rules:
    """The Rules of a variant by name; ValueError if unknown."""
    from . import variants

    return variants.get(variant)


class Board:
    """A game position with its move history."""

    def __init__(
        self,
        fen: str | None = None,
        variant: str = "chess",
        chess960: bool = False,
        rules: Rules | None = None,
    ) -> None:
        self.rules = rules if rules is not None else rules_for(variant)
        self.variant = self.rules.name
        self.chess960 = chess960 or self.rules.chess960
        self.position = Position(self.rules)
        self.move_stack: list[Move] = []
        self._keys: list[int] = []
        self._checks: list[bool] = []  # whether the side to move was in check, per position
        self.set_fen(fen if fen is not None else self.rules.start_fen)

    # ------------------------------------------------------------------ setup

    @property
    def files(self) -> int:
        """Number of files."""
        return self.rules.files

    @property
    def ranks(self) -> int:
        """Number of ranks."""
        return self.rules.ranks

    def set_fen(self, fen: str) -> None:
        """Set up a position and clear the history; InvalidFenError leaves the board unchanged."""
        if not isinstance(fen, str):
            raise InvalidFenError(f"invalid FEN {fen!r}: not a string")
        try:
            self.position.set_fen(fen)
        except ValueError as error:
            raise InvalidFenError(f"invalid FEN {fen!r}: {error}") from None
        self.starting_fen = self.position.fen()
        self.move_stack = []
        self._keys = [self.position.key]
        self._checks = [in_check(self.position)]

    def reset(self) -> None:
        """Back to the variant's start position."""
        self.set_fen(self.rules.start_fen)

    def fen(self) -> str:
        """The current position as FEN."""
        return self.position.fen()

    def perft(self, depth: int) -> int:
        """Leaf nodes of the legal move tree `depth` plies below this position (compiled count;
        `ferz.perft.divide` gives the count below each root move)."""
        from .core.perft import perft

        if not 0 <= depth <= 20:
            raise ValueError(f"perft depth must be between 0 and 20, got {depth}")
        return perft(self.position, depth)

    def copy(self) -> Board:
        """An independent board with the same start position and moves."""
        other = Board(self.starting_fen, rules=self.rules, chess960=self.chess960)
        for move in self.move_stack:
            other.push(move)
        return other

    @property
    def turn(self) -> bool:
        """True if White is to move (python-chess convention)."""
        return self.position.side == 0

    @property
    def halfmove_clock(self) -> int:
        """Plies since the last capture or pawn move."""
        return self.position.halfmove

    @property
    def fullmove_number(self) -> int:
        """The FEN move number."""
        return self.position.fullmove_number()

    def piece_at(self, square: str) -> str | None:
        """The FEN letter of the piece on a square ('+P' for promoted pieces), or None."""
        sq = self.rules.parse_square(square)
        code = self.position.board[sq]
        return None if code < 2 else self._letter(code)

    def pieces(self) -> dict[str, str]:
        """Every occupied square and its piece letter."""
        return {
            self.rules.square_name(sq): self._letter(self.position.board[sq])
            for sq in self.rules.squares()
            if self.position.board[sq] >= 2
        }

    def pockets(self) -> dict[str, int]:
        """Pieces in hand by letter (upper case White, lower case Black)."""
        return {
            self._letter(p): self.position.hand[p]
            for p in range(2, self.position.npc)
            if self.position.hand[p]
        }

    def _letter(self, code: int) -> str:
        """FEN letter of a piece code."""
        letter = self.rules.pieces[(code >> 1) - 1].letter
        return letter if code & 1 == 0 else letter.lower()

    # ------------------------------------------------------------------ moves

    def _move(self, code: int) -> Move:
        """Wrap a core move code."""
        return Move(code, self._uci_text(code))

    @property
    def legal_moves(self) -> list[Move]:
        """All legal moves."""
        return [self._move(code) for code in self.position.legal_moves()]

    def is_legal(self, move: Move) -> bool:
        """Whether the move is legal here."""
        return move.code in self.position.legal_moves()

    def _uci_text(self, code: int) -> str:
        """UCI text of a core move (king-to-destination castling unless Chess960)."""
        rules = self.rules
        kind, fr, to = move_kind(code), move_from(code), move_to(code)
        if kind == DROP:
            turned = "+" if move_promo(code) else ""  # dropPromoted: +L@b1
            return f"{turned}{rules.pieces[fr - 1].letter}@{rules.square_name(to)}"
        gate = gated_type(code)
        if gate and (code >> 27) & 1:
            # castling that gates on the rook's square: rook's square, king's, letter (FSF)
            return (
                rules.square_name(to)
                + rules.square_name(fr)
                + rules.pieces[gate - 1].letter.lower()
            )
        if kind == CASTLE and not self.chess960:
            to = self._castle_king_to(fr, to)
        text = rules.square_name(fr) + rules.square_name(to)
        if gate:  # seirawanGating: the piece from hand that enters on the origin, `b1c3h`
            text += rules.pieces[gate - 1].letter.lower()
        if kind == PROMO:
            promo = move_promo(code)
            moving = rules.pieces[(self.position.board[fr] >> 1) - 1]
            if moving.promoted and rules.piece_index(moving.promoted) == promo:
                text += "+"
            elif moving.demoted and rules.piece_index(moving.demoted) == promo:
                text += "-"  # pieceDemotion (kyoto shogi), as Fairy-Stockfish writes it
            else:
                text += rules.pieces[promo - 1].letter.rstrip("~").lower()
        return text

    def _castle_king_to(self, king: int, rook: int) -> int:
        """The king's destination square of a castling move given as king-takes-rook."""
        rules = self.rules
        file = (
            rules.castling_kingside_file
            if rules.file_of(rook) > rules.file_of(king)
            else rules.castling_queenside_file
        )
        return rules.square(file, rules.rank_of(king))

    def uci(self, move: Move) -> str:
        """The move in UCI notation."""
        return self._uci_text(move.code)

    def parse_uci(self, text: str) -> Move:
        """The legal move written in UCI notation; IllegalMoveError otherwise."""
        if not isinstance(text, str) or not 4 <= len(text.strip()) <= 12:
            raise IllegalMoveError(f"invalid UCI move {text!r}")
        wanted = text.strip()
        lowered = wanted.lower()
        squares = self._uci_squares(lowered)
        for code in self.position.legal_moves():
            if (
                squares is not None
                and move_kind(code) not in (CASTLE, DROP)
                and (move_from(code), move_to(code)) != squares
            ):
                continue  # another piece's move: no need to spell it out
            move = self._move(code)
            if move.text == wanted or (move.text.lower() == lowered and "@" not in wanted):
                return move
            if move_kind(code) == CASTLE and not (code >> 27) & 1:
                # accept both castling spellings: king-to-destination and king-takes-rook
                rules = self.rules
                fr, rook = move_from(code), move_to(code)
                suffix = (
                    rules.pieces[gated_type(code) - 1].letter.lower() if gated_type(code) else ""
                )
                alternatives = {
                    rules.square_name(fr) + rules.square_name(rook) + suffix,
                    rules.square_name(fr)
                    + rules.square_name(self._castle_king_to(fr, rook))
                    + suffix,
                }
                if lowered in alternatives:
                    return move
        raise IllegalMoveError(f"illegal move {wanted!r} in {self.fen()}")

    def _uci_squares(self, text: str) -> tuple[int, int] | None:
        """The origin and target squares a UCI move names (`e2e4`, `a10a9q`), or None where
        the text starts otherwise (a drop) or names a square off the board."""
        found = _UCI_SQUARES.match(text)
        if found is None:
            return None
        rules = self.rules
        f1, r1, f2, r2 = found.groups()
        files, ranks = (ord(f1) - 97, ord(f2) - 97), (int(r1) - 1, int(r2) - 1)
        if not all(0 <= f < rules.files for f in files) or not all(
            0 <= r < rules.ranks for r in ranks
        ):
            return None
        return rules.square(files[0], ranks[0]), rules.square(files[1], ranks[1])

    def push(self, move: Move) -> None:
        """Play a legal move; IllegalMoveError leaves the board unchanged."""
        if not isinstance(move, Move) or move.code not in self.position.legal_moves():
            raise IllegalMoveError(f"illegal move {move!s} in {self.fen()}")
        if self.position.ply >= MAX_GAME_PLY:
            raise IllegalMoveError(f"the game is too long ({MAX_GAME_PLY} plies)")
        self.position.make(move.code)
        self.move_stack.append(move)
        self._keys.append(self.position.key)
        self._checks.append(in_check(self.position))

    def push_uci(self, text: str) -> Move:
        """Parse and play a UCI move."""
        move = self.parse_uci(text)
        self.push(move)
        return move

    def push_san(self, text: str) -> Move:
        """Parse and play a SAN move."""
        move = self.parse_san(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        """Undo the last move; IndexError if there is none."""
        if not self.move_stack:
            raise IndexError("no move to undo")
        self.position.unmake()
        self._keys.pop()
        self._checks.pop()
        return self.move_stack.pop()

    def peek(self) -> Move:
        """The last move played."""
        if not self.move_stack:
            raise IndexError("no move played yet")
        return self.move_stack[-1]

    # ------------------------------------------------------------------ SAN

    def san(self, move: Move) -> str:
        """The legal move in Standard Algebraic Notation, with + or #."""
        text = self._san_body(move.code)
        if not self.position.make(move.code):
            raise IllegalMoveError(f"illegal move {move!s} in {self.fen()}")
        try:
            if in_check(self.position):
                text += "#" if not self.position.legal_moves() else "+"
        finally:
            self.position.unmake()
        return text

    def _san_body(self, code: int, legal: list[int] | None = None) -> str:
        """SAN without the check suffix (`legal`: the position's legal moves, if known)."""
        rules, pos = self.rules, self.position
        kind, fr, to = move_kind(code), move_from(code), move_to(code)
        if kind == CASTLE:
            text = "O-O" if rules.file_of(to) > rules.file_of(fr) else "O-O-O"
            if gated_type(code):  # the piece gated and its square, `O-O/He1` (as pyffish)
                gate = to if (code >> 27) & 1 else fr
                text += f"/{rules.pieces[gated_type(code) - 1].letter}{rules.square_name(gate)}"
            return text
        if kind == DROP:
            turned = "+" if move_promo(code) else ""
            return f"{turned}{rules.pieces[fr - 1].letter}@{rules.square_name(to)}"
        if fr == to and kind == NORMAL:
            return PASS_SAN  # janggi: the king passes
        piece = rules.pieces[(pos.board[fr] >> 1) - 1]
        if kind == PROMO and piece.pawn and rules.sittuyin_promotion:
            # Fairy-Stockfish's form: c6=F where the pawn stands, c6b7=F for a step
            start = "" if fr == to else rules.square_name(fr)
            letter = rules.pieces[move_promo(code) - 1].letter
            return f"{start}{rules.square_name(to)}={letter}"
        capture = pos.board[to] >= 2 or kind == EP
        if legal is None and (not piece.pawn or piece.promoted):  # only these need the list
            legal = pos.legal_moves()
        text = ""
        if piece.pawn:
            if capture:
                text = rules.square_name(fr)[0]
        else:
            # a crazyhouse piece that was promoted (B~) moves and is written as the piece (B)
            text = piece.letter.rstrip("~")
            others = [
                move_from(m)
                for m in legal
                if move_to(m) == to
                and move_from(m) != fr
                and move_kind(m) not in (CASTLE, DROP)
                and pos.board[move_from(m)] & 1 == pos.board[fr] & 1
                and self._san_letter(pos.board[move_from(m)]) == text
            ]
            if others:
                file, rank = rules.file_of(fr), rules.rank_of(fr)
                name = rules.square_name(fr)
                if all(rules.file_of(o) != file for o in others):
                    text += name[0]
                elif all(rules.rank_of(o) != rank for o in others):
                    text += name[1:]
                else:
                    text += name
        if capture:
            text += "x"
        text += rules.square_name(to)
        if kind == PROMO:
            promo = move_promo(code)
            if piece.promoted and rules.piece_index(piece.promoted) == promo:
                text += "+"
            else:
                text += "=" + rules.pieces[promo - 1].letter.rstrip("~")
        elif piece.promoted and any(
            move_kind(m) == PROMO and move_from(m) == fr and move_to(m) == to for m in legal
        ):
            text += "="  # a shogi promotion declined: Pxb5= (Pxb5+ promotes), never ambiguous
        if gated_type(code):  # seirawanGating: `Nc3/H` (as pyffish writes it)
            text += "/" + rules.pieces[gated_type(code) - 1].letter
        return text

    def _san_letter(self, p: int) -> str:
        """The SAN letter of a piece on the board (crazyhouse's promoted B~ is a B)."""
        return self.rules.pieces[(p >> 1) - 1].letter.rstrip("~")

    def parse_san(self, text: str) -> Move:
        """The legal move written in SAN (lenient about x, =, + and #)."""
        if not isinstance(text, str) or not 2 <= len(text.strip()) <= 16:
            raise IllegalMoveError(f"invalid SAN {text!r}")
        san = text.strip().rstrip("!?").rstrip("+#")
        legal = self.position.legal_moves()
        if "/" in san:  # a gating move (seirawanGating): `Nc3/H`, `O-O/He1`
            for code in legal:
                if gated_type(code) and self._san_body(code, legal) == san:
                    return self._move(code)
            raise IllegalMoveError(f"illegal move {text!r} in {self.fen()}")
        if san in (PASS_SAN, "--", "@@@@"):  # a pass (janggi); "--" as PGN null moves
            for code in legal:
                if move_from(code) == move_to(code) and move_kind(code) == NORMAL:
                    return self._move(code)
            raise IllegalMoveError(f"no pass is legal in {self.fen()}")
        if san in ("O-O", "0-0", "O-O-O", "0-0-0"):
            kingside = san in ("O-O", "0-0")
            for code in legal:
                if move_kind(code) == CASTLE and not gated_type(code):
                    right = self.rules.file_of(move_to(code)) > self.rules.file_of(move_from(code))
                    if right == kingside:
                        return self._move(code)
            raise IllegalMoveError(f"illegal castling {text!r} in {self.fen()}")
        if "@" in san:
            for code in legal:
                if move_kind(code) == DROP and self._san_body(code) == san.upper()[:1] + san[1:]:
                    return self._move(code)
            raise IllegalMoveError(f"illegal drop {text!r} in {self.fen()}")
        exact = self._exact_san(text.strip().rstrip("!?"), legal)
        if exact is not None:
            return self._move(exact)
        match = SAN_RE.match(san)
        if match is None:
            raise IllegalMoveError(f"invalid SAN {text!r}")
        letter, from_file, from_rank, _, dest, promo = match.groups()
        try:
            to = self.rules.parse_square(dest)
        except ValueError:
            raise IllegalMoveError(f"invalid SAN {text!r}: no square {dest}") from None
        candidates = []
        for code in legal:
            if move_kind(code) in (CASTLE, DROP) or move_to(code) != to or gated_type(code):
                continue
            fr = move_from(code)
            piece = self.rules.pieces[(self.position.board[fr] >> 1) - 1]
            if ("" if piece.pawn else piece.letter.rstrip("~")) != letter:
                continue
            name = self.rules.square_name(fr)
            if from_file and name[0] != from_file or from_rank and name[1:] != from_rank:
                continue
            if move_kind(code) == PROMO:
                promo_piece = self.rules.pieces[move_promo(code) - 1]
                shogi = piece.promoted == promo_piece.letter
                if promo is None or (promo == "+") != shogi:
                    continue
                if promo != "+" and promo.upper() != promo_piece.letter.rstrip("~"):
                    continue
            elif promo is not None and promo != "+" or promo == "+":
                continue
            candidates.append(code)
        if not candidates:
            raise IllegalMoveError(f"illegal move {text!r} in {self.fen()}")
        if len(candidates) > 1:
            raise AmbiguousMoveError(f"ambiguous move {text!r} in {self.fen()}")
        return self._move(candidates[0])

    def _exact_san(self, text: str, legal: list[int]) -> int | None:
        """The one legal move whose SAN is `text` as this board writes it, with or without its
        check mark, else None. Read first, since a shogi `+` may promote or give check:
        Pxb5+ promotes, Pxb5++ promotes with check, Pxb5=+ declines and checks."""
        names = [(code, self.rules.square_name(move_to(code))) for code in legal]
        near = [code for code, name in names if name in text and move_kind(code) != CASTLE]
        bodies = [text[:-1]] if text[-1:] in ("+", "#") else []
        for body in [*bodies, text]:
            found = [code for code in near if self._san_body(code, legal) == body]
            if len(found) == 1:
                return found[0]
        return None

    # ------------------------------------------------------------------ game state

    def is_check(self) -> bool:
        """Whether the side to move is in check."""
        return in_check(self.position)

    def is_checkmate(self) -> bool:
        """In check with no legal move."""
        return in_check(self.position) and not self.position.legal_moves()

    def is_stalemate(self) -> bool:
        """Not in check and no legal move."""
        return not in_check(self.position) and not self.position.legal_moves()

    def is_fifty_moves(self) -> bool:
        """The halfmove clock has reached the n-move rule (fifty moves in chess)."""
        return self.rules.n_move_rule > 0 and self.position.halfmove >= 2 * self.rules.n_move_rule

    def can_claim_fifty_moves(self) -> bool:
        """The fifty-move rule holds now, or will after a move that is no capture or pawn move."""
        if self.is_fifty_moves():
            return True
        if self.rules.n_move_rule <= 0 or self.position.halfmove != 2 * self.rules.n_move_rule - 1:
            return False
        pos = self.position
        for code in pos.legal_moves():
            pos.make(code)
            zeroing = pos.halfmove == 0
            pos.unmake()
            if not zeroing:
                return True
        return False

    def is_seventyfive_moves(self) -> bool:
        """The seventy-five-move rule ends the game (checkmate on the last move wins)."""
        return self.rules.n_move_rule > 0 and self.position.halfmove >= 150

    def repetitions(self) -> int:
        """How often the current position has occurred (including now)."""
        return Counter(self._keys)[self.position.key]

    def is_repetition(self, count: int = 3) -> bool:
        """Whether the current position has occurred at least `count` times."""
        return self.repetitions() >= count

    def can_claim_threefold_repetition(self) -> bool:
        """The position occurred three times, or will after some legal move."""
        n = self.rules.n_fold_rule
        if self.is_repetition(n):
            return True
        counts = Counter(self._keys)
        pos = self.position
        for code in pos.legal_moves():
            pos.make(code)
            repeated = counts[pos.key] >= n - 1
            pos.unmake()
            if repeated:
                return True
        return False

    def can_claim_draw(self) -> bool:
        """The fifty-move rule or threefold repetition can be claimed."""
        return self.can_claim_fifty_moves() or self.can_claim_threefold_repetition()

    def _insufficient(self, color: int) -> bool:
        """Whether `color` cannot possibly checkmate (FIDE rules, by piece movement)."""
        rules, pos = self.rules, self.position
        if any(pos.hand[p] for p in range(2, pos.npc)):
            return False
        role = self._roles
        # the non-royal pieces of each colour, from the position's piece lists (the referee
        # asks after every ply: a pawn, queen or major piece of `color` answers at once)
        kinds: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])
        for c in (color, color ^ 1):
            for i in range(pos.pcount[c]):
                sq = pos.plist[c * MAXP + i]
                t = pos.board[sq] >> 1
                if role[t] == "royal":
                    continue
                if c == color and role[t] in ("pawn", "queen", "major"):
                    return False
                kinds[c].append((t, sq))
        mine, every = kinds[color], kinds[0] + kinds[1]
        if any(role[t] == "knight" for t, _ in mine):
            theirs = [t for t, _ in kinds[color ^ 1]]
            return len(mine) <= 1 and all(role[t] == "queen" for t in theirs)
        if mine:
            colors = {
                (rules.file_of(sq) + rules.rank_of(sq)) % 2
                for t, sq in every
                if role[t] == "bishop"
            }
            blockers = any(role[t] in ("knight", "pawn") for t, _ in every)
            return len(colors) == 1 and not blockers
        return True

    def _mate_decides(self) -> bool:
        """Whether a win needs a checkmate (or, with check counting, checks): no other rule
        (extinction, flags, forced captures, janggi's count) can end the game with bare kings."""
        rules = self.rules
        if not any(p.royal for p in rules.pieces) or rules.checkmate_value != "loss":
            return False
        if rules.extinction_value or any(rules.flag_letters) or rules.must_capture:
            return False  # bare kings can still win or lose by these rules
        return rules.material_counting == "none" and not rules.bikjang  # janggi: the count

    def has_insufficient_material(self, color: bool) -> bool:
        """Whether `color` (True: White) cannot win by any series of legal moves, as
        python-chess's: its opponent's flag fall is then a draw (FIDE 6.9)."""
        if not self._mate_decides():
            return False
        c = 0 if color else 1
        if self.rules.check_counting:  # any piece but a king can still give the checks
            pos, pieces = self.position, self.rules.pieces
            return all(
                pos.board[sq] < 2
                or pos.board[sq] & 1 != c
                or pieces[(pos.board[sq] >> 1) - 1].royal
                for sq in self.rules.squares()
            )
        return self._insufficient(c)

    @cached_property
    def _roles(self) -> tuple[str, ...]:
        """Each piece type's mating power (_role), by type index (0: none)."""
        return ("", *(_role(piece) for piece in self.rules.pieces))

    def is_insufficient_material(self) -> bool:
        """Neither side can win (has_insufficient_material for both)."""
        return self.has_insufficient_material(True) and self.has_insufficient_material(False)

    def outcome(self, claim_draw: bool = False) -> Outcome | None:
        """The game's outcome if it is over, else None (python-chess's rules for chess).

        Variant rules come first (extinction, flags), then the value of having no legal move
        (checkmate, stalemate, as the variant scores them), the end of a makruk count,
        insufficient material, the seventy-five-move rule and repetitions (fivefold at once;
        claimable ones with claim_draw), which the variant may score as a loss for a perpetual
        checker.
        """
        pos, rules = self.position, self.rules
        value = endrules.end_value(pos)
        if value != NO_END:
            return self._scored(("variant_loss", "variant_draw", "variant_win")[value + 1], value)
        if not pos.legal_moves():
            check = in_check(pos)
            value = endrules.no_moves_value(pos, check)
            return self._scored("checkmate" if check else "stalemate", value)
        if endrules.counting_over(pos):
            return Outcome("counting_rule", None)
        if endrules.promotions_only(pos):
            return Outcome("promotions_only", None)
        if self.is_insufficient_material():
            return Outcome("insufficient_material", None)
        if self.is_seventyfive_moves():
            return self._counted("seventyfive_moves")
        count = self.repetitions()
        if count >= 5:
            value = endrules.repetition_value(pos, *self._perpetual_sides())
            return self._counted("fivefold_repetition", value)
        if claim_draw:
            # a repetition the next move would make is a plain draw only where every
            # repetition is (not under perpetual-check or chasing rules)
            plain = rules.n_fold_value == "draw" and not (
                rules.perpetual_check_illegal or rules.chasing_rule
            )
            if self.can_claim_fifty_moves():
                return self._counted("fifty_moves")
            if count >= rules.n_fold_rule:
                value = endrules.repetition_value(pos, *self._perpetual_sides())
                name = "threefold_repetition" if rules.n_fold_rule == 3 else "repetition"
                return self._counted(name, value)
            if rules.n_fold_rule == 3 and plain and self.can_claim_threefold_repetition():
                return Outcome("threefold_repetition", None)
        return None

    def outcome_value(self, claim_draw: bool = False) -> int | None:
        """The finished game's value for the side to move (1 won, 0 drawn, -1 lost), else None."""
        done = self.outcome(claim_draw)
        if done is None:
            return None
        if done.winner is None:
            return 0
        return 1 if done.winner == (self.position.side == 0) else -1

    def reply_first(self) -> bool:
        """Whether the game is over only by extinctionClaim's early verdict on a bared king that
        cannot bare back: Fairy-Stockfish ends it now, XBoard after the bared side's reply."""
        return bool(endrules.reply_first(self.position))

    def _counted(self, termination: str, value: int = 0) -> Outcome:
        """An outcome that would be a draw decided instead by the material count where the
        variant has one (janggi's materialCounting, as Fairy-Stockfish)."""
        if value == 0 and self.rules.material_counting != "none":
            value = endrules.material_result(self.position)
        return self._scored(termination, value)

    def _scored(self, termination: str, value: int) -> Outcome:
        """An outcome from a value for the side to move (1 win, 0 draw, -1 loss)."""
        if value == 0:
            return Outcome(termination, None)
        return Outcome(termination, (self.position.side == 0) == (value > 0))

    def _perpetual_sides(self) -> tuple[int, int]:
        """The colours that checked, and those that chased, at every move of the current
        repetition cycle (each only where the variant's rules care), as bit sets (1 White,
        2 Black) for endrules.repetition_value."""
        rules = self.rules
        now = len(self._keys) - 1
        first = self._keys.index(self._keys[now])
        checkers: set[int] = set()
        if rules.perpetual_check_illegal:
            for victim in (0, 1):
                indexes = [i for i in range(first + 1, now + 1) if self._side_at(i) == victim]
                if indexes and all(self._checks[i] for i in indexes):
                    checkers.add(victim ^ 1)
        chasers: set[int] = set()
        if rules.chasing_rule and not checkers:
            chasers = self._perpetual_chasers(first, now)
        return sum(1 << c for c in checkers), sum(1 << c for c in chasers)

    def _side_at(self, index: int) -> int:
        """The side to move in the position after `index` moves."""
        return self.position.side ^ ((len(self._keys) - 1 - index) & 1)

    def _perpetual_chasers(self, first: int, now: int) -> set[int]:
        """The colours that chased one enemy piece through every one of their moves from
        position `first` to `now` (FSF's chasing rule; the move into `first` counts too).

        The cycle's moves are taken back and replayed to find each move's chased pieces (the
        position is left as it was); a chased piece is followed back through the moves its
        side made in between."""
        from .core.chase import Chases, persistent

        chases = Chases(self.rules)
        pos, low = self.position, max(first, 1)
        cycle = self.move_stack[low - 1 : now]
        chased: list[set[int]] = []
        for _ in cycle:
            pos.unmake()
        made = 0
        try:
            for move in cycle:
                pos.make(move.code)
                made += 1
                chased.append(chases.chased(pos, move.code))
        finally:
            for move in cycle[made:]:  # (only where a judgement failed half-way)
                pos.make(move.code)
        sides = persistent(chased, [move.code for move in cycle])
        return {self._side_at(now - offset) ^ 1 for offset in sides}

    def is_game_over(self, claim_draw: bool = False) -> bool:
        """Whether the game has ended."""
        return self.outcome(claim_draw) is not None

    def result(self, claim_draw: bool = False) -> str:
        """'1-0', '0-1', '1/2-1/2' or '*'."""
        outcome = self.outcome(claim_draw)
        return outcome.result() if outcome else "*"

    # ------------------------------------------------------------------ python-chess calls

    def gives_check(self, move: Move) -> bool:
        """Whether the (legal) move checks the opponent."""
        self.push(move)
        try:
            return self.is_check()
        finally:
            self.pop()

    def is_capture(self, move: Move) -> bool:
        """Whether the move takes a piece (en passant included; castling and drops never do)."""
        kind = move_kind(move.code)
        if kind == EP:
            return True
        if kind in (CASTLE, DROP):
            return False
        target = self.position.board[move_to(move.code)]
        return target >= 2 and (target & 1) != self.position.side

    def is_castling(self, move: Move) -> bool:
        """Whether the move castles."""
        return move_kind(move.code) == CASTLE

    def is_en_passant(self, move: Move) -> bool:
        """Whether the move takes en passant."""
        return move_kind(move.code) == EP

    def piece_map(self) -> dict[str, str]:
        """Every occupied square and its piece letter (python-chess's name for `pieces`)."""
        return self.pieces()

    def board_fen(self) -> str:
        """The piece placement field of the FEN (without pockets)."""
        return self.fen().split()[0].split("[")[0]

    def epd(self, **operations: object) -> str:
        """The position as EPD (FEN without the move counters) with operations, such as
        `epd(bm=move, id="x", acd=12)`: Move objects in SAN, strings quoted, numbers bare."""
        fields = self.fen().split()[:-2]
        ops = []
        for name, value in operations.items():
            if value is None:
                ops.append(f"{name};")
                continue
            values = value if isinstance(value, (list, tuple)) else [value]
            texts = [
                self.san(v)
                if isinstance(v, Move)
                else '"' + v.replace('"', "'") + '"'
                if isinstance(v, str)
                else str(v)
                for v in values
            ]
            ops.append(f"{name} {' '.join(texts)};")
        return " ".join([*fields, *ops])

    def set_epd(self, epd: str) -> dict[str, list[str]]:
        """Set up the position of an EPD line; returns its operations (name -> operands).
        InvalidFenError (or ValueError for bad operations) leaves the board unchanged."""
        from .epd import parse_line

        record = parse_line(epd)
        if record is None:
            raise ValueError("an EPD line needs a position")
        self.set_fen(record.fen)
        return dict(record.ops)

    def variation_san(self, moves: list[Move]) -> str:
        """The moves from this position in numbered SAN (`1. e4 e5 2. Nf3`, `3...Nc6`);
        IllegalMoveError if one is not legal in its turn. The board is left as it was."""
        board = self.copy()
        parts = []
        for i, move in enumerate(moves):
            if not board.is_legal(move):
                raise IllegalMoveError(f"illegal move {move.text!r} in {board.fen()}")
            number, san = board.fullmove_number, board.san(move)
            if board.turn:
                parts.append(f"{number}. {san}")
            else:
                parts.append(f"{number}...{san}" if i == 0 else san)
            board.push(move)
        return " ".join(parts)

    def mirror(self) -> Board:
        """The position with the board flipped top to bottom and the colours swapped (the side
        to move, castling rights, en passant square and pockets too); no move history."""
        fields = self.fen().split()
        placement, _, pocket = fields[0].partition("[")
        rows = placement.split("/")[::-1]
        mirrored = "/".join(row.swapcase() for row in rows)
        if pocket:
            mirrored += "[" + pocket.rstrip("]").swapcase() + "]"
        fields[0] = mirrored
        fields[1] = "b" if fields[1] == "w" else "w"
        if len(fields) > 2 and fields[2] != "-":
            fields[2] = "".join(sorted(fields[2].swapcase(), key=lambda c: (c.islower(), c)))
        if len(fields) > 3 and re.fullmatch(r"[a-p]\d+", fields[3]):
            rank = self.ranks + 1 - int(fields[3][1:])
            fields[3] = f"{fields[3][0]}{rank}"
        for i, field in enumerate(fields[4:], start=4):  # check counters `W+B` swap sides
            if re.fullmatch(r"\+?\d\+\d", field):
                lead = "+" if field.startswith("+") else ""
                white, black = field.lstrip("+").split("+")
                fields[i] = f"{lead}{black}+{white}"
        return Board(" ".join(fields), rules=self.rules, chess960=self.chess960)

    # ------------------------------------------------------------------ attacks and pins

    def _side(self, color: bool) -> int:
        """The core's colour (0 white, 1 black) of a python-chess colour (True is White)."""
        if not isinstance(color, bool):
            raise ValueError(f"colour must be True (White) or False (Black), got {color!r}")
        return 0 if color else 1

    def _square(self, name: str) -> int:
        """The mailbox index of a square name of this board; ValueError otherwise."""
        if not isinstance(name, str):
            raise ValueError(f"a square is named by a string such as 'e4', got {name!r}")
        return self.rules.parse_square(name)

    def _names(self, squares) -> frozenset[str]:
        """Square names of mailbox indexes."""
        return frozenset(self.rules.square_name(sq) for sq in squares)

    def squares(self) -> frozenset[str]:
        """Every square of the board, by name (what `pin` returns when there is no pin)."""
        return self._everything

    @cached_property
    def _everything(self) -> frozenset[str]:
        """Every square's name, made once per board."""
        return self._names(self.rules.squares())

    def attackers(self, color: bool, square: str) -> frozenset[str]:
        """The squares of the pieces of `color` (True White, False Black) that attack `square`,
        whatever stands on it, as the core's attack probes see attacks: fairy pieces by their
        capturing moves (a cannon over its screen, a horse whose leg is free), pieces confined
        to a region only inside it; pins do not matter and pieces in hand attack nothing."""
        by, sq = self._side(color), self._square(square)
        return self._names(attacks.attackers(self.position, sq, by))

    def is_attacked_by(self, color: bool, square: str) -> bool:
        """Whether a piece of `color` attacks `square` (`attackers` is not empty)."""
        by, sq = self._side(color), self._square(square)
        return bool(attacks.attacked(self.position, sq, by))

    def pin(self, color: bool, square: str) -> frozenset[str]:
        """The line of an absolute pin of `square` to the royal piece of `color`, as
        python-chess: every square of the line through the royal piece and the pinner (edge
        to edge), or every square of the board when there is no pin.

        `square` is pinned when an enemy piece attacks the royal piece with `square` empty but
        not with it occupied (whatever stands there, an empty square included: python-chess's
        rule). That covers riders, the cannon (with two pieces between cannon and general,
        each one is pinned; the screen alone is not), and the xiangqi horse whose leg is
        blocked: that pin is not along a line, so its squares are the royal piece, `square`
        and the horse. Under the flying-general rule a piece alone between the two generals is
        pinned along their file by the enemy general. Several pinners: the squares common to
        their lines. No royal piece (antichess), or `square` is the royal piece: no pin."""
        side, sq = self._side(color), self._square(square)
        pos = self.position
        king = pos.royal[side]
        everything = self.squares()
        if king < 0 or sq == king:
            return everything
        old = pos.board[sq]
        try:
            pos.board[sq] = 0  # EMPTY
            opened = set(attacks.attackers(pos, king, side ^ 1))
            pos.board[sq] = old if old >= 2 else 2 + side  # any piece of ours blocks
            closed = set(attacks.attackers(pos, king, side ^ 1))
        finally:
            pos.board[sq] = old
        pinners = opened - closed
        enemy = pos.royal[side ^ 1]
        if self.rules.flying_general and enemy >= 0 and self._alone_between(king, enemy, sq):
            pinners.add(enemy)
        mask = everything
        for pinner in pinners:
            mask &= self._pin_line(king, sq, pinner)
        return mask

    def is_pinned(self, color: bool, square: str) -> bool:
        """Whether `square` is pinned to the royal piece of `color` (see `pin`)."""
        return len(self.pin(color, square)) < self.files * self.ranks

    def _alone_between(self, a: int, b: int, sq: int) -> bool:
        """Whether sq is the only square that counts between a and b on one file: empty
        squares elsewhere, sq occupied or not."""
        rules = self.rules
        if rules.file_of(a) != rules.file_of(b) or rules.file_of(sq) != rules.file_of(a):
            return False
        low, high = sorted((rules.rank_of(a), rules.rank_of(b)))
        if not low < rules.rank_of(sq) < high:
            return False
        file = rules.file_of(a)
        return all(
            self.position.board[rules.square(file, r)] < 2
            for r in range(low + 1, high)
            if r != rules.rank_of(sq)
        )

    def _pin_line(self, king: int, sq: int, pinner: int) -> frozenset[str]:
        """The whole line through king and pinner when sq lies between them, else the three
        squares (a pin that does not run along a line)."""
        rules = self.rules
        kf, kr = rules.file_of(king), rules.rank_of(king)
        df, dr = rules.file_of(pinner) - kf, rules.rank_of(pinner) - kr
        sf, sr = rules.file_of(sq) - kf, rules.rank_of(sq) - kr
        g = math.gcd(df, dr)
        uf, ur = df // g, dr // g
        j = sf // uf if uf else sr // ur
        if not (0 < j < g and (sf, sr) == (j * uf, j * ur)):
            return self._names((king, sq, pinner))
        line = []
        for n in range(-self.files - self.ranks, self.files + self.ranks + 1):
            f, r = kf + n * uf, kr + n * ur
            if 0 <= f < self.files and 0 <= r < self.ranks:
                line.append(rules.square(f, r))
        return self._names(line)

    def transform(self, how: str | Callable) -> Board:
        """A transformed copy of the position, without history: `how` names one of
        python-chess's transformations ("flip_vertical", "flip_horizontal", "flip_diagonal",
        "flip_anti_diagonal", "shift_up", "shift_down", "shift_left", "shift_right") or is
        that function itself (`chess.flip_vertical`).

        Pieces move, colours and the side to move stay (`mirror` swaps them). Any board shape
        takes the flips and shifts, the diagonal flips only a square one (ValueError
        otherwise); pieces shifted off the board are lost, pockets and counters kept. A
        castling right (or gate) stays only where its rook lands on a square that can castle
        (in a non-Chess960 game: where the start position has that right, king in place),
        the e.p. square only where pawns keep their direction. A result that is not a
        position of the variant (a pawn on its last rank, the side not to move in check, a
        xiangqi general out of its palace) raises InvalidFenError."""
        name = how if isinstance(how, str) else getattr(how, "__name__", repr(how))
        if name not in TRANSFORMS:
            known = ", ".join(TRANSFORMS)
            raise ValueError(f"unknown transformation {name!r}; known: {known}")
        if name in DIAGONAL and self.files != self.ranks:
            raise ValueError(
                f"{name} needs a square board; {self.variant} is {self.files}x{self.ranks}"
            )
        rules, move = self.rules, TRANSFORMS[name]

        def moved(sq: int) -> int | None:
            """Where square sq goes, or None."""
            to = move(rules.file_of(sq), rules.rank_of(sq), self.files, self.ranks)
            return None if to is None else rules.square(*to)

        setup = fenlib.parse(rules, self.fen())
        pieces = {moved(sq): code for sq, code in setup.pieces.items()}
        pieces.pop(None, None)
        region = tables.of(rules).region  # checked before the FEN would, to name the transform
        for sq, code in pieces.items():
            if not region[code * rules.nsq + sq]:
                raise InvalidFenError(
                    f"{name}: {self._letter(code)} cannot stand on {rules.square_name(sq)}"
                    f" in {self.variant}"
                )
        after = replace(setup, pieces=pieces, castling=[], gates=[], ep=0)
        after.castling = self._moved_rights(setup, after, moved)
        for color, file in setup.gates:
            rank = rules.castling_rank_of(color)
            to = moved(rules.square(file, rank))
            if to is not None and rules.rank_of(to) == rank:
                after.gates.append((color, rules.file_of(to)))
        if setup.ep and name in SAME_RANKS:
            after.ep = moved(setup.ep) or 0
        return Board(fenlib.render(rules, after), rules=rules, chess960=self.chess960)

    def _moved_rights(self, setup, after, moved) -> list[int]:
        """The castling rights (rook squares) of `setup` that still hold after the pieces moved
        as `moved` says: same rook on its castling rank with the king there (Chess960), or
        just where the start position has that right and king (other games)."""
        rules = self.rules
        start = fenlib.parse(rules, rules.start_fen) if not self.chess960 else None
        kept = []
        for rook in setup.castling:
            to = moved(rook)
            color = setup.pieces[rook] & 1
            rank = rules.castling_rank_of(color)
            king = _royal(rules, after.pieces, color)
            if to is None or king is None or after.pieces.get(to) != setup.pieces[rook]:
                continue
            if rules.rank_of(to) != rank or rules.rank_of(king) != rank:
                continue
            if start is not None and (
                to not in start.castling or _royal(rules, start.pieces, color) != king
            ):
                continue
            kept.append(to)
        return kept

    def _repr_svg_(self) -> str:
        """The position as SVG (Jupyter draws it); see ferz.svg.board_svg for options."""
        from .svg import board_svg

        return board_svg(self, lastmove=self.move_stack[-1].text if self.move_stack else None)

    def __str__(self) -> str:
        rows = []
        for rank in range(self.ranks - 1, -1, -1):
            cells = []
            for file in range(self.files):
                code = self.position.board[self.rules.square(file, rank)]
                cells.append(self._letter(code) if code >= 2 else ".")
            rows.append(" ".join(cells))
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Board({self.fen()!r}, variant={self.variant!r})"


def _royal(rules: Rules, pieces: dict[int, int], color: int) -> int | None:
    """The square of a royal piece of `color` among pieces (square -> code), or None."""
    for sq, code in pieces.items():
        if code & 1 == color and rules.pieces[(code >> 1) - 1].royal:
            return sq
    return None


#: the two squares at the start of a UCI move (board files a.., ranks from 1)
_UCI_SQUARES = re.compile(r"([a-z])(\d+)([a-z])(\d+)")


def _role(piece: PieceType) -> str:
    """Mating power class of a piece type: pawn, knight, bishop, queen or major (by its atoms)."""
    if piece.pawn:
        return "pawn"
    if piece.royal:
        return "royal"
    steps = {(abs(a.dx), abs(a.dy)) for a in piece.atoms}
    riders = {(abs(a.dx), abs(a.dy)) for a in piece.atoms if a.range != 1}
    if steps == {(1, 2), (2, 1)} and not riders:
        return "knight"
    if steps == {(1, 1)} and riders:
        return "bishop"
    if steps == {(1, 1), (0, 1), (1, 0)} and riders == steps:
        return "queen"
    return "major"


__all__ = [
    "AmbiguousMoveError",
    "Board",
    "IllegalMoveError",
    "InvalidFenError",
    "Move",
    "Outcome",
    "encode",
]


def gated_type(code: int) -> int:
    """The piece type a move gates in (seirawanGating: the promotion field of a normal move or
    castling), 0 for none."""
    return move_promo(code) if move_kind(code) in (NORMAL, CASTLE) else 0
