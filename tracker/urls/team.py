"""URLs of the team page (included by tracker/urls under /t/<tenant>/team/)."""

from django.urls import URLPattern, path

from tracker.views import team

urlpatterns: list[URLPattern] = [
    path("", team.team, name="team"),
    path("add/", team.member_add, name="team_member_add"),
    path("<int:member>/role/", team.member_role, name="team_member_role"),
    path("<int:member>/remove/", team.member_remove, name="team_member_remove"),
    path("invitations/", team.invitation_create, name="team_invitation_create"),
    path("invitations/<int:invitation>/withdraw/", team.invitation_withdraw, name="team_invitation_withdraw"),
    path("asked/<int:invitation>/withdraw/", team.personal_invitation_withdraw, name="team_asked_withdraw"),
    # An invitation link, /join/#<token>: no membership yet; the token never in a path (tracker.views.team).
    path("join/", team.join, name="team_join"),
    path("join/<str:token>/", team.join_link, name="team_join_link"),  # links made before: a redirect
]
