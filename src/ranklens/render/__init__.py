"""Rendering of results: tables (plain, Markdown, LaTeX, CSV, JSON, TREC) and plots."""
