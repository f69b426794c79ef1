"""``python -m ember`` and the ``trainer`` console script: the command line."""
import sys


def main(argv=None) -> int:
    """Entry point of the ``trainer`` command; returns the process exit code."""
    from .trainer.cli import main as cli_main
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
