"""Cutting a stream into segments: points checked and archived, BOCPD, boundaries confirmed,
sufficient statistics and summaries, ingestion, changepoint metrics and synthetic series."""
