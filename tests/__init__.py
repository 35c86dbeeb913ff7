"""Tests of ferz."""
