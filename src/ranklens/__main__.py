"""``python -m ranklens`` runs the command line."""

from ranklens.cli import main

main()
