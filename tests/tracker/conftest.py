"""Web tests: DynamoDB Local, the session's Redis as cache and broker, tenants on demand."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client
from django.test.utils import override_settings
from pytest_django.fixtures import SettingsWrapper

import ddbmodels
from ddbmodels import issues as ddb_issues
from ddbmodels import issues as ddb_projects
from devtools.services import Service
from tracker import optional_redis
from tracker.env import ROOT
from tracker.models import Membership, Tenant

_counter = itertools.count(1)


@pytest.fixture(scope="session")
def redis_cache(redis_server: Service) -> Iterator[str]:
    """Django's cache and Celery's broker on the session's Redis."""
    from django.conf import settings

    from tracker.celery import app

    url = f"{redis_server.url}/0"
    caches = {"default": {**settings.CACHES["default"], "LOCATION": url, "KEY_PREFIX": "test"}}
    results = f"{redis_server.url}/1"
    override = override_settings(CACHES=caches, REDIS_URL=url, CELERY_BROKER_URL=url, CELERY_RESULT_BACKEND=results)
    override.enable()
    app.conf.update(broker_url=url, result_backend=results)
    yield url
    # AsyncResult.get() subscribed to Redis; stop listening before the session's Redis goes away.
    # (Results that are garbage-collected later unsubscribe only while _pubsub is set.)
    consumer = getattr(app.backend, "result_consumer", None)
    if consumer is not None and getattr(consumer, "_pubsub", None) is not None:
        consumer.stop()
        consumer._pubsub = None
        consumer.subscribed_to.clear()
    override.disable()


@pytest.fixture(autouse=True)
def _web_services(ddblocal: object, redis_cache: str, db: None) -> Iterator[None]:
    optional_redis.resume()  # a test that failed Redis on purpose leaves no pause behind
    cache.clear()
    return


@dataclass
class World:
    """One tenant with an owner, a member and a viewer, and a project ``WEB``."""

    tenant: Tenant
    owner: User
    member: User
    viewer: User
    project_key: str = "WEB"
    others: dict[str, User] = field(default_factory=dict)

    @property
    def slug(self) -> str:
        return self.tenant.slug

    def client_for(self, user: User) -> Client:
        client = Client()
        client.force_login(user)
        return client

    def url(self, suffix: str = "") -> str:
        return f"/t/{self.slug}/{suffix}"

    def project_url(self, suffix: str = "") -> str:
        return f"/t/{self.slug}/p/{self.project_key}/{suffix}"


@pytest.fixture
def make_world(db: None) -> Callable[..., World]:
    """Factory: a fresh tenant (unique slug, so DynamoDB data never collides) with its people."""

    def make(with_project: bool = True) -> World:
        n = next(_counter)
        tenant = Tenant.objects.create(slug=f"tenant-{n}-{id(make) % 10000}", name=f"Tenant {n}")
        people = {}
        for role in ("owner", "member", "viewer"):
            user = User.objects.create_user(f"{role}{n}", password="pw-for-tests")
            Membership.objects.create(user=user, tenant=tenant, role=role)
            people[role] = user
        world = World(tenant=tenant, owner=people["owner"], member=people["member"], viewer=people["viewer"])
        if with_project:
            ddb_projects.project_create(
                tenant=tenant.slug, key=world.project_key, name="Website", created_by=world.owner.username
            )
        return world

    return make


@pytest.fixture
def world(make_world: Callable[..., World]) -> World:
    return make_world()


ATTACHMENT_LIMIT = 2048  # ATTACHMENT_MAX_BYTES while ``media`` is in use


@pytest.fixture
def media(settings: SettingsWrapper, tmp_path: Path) -> Path:
    """Django's default storage (attachments) in a folder of the test's own, and a small size limit.

    The live server of the browser tests runs in this process, so it uses them too.
    """
    root = tmp_path / "media"
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(root)}},
    }
    settings.ATTACHMENT_MAX_BYTES = ATTACHMENT_LIMIT
    root.mkdir()
    return root


@pytest.fixture
def archive_dir(settings: SettingsWrapper, media: Path, tmp_path: Path) -> Path:
    """Archive storage (the offboarding's export) in a folder of the test's own (``media`` moved attachments to one)."""
    root = tmp_path / "archive"
    settings.STORAGES = {
        **settings.STORAGES,
        "archive": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": str(root)}},
    }
    return root


@pytest.fixture
def issue_world(world: World, media: Path) -> World:
    """The world, its default storage in a folder of the test's own (``media``), and issue WEB-1."""
    ddb_issues.issue_create(
        tenant=world.slug, project_key=world.project_key, title="Has files", reporter=world.member.username
    )
    return world


@pytest.fixture
def other_world(make_world: Callable[..., World]) -> World:
    return make_world()


WorkerFactory = Callable[..., subprocess.Popen[bytes]]


@pytest.fixture
def start_worker(ddblocal: ddbmodels.DynamoSettings, redis_server: Service, tmp_path: Path) -> Iterator[WorkerFactory]:
    """Factory: a real Celery worker process on the session's Redis and DynamoDB Local.

    Results go to Redis (the test database is in-memory, per process); archives to ``tmp_path``.
    Extra keyword arguments become environment variables of the worker.
    """
    workers: list[subprocess.Popen[bytes]] = []

    def start(concurrency: int = 1, **extra_env: str) -> subprocess.Popen[bytes]:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tracker.settings.test",
            "REDIS_URL": f"{redis_server.url}/0",
            "CELERY_RESULT_BACKEND": f"{redis_server.url}/1",
            "DYNAMODB_ENDPOINT_URL": ddblocal.endpoint_url or "",
            "DYNAMODB_TABLE_PREFIX": ddblocal.table_prefix,
            "ARCHIVE_DIR": str(tmp_path / "archive"),
            **extra_env,
        }
        pool = ["--pool", "solo"] if concurrency == 1 else ["--pool", "prefork", "--concurrency", str(concurrency)]
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "tracker",
                "worker",
                *pool,
                "--loglevel",
                "WARNING",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                worker.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()


@pytest.fixture
def celery_worker(start_worker: WorkerFactory) -> subprocess.Popen[bytes]:
    return start_worker()
