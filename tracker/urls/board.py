"""URLs of a project's board (included by tracker/urls under /t/<tenant>/p/<project>/board/)."""

from django.urls import URLPattern, path

from tracker.views import board

urlpatterns: list[URLPattern] = [
    path("", board.board, name="board"),
    path("move/", board.board_move, name="board_move"),
]
