"""Accounts: password rules, login URLs, login throttling (django-axes), password-reset limits."""

from __future__ import annotations

from tracker.env import env

# ---------------------------------------------------------------------------------------------
# Auth
# ---------------------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
# Login throttling (django-axes), for the site's login and the admin's alike: after
# AXES_FAILURE_LIMIT wrong passwords for one username from one address, that pair is refused
# (429, registration/locked_out.html) for AXES_COOLOFF_TIME. Per username *and* address, so a
# stranger cannot lock a colleague out from elsewhere; a success clears the count. One address
# is also refused, whatever the username, after AXES_ADDRESS_FAILURE_LIMIT failures across
# usernames (one password sprayed over many accounts). Attempts are kept in Django's database
# (no Redis needed). The address is the client's as TRUSTED_PROXY_COUNT proxies in front of the
# app report it in X-Forwarded-For (0: REMOTE_ADDR; set it to the number of proxies, or every
# user shares the proxy's address). `python manage.py axes_reset` lifts every lockout.
# tracker/login_throttle.py has the address and the per-address count.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out login before any password check
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "tracker.login_throttle.LoginThrottleHandler"
AXES_CLIENT_IP_CALLABLE = "tracker.login_throttle.client_ip"
AXES_FAILURE_LIMIT = 5
AXES_ADDRESS_FAILURE_LIMIT = 20
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# Password reset (/accounts/password_reset/): at most PASSWORD_RESET_LIMIT requests per
# PASSWORD_RESET_WINDOW_SECONDS from one address, and as many for one e-mail address, counted in
# the cache (Redis; while it is down requests are not counted, and the log says so). Past the
# limit the request answers the same page as any other and sends no e-mail.
PASSWORD_RESET_LIMIT = 5
PASSWORD_RESET_WINDOW_SECONDS = 3600
