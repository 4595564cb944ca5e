"""The team's folders in file storage: every file under them, orphans included, and the folders themselves.

Attachments live under ``attachments/<team>/`` in the default storage; offboarding deletes each file an
attachment item names, but a crashed upload can leave a file no item names (stored, then the item was
never written), and a filesystem keeps the emptied folders, whose names are the team's project keys and
issue numbers. The imports storage keeps a team's waiting exports under ``<team>/``. Each folder is
listed (``listdir``, recursively) and deleted, files first, then the folders deepest first (a
filesystem's ``delete`` of an empty folder removes it; an object store has no folders).
"""

from __future__ import annotations

from django.core.files.storage import Storage, storages

from ddbmodels.attachments import team_folder
from tracker.services.team_leftovers.names import Team


def _walk(storage: Storage, folder: str, files: list[str], folders: list[str]) -> None:
    try:
        subfolders, names = storage.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return
    folders.append(folder)
    files.extend(f"{folder}/{name}" for name in names)
    for sub in subfolders:
        _walk(storage, f"{folder}/{sub}", files, folders)


def folder_delete(storage: Storage, folder: str, *, apply: bool) -> dict[str, int]:
    """Files and folders under ``folder`` (itself included): counts (deleted when ``apply``)."""
    files: list[str] = []
    folders: list[str] = []
    _walk(storage, folder, files, folders)
    if apply:
        for name in files:
            storage.delete(name)
        for name in sorted(folders, key=lambda f: -f.count("/")):
            try:
                storage.delete(name)
            except OSError:  # not empty: something was written meanwhile (reported by the check)
                continue
    return {"files": len(files), "folders": len(folders)}


def team_folders(team: Team, *, apply: bool) -> dict[str, int]:
    """The team's attachment folder and its imports folder: files and folders (deleted when ``apply``)."""
    attachments = folder_delete(storages["default"], team_folder(team.slug), apply=apply)
    uploads = folder_delete(storages["imports"], team.slug, apply=apply)
    return {"files": attachments["files"] + uploads["files"], "folders": attachments["folders"] + uploads["folders"]}
