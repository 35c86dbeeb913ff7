"""`ferz match`: engine-vs-engine matches over UCI and xboard, refereed with ferz's own Board.

One concept per module:

- `engines`: how to start an engine (`EngineSpec`) and the line-driven process driver
  that speaks UCI or xboard to it;
- `clock`: time controls and the referee's clocks;
- `openings`: start positions from EPD, FEN or PGN files (the bundled set by default);
- `adjudication`: ending games early by agreed scores or a move limit;
- `referee`: one game between two engines, every move checked, every failure recorded;
- `stats`: W/D/L, Elo with its 95 % interval, LOS, pentanomial pairs and the SPRT;
- `record`: a finished game as PGN (through `ferz.pgn`);
- `runner`: the schedule of games, played by local threads or by Ray tasks (`cluster`);
- `cli`: the command line and its progress and summary lines.
"""
