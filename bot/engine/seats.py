"""Who sits where: four seats clockwise, partners opposite."""

from __future__ import annotations

N_SEATS = 4
#: Pair of each seat: partners sit opposite (pair A = seats 0 and 2, pair B = 1 and 3).
PAIR_OF = (0, 1, 0, 1)
#: Partner of each seat: the seat opposite.
PARTNER_OF = (2, 3, 0, 1)
#: ``CLOCKWISE[seat]``: the seats clockwise from ``seat``, him first.
CLOCKWISE = tuple(tuple((s + k) % N_SEATS for k in range(N_SEATS)) for s in range(N_SEATS))
