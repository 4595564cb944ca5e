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

# What people wrote about particular issues, so a search finds words that are not in any title:
# title → (a paragraph that opens its description, a line added to its first comment).
DETAILS: dict[str, tuple[str, str]] = {
    "Checkout button does nothing on Safari 17": (
        "The payment iframe loads, but the click never reaches our handler on Safari 17.",
        "Safari blocks the iframe's postMessage without a user gesture; a polyfill did not help.",
    ),
    "Password reset email arrives after 10 minutes": (
        "Mails queue behind the newsletter batch in the same SMTP relay.",
        "Postmark shows the message accepted at once; the delay is in our outbox worker.",
    ),
    "Search results flicker while typing": (
        "Every keystroke re-renders the whole list; there is no debounce on the input.",
        "A 150 ms debounce and keeping the previous results until the new ones arrive fixes it.",
    ),
    "Product page images are not lazy-loaded": (
        "Lighthouse flags 3.2 MB of offscreen images on the product page.",
        "Adding loading=lazy and a srcset brought the largest contentful paint down to 1.8 s.",
    ),
    "Pricing page shows prices without VAT in the EU": (
        "Visitors from Germany and France see net prices; the VAT rate lookup returns nothing for them.",
        "The geolocation header is stripped by the CDN, so every visitor falls back to the US rates.",
    ),
    "Login page rejects passwords with a trailing space": (
        "The form trims the password before hashing, but signup did not trim it.",
        "Support confirmed four customers locked out this way; a migration re-hashes on next login.",
    ),
    "Content-Security-Policy blocks the chat widget": (
        "The widget loads a script from its own CDN and opens a websocket to a second host.",
        "Allow-listing the two hosts in script-src and connect-src is enough; no unsafe-inline needed.",
    ),
    "Session expires while filling in the long form": (
        "The session cookie lives 15 minutes and the form autosaves nothing.",
        "We now refresh the session on each autosave (every 60 s) and keep drafts in localStorage.",
    ),
    "Rate limiter counts OPTIONS requests": (
        "Browsers send a CORS preflight before each POST, and both count against the quota.",
        "Skipping preflight requests in the limiter's middleware halves the 429s in the dashboard.",
    ),
    "Token refresh returns 500 when the token is expired": (
        "The refresh endpoint decodes the JWT with expiry verification on and crashes on ExpiredSignatureError.",
        "Fixed: expired tokens get a 401 with error=invalid_grant, as the OAuth spec says.",
    ),
    "p99 latency of /v2/orders above 800 ms": (
        "Tracing shows an N+1 query on order lines for accounts with many shipments.",
        "Prefetching the lines and adding an index on shipment_id got p99 to 210 ms in the load test.",
    ),
    "CSV export times out for large accounts": (
        "Accounts with more than 200k orders hit the 30 s gateway timeout.",
        "Moving the export to a background job that e-mails a signed download link; streaming was not enough.",
    ),
    "Disk on the build runner fills up every Friday": (
        "Docker layers from the week's builds pile up in /var/lib/docker until the disk is full.",
        "A nightly docker system prune with a 48 h filter keeps it under 60 %.",
    ),
    "Nightly backup job failed twice this week": (
        "pg_dump exits with 'could not obtain lock' while the vacuum runs.",
        "Moved the backup to 02:30, after autovacuum's window; both runs since were green.",
    ),
    "Runbook for a DynamoDB throttling incident": (
        "Steps for a ProvisionedThroughputExceededException storm: find the hot partition key first.",
        "Contributor Insights shows the top keys; on-demand mode buys time while we fix the key design.",
    ),
    "Crash when opening a notification on Android 14": (
        "A PendingIntent without FLAG_IMMUTABLE throws an IllegalArgumentException on Android 14.",
        "Crashlytics: 1,240 crashes in a day, all on the notification tap path.",
    ),
    "Push notifications arrive twice": (
        "Both the FCM token and the legacy GCM token are registered for the same device.",
        "Deduplicating tokens on registration stopped the doubles for the beta group.",
    ),
    "Daily revenue dashboard is a day late": (
        "The Airflow DAG waits for the payments export, which lands after the 06:00 run.",
        "Switched the DAG to a sensor on the export file instead of a fixed schedule.",
    ),
    "Deduplicate customers imported twice": (
        "The CRM import ran twice on March 3rd; about 4,000 customers exist in duplicate.",
        "Matching on normalised e-mail plus phone finds 3,912 pairs; merging keeps the older id.",
    ),
    "Stapler keeps going missing": (
        "The red Swingline stapler was last seen in the basement storage room.",
        "Milton says it is his stapler.",
    ),
}


def details_of(title: str) -> tuple[str, str] | None:
    """The DETAILS of a title as the story numbers it (a repeated title carries one of VARIANTS)."""
    for variant in VARIANTS[1:]:
        if title.endswith(variant):
            title = title[: -len(variant)]
            break
    return DETAILS.get(title)
