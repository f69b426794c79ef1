"""``python -m ember`` and the ``trainer`` console script: the command line."""
import sys


def main(argv=None) -> int:
    """Entry point of the ``trainer`` command; returns the process exit code."""
    try:
        from .trainer.cli import main as cli_main
    except ImportError:
        print("trainer: the command line (`trainer fit config.yaml`) is not available yet in this version of ember.",
              file=sys.stderr)
        return 2
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
