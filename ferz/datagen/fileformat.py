"""The binary training-data format of `ferz datagen` (`.fzd` chunk files): writer and reader.

A chunk file is a header, then its records, all little-endian:

    offset  size  field
    0       8     magic b"FERZDATA"
    8       2     uint16 format version (VERSION)
    10      1     uint8 position encoding: 1 packed 8x8 chess (PACKED), 0 FEN text (FEN)
    11      1     uint8 reserved, 0
    12      4     uint32 number of records
    16      4     uint32 CRC-32 of the record bytes
    20      4     uint32 length N of the JSON header
    24      N     JSON header (UTF-8): variant, chunk number, first game, games, recipe name
    24+N    ...   records

A record is the position, then the same 12-byte label for both encodings:

- packed (chess and Chess960): 8-byte occupancy (bit i set: square i occupied, a1 = 0,
  b1 = 1, ..., h8 = 63), 16 bytes of 4-bit piece codes for the occupied squares in square
  order (low nibble first; at most 32 pieces), uint8 half-move clock (capped at 255), uint16
  full-move number. Codes 0-5 are White's P N B R Q K, 6-11 Black's; 12 is a pawn that has
  just moved two squares and may be taken en passant (its colour follows from its rank), 13 a
  White rook that may still castle, 14 a Black one, 15 the Black king with Black to move.
  So side to move, castling rights (Chess960's too) and the en-passant square live in the
  pieces, as in Stockfish's binpack: 27 bytes a position.
- FEN (every other variant): uint8 length L, then L bytes of the FEN (ASCII).

Label (12 bytes): int16 search score in centipawns from the side to move's view, int8 game
result from the side to move's view (1 win, 0 draw, -1 loss), uint8 flags (FLAG_*), uint16
ply of the position in its game (0: the start of the game's opening moves), uint32 game
number in the recipe (games are numbered from 0 across all chunks; the trainer keeps whole
games together when it holds some out), uint16 reserved 0.

The key of a position (deduplication) is a 64-bit BLAKE2b digest of its FEN's first four
fields (placement, side, castling, en passant; the pockets and check counts of variants are
part of the first field), so the same position with other move counters is a duplicate; for
packed chess, of the packed bytes before the clocks, which hold the same four fields.
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..files import write_atomically

MAGIC = b"FERZDATA"
VERSION = 1
FEN, PACKED = 0, 1
SUFFIX = ".fzd"
PACKED_VARIANTS = ("chess", "chess960")

FLAG_CHECK = 1  # the side to move is in check
FLAG_CAPTURE = 2  # the engine's best move captures
FLAG_PROMOTION = 4  # the engine's best move promotes
FLAG_GIVES_CHECK = 8  # the engine's best move gives check
FLAG_RANDOM = 16  # a random move, not the engine's, was played from here
FLAG_ADJUDICATED = 32  # the game was ended by adjudication (scores or the move limit)
FLAG_TAIL = 64  # inside the window of scores that adjudicated the game

_HEAD = struct.Struct("<8sHBBIII")
_LABEL = struct.Struct("<hbBHIH")
_POSITION = struct.Struct("<Q16sBH")
_PIECES = "PNBRQKpnbrqk"
_FILES = "abcdefgh"


class FormatError(ValueError):
    """A file that is not a readable chunk of this format (the message says why)."""


@dataclass(frozen=True)
class TrainingRecord:
    """One position and its labels (see the module's description of the fields)."""

    fen: str
    score: int  # centipawns, side to move's view
    result: int  # 1, 0, -1: side to move's view
    ply: int
    game: int
    flags: int = 0

    def white_score(self) -> int:
        """The score from White's view."""
        return self.score if self.fen.split()[1] == "w" else -self.score

    def white_result(self) -> float:
        """The result from White's view as 1.0, 0.5 or 0.0 (the text format's)."""
        mover = (self.result + 1) / 2
        return mover if self.fen.split()[1] == "w" else 1.0 - mover


def position_key(fen: str) -> int:
    """The 64-bit key of a position: its FEN without the move counters, digested."""
    text = " ".join(fen.split()[:4]).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def record_key(position: bytes, encoding: int) -> int:
    """The key of an encoded position (a record's first part): for packed chess the digest
    of its 24 bytes before the clocks, which hold exactly what the FEN's first four fields
    hold (so the same positions share a key as with position_key, without writing the FEN
    back); for a FEN, position_key."""
    if encoding == PACKED:
        digest = hashlib.blake2b(position[:24], digest_size=8).digest()
        return int.from_bytes(digest, "little")
    return position_key(position[1:].decode("ascii"))


def chunk_keys(path: Path) -> list[int]:
    """The keys (record_key) of a chunk file's positions; FormatError as read_chunk."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise FormatError(f"cannot read {path}: {error.strerror or error}") from None
    _, encoding, count, offset = read_header(data, str(path))
    keys = []
    while offset < len(data):
        size = _POSITION.size if encoding == PACKED else 1 + data[offset]
        keys.append(record_key(data[offset : offset + size], encoding))
        offset += size + _LABEL.size
    if len(keys) != count or offset != len(data):
        raise FormatError(f"{path}: {len(keys)} records, the header says {count}")
    return keys


def canonical(fen: str, variant: str) -> str:
    """The FEN as a reader of the variant's records gets it back (packed chess writes
    castling rights its own way), so that keys made while writing and after reading agree."""
    return unpack_chess(pack_chess(fen)) if encoding_of(variant) == PACKED else fen


def encoding_of(variant: str) -> int:
    """The position encoding used for a variant's records."""
    return PACKED if variant in PACKED_VARIANTS else FEN


