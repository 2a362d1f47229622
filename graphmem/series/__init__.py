"""Numeric series memory: changepoint segmentation, segments, meta-segments, tools."""
