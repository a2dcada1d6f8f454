"""Command families of the ``netfibers`` CLI; each module exposes ``register(sub, parent)``."""
