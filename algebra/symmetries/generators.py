"""Symmetry generators S1-S5 and the one-hidden-layer moves on R^d (to be written)."""
