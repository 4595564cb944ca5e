"""Management commands, and the production settings as `manage.py check --deploy` sees them."""

from __future__ import annotations

import io
import os
import secrets
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

import ddbmodels
from ddbmodels.core import tables
from ddbmodels.issues import CollectionItem
from tracker.env import ROOT
from tracker.models import Membership, Tenant


def _call(command: str, *args: str, **options: object) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out, **options)
    return out.getvalue()


def _counts() -> tuple[int, int, int]:
    return Tenant.objects.count(), User.objects.count(), Membership.objects.count()


# ---------------------------------------------------------------------------------- create_tenant


def test_create_tenant_creates_the_tenant_its_owner_and_the_membership() -> None:
    output = _call("create_tenant", "acme-labs", name="Acme Labs", owner="ann", password="a-long-pass-phrase")
    tenant = Tenant.objects.get(slug="acme-labs")
    user = User.objects.get(username="ann")
    assert tenant.name == "Acme Labs"
    assert user.check_password("a-long-pass-phrase")
    assert list(Membership.objects.filter(tenant=tenant).values_list("user__username", "role")) == [("ann", "owner")]
    assert "Tenant acme-labs (Acme Labs) created; owner ann (new user)." in output


def test_create_tenant_with_an_existing_user_keeps_the_users_password() -> None:
    User.objects.create_user("bea", password="her-own-password")
    output = _call("create_tenant", "bea-co", name="Bea & Co", owner="bea", password="ignored-password")
    user = User.objects.get(username="bea")
    assert user.check_password("her-own-password")
    assert Membership.objects.get(tenant__slug="bea-co").user == user
    assert "(existing user)" in output


def test_the_created_owner_can_log_in_and_open_the_tenant() -> None:
    _call("create_tenant", "login-co", name="Login Co", owner="cid", password="a-long-pass-phrase")
    from django.test import Client

    client = Client()
    assert client.login(username="cid", password="a-long-pass-phrase")
    assert client.get("/")["Location"] == "/t/login-co/"
    page = client.get("/t/login-co/")
    assert page.status_code == 200
    assert "New project" in page.content.decode()  # the owner's button


BAD_SLUGS = {
    "uppercase": "Acme",
    "underscore": "acme_corp",
    "space": "acme corp",
    "leading-dash": "-acme",
    "trailing-dash": "acme-",
    "hash-would-break-dynamodb-keys": "a#b",
    "51-chars": "a" * 51,
    "empty": "",
}


@pytest.mark.parametrize("slug", list(BAD_SLUGS.values()), ids=list(BAD_SLUGS))
def test_create_tenant_refuses_an_invalid_slug_and_creates_nothing(slug: str) -> None:
    before = _counts()
    with pytest.raises(CommandError, match="slug"):
        _call("create_tenant", slug, name="Bad", owner="dan", password="a-long-pass-phrase")
    assert _counts() == before
    assert not User.objects.filter(username="dan").exists()


def test_create_tenant_accepts_a_50_char_slug() -> None:
    _call("create_tenant", "a" * 50, name="Long", owner="eve", password="a-long-pass-phrase")
    assert Tenant.objects.filter(slug="a" * 50).exists()


def test_create_tenant_refuses_a_duplicate_slug_and_creates_nothing() -> None:
    _call("create_tenant", "taken", name="First", owner="fay", password="a-long-pass-phrase")
    before = _counts()
    with pytest.raises(CommandError, match="already exists"):
        _call("create_tenant", "taken", name="Second", owner="gus", password="a-long-pass-phrase")
    assert _counts() == before
    assert not User.objects.filter(username="gus").exists()
    assert Tenant.objects.get(slug="taken").name == "First"


def test_create_tenant_for_a_new_user_without_password_and_no_terminal_creates_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    before = _counts()
    with pytest.raises(CommandError, match="user hal does not exist: give --password"):
        _call("create_tenant", "no-pass", name="No pass", owner="hal")
    assert _counts() == before


