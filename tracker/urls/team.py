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
    path("join/<str:token>/", team.join, name="team_join"),  # an invitation link: no membership yet
]
