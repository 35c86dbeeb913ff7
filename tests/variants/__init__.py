"""Tests: variants."""
