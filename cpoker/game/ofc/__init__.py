"""The open-face game (OFC, Pineapple): its rules, its boards and their scoring, on the closed game's evaluation."""
