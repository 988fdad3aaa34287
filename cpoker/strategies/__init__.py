"""Strategies: what maps a 13-card hand to an arrangement.  The built-in ones and plug-ins by name
(:mod:`.strategy`), the table policy learned by self-play (:mod:`.policy`), and bots in any language
(:mod:`.bots`)."""
