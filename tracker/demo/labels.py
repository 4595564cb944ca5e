"""The demo's managed labels (issue 21): acme's labels in colour, each with a description.

Idempotent: a label is coloured only while it was never saved through the labels page (version 0: only
registered by its first issue), so a colour chosen since in the demo is left alone. A label no acme issue
has yet is created. Through ddbmodels' catalogue, as the labels page's service would (no person needed).
"""

from __future__ import annotations

from ddbmodels import labels
from tracker.cache import invalidate
from tracker.selectors.labels import labels_cache_key

TEAM = "acme"
LABELS = {  # name: (colour, description)
    "bug": ("red", "Something does not work as it should"),
    "feature": ("blue", "Something new a customer asked for"),
    "ux": ("purple", "How it looks and feels"),
    "perf": ("orange", "Too slow or too heavy"),
    "docs": ("grey", "Help pages, API reference, READMEs"),
    "security": ("maroon", "Could expose data or let someone in"),
    "frontend": ("teal", "The browser side of the shop"),
    "backend": ("indigo", "Services, the database and the API behind the shop"),
    "infra": ("slate", "Servers, networks, deploys"),
    "billing": ("amber", "Prices, invoices and payments"),
    "i18n": ("cyan", "Translations and local formats"),
    "a11y": ("green", "Usable by everyone, with any device or assistive technology"),
    "monitoring": ("lime", "Alerts, dashboards and logs"),
    "pipeline": ("brown", "Builds and continuous integration"),
    "ios": ("pink", "The iPhone app"),
    "android": ("green", "The Android app"),
}


def labels_seed(team: str = TEAM) -> list[str]:
    """Colour and describe ``team``'s labels where never done; what was done, in words."""
    known = {label.name: label for label in labels.label_catalogue(team, consistent=True)}
    missing = sorted(name for name in LABELS if name not in known)
    if missing:
        labels.registry_ensure(team, missing)
    done = []
    for name, (colour, description) in LABELS.items():
        label = known.get(name) or labels.Label(name=name)
        if label.version or not label.in_use:
            continue
        labels.label_save(team, name, colour=colour, description=description, expected_version=0)
        done.append(name)
    invalidate(labels_cache_key(team))
    return [f"labels coloured: {', '.join(done)}"] if done else []
