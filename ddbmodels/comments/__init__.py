"""The comments table: an issue's comments in its own item collection. See ``model`` for keys and costs."""

from ddbmodels.comments.model import (
    BODY_MAX,
    COMMENT_ID_RE,
    PAGE_SIZE,
    SORT_KEY_RE,
    CommentItem,
    comment_id,
    issue_stream,
    new_sort_key,
    sort_key_of,
    sort_key_time,
)
from ddbmodels.comments.reads import PAGE_SIZE_MAX, CommentPage, comment_count, comment_get, comment_page
from ddbmodels.comments.team import TEAM_DATA
from ddbmodels.comments.writes import (
    Added,
    Recorded,
    check_body,
    comment_add,
    comment_delete,
    comment_edit,
    comment_replay,
    comments_delete_all,
    comments_put_many,
    idempotency_kind,
)

__all__ = [
    "BODY_MAX",
    "COMMENT_ID_RE",
    "PAGE_SIZE",
    "PAGE_SIZE_MAX",
    "SORT_KEY_RE",
    "TEAM_DATA",
    "Added",
    "CommentItem",
    "CommentPage",
    "Recorded",
    "check_body",
    "comment_add",
    "comment_count",
    "comment_delete",
    "comment_edit",
    "comment_get",
    "comment_id",
    "comment_page",
    "comment_replay",
    "comments_delete_all",
    "comments_put_many",
    "idempotency_kind",
    "issue_stream",
    "new_sort_key",
    "sort_key_of",
    "sort_key_time",
]
