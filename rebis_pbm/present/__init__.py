"""Presentation: what a player may see, worded, drawn and translated (docs/views.md)."""
