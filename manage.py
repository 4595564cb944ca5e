#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    from tracker.env import load_dotenv

    load_dotenv()
    # Production unless the environment or .env says otherwise (`make run`'s .env says local).
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tracker.settings.production")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
