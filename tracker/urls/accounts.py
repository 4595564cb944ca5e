"""URLs of a person's own account: the e-mail address and its confirmation, received invitations, API tokens."""

from django.urls import URLPattern, path

from tracker.views import accounts, api_tokens

urlpatterns: list[URLPattern] = [
    path("accounts/email/", accounts.address, name="address"),
    path("accounts/email/confirm/", accounts.address_confirm, name="address_confirm"),
    path("invitations/", accounts.invitations, name="invitations"),
    path("invitations/<int:invitation>/", accounts.invitation_answer, name="invitation_answer"),
    path("account/tokens/", api_tokens.tokens, name="api_tokens"),
    path("account/tokens/<int:token>/revoke/", api_tokens.token_revoke, name="api_token_revoke"),
]
