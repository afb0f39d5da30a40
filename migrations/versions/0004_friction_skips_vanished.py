"""v_event_tags gains vanished_at; v_friction_weekly counts only items still upstream.

A release-note item that was edited or removed upstream is kept (marked vanished), never deleted:
earlier evidence must stay traceable. But it is no longer a friction or optimization item of
its regime: counting it as well as its edited successor counted one item twice.

Revision ID: 0004
Revises: 0003
"""

import importlib.util
from pathlib import Path

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _load(name: str):
    spec = importlib.util.spec_from_file_location(
        f"_{name}", Path(__file__).with_name(f"{name}.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_ci_view = _load("0002_ci_pass_rate_view")
_previous = _load("0003_metrics_views")

EVENT_TAGS = _previous.EVENT_TAGS.replace("e.title, e.url,", "e.title, e.url, e.vanished_at,")
assert EVENT_TAGS != _previous.EVENT_TAGS


def _week_and_real() -> tuple[str, str]:
    if op.get_bind().dialect.name == "postgresql":
        return _ci_view.POSTGRES_WEEK, "DOUBLE PRECISION"
    return _ci_view.SQLITE_WEEK, "REAL"


def _recreate(event_tags: str, friction: str) -> None:
    op.execute("DROP VIEW IF EXISTS v_friction_weekly")
    op.execute("DROP VIEW IF EXISTS v_event_tags")
    op.execute(event_tags)
    op.execute(friction)


def upgrade() -> None:
    friction = _previous._friction_sql(*_week_and_real())
    vanished_filter = friction.replace(
        "WHERE kind IN ('issue', 'note')", "WHERE kind IN ('issue', 'note') AND vanished_at IS NULL"
    )
    assert vanished_filter != friction
    _recreate(EVENT_TAGS, vanished_filter)


def downgrade() -> None:
    _recreate(_previous.EVENT_TAGS, _previous._friction_sql(*_week_and_real()))
