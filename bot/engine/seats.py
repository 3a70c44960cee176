"""Who sits where: four seats clockwise, partners opposite."""

from __future__ import annotations

N_SEATS = 4
#: Pair of each seat: partners sit opposite (pair A = seats 0 and 2, pair B = 1 and 3).
PAIR_OF = (0, 1, 0, 1)
#: Partner of each seat: the seat opposite.
PARTNER_OF = (2, 3, 0, 1)
#: ``CLOCKWISE[seat]``: the seats clockwise from ``seat``, him first.
CLOCKWISE = tuple(tuple((s + k) % N_SEATS for k in range(N_SEATS)) for s in range(N_SEATS))

#: ``dummy``'s blind seat and the seat of its partner, opposite (RULES.md §5).
DUMMY_BLIND = 3
DUMMY_PARTNER = PARTNER_OF[DUMMY_BLIND]
#: People at a ``dummy`` table: the seats but the blind's.
DUMMY_PEOPLE = N_SEATS - 1


def rotating_seating(deal_no: int) -> tuple[int | None, ...]:
    """``dummy`` with ``blind_rotates``: per seat, the person there in deal ``deal_no`` (seat 3, the
    blind, is no one's).

    People are numbered by their seats in deal 1. Each deal they move one seat back over seats 0-2
    (seat 0's person goes to seat 2), so they keep their order around the table while the blind — at
    seat 3 for the engine — passes to the next person: the blind's partner (seat 1) is person 1 in
    deal 1, person 2 in deal 2, person 0 in deal 3, and so on. A void deal is dealt again under the
    same number, so with the same seating. **[interpretation, docs/rules-notes.md]**
    """
    shift = (deal_no - 1) % DUMMY_PEOPLE
    return (*((s + shift) % DUMMY_PEOPLE for s in range(DUMMY_PEOPLE)), None)