# ------------------------------------------------------------------------------ packed chess


def _square(name: str) -> int:
    """0..63 of a square name such as e4; FormatError if it is none."""
    if len(name) != 2 or name[0] not in _FILES or name[1] not in "12345678":
        raise FormatError(f"bad square {name!r}")
    return _FILES.index(name[0]) + 8 * (int(name[1]) - 1)


def pack_chess(fen: str) -> bytes:
    """The 27 packed bytes of an 8x8 chess FEN; FormatError for what they cannot hold."""
    fields = fen.split()
    if len(fields) < 4:
        raise FormatError(f"not a full FEN: {fen!r}")
    placement, side, castling, ep = fields[:4]
    halfmove = int(fields[4]) if len(fields) > 4 else 0
    fullmove = int(fields[5]) if len(fields) > 5 else 1
    board: dict[int, int] = {}
    rows = placement.split("/")
    if len(rows) != 8 or side not in ("w", "b"):
        raise FormatError(f"not an 8x8 chess FEN: {fen!r}")
    for rank, row in zip(range(7, -1, -1), rows, strict=True):
        file = 0
        for char in row:
            if char.isdigit():
                file += int(char)
            elif char in _PIECES and file < 8:
                board[8 * rank + file] = _PIECES.index(char)
                file += 1
            else:
                raise FormatError(f"not an 8x8 chess FEN: {fen!r}")
        if file != 8:
            raise FormatError(f"not an 8x8 chess FEN: {fen!r}")
    if len(board) > 32:
        raise FormatError(f"more than 32 pieces: {fen!r}")
    for letter in "" if castling == "-" else castling:
        board[_castling_rook(board, letter, fen)] = 13 if letter.isupper() else 14
    if ep != "-":
        target = _square(ep)
        pawn = target + 8 if target // 8 == 2 else target - 8
        if target // 8 not in (2, 5) or board.get(pawn) not in (0, 6):
            raise FormatError(f"en-passant square without a pawn: {fen!r}")
        board[pawn] = 12
    if side == "b":
        kings = [sq for sq, code in board.items() if code == 11]
        if len(kings) != 1:
            raise FormatError(f"Black needs one king: {fen!r}")
        board[kings[0]] = 15
    occupancy = 0
    nibbles = bytearray(16)
    for index, square in enumerate(sorted(board)):
        occupancy |= 1 << square
        nibbles[index // 2] |= board[square] << (4 * (index % 2))
    return _POSITION.pack(occupancy, bytes(nibbles), min(halfmove, 255), fullmove)


def _castling_rook(board: dict[int, int], letter: str, fen: str) -> int:
    """The square of the rook a castling letter (KQkq or a Shredder/X-FEN file) names."""
    white = letter.isupper()
    rank = 0 if white else 7
    rook, king = (3, 5) if white else (9, 11)
    kings = [sq for sq in range(8 * rank, 8 * rank + 8) if board.get(sq) == king]
    rooks = [sq for sq in range(8 * rank, 8 * rank + 8) if board.get(sq) == rook]
    if letter.upper() in "KQ":
        if not kings:
            raise FormatError(f"castling without a king on its rank: {fen!r}")
        side = [sq for sq in rooks if (sq > kings[0]) == (letter.upper() == "K")]
        if not side:
            raise FormatError(f"castling right {letter!r} without its rook: {fen!r}")
        return side[-1] if letter.upper() == "K" else side[0]
    if letter.upper() in "ABCDEFGH":
        square = 8 * rank + _FILES.index(letter.lower())
        if square not in rooks:
            raise FormatError(f"castling right {letter!r} without its rook: {fen!r}")
        return square
    raise FormatError(f"bad castling field in {fen!r}")


def unpack_chess(data: bytes) -> str:
    """The FEN of 27 packed bytes (pack_chess's inverse)."""
    occupancy, nibbles, halfmove, fullmove = _POSITION.unpack(data)
    squares = [sq for sq in range(64) if occupancy >> sq & 1]
    board = {sq: nibbles[i // 2] >> (4 * (i % 2)) & 15 for i, sq in enumerate(squares)}
    side, ep, rights = "w", "-", []
    for square, code in list(board.items()):
        if code == 15:
            side, board[square] = "b", 11
        elif code == 12:
            white = square // 8 == 3
            board[square] = 0 if white else 6
            ep = _FILES[square % 8] + ("3" if white else "6")
        elif code in (13, 14):
            board[square] = 3 if code == 13 else 9
            rights.append(square)
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            code = board.get(8 * rank + file)
            if code is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + _PIECES[code]
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    castling = "".join(_castling_letter(board, sq) for sq in sorted(rights, key=_castling_order))
    return f"{'/'.join(rows)} {side} {castling or '-'} {ep} {halfmove} {fullmove}"


def _castling_order(square: int) -> tuple[int, int]:
    """White's rights before Black's, the king's side first (the FEN order KQkq)."""
    return (square // 8 != 0, -(square % 8))


def _castling_letter(board: dict[int, int], square: int) -> str:
    """K/Q/k/q for the outermost rook on its side of the king, else the rook's file (X-FEN)."""
    white = square // 8 == 0
    rank, rook, king = (0, 3, 5) if white else (7, 9, 11)
    kings = [sq for sq in range(8 * rank, 8 * rank + 8) if board.get(sq) == king]
    rooks = [sq for sq in range(8 * rank, 8 * rank + 8) if board.get(sq) == rook]
    letter = _FILES[square % 8]
    if kings:
        side = [sq for sq in rooks if (sq > kings[0]) == (square > kings[0])]
        if square > kings[0] and side[-1] == square:
            letter = "k"
        elif square < kings[0] and side[0] == square:
            letter = "q"
    return letter.upper() if white else letter


# ------------------------------------------------------------------------------ chunks


def encode_position(fen: str, encoding: int) -> bytes:
    """A position's bytes in an encoding (a record's first part)."""
    if encoding == PACKED:
        return pack_chess(fen)
    text = fen.encode("ascii")
    if len(text) > 255:
        raise FormatError(f"FEN longer than 255 bytes: {fen!r}")
    return bytes([len(text)]) + text


def encode_record(record: TrainingRecord, encoding: int, position: bytes = b"") -> bytes:
    """A record's bytes in an encoding (`position`: its position's bytes, if known)."""
    position = position or encode_position(record.fen, encoding)
    score = max(-32767, min(32767, record.score))
    return position + _LABEL.pack(score, record.result, record.flags, record.ply, record.game, 0)


def chunk_bytes(
    records: list[TrainingRecord],
    variant: str,
    header: dict,
    positions: list[bytes] | None = None,
) -> bytes:
    """A whole chunk file's bytes: the records of one variant and a JSON header
    (`positions`: the records' positions already encoded, if the writer has them)."""
    encoding = encoding_of(variant)
    known = positions if positions is not None else [b""] * len(records)
    body = b"".join(
        encode_record(record, encoding, position)
        for record, position in zip(records, known, strict=True)
    )
    meta = json.dumps({"variant": variant, **header}, sort_keys=True).encode()
    head = _HEAD.pack(MAGIC, VERSION, encoding, 0, len(records), zlib.crc32(body), len(meta))
    return head + meta + body


def write_chunk(
    path: Path,
    records: list[TrainingRecord],
    variant: str,
    header: dict,
    positions: list[bytes] | None = None,
) -> None:
    """Write a chunk file atomically (a temporary file renamed: a chunk is whole or absent)."""
    write_atomically(path, chunk_bytes(records, variant, header, positions))


def read_header(data: bytes, name: str = "chunk") -> tuple[dict, int, int, int]:
    """(JSON header, encoding, record count, offset of the records); FormatError if the bytes
    are no chunk of this format, or a damaged one."""
    if len(data) < _HEAD.size or data[:8] != MAGIC:
        raise FormatError(f"{name}: not a ferz datagen file (no FERZDATA magic)")
    magic, version, encoding, _, count, crc, length = _HEAD.unpack_from(data)
    if version != VERSION:
        raise FormatError(f"{name}: format version {version}, this ferz reads {VERSION}")
    if encoding not in (FEN, PACKED):
        raise FormatError(f"{name}: unknown position encoding {encoding}")
    start = _HEAD.size + length
    if len(data) < start or zlib.crc32(data[start:]) != crc:
        raise FormatError(f"{name}: damaged or truncated (CRC mismatch)")
    try:
        header = json.loads(data[_HEAD.size : start])
    except ValueError as error:
        raise FormatError(f"{name}: bad JSON header: {error}") from None
    return header, encoding, count, start


def read_chunk(path: Path) -> tuple[dict, list[TrainingRecord]]:
    """The header and records of a chunk file; FormatError if it is not one or is damaged."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise FormatError(f"cannot read {path}: {error.strerror or error}") from None
    header, encoding, count, offset = read_header(data, str(path))
    records = list(_records(data, encoding, offset))
    if len(records) != count:
        raise FormatError(f"{path}: {len(records)} records, the header says {count}")
    return header, records


def _records(data: bytes, encoding: int, offset: int) -> Iterator[TrainingRecord]:
    """The records from `offset` to the end of the bytes."""
    while offset < len(data):
        if encoding == PACKED:
            fen = unpack_chess(data[offset : offset + _POSITION.size])
            offset += _POSITION.size
        else:
            length = data[offset]
            fen = data[offset + 1 : offset + 1 + length].decode("ascii")
            offset += 1 + length
        score, result, flags, ply, game, _ = _LABEL.unpack_from(data, offset)
        offset += _LABEL.size
        yield TrainingRecord(fen, score, result, ply, game, flags)
