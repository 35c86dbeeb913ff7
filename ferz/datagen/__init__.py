"""`ferz datagen`: reproducible training data for ferz's network from engine self-play.

- `generate`: the recipe (engine, node budget, openings, filters, seed), the filters and
  labels of a game's positions, and the chunked, resumable run through ferz match's runner;
- `fileformat`: the versioned binary format of the chunks (`.fzd`), its writer and reader;
- `cli`: the command line.
"""
