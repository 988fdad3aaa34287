"""The closed 13-card game: cards, row evaluation, arrangements, rules, scoring, naturals, the lookup tables the
evaluation reads, seeded dealing, and the devices (CPU or CUDA) the per-hand kernels run on."""
