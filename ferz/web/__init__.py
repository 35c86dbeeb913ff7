"""ferz web: play and analyse in the browser (`ferz web`; see docs/web.md)."""
