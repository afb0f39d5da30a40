"""Time to first response: events of kind `comment` (an issue's comments, from github_issues
sources with `comments: true`), the tables issue_response and issue_response_quarterly
(rewritten by each report: the first response depends on as-of and on sources.yaml's ignored
responders, the quarterly medians are Kaplan-Meier estimates no view computes) and the views
v_issue_response and v_issue_response_quarterly over them (docs/methodology.md, "Time to first
response").

Revision ID: 0017
Revises: 0016
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

KINDS_BEFORE = "release | note | issue | ci_run | ci_job | result"
KINDS = KINDS_BEFORE + " | comment"
ISSUE_COLUMNS = (
    "source_id, project, regime, number, url, created_at, first_response_at, "
    "responder_association, closed_at, close_reason, hours_to_first_response, status, as_of"
)
QUARTER_COLUMNS = (
    "project, regime, quarter, issues, answered, median_hours, p90_hours, median_days_to_close, "
    "median_days_to_not_planned, baseline_median_hours, ratio_to_baseline, as_of"
)


def _kind_comment(comment: str, before: str) -> None:
    # Only PostgreSQL keeps column comments (SQLite has none to change).
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column(
            "events",
            "kind",
            existing_type=sa.String(16),
            existing_nullable=False,
            comment=comment,
            existing_comment=before,
        )


def _time(name: str, nullable: bool, comment: str | None = None) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable, comment=comment)


def upgrade() -> None:
    _kind_comment(KINDS, KINDS_BEFORE)
    op.create_table(
        "issue_response",
        sa.Column("source_id", sa.String(200), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("project", sa.String(100), nullable=False),
        sa.Column("regime", sa.String(32), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        _time("created_at", False),
        _time("first_response_at", True, "earliest comment by neither the author nor a bot"),
        sa.Column(
            "responder_association", sa.String(32), comment="GitHub author_association, if given"
        ),
        _time("closed_at", True, "only when closed at or before as_of"),
        sa.Column("close_reason", sa.String(16), comment="completed | not_planned"),
        sa.Column("hours_to_first_response", sa.Float(), comment="NULL: unanswered"),
        sa.Column("status", sa.String(16), nullable=False, comment="answered | unanswered"),
        _time("as_of", False),
        sa.PrimaryKeyConstraint("source_id", "number", name=op.f("pk_issue_response")),
        comment="each issue's first response as of the newest report; rewritten by each report",
    )
    op.create_table(
        "issue_response_quarterly",
        sa.Column("project", sa.String(100), nullable=False),
        sa.Column("regime", sa.String(32), nullable=False),
        sa.Column("quarter", sa.String(8), nullable=False, comment="of the issues' creation"),
        sa.Column("issues", sa.Integer(), nullable=False),
        sa.Column("answered", sa.Integer(), nullable=False),
        sa.Column("median_hours", sa.Float(), comment="Kaplan-Meier, to first response"),
        sa.Column("p90_hours", sa.Float(), comment="Kaplan-Meier 90th percentile"),
        sa.Column("median_days_to_close", sa.Float(), comment="Kaplan-Meier, closed completed"),
        sa.Column(
            "median_days_to_not_planned", sa.Float(), comment="Kaplan-Meier, closed not planned"
        ),
        sa.Column(
            "baseline_median_hours", sa.Float(), comment="the project's cuda issues, same quarter"
        ),
        sa.Column("ratio_to_baseline", sa.Float()),
        _time("as_of", False),
        sa.PrimaryKeyConstraint(
            "project", "regime", "quarter", name=op.f("pk_issue_response_quarterly")
        ),
        comment="time to first response per project, regime and quarter; rewritten by each report",
    )
    op.execute(f"CREATE VIEW v_issue_response AS SELECT {ISSUE_COLUMNS} FROM issue_response")
    op.execute(
        f"CREATE VIEW v_issue_response_quarterly AS SELECT {QUARTER_COLUMNS} "
        "FROM issue_response_quarterly"
    )


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_issue_response_quarterly")
    op.execute("DROP VIEW IF EXISTS v_issue_response")
    op.drop_table("issue_response_quarterly")
    op.drop_table("issue_response")
    _kind_comment(KINDS_BEFORE, KINDS)
