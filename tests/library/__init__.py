"""Tests: library."""
