"""``python -m bot.soak``: see :mod:`bot.soak`."""

from bot.soak.run import main

main()
