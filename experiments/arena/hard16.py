"""Experiment: ``hard`` solving draw exactly only once the stock is empty (16 cards left), so no sampled
world's solve knows the order of the last draws."""

import dataclasses

from bot.engine.ai.search import HARD, SearchPlayer

BUDGET = dataclasses.replace(HARD, solve_at_preset=(("flip", 12), ("draw", 16)))


def make() -> SearchPlayer:
    return SearchPlayer("hard16", BUDGET)
