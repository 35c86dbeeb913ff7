"""Conformance suite: ferz driven by real third-party clients (issue #53)."""
