"""`ferz datagen`: reproducible training data for ferz's network from engine self-play.

- `generate`: the recipe (engine, node budget, openings, filters, seed), the filters and
  labels of a game's positions, and the chunked, resumable run through ferz match's runner
  (`--driver match`);
- `selfplay`: `--driver selfplay`, a chunk's games played in-process against one long-lived
  engine, interleaved, with no search at the node budget spent on positions the filters drop;
- `filters`: which positions a recipe keeps, by their flags (both drivers);
- `fileformat`: the versioned binary format of the chunks (`.fzd`), its writer and reader;
- `cli`: the command line.
"""
