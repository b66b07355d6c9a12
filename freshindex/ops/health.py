"""Health checks that catch the silent failures: a job that "succeeded" while the
pointer never moved, shards gone missing, a service still serving an old version.

Unhealthy when
- ``current.json`` does not name the newest complete published version (a
  deliberate rollback is reported, not failed), or names one with no
  publication record (a crash between the pointer swap and the record);
- any table file of the current version is missing, not its manifest's size,
  or does not match its sha256 (catalog/integrity.py: a local file is hashed
  again whenever its stat changed; a remote object, immutable, is hashed once
  per process and afterwards checked for presence and size);
- the version a service has loaded differs from the one ``current.json`` names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from freshindex.catalog.integrity import local_file_problem, missing_or_resized
from freshindex.catalog.layout import newest_record, read_manifest, read_pointer
from freshindex.catalog.manifest import TableEntry
from freshindex.core.exceptions import NotFound
from freshindex.storage import Store


@dataclass
class HealthChecker:
    store: Store
    _verified: set[tuple[str, str]] = field(default_factory=set)

    def _table_problems(self, tables: list[TableEntry]) -> list[str]:
        problems = missing_or_resized(self.store, tables)
        if problems:
            return problems
        for t in tables:
            local = self.store.local_path(t.key)
            if local is not None:
                problem = local_file_problem(t, local)
            elif (t.key, t.sha256) in self._verified:
                continue
            else:
                try:
                    problem = t.mismatch(self.store.get(t.key).data)
                except NotFound:
                    problem = f"table file {t.key} is missing"
                if problem is None:
                    self._verified.add((t.key, t.sha256))
            if problem:
                problems.append(problem)
        return problems

    def check(self, loaded_version: str | None = None) -> dict[str, Any]:
        problems: list[str] = []
        notes: list[str] = []
        pointer = read_pointer(self.store).pointer
        if pointer is None:
            return {
                "healthy": False,
                "problems": ["no current version"],
                "notes": [],
                "current": None,
            }
        # Records at or after the pointer's seq only: a store with years of
        # publications costs one LIST page here, not a GET per version.
        newest = newest_record(self.store, pointer.seq)
        if newest is None:
            problems.append(
                f"current version {pointer.version} has no publication record (seq {pointer.seq})"
            )
        elif newest.version != pointer.version:
            if pointer.reason == "rollback":
                notes.append(f"rolled back from {newest.version} to {pointer.version}")
            else:
                problems.append(
                    f"current.json names {pointer.version}, newest published is {newest.version}"
                )
        try:
            manifest = read_manifest(self.store, pointer.version)
        except NotFound:
            problems.append(f"current version {pointer.version} has no manifest")
            manifest = None
        if manifest is not None:
            problems.extend(self._table_problems(manifest.tables))
        if loaded_version is not None and loaded_version != pointer.version:
            problems.append(
                f"service has {loaded_version} loaded, current.json names {pointer.version}"
            )
        return {
            "healthy": not problems,
            "problems": problems,
            "notes": notes,
            "current": pointer.version,
        }
