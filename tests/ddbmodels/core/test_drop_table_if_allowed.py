"""core.tables.drop_table_if_allowed: DeleteTable, False when the role may not, any other refusal raised."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from ddbmodels.core import connection, tables


class FakeClient:
    def __init__(self, code: str | None) -> None:
        self.code, self.deleted = code, []

    def delete_table(self, *, TableName: str) -> dict[str, Any]:
        if self.code is not None:
            raise ClientError({"Error": {"Code": self.code, "Message": "no"}}, "DeleteTable")
        self.deleted.append(TableName)
        return {}


def use(monkeypatch: pytest.MonkeyPatch, code: str | None) -> FakeClient:
    client = FakeClient(code)
    monkeypatch.setattr(connection, "client", lambda: client)
    return client


def test_a_table_the_role_may_delete_is_deleted(monkeypatch: pytest.MonkeyPatch) -> None:
    client = use(monkeypatch, None)
    assert tables.drop_table_if_allowed("old-terms") is True
    assert client.deleted == ["old-terms"]


def test_a_role_that_may_not_delete_it_is_told_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    use(monkeypatch, "AccessDeniedException")
    assert tables.drop_table_if_allowed("old-terms") is False


@pytest.mark.parametrize("code", ["ResourceInUseException", "ResourceNotFoundException", "ThrottlingException"])
def test_any_other_refusal_is_raised_as_botocore_raised_it(monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    use(monkeypatch, code)
    with pytest.raises(ClientError) as raised:
        tables.drop_table_if_allowed("old-terms")
    assert raised.value.response["Error"]["Code"] == code
