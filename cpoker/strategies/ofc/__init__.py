"""How players of the open-face game decide: the rollout policy (a static estimate of a board, its weights and the
measured worth of a Fantasyland), the ``heuristic`` strategy, the setting of a Fantasyland (by royalties or by
expected value), and bots over the line protocol."""
