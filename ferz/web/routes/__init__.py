"""The web app's routes, one module per kind of thing served; server.create_app wires them.

common: what the handlers share (Context, reading requests, a game as JSON); site: the page,
meta, stats and variant cards (and STATIC, the folder server.py mounts); games: the games
list and a game (new, get, delete, rematch); seeks: the lobby's seeks; trees: analysis trees
and their edits; transfer: PGN/FEN import and PGN export; sockets: the game, lobby and
analysis WebSockets.
"""
