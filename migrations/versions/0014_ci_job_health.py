"""ci_job_health and ci_parity tables, v_ci_job_health and v_ci_parity views: which CI jobs are
broken on each regime, since when, and does a mirroring pipeline run and pass what its reference
runs (docs/methodology.md, CI job health and CI parity).

Both tables are rewritten by each report from the stored job events (tracker.measure.ci.health,
tracker.measure.ci.parity: the outcome rules of tracker.collect.ci, the headline triggers of
sources.yaml, which a view cannot read); the views read them.

Revision ID: 0014
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

HEALTH_COLUMNS = (
    "source_id, job, project, regime, hardware, runs, last_outcome, streak, failing_since, "
    "last_passed, flips, first_run, last_run, last_failed_url, as_of"
)
PARITY_COLUMNS = (
    "source_id, regime, reference_id, reference_regime, week, nightlies, reference_groups, "
    "groups_run, groups_passed, run_share, pass_share, as_of"
)


def _time(name: str, nullable: bool, comment: str | None = None) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable, comment=comment)


def upgrade() -> None:
    op.create_table(
        "ci_job_health",
        sa.Column("source_id", sa.String(200), nullable=False),
        sa.Column("job", sa.Text(), nullable=False, comment="the job's name as upstream shows it"),
        sa.Column("project", sa.String(100), nullable=False),
        sa.Column("regime", sa.String(32), nullable=False, comment="its newest run's"),
        sa.Column(
            "hardware", sa.String(200), nullable=False, comment="GPU tag of the name, else queue"
        ),
        sa.Column(
            "runs",
            sa.Integer(),
            nullable=False,
            comment="builds of the headline trigger it concluded",
        ),
        sa.Column("last_outcome", sa.String(16), nullable=False, comment="passed | failed"),
        sa.Column(
            "streak", sa.Integer(), nullable=False, comment="newest runs in a row with last_outcome"
        ),
        _time("failing_since", True, "first run of the current failing streak"),
        _time("last_passed", True, "newest passed run; NULL: never passed"),
        sa.Column(
            "flips",
            sa.Integer(),
            nullable=False,
            comment="outcome changes between consecutive runs",
        ),
        _time("first_run", False),
        _time("last_run", False),
        sa.Column(
            "last_failed_url", sa.Text(), nullable=False, comment="the newest failed run's job"
        ),
        _time("as_of", False),
        sa.PrimaryKeyConstraint("source_id", "job", name=op.f("pk_ci_job_health")),
        comment="CI job health per source and job name; rewritten by each report",
    )
    op.create_table(
        "ci_parity",
        sa.Column("source_id", sa.String(200), nullable=False, comment="the mirror"),
        sa.Column("week", sa.String(8), nullable=False, comment="ISO week of the mirror's nightly"),
        sa.Column("regime", sa.String(32), nullable=False),
        sa.Column("reference_id", sa.String(200), nullable=False),
        sa.Column("reference_regime", sa.String(32), nullable=False),
        sa.Column(
            "nightlies", sa.Integer(), nullable=False, comment="mirror nightlies paired this week"
        ),
        sa.Column(
            "reference_groups", sa.Integer(), nullable=False, comment="summed over the nightlies"
        ),
        sa.Column("groups_run", sa.Integer(), nullable=False, comment="of those, the mirror ran"),
        sa.Column(
            "groups_passed",
            sa.Integer(),
            nullable=False,
            comment="of those, every mirror job passed",
        ),
        sa.Column("run_share", sa.Float(), nullable=False),
        sa.Column("pass_share", sa.Float(), nullable=False),
        _time("as_of", False),
        sa.PrimaryKeyConstraint("source_id", "week", name=op.f("pk_ci_parity")),
        comment="CI parity of a mirroring pipeline per ISO week; rewritten by each report",
    )
    op.execute(f"CREATE VIEW v_ci_job_health AS SELECT {HEALTH_COLUMNS} FROM ci_job_health")
    op.execute(f"CREATE VIEW v_ci_parity AS SELECT {PARITY_COLUMNS} FROM ci_parity")


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS v_ci_parity")
    op.execute("DROP VIEW IF EXISTS v_ci_job_health")
    op.drop_table("ci_parity")
    op.drop_table("ci_job_health")
