"""Deal scoring (RULES.md §1 and each variant) and the penalty categories."""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine.rules import ClassicOptions, Rules, _Threshold

#: Event names of the losing pair's category (RULES.md §1's table).
PARA, CHERPAK, SHESTAK = "para", "cherpak", "shestak"
#: ``tricks`` (RULES.md §5): the losing pair's category by the tricks it took — fewer than five, two or
#: fewer, none — and the other pair's taking all nine, which ends the match.
UNDER_FIVE, TWO_OR_FEWER, NO_TRICKS, ALL_TRICKS = "under_five", "two_or_fewer", "no_tricks", "all_tricks"
#: Every category event, for whoever names why a pair was charged.
CATEGORIES = (PARA, CHERPAK, SHESTAK, UNDER_FIVE, TWO_OR_FEWER, NO_TRICKS)


@dataclass(frozen=True, slots=True)
class DealScore:
    """What a finished deal charges: ``penalty`` per pair and the events that explain it."""

    penalty: tuple[int, int]
    events: tuple[str, ...]
    #: The pair that lost the deal (charged, or not credited under ``score_winners``); ``None`` on eggs.
    loser: int | None
    multiplier: int = 1


def multiplier_for(rules: Rules, eggs_before: int) -> int:
    """``flip``: after 60-60 the next deal counts double, after two eggs in a row ×4, and so on."""
    if rules.preset == "flip" and getattr(rules.options, "eggs_double", False):
        return int(2**eggs_before)
    return 1


def score_deal(
    rules: Rules,
    points: tuple[int, int],
    tricks_won: tuple[int, int],
    queen_caught_pair: int | None = None,
    eggs_before: int = 0,
) -> DealScore:
    """Score a finished (or queen-stopped) deal.

    ``queen_caught_pair`` is the pair whose ♣Q was caught; then card points do not count.
    """
    mult = multiplier_for(rules, eggs_before)
    events: list[str] = []
    if queen_caught_pair is not None:
        events.append("queen_caught")
        return _charge(rules, queen_caught_pair, rules.queen_penalty * mult, events, mult)
    if rules.by_tricks:
        return _by_tricks(rules, tricks_won)
    if points[0] == points[1]:
        return DealScore((0, 0), ("eggs",), None, mult)
    loser = 0 if points[0] < points[1] else 1
    lost = points[loser]
    if rules.preset == "draw":
        base = 2
    else:
        opts = rules.options
        assert isinstance(opts, _Threshold)
        if lost == 0 and not (opts.pointless_trick_saves and tricks_won[loser] > 0):
            base, name = 6, SHESTAK
        elif lost <= opts.cherpak_max:
            base, name = 4, CHERPAK
        else:
            base, name = 2, PARA
        events.append(name)
    return _charge(rules, loser, base * mult, events, mult)


def _by_tricks(rules: Rules, tricks_won: tuple[int, int]) -> DealScore:
    """``tricks``: the pair with fewer than five of the nine tricks is charged 2, with two or fewer 4,
    with none 6 (and the other pair, having taken all nine, wins the match: see ``Match.add``)."""
    loser = 0 if tricks_won[0] < tricks_won[1] else 1
    n = tricks_won[loser]
    if n == 0:
        return _charge(rules, loser, 6, [NO_TRICKS, ALL_TRICKS], 1)
    if n <= 2:
        return _charge(rules, loser, 4, [TWO_OR_FEWER], 1)
    return _charge(rules, loser, 2, [UNDER_FIVE], 1)


def _charge(rules: Rules, loser: int, amount: int, events: list[str], mult: int) -> DealScore:
    if mult > 1:
        events.append("doubled")
    scored = 1 - loser if _score_winners(rules) else loser
    penalty = (amount, 0) if scored == 0 else (0, amount)
    return DealScore(penalty, tuple(events), loser, mult)


def _score_winners(rules: Rules) -> bool:
    return isinstance(rules.options, ClassicOptions) and rules.options.score_winners


#: Pairs of pips on the two sixes a pair keeps its score on ("счёт на шестёрках"): 6 + 6 pips = 6 pairs.
TALLY_PAIRS = 6


def tally(points: int) -> tuple[int, int]:
    """The shestyorki tally: how many pairs of pips are uncovered on each of a pair's two sixes.

    Each 2 penalty points uncover one pair of pips (seed 002), the first six first; 12 points open
    both sixes fully: the pair is the goat.
    """
    pairs = min(max(points, 0) // 2, TALLY_PAIRS)
    first = min(pairs, TALLY_PAIRS // 2)
    return first, pairs - first
