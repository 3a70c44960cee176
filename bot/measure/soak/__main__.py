"""``python -m bot.measure.soak``: see :mod:`bot.measure.soak`."""

from bot.measure.soak.run import main

main()
