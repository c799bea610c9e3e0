"""``python -m ranklens`` runs the command line (as ``ranklens``)."""

import sys


def run() -> None:
    """The command line; Ctrl-C while it is being imported is one line and exit 130."""
    try:
        from ranklens.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("ranklens: interrupted\n")
        sys.exit(130)
    main(prog_name="ranklens")


if __name__ == "__main__":
    run()
