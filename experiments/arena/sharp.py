"""Experiment: ``hard`` weighing worlds harder by the plays seen (:mod:`bot.engine.ai.weigh`): a play
the trick policy would not have made costs a world more of its weight. Sharper weights leave fewer
effective worlds, which ``hard``'s five-fold budget can pay for and ``medium``'s cannot."""

import dataclasses

import bot.engine.ai.search as S


def make() -> S.SearchPlayer:
    """Follow misses ×0.3, lead misses ×0.6 (``medium`` and ``hard``: 0.5, 0.8)."""
    return S.SearchPlayer("hard-sharp", dataclasses.replace(S.HARD, weigh=(0.3, 0.6)))


def make2() -> S.SearchPlayer:
    """Follow misses ×0.2, lead misses ×0.5."""
    return S.SearchPlayer("hard-sharp2", dataclasses.replace(S.HARD, weigh=(0.2, 0.5)))


def medium_flat() -> S.SearchPlayer:
    """``medium`` with every world counting the same (no weighing by the plays seen)."""
    return S.SearchPlayer("medium-flat", dataclasses.replace(S.MEDIUM, weigh=None))


def medium_no_brag_weigh() -> S.SearchPlayer:
    """``medium`` weighing its worlds by the plays only, not by the brag's lays (``Budget.weigh_brag``
    off): the ablation of the brag-lay inference, ``--a medium --b
    experiments.arena.sharp:medium_no_brag_weigh --preset classic``."""
    return S.SearchPlayer("medium-no-brag-weigh", dataclasses.replace(S.MEDIUM, weigh_brag=False))
