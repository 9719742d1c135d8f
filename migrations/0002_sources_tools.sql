-- Console domain: imported sources, their operations as tools, each tool's
-- policy, project defaults, and change requests (R10).
-- Timestamps are TEXT in audit.TimeLayout, like 0001.

-- +goose Up

-- One imported API description. name is the project-wide handle
-- (^[a-z0-9][a-z0-9_-]{0,39}$); origin is scheme://host[:port] ('' until
-- known: a source without an origin cannot be published).
CREATE TABLE sources (
    id                    INTEGER PRIMARY KEY,
    name                  TEXT    NOT NULL UNIQUE,
    title                 TEXT    NOT NULL,
    api_version           TEXT    NOT NULL DEFAULT '',
    spec_version          TEXT    NOT NULL,
    origin                TEXT    NOT NULL DEFAULT '',
    base_path             TEXT    NOT NULL DEFAULT '',
    security_schemes_json TEXT    NOT NULL DEFAULT '[]',
    warnings_json         TEXT    NOT NULL DEFAULT '[]',
    skipped_json          TEXT    NOT NULL DEFAULT '[]',
    document_sha256       TEXT    NOT NULL,
    revision              INTEGER NOT NULL DEFAULT 1, -- bumped by every re-import
    imported_at           TEXT    NOT NULL,
    imported_by           TEXT    NOT NULL
);

-- One operation of a source, as a tool. op_key (METHOD + ' ' + path_key) is
-- the operation's identity across re-imports; name is unique in the project.
-- Removed operations are kept with removed_at set, so history stays.
-- detected_class/reasons_json are the risk engine's verdict; class is the
-- class in force: detected, raised by an admin, or lowered by an approved
-- change request (risk_override_* say which).
CREATE TABLE tools (
    id                   INTEGER PRIMARY KEY,
    source_id            INTEGER NOT NULL REFERENCES sources (id),
    name                 TEXT    NOT NULL UNIQUE,
    op_key               TEXT    NOT NULL,
    method               TEXT    NOT NULL,
    path                 TEXT    NOT NULL,
    path_key             TEXT    NOT NULL,
    operation_id         TEXT    NOT NULL,
    summary              TEXT    NOT NULL DEFAULT '',
    deprecated           INTEGER NOT NULL DEFAULT 0 CHECK (deprecated IN (0, 1)),
    operation_json       TEXT    NOT NULL, -- the whole openapi.Operation
    detected_class       TEXT    NOT NULL CHECK (detected_class IN ('READ', 'WRITE', 'DESTRUCTIVE', 'PRIVILEGED')),
    reasons_json         TEXT    NOT NULL DEFAULT '[]',
    class                TEXT    NOT NULL CHECK (class IN ('READ', 'WRITE', 'DESTRUCTIVE', 'PRIVILEGED')),
    risk_override_reason TEXT    NOT NULL DEFAULT '',
    risk_override_by     TEXT    NOT NULL DEFAULT '',
    removed_at           TEXT,
    created_at           TEXT    NOT NULL,
    updated_at           TEXT    NOT NULL,
    UNIQUE (source_id, op_key)
);
CREATE INDEX tools_source ON tools (source_id);
CREATE INDEX tools_class ON tools (class);
CREATE INDEX tools_method ON tools (method);

CREATE TABLE tool_tags (
    tool_id INTEGER NOT NULL REFERENCES tools (id) ON DELETE CASCADE,
    tag     TEXT    NOT NULL,
    PRIMARY KEY (tool_id, tag)
);
CREATE INDEX tool_tags_tag ON tool_tags (tag);

-- The stored policy of one tool (policy.Policy as JSON). exposed is copied
-- out for filtering. version is the optimistic-concurrency counter: every
-- write does UPDATE ... WHERE version = ? and bumps it. suspended_reason is
-- set when a re-import raised the class or moved the operation of an exposed
-- tool: exposure is then off until someone reviews it.
CREATE TABLE tool_policies (
    tool_id          INTEGER PRIMARY KEY REFERENCES tools (id) ON DELETE CASCADE,
    policy_json      TEXT    NOT NULL,
    exposed          INTEGER NOT NULL DEFAULT 0 CHECK (exposed IN (0, 1)),
    suspended_reason TEXT    NOT NULL DEFAULT '',
    version          INTEGER NOT NULL DEFAULT 1,
    updated_at       TEXT    NOT NULL,
    updated_by       TEXT    NOT NULL
);
CREATE INDEX tool_policies_exposed ON tool_policies (exposed);

-- Project-wide settings as JSON documents keyed by name ('defaults' holds
-- policy.ProjectDefaults), with the same optimistic version column.
CREATE TABLE settings (
    key        TEXT    PRIMARY KEY,
    value_json TEXT    NOT NULL,
    version    INTEGER NOT NULL DEFAULT 1,
    updated_at TEXT    NOT NULL,
    updated_by TEXT    NOT NULL
);

-- R10: a proposed change to one tool that needs a security approver other
-- than the requester. before_json/after_json hold the exact states (the tool
-- policy, or {"class": ...} for lower_risk); an approval applies after_json
-- only while the tool's current state still equals before_json, else the
-- request becomes void with void_reason.
CREATE TABLE change_requests (
    id               INTEGER PRIMARY KEY,
    tool_id          INTEGER NOT NULL REFERENCES tools (id),
    kind             TEXT    NOT NULL CHECK (kind IN ('expose_risky', 'enable_mutation_retry', 'lower_risk')),
    reason           TEXT    NOT NULL,
    before_json      TEXT    NOT NULL,
    after_json       TEXT    NOT NULL,
    status           TEXT    NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'approved', 'rejected', 'withdrawn', 'void')),
    requested_by     INTEGER NOT NULL REFERENCES users (id),
    requested_at     TEXT    NOT NULL,
    decided_by       INTEGER REFERENCES users (id),
    decided_at       TEXT,
    decision_comment TEXT    NOT NULL DEFAULT '',
    void_reason      TEXT    NOT NULL DEFAULT '',
    CHECK (decided_by IS NULL OR decided_by <> requested_by)
);
CREATE INDEX change_requests_status ON change_requests (status);
CREATE INDEX change_requests_tool ON change_requests (tool_id);

-- +goose Down
DROP TABLE change_requests;
DROP TABLE settings;
DROP TABLE tool_policies;
DROP TABLE tool_tags;
DROP TABLE tools;
DROP TABLE sources;
