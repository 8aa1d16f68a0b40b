"""Finished games told again: their steps, folded from the event log, and an animated GIF."""
