"""Alembic environment: one set of migrations for SQLite and PostgreSQL."""

from alembic import context
from sqlalchemy import create_engine, make_url, pool

from tracker.config import database_url
from tracker.store.tables import metadata

config = context.config
target_metadata = metadata


def _url() -> str:
    return (
        config.attributes.get("url") or config.get_main_option("sqlalchemy.url") or database_url()
    )


def _declared_for(dialect: str):
    """Alembic's include_object: an index whose info names its dialects ({"dialects": (...)})
    exists only there; elsewhere its absence is no drift."""

    def include(obj, name, type_, reflected, compare_to) -> bool:
        dialects = obj.info.get("dialects") if type_ == "index" and not reflected else None
        return not dialects or dialect in dialects

    return include


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
        include_object=_declared_for(make_url(_url()).get_dialect().name),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(_url(), poolclass=pool.NullPool)
    with engine.connect() as conn:
        _run(conn)


def _run(connection) -> None:
    # render_as_batch: SQLite cannot ALTER most things in place; batch mode copies the table.
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
        include_object=_declared_for(connection.dialect.name),
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
