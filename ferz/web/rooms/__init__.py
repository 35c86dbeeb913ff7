"""Live games: a Room per game in memory, composed of one part per concern, and the
registry of rooms.

registry: Games, the rooms over the store (load, start, rematch, resume, delete); room: Room,
a game with its lock, its state message and the players' messages (moves, resignation,
abort) handed to the parts; audience: the game's sockets and sending to them; turns: the
engine's moves; timer: the flag timer; offers: draw offers, takeback requests, rematches;
presence: who is away, abandonment claims, a lobby seek's listing.
"""
