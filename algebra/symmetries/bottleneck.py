"""Symmetry generators S6-S8 of three-layer bottleneck networks (to be written)."""
