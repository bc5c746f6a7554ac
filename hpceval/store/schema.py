"""Database schema, versioned. A new version adds a migration; never edit an old one."""

SCHEMA_VERSION = 6

MIGRATIONS = {
    1: """
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE fingerprints (
    id       INTEGER PRIMARY KEY,
    hash     TEXT NOT NULL UNIQUE,
    hostname TEXT,
    data     TEXT NOT NULL,            -- JSON, see hpceval machine --json
    created  TEXT NOT NULL
);
CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT NOT NULL UNIQUE,
    started         TEXT NOT NULL,
    finished        TEXT,
    suite           TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'interrupted')),
    tags            TEXT NOT NULL DEFAULT '[]',
    fingerprint_id  INTEGER NOT NULL REFERENCES fingerprints(id),
    command         TEXT,
    settings        TEXT NOT NULL DEFAULT '{}',
    hpceval_version TEXT
);
CREATE TABLE launches (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs(id),
    benchmark  TEXT NOT NULL,
    label      TEXT NOT NULL,
    command    TEXT NOT NULL,
    env        TEXT NOT NULL DEFAULT '{}',
    nranks     INTEGER NOT NULL,
    started    TEXT NOT NULL,
    elapsed_s  REAL,
    exit_code  INTEGER,
    status     TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'timeout', 'invalid', 'interrupted')),
    message    TEXT,
    warnings   TEXT NOT NULL DEFAULT '[]',
    meta       TEXT
);
CREATE TABLE records (
    id        INTEGER PRIMARY KEY,
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    launch_id INTEGER REFERENCES launches(id),
    benchmark TEXT NOT NULL,
    params    TEXT NOT NULL,
    metric    TEXT NOT NULL,
    unit      TEXT NOT NULL,
    statistic TEXT NOT NULL,
    better    TEXT NOT NULL,
    n         INTEGER NOT NULL,
    min REAL, median REAL, mean REAL, max REAL, stddev REAL, ci_low REAL, ci_high REAL,
    converged INTEGER NOT NULL
);
CREATE INDEX records_run ON records(run_id);
CREATE INDEX records_metric ON records(benchmark, metric);
CREATE INDEX runs_fingerprint ON runs(fingerprint_id);
""",
    # 2: the keys of a result record beyond its stats (verification numbers, per-rank phase
    # timers, ...) are kept, and traces of traced launches (Chrome trace JSON, zlib).
    2: """
ALTER TABLE records ADD COLUMN extra TEXT;
CREATE TABLE traces (
    id        INTEGER PRIMARY KEY,
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    launch_id INTEGER REFERENCES launches(id),
    benchmark TEXT NOT NULL,
    label     TEXT NOT NULL,
    format    TEXT NOT NULL,           -- 'chrome-json+zlib': zlib of the Chrome trace-event JSON
    data      BLOB NOT NULL
);
CREATE INDEX traces_run ON traces(run_id);
""",
    # 3: a run knows the process (PID and host) that drives it, so a run left 'running' by a
    # driver that died can be told from one still going and marked 'abandoned'. SQLite cannot
    # change a CHECK constraint, so the runs table is rebuilt (foreign keys are off while
    # migrating; launches, records and traces keep referring to 'runs' by name).
    3: """
CREATE TABLE runs_new (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT NOT NULL UNIQUE,
    started         TEXT NOT NULL,
    finished        TEXT,
    suite           TEXT NOT NULL,
    status          TEXT NOT NULL
                    CHECK (status IN ('running', 'ok', 'failed', 'interrupted', 'abandoned')),
    tags            TEXT NOT NULL DEFAULT '[]',
    fingerprint_id  INTEGER NOT NULL REFERENCES fingerprints(id),
    command         TEXT,
    settings        TEXT NOT NULL DEFAULT '{}',
    hpceval_version TEXT,
    driver_pid      INTEGER,
    driver_host     TEXT
);
INSERT INTO runs_new (id, uuid, started, finished, suite, status, tags, fingerprint_id, command,
                      settings, hpceval_version)
    SELECT id, uuid, started, finished, suite, status, tags, fingerprint_id, command, settings,
           hpceval_version FROM runs;
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;
CREATE INDEX runs_fingerprint ON runs(fingerprint_id);
""",
    # 4: runs of Slurm jobs (hpceval submit): 'queued' until the job starts; 'incomplete' when
    # the job's end stopped it early; 'cancelled' / 'timeout' as Slurm ended the job; the job id
    # and Slurm's reason in columns of their own. SQLite cannot change a CHECK in place: the
    # table is rebuilt (Store turns foreign keys on only after migrating, as SQLite advises).
    4: """
CREATE TABLE runs_v4 (
    id              INTEGER PRIMARY KEY,
    uuid            TEXT NOT NULL UNIQUE,
    started         TEXT NOT NULL,
    finished        TEXT,
    suite           TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('queued', 'running', 'ok', 'failed',
                        'interrupted', 'abandoned', 'incomplete', 'cancelled', 'timeout')),
    tags            TEXT NOT NULL DEFAULT '[]',
    fingerprint_id  INTEGER NOT NULL REFERENCES fingerprints(id),
    command         TEXT,
    settings        TEXT NOT NULL DEFAULT '{}',
    hpceval_version TEXT,
    driver_pid      INTEGER,
    driver_host     TEXT,
    job_id          TEXT,
    reason          TEXT
);
INSERT INTO runs_v4 (id, uuid, started, finished, suite, status, tags, fingerprint_id, command,
                     settings, hpceval_version, driver_pid, driver_host)
    SELECT id, uuid, started, finished, suite, status, tags, fingerprint_id, command, settings,
           hpceval_version, driver_pid, driver_host FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v4 RENAME TO runs;
CREATE INDEX runs_fingerprint ON runs(fingerprint_id);
CREATE INDEX runs_job ON runs(job_id);
""",
    # 5: a point's samples (zlib of little-endian float64, as the record carried them) and the
    # percentiles and coefficient of variation computed from them when stored (p50 is the
    # median column). Points stored before have no samples: their p90 and p99 stay NULL, and
    # their cv is computed here from stddev and mean, as the store computes it.
    5: """
ALTER TABLE records ADD COLUMN samples BLOB;
ALTER TABLE records ADD COLUMN p90 REAL;
ALTER TABLE records ADD COLUMN p99 REAL;
ALTER TABLE records ADD COLUMN cv REAL;
UPDATE records SET cv = stddev / abs(mean) WHERE mean IS NOT NULL AND mean != 0
""",
    # 6: a launch's estimate (and the start-up in it) beside its elapsed time (#45): how far
    # the plan held, and what simulated launches cost here (hpceval/simulate/cost.py). NULL for
    # launches stored before.
    6: """
ALTER TABLE launches ADD COLUMN estimate_s REAL;
ALTER TABLE launches ADD COLUMN startup_s REAL;
""",
}
