"""Forms of the admin's DynamoDB item browser: the query/scan form, the edit-as-JSON form, the delete form."""

from __future__ import annotations

import json
from typing import Any

from django import forms

from tracker import item_json

SORT_CHOICES = [("", "— no sort-key condition —")] + [(op, op) for op in item_json.SORT_OPERATORS]


class BrowseForm(forms.Form):
    """Query by partition key (optional sort-key condition), or Scan with an optional filter."""

    mode = forms.ChoiceField(choices=[("scan", "Scan"), ("query", "Query")], initial="scan", required=False)
    pk = forms.CharField(label="Partition key value", required=False, max_length=2048)
    sk_op = forms.ChoiceField(label="Sort key", choices=SORT_CHOICES, required=False)
    sk = forms.CharField(label="Sort key value", required=False, max_length=1024)
    sk2 = forms.CharField(label="and (between)", required=False, max_length=1024)
    fattr = forms.CharField(label="Filter attribute", required=False, max_length=255)
    fval = forms.CharField(label="equals", required=False, max_length=1024)
    ftype = forms.ChoiceField(label="as", choices=[("S", "S"), ("N", "N")], required=False)

    def __init__(self, *args: Any, schema: item_json.KeySchema, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.schema = schema
        base64_note = ", base64" if schema.partition_type == "B" else ""
        self.fields["pk"].help_text = f"{schema.partition} ({schema.partition_type}{base64_note})"
        if schema.sort:
            self.fields["sk"].help_text = f"{schema.sort} ({schema.sort_type})"

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        data["mode"] = data.get("mode") or "scan"
        try:
            if data["mode"] == "query":
                if not data.get("pk"):
                    self.add_error("pk", "A Query needs the partition key value.")
                    return data
                data["pk_value"] = item_json.typed(self.schema.partition_type, data["pk"])
                op = data.get("sk_op")
                if op:
                    if not self.schema.sort or not self.schema.sort_type:
                        self.add_error("sk_op", "This table or index has no sort key.")
                        return data
                    if op == "begins_with" and self.schema.sort_type == "N":
                        self.add_error("sk_op", "begins_with needs a string or binary sort key.")
                        return data
                    data["sk_value"] = item_json.typed(self.schema.sort_type, data.get("sk") or "")
                    if op == "between":
                        data["sk2_value"] = item_json.typed(self.schema.sort_type, data.get("sk2") or "")
            elif data.get("fattr"):
                data["f_value"] = item_json.typed(data.get("ftype") or "S", data.get("fval") or "")
        except item_json.InvalidItem as error:
            raise forms.ValidationError(str(error)) from error
        return data

    def request(self, table: str, index: str | None) -> dict[str, Any]:
        """The Query or Scan request (without Limit and start key) for the cleaned data."""
        data = self.cleaned_data
        request: dict[str, Any] = {"TableName": table, **({"IndexName": index} if index else {})}
        names: dict[str, str] = {}
        values: dict[str, Any] = {}
        if data["mode"] == "query":
            names["#p"], values[":p"] = self.schema.partition, data["pk_value"]
            condition = "#p = :p"
            op = data.get("sk_op")
            if op and self.schema.sort:
                names["#s"], values[":s"] = self.schema.sort, data["sk_value"]
                if op == "begins_with":
                    condition += " AND begins_with(#s, :s)"
                elif op == "between":
                    values[":s2"] = data["sk2_value"]
                    condition += " AND #s BETWEEN :s AND :s2"
                else:
                    condition += f" AND #s {op} :s"
            request["KeyConditionExpression"] = condition
        elif data.get("fattr"):
            names["#f"], values[":f"] = data["fattr"], data["f_value"]
            request["FilterExpression"] = "#f = :f"
        if names:
            request.update(ExpressionAttributeNames=names, ExpressionAttributeValues=values)
        return request

    def binding(self, table: str, index: str | None) -> str:
        """What a cursor is bound to: the table, the index and the query, canonically."""
        keep = ("mode", "pk", "sk_op", "sk", "sk2", "fattr", "fval", "ftype")
        return json.dumps([table, index or "", {k: self.cleaned_data.get(k) or "" for k in keep}], sort_keys=True)


class ItemJsonForm(forms.Form):
    """The whole item as DynamoDB JSON, plus the fingerprint of the version it was loaded from."""

    item_json = forms.CharField(label="Item (DynamoDB JSON)", widget=forms.Textarea(attrs={"rows": 24, "cols": 100}))
    loaded = forms.CharField(widget=forms.HiddenInput, max_length=64)

    def __init__(self, *args: Any, key_names: tuple[str, ...] = (), key: dict[str, Any] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.key_names, self.key = key_names, key or {}

    def clean_item_json(self) -> dict[str, Any]:
        try:
            parsed = json.loads(self.cleaned_data["item_json"])
        except json.JSONDecodeError as error:
            raise forms.ValidationError(f"Malformed JSON: {error}") from error
        try:
            item = item_json.from_json(parsed)
        except item_json.InvalidItem as error:
            raise forms.ValidationError(str(error)) from error
        for name in self.key_names:
            if item.get(name) != self.key.get(name):
                keep = item_json.dumps({name: self.key.get(name)}, pretty=False)
                raise forms.ValidationError(
                    f"Key attribute {name!r} may not change (that would be another item): keep {keep}."
                )
        return item


class DeleteItemForm(forms.Form):
    """Confirms a delete of the item as it was loaded (its fingerprint)."""

    loaded = forms.CharField(widget=forms.HiddenInput, max_length=64)
