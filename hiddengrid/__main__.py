"""``python -m hiddengrid``: the ``hiddengrid`` command."""

from hiddengrid.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
