"""Reinforcement-learning environments (the ``rl`` extra: ``pip install "cpoker[rl]"``)."""
