"""ferz datagen's binary format: packed chess positions, FEN records, chunk files, bad files."""

from __future__ import annotations

import struct

import pytest

from ferz.datagen import fileformat as ff
from ferz.datagen.fileformat import FormatError, TrainingRecord

FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w Kq - 3 17",
    "8/8/4k3/8/8/4K3/8/8 b - - 99 300",
    # Chess960: an inner rook keeps the right (X-FEN file letter) beside an outer one
    "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/RR2K1R1 w KBkq - 0 1",
]


@pytest.mark.parametrize("fen", FENS)
def test_packed_chess_round_trip(fen: str) -> None:
    packed = ff.pack_chess(fen)
    assert len(packed) == 27
    assert ff.unpack_chess(packed) == fen


def test_canonical_fens_are_what_a_reader_gets() -> None:
    # Chess960 castling written as files where K/Q say the same: the reader writes K/Q
    shredder = "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/RR2K1R1 w GBgb - 0 1"
    assert ff.canonical(shredder, "chess960") == FENS[5]
    assert ff.canonical(shredder, "xiangqi") == shredder  # FEN records keep the text


def test_packed_chess_refuses_what_it_cannot_hold() -> None:
    with pytest.raises(FormatError, match="8x8"):
        ff.pack_chess("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w - - 0 1")
    with pytest.raises(FormatError, match="rook"):
        ff.pack_chess("4k3/8/8/8/8/8/8/4K3 w K - 0 1")
    with pytest.raises(FormatError, match="en-passant"):
        ff.pack_chess("4k3/8/8/8/8/8/8/4K3 b - e3 0 1")


def records(fens: list[str]) -> list[TrainingRecord]:
    """A record for each FEN with varied labels."""
    return [
        TrainingRecord(
            fen, score=(-1) ** i * 37 * i, result=i % 3 - 1, ply=i * 7, game=i // 2, flags=i
        )
        for i, fen in enumerate(fens)
    ]


@pytest.mark.parametrize(
    ("variant", "fens"),
    [
        ("chess", FENS),
        (
            "xiangqi",
            ["rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"],
        ),
        ("crazyhouse", ["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pp] w KQkq - 2 3"]),
    ],
)
def test_chunk_round_trip(tmp_path, variant: str, fens: list[str]) -> None:
    path = tmp_path / "chunk.fzd"
    written = records(fens)
    ff.write_chunk(path, written, variant, {"chunk": 3})
    header, read = ff.read_chunk(path)
    assert read == written
    assert header == {"variant": variant, "chunk": 3}
    assert not path.with_name("chunk.fzd.tmp").exists()
    data = path.read_bytes()
    assert data[:8] == b"FERZDATA"
    version, encoding, count = struct.unpack_from("<HBxI", data, 8)
    assert (version, count) == (ff.VERSION, len(fens))
    assert encoding == (ff.PACKED if variant == "chess" else ff.FEN)


def test_packed_records_are_39_bytes(tmp_path) -> None:
    one = ff.chunk_bytes(records(FENS[:1]), "chess", {})
    two = ff.chunk_bytes(records(FENS[:2]), "chess", {})
    assert len(two) - len(one) == 39


def test_white_view_of_labels() -> None:
    black = TrainingRecord(FENS[2], score=50, result=1, ply=1, game=0)
    assert (black.white_score(), black.white_result()) == (-50, 0.0)
    white = TrainingRecord(FENS[0], score=50, result=0, ply=0, game=0)
    assert (white.white_score(), white.white_result()) == (50, 0.5)


def test_position_key_ignores_move_counters() -> None:
    a = ff.position_key("8/8/4k3/8/8/4K3/8/8 b - - 99 300")
    assert a == ff.position_key("8/8/4k3/8/8/4K3/8/8 b - - 0 1")
    assert a != ff.position_key("8/8/4k3/8/8/4K3/8/8 w - - 0 1")


def test_damaged_and_foreign_files_are_refused(tmp_path) -> None:
    path = tmp_path / "chunk.fzd"
    ff.write_chunk(path, records(FENS), "chess", {})
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(FormatError, match="CRC"):
        ff.read_chunk(path)
    path.write_bytes(bytes(data[: len(data) // 2]))
    with pytest.raises(FormatError, match="truncated"):
        ff.read_chunk(path)
    path.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;0.5;20\n")
    with pytest.raises(FormatError, match="magic"):
        ff.read_chunk(path)
    newer = bytearray(ff.chunk_bytes(records(FENS), "chess", {}))
    newer[8:10] = struct.pack("<H", ff.VERSION + 1)
    path.write_bytes(bytes(newer))
    with pytest.raises(FormatError, match="version"):
        ff.read_chunk(path)
    with pytest.raises(FormatError, match="cannot read"):
        ff.read_chunk(tmp_path / "missing.fzd")
