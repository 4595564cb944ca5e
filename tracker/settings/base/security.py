"""Browser-facing security headers: Content-Security-Policy (django-csp) and X-Frame-Options."""

from __future__ import annotations

from csp.constants import NONE, SELF

# ---------------------------------------------------------------------------------------------
# Content-Security-Policy (django-csp) on every response: scripts only from our own origin — no
# inline script, no event-handler attribute (that code is in static/) — and styles from our own
# origin plus inline ones (Django's admin and a few of our pages write style attributes; a style
# cannot run code).
# ---------------------------------------------------------------------------------------------
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, "'unsafe-inline'"],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],  # no page is ever framed, by anyone: the same as X-Frame-Options below
    }
}
X_FRAME_OPTIONS = "DENY"  # for browsers without CSP's frame-ancestors; the two say the same
