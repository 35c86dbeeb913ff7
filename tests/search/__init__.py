"""Tests: search."""