def test_create_tenant_requires_name_and_owner() -> None:
    with pytest.raises(CommandError, match="--name"):
        call_command("create_tenant", "x-co", "--owner", "ivy", stdout=io.StringIO(), stderr=io.StringIO())
    assert not Tenant.objects.filter(slug="x-co").exists()


# ------------------------------------------------------------------------------ ddb_create_tables


def test_ddb_create_tables_is_idempotent() -> None:
    previous = ddbmodels.current()
    prefix = f"cmd-{uuid.uuid4().hex[:8]}-"
    ddbmodels.configure(table_prefix=prefix)
    try:
        runs = [_call("ddb_create_tables") for _ in range(3)]
        described = tables.describe(CollectionItem)
    finally:
        tables.delete_all()
        ddbmodels.configure(table_prefix=previous.table_prefix)
    bases = sorted(ddbmodels.registered())
    assert {"issues", "jobs"} <= set(bases)
    assert runs == [
        "".join(f"created {prefix}{base} ACTIVE\n" for base in bases),
        "".join(f"exists  {prefix}{base} ACTIVE\n" for base in bases),
        "".join(f"exists  {prefix}{base} ACTIVE\n" for base in bases),
    ]
    assert described["TableStatus"] == "ACTIVE"
    assert sorted(i["IndexName"] for i in described["GlobalSecondaryIndexes"]) == [
        "assignee_status",
        "milestone_status",
        "project_status_number",
        "project_status_updated",
        "projects",
        "team_status",
    ]


def test_ddb_create_tables_upgrades_the_number_list_index_in_place_and_drops_the_old_one_when_asked() -> None:
    """An install of the previous version: ``project_status`` without the update time, no ``project_status_number``."""
    from datetime import timedelta

    from ddbmodels import issues as ddb_issues
    from ddbmodels.core import connection
    from ddbmodels.core.keys import utcnow

    previous = ddbmodels.current()
    prefix = f"upg-{uuid.uuid4().hex[:8]}-"
    ddbmodels.configure(table_prefix=prefix)
    try:
        tables.create_all()
        name, client = CollectionItem.Meta.table_name, connection.client()
        client.update_table(
            TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "project_status_number"}}]
        )
        tables.wait_active(name)
        old_index = {
            "IndexName": "project_status",
            "KeySchema": [{"AttributeName": "xs", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}],
            "Projection": {
                "ProjectionType": "INCLUDE",
                "NonKeyAttributes": ["k", "t", "st", "pr", "as", "lb", "rp", "ca", "v"],
            },
        }
        client.update_table(
            TableName=name,
            AttributeDefinitions=[
                {"AttributeName": "xs", "AttributeType": "S"},
                {"AttributeName": "n", "AttributeType": "N"},
            ],
            GlobalSecondaryIndexUpdates=[{"Create": old_index}],
        )
        tables.wait_active(name)
        ddb_issues.project_create(tenant="up", key="WEB", name="Website", created_by="alice")
        long_ago = utcnow() - timedelta(days=1000)
        ddb_issues.issues_put_many(
            [
                ddb_issues.IssueItem(
                    pk="up#WEB", number=1, title="Old", reporter="alice", created_at=long_ago, updated_at=long_ago
                )
            ]
        )

        upgraded = _call("ddb_create_tables")
        rows = ddb_issues.status_list(tenant="up", status="open", project_key="WEB", sort="number").issues
        indexes_after_upgrade = {i["IndexName"] for i in tables.describe(CollectionItem)["GlobalSecondaryIndexes"]}
        dropped = _call("ddb_create_tables", "--drop-retired-indexes")
        indexes_after_drop = {i["IndexName"] for i in tables.describe(CollectionItem)["GlobalSecondaryIndexes"]}
        again = _call("ddb_create_tables")
    finally:
        tables.delete_all()
        ddbmodels.configure(table_prefix=previous.table_prefix)
    assert (
        f"exists  {prefix}issues ACTIVE\n  added index project_status_number\n  retired index project_status:"
        in upgraded
    )
    assert "reindex" not in upgraded.lower()  # DynamoDB fills it: every live issue carries its keys already
    assert [(int(i.number), i.updated_at) for i in rows] == [(1, long_ago)]
    assert {"project_status", "project_status_number"} <= indexes_after_upgrade
    assert f"exists  {prefix}issues ACTIVE\n  dropped retired index project_status\n" in dropped
    assert "project_status" not in indexes_after_drop
    assert "retired" not in again
    assert "dropped" not in again


