"""Browser-facing security headers: Content-Security-Policy (django-csp) and X-Frame-Options."""

from __future__ import annotations

from csp.constants import NONE, SELF

# ---------------------------------------------------------------------------------------------
# Content-Security-Policy (django-csp) on every response: scripts and styles only from our own
# origin — no inline script, no event-handler attribute, no style attribute or <style> element
# (that code and those looks are in static/; an injected style could still restyle a page to
# mislead, or read attribute values out through selectors and image URLs).
# ---------------------------------------------------------------------------------------------
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
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
