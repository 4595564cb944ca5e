"""What the demo teams work on: titles, descriptions and comments in their own words."""

from __future__ import annotations

# Per project: (title, labels) pairs; the story gives each a number, people, a history.
TITLES: dict[str, list[tuple[str, list[str]]]] = {
    "WEB": [
        ("Checkout button does nothing on Safari 17", ["bug", "frontend"]),
        ("Password reset email arrives after 10 minutes", ["bug", "backend"]),
        ("Add dark mode to the account settings", ["feature", "ux"]),
        ("Search results flicker while typing", ["bug", "frontend"]),
        ("Cookie banner covers the Save button on phones", ["bug", "ux"]),
        ("Product page images are not lazy-loaded", ["perf", "frontend"]),
        ("Show the order history in the account menu", ["feature"]),
        ("Signup form accepts an empty company name", ["bug"]),
        ("Move the footer links into one column on small screens", ["ux"]),
        ("Upgrade the date picker to the accessible version", ["frontend", "ux"]),
        ("Pricing page shows prices without VAT in the EU", ["bug", "billing"]),
        ("Landing page takes 4 seconds to first paint", ["perf"]),
        ("Add keyboard shortcuts to the editor", ["feature"]),
        ("Broken link to the privacy policy in the footer", ["bug", "docs"]),
        ("Login page rejects passwords with a trailing space", ["bug", "security"]),
        ("Newsletter signup double-submits on slow networks", ["bug"]),
        ("Translate the checkout into German", ["feature", "i18n"]),
        ("Avatar upload fails for PNGs over 2 MB", ["bug"]),
        ("Add a status page link to the help menu", ["docs"]),
        ("Content-Security-Policy blocks the chat widget", ["security", "bug"]),
        ("Cart badge shows the wrong count after removing an item", ["bug", "frontend"]),
        ("Remember the last used shipping address", ["feature", "ux"]),
        ("Compress the hero video for mobile", ["perf"]),
        ("Session expires while filling in the long form", ["bug", "ux"]),
        ("Add alt texts to the team photos", ["a11y"]),
    ],
    "API": [
        ("Rate limiter counts OPTIONS requests", ["bug", "backend"]),
        ("Document the pagination cursor format", ["docs"]),
        ("Add webhooks for order status changes", ["feature"]),
        ("Token refresh returns 500 when the token is expired", ["bug", "security"]),
        ("p99 latency of /v2/orders above 800 ms", ["perf"]),
        ("Deprecate the v1 search endpoint", ["backend"]),
        ("Return 404 instead of 403 for other accounts' orders", ["security"]),
        ("CSV export times out for large accounts", ["bug", "perf"]),
        ("Add idempotency keys to POST /payments", ["feature", "backend"]),
        ("OpenAPI spec is missing the error schema", ["docs"]),
        ("Retry webhooks with exponential backoff", ["feature"]),
        ("Pagination skips items when sorting by date", ["bug"]),
    ],
    "OPS": [
        ("Disk on the build runner fills up every Friday", ["infra"]),
        ("Rotate the staging database credentials", ["security"]),
        ("Alert when the queue is older than five minutes", ["monitoring"]),
        ("Nightly backup job failed twice this week", ["bug", "infra"]),
        ("Move logs to the new retention policy", ["infra"]),
        ("Upgrade Redis to 7.2 in production", ["infra"]),
        ("Runbook for a DynamoDB throttling incident", ["docs"]),
        ("Cost report: why did the bill go up in October?", ["cost"]),
    ],
    "APP": [
        ("Crash when opening a notification on Android 14", ["bug", "android"]),
        ("Offline mode loses the draft message", ["bug"]),
        ("Add biometric login", ["feature", "security"]),
        ("Onboarding screens skip on iPad", ["bug", "ios"]),
        ("Reduce the app size below 50 MB", ["perf"]),
        ("Push notifications arrive twice", ["bug"]),
        ("Dark mode colours are unreadable on the map", ["ux"]),
        ("Share sheet missing on iOS 17", ["bug", "ios"]),
        ("Pull to refresh does not stop spinning", ["bug"]),
        ("Add a widget for today's tasks", ["feature"]),
    ],
    "DATA": [
        ("Daily revenue dashboard is a day late", ["bug", "pipeline"]),
        ("Backfill the events table for March", ["pipeline"]),
        ("Deduplicate customers imported twice", ["data-quality"]),
        ("Document the metrics definitions", ["docs"]),
        ("Partition the clicks table by day", ["perf"]),
        ("Alert on an empty nightly export", ["monitoring"]),
    ],
    "TPS": [
        ("New cover sheet for the TPS reports", ["process"]),
        ("Reports printed without the new cover sheet", ["bug"]),
        ("Move the printer away from the window", ["facilities"]),
        ("Stapler keeps going missing", ["facilities"]),
        ("Automate the weekly TPS summary", ["feature"]),
        ("Memo about the cover sheets went to the wrong list", ["process"]),
    ],
}

VARIANTS = ["", " (again)", " on staging", " for new accounts", " after the last deploy", " in the admin"]

DESCRIPTIONS = [
    "**Steps to reproduce**\n\n1. Log in as a customer\n2. Open the page\n3. Watch what happens\n\n"
    "**Expected:** it works.\n**Actual:** it does not — see the screenshot in the first comment.",
    "Reported by two customers this week. Happens on every attempt for them, never for us.\n\n"
    "Logs around the time:\n\n```\nWARN request took 4211 ms\nERROR upstream closed the connection\n```",
    "We agreed on this in the planning meeting. Scope:\n\n- the change itself\n- tests\n- a note in the changelog",
    "Low priority, but it has come up in three support tickets. A quick fix would be enough for now.",
    "Follow-up from last sprint's retro. Link the pull request here when it is up.",
]

COMMENTS = [
    "I can reproduce this on my machine. Looking into it.",
    "@{other} could you take a look? You touched this code last.",
    "Found it: the handler runs twice when the network is slow. Fix is up for review.",
    "Tested on staging — **works for me** now.",
    "Can we ship this before Friday? The customer is waiting.",
    "Not a bug, the setting was off for that account. Closing after I confirm with support.",
    "Added a test that fails without the fix:\n\n```python\nassert total(cart) == 42\n```",
    "Still happening for one customer, reopening.",
    "@{other} thanks, that did it.",
    "Let's split this: the quick fix now, the cleanup in a new issue.",
]
