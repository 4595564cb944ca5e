"""``python -m ddbmodels``: ddbmodels' operator commands, without starting Django.

    python -m ddbmodels distinct-keys tracker-issues
    python -m ddbmodels distinct-keys tracker-issues --method gsi --index projects --json
    python -m ddbmodels distinct-keys some-other-table --method skip-scan --segments 8

Same arguments and output as ``manage.py distinct_keys`` (``ddbmodels.patterns.distinct_keys.cli``),
configured from the same environment variables as the Django settings feed ``ddbmodels.configure``
(DYNAMODB_ENDPOINT_URL, AWS_DEFAULT_REGION, DYNAMODB_TABLE_PREFIX, DYNAMODB_CONNECT_TIMEOUT,
DYNAMODB_READ_TIMEOUT, DYNAMODB_MAX_ATTEMPTS; credentials from the usual AWS variables), and, like
manage.py, from the ``.env`` file at the repository root when there is one (variables already set
win). Exit status: 0 done, 1 a clear one-line error on stderr, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
from collections.abc import MutableMapping
from pathlib import Path

from ddbmodels.core import connection
from ddbmodels.core.errors import DomainError
from ddbmodels.patterns.distinct_keys import cli

DOTENV = Path(__file__).resolve().parent.parent / ".env"
_LINE = re.compile(r"\A(?:export )?([A-Za-z_0-9]+)=(.*)\Z")


def load_dotenv(path: Path = DOTENV, environ: MutableMapping[str, str] = os.environ) -> None:
    """``KEY=value`` lines of ``path`` into ``environ``, unless already set (as manage.py reads ``.env``).

    The same lines django-environ reads: an optional ``export``, a value optionally in quotes.
    """
    if not path.is_file():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        key, value = match.groups()
        quoted = re.match(r"\A'(.*)'\Z", value) or re.match(r'\A"(.*)"\Z', value)
        environ.setdefault(key, quoted.group(1) if quoted else value)


def configure_from_env(environ: MutableMapping[str, str] = os.environ) -> connection.DynamoSettings:
    """Point ddbmodels where the environment says, as tracker.apps does from the settings."""
    settings = connection.DynamoSettings.from_env(environ)
    return connection.configure(
        endpoint_url=settings.endpoint_url,
        region=settings.region,
        table_prefix=settings.table_prefix,
        connect_timeout=settings.connect_timeout,
        read_timeout=settings.read_timeout,
        max_attempts=settings.max_attempts,
    )


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="python -m ddbmodels", description=__doc__.splitlines()[0].strip("`: "))
    commands = main.add_subparsers(dest="command", required=True, metavar="COMMAND")
    cli.add_arguments(commands.add_parser("distinct-keys", help=cli.DESCRIPTION, description=cli.DESCRIPTION))
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    load_dotenv()
    configure_from_env()
    error = cli.argument_error(args.method, args.index)
    if error is not None:
        sys.stderr.write(f"error: {error}\n")
        return 1
    try:
        result = cli.run(args.table, **cli.options_of(args))
    except DomainError as failure:
        sys.stderr.write(f"error: {failure}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    lines = cli.output_lines(result, as_json=args.json)
    sys.stdout.write("".join(f"{line}\n" for line in lines))
    return 0


if __name__ == "__main__":
    gc.freeze()  # what the imports made lives until exit: the run's collections need not look at it
    status = main()
    # Exiting: skip the collections of interpreter shutdown (≈ 0.1 s for botocore's models and a
    # page of keys, memory the OS takes back anyway); atexit handlers and flushing still run.
    gc.disable()
    gc.freeze()
    sys.exit(status)
