"""Many rows written in one PostgreSQL statement of a fixed text: one array parameter per
column, unnested into rows (:func:`unnest_insert`), so a statement's text and plan do not
depend on how many rows it writes, and several tables are written in one round trip
(:func:`unnest_inserts`, the first ones as data-modifying ``WITH`` clauses)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Table, TextClause, text
from sqlalchemy.dialects import postgresql

_DIALECT = postgresql.dialect()  # type: ignore[no-untyped-call]


def unnest_insert(table: Table, conflict: Sequence[str] = (), prefix: str = "") -> str:
    """The SQL inserting rows into ``table``, each column's values from the array parameter
    ``prefix`` + its name; on a conflict on the columns ``conflict`` (when given) the row
    there takes the new row's other columns.

    >>> from sqlalchemy import Column, Integer, MetaData, String
    >>> t = Table("t", MetaData(), Column("id", Integer), Column("name", String(9)))
    >>> unnest_insert(t, ["id"], "t_")  # doctest: +NORMALIZE_WHITESPACE
    'INSERT INTO t (id, name) SELECT * FROM unnest(CAST(:t_id AS INTEGER[]),
    CAST(:t_name AS VARCHAR(9)[])) ON CONFLICT (id) DO UPDATE SET name = excluded.name'
    """
    quote = _DIALECT.identifier_preparer.quote
    names = ", ".join(quote(c.name) for c in table.columns)
    arrays = ", ".join(
        f"CAST(:{prefix}{c.name} AS {c.type.compile(dialect=_DIALECT)}[])" for c in table.columns
    )
    sql = f"INSERT INTO {quote(table.name)} ({names}) SELECT * FROM unnest({arrays})"
    if conflict:
        others = [quote(c.name) for c in table.columns if c.name not in conflict]
        sql += f" ON CONFLICT ({', '.join(quote(c) for c in conflict)}) DO UPDATE SET "
        sql += ", ".join(f"{c} = excluded.{c}" for c in others)
    return sql


def unnest_inserts(*inserts: tuple[Table, Sequence[str]]) -> TextClause:
    """One statement of :func:`unnest_insert` for each ``(table, conflict)``, in order, the
    parameters of each table prefixed with its name and ``_`` (:func:`arrays`)."""
    sql = [unnest_insert(t, conflict, f"{t.name}_") for t, conflict in inserts]
    clauses = [f"w{n} AS ({s})" for n, s in enumerate(sql[:-1])]
    return text(f"WITH {', '.join(clauses)} {sql[-1]}" if clauses else sql[-1])


def arrays(table: Table, rows: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """The parameters of :func:`unnest_inserts` writing ``rows`` into ``table``.

    >>> from sqlalchemy import Column, Integer, MetaData, String
    >>> t = Table("t", MetaData(), Column("id", Integer), Column("name", String(9)))
    >>> arrays(t, [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}])
    {'t_id': [1, 2], 't_name': ['a', 'b']}
    """
    return {f"{table.name}_{c.name}": [row[c.name] for row in rows] for c in table.columns}
