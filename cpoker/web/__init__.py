"""``cpoker serve``: the web page and JSON API (optional extra ``web``); see :mod:`cpoker.web.app`."""