def test_ddb_create_tables_on_the_suites_tables_reports_exists() -> None:
    assert f"exists  {ddbmodels.current().table_prefix}issues ACTIVE" in _call("ddb_create_tables")


def test_ddb_create_tables_refuses_an_unknown_billing_mode() -> None:
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("ddb_create_tables", "--billing-mode", "FREE", stdout=io.StringIO(), stderr=io.StringIO())


# ------------------------------------------------------------------------------ production settings
#
# These run against a copy of the source tree without .env, so a developer's .env (read by
# manage.py and the Celery program) cannot steer them; test_the_settings_do_not_read_dotenv
# proves the settings themselves never read it.


def _copy_tree(dest: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copy2(ROOT / "manage.py", dest / "manage.py")
    for name in ("tracker", "ddbmodels", "devtools", "templates", "static"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    return dest


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The application's source, without any .env."""
    return _copy_tree(tmp_path_factory.mktemp("tree"))


def _run(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python *args`` in ``cwd`` with a minimal environment (nothing inherited that steers Django)."""
    base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env={**base, **env}, capture_output=True, text=True, timeout=120, check=False
    )


def _secret() -> str:
    return secrets.token_urlsafe(60)  # 80 random characters


def _check_deploy(tree: Path, secret_key: str) -> subprocess.CompletedProcess[str]:
    """``manage.py check --deploy`` with the production settings; any warning is fatal."""
    production = {"DJANGO_SETTINGS_MODULE": "tracker.settings.production", "ALLOWED_HOSTS": "example.com"}
    return _run(tree, "manage.py", "check", "--deploy", "--fail-level", "WARNING", **production, SECRET_KEY=secret_key)


def test_production_settings_pass_check_deploy_without_any_warning(tree: Path) -> None:
    result = _check_deploy(tree, _secret())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_check_deploy_does_fail_on_a_weak_secret_key(tree: Path) -> None:
    """The check above can fail: a short key is a warning, and --fail-level WARNING makes it fatal."""
    result = _check_deploy(tree, "too-short")
    assert result.returncode != 0
    assert "security.W009" in result.stderr


@pytest.mark.parametrize("missing", ["SECRET_KEY", "ALLOWED_HOSTS"])
def test_production_settings_refuse_to_load_without_a_required_variable(tree: Path, missing: str) -> None:
    env = {"DJANGO_SETTINGS_MODULE": "tracker.settings.production", "SECRET_KEY": _secret(), "ALLOWED_HOSTS": "x.com"}
    del env[missing]
    result = _run(tree, "manage.py", "check", **env)
    assert result.returncode != 0
    assert "django.core.exceptions.ImproperlyConfigured" in result.stderr
    assert f"Set the {missing} environment variable" in result.stderr


def test_manage_py_reads_dotenv_but_the_environment_wins(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    (root / ".env").write_text("SECRET_KEY=from-the-dotenv-file\nALLOWED_HOSTS=dotenv.example\n")
    code = "from django.conf import settings; print(settings.SECRET_KEY, settings.ALLOWED_HOSTS)"
    result = _run(
        root,
        "manage.py",
        "shell",
        "-c",
        code,
        DJANGO_SETTINGS_MODULE="tracker.settings.production",
        SECRET_KEY="from-the-environment",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "from-the-environment ['dotenv.example']"


def test_the_settings_do_not_read_dotenv(tmp_path: Path) -> None:
    root = _copy_tree(tmp_path)
    (root / ".env").write_text("SECRET_KEY=from-the-dotenv-file\nPROJECT_CACHE_SECONDS=7\n")
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SECRET_KEY, s.PROJECT_CACHE_SECONDS)"
    )
    result = _run(root, "-c", code, DJANGO_SETTINGS_MODULE="tracker.settings.test")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["test-only-not-secret", "300"]
