"""Tests: datagen."""
