"""List the distinct partition keys of any DynamoDB table on the endpoint (the distinct-keys pattern).

    python manage.py distinct_keys tracker-issues
    python manage.py distinct_keys tracker-issues --method gsi --index projects --json
    python manage.py distinct_keys some-other-table --method skip-scan --segments 8

The same command without Django (faster to start): ``python -m ddbmodels distinct-keys TABLE …``;
both take their arguments from and print through ``ddbmodels.patterns.distinct_keys.cli``.
Keys go to stdout one per line: strings as they are, numbers in decimal, binaries as
``b64:<base64>``. With ``--json`` stdout holds only the report (method used, requests,
measured RCU, retries, seconds, and auto's estimates). A progress bar goes to stderr, only when
stderr is a terminal.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ddbmodels.core.errors import DomainError
from ddbmodels.patterns.distinct_keys import cli


class Command(BaseCommand):
    help = cli.DESCRIPTION

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        error = cli.argument_error(options["method"], options["index"])
        if error is not None:
            raise CommandError(error)
        try:
            result = cli.run(options["table"], **cli.options_of(options))
        except DomainError as failure:
            raise CommandError(str(failure)) from failure
        for line in cli.output_lines(result, as_json=options["json"]):
            self.stdout.write(line)
