"""Shared infrastructure every family uses (internal; not public API)."""
