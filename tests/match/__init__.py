"""Tests: match."""
