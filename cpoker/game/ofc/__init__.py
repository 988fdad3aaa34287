"""The open-face game (OFC, Pineapple): its rules, its boards and their scoring, and one hand as a state every
table steps (:mod:`cpoker.game.ofc.hand`), on the closed game's evaluation."""
