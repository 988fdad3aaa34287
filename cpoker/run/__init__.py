"""The one seam through which long jobs run: blocks in, per-block summaries out in a fixed reduction order
(:mod:`.runner`, :mod:`.blocks`), here or on a Dask cluster (:mod:`.backends`); the exact running sums the
blocks report (:mod:`.stats`) and the saved results a job resumes (:mod:`.saved`)."""
