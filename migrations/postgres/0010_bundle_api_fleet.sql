-- PostgreSQL overlay of ../0010_bundle_api_fleet.sql (see migrations.go).
-- bundles is not rebuilt (0003 created it in its final shape); the other
-- changes are the same: runtime_instances keyed by (token_id, instance_id)
-- with the refused column, the eviction counters on runtime_tokens, and
-- publish_generation bumped by triggers — one plpgsql function, fired for
-- each row as SQLite's triggers are, on the same tables and events.

-- +goose Up
CREATE TABLE runtime_instances_new (
    token_id     BIGINT  NOT NULL REFERENCES runtime_tokens (id),
    instance_id  TEXT    NOT NULL,
    name         TEXT    NOT NULL,
    version      BIGINT  NOT NULL DEFAULT 0, -- the bundle version it says it runs
    remote_addr  TEXT    NOT NULL DEFAULT '',
    refused      TEXT    NOT NULL DEFAULT '', -- its last refusal reason; '' when none
    first_seen   TEXT    NOT NULL,
    last_seen    TEXT    NOT NULL,
    PRIMARY KEY (token_id, instance_id)
);
INSERT INTO runtime_instances_new (token_id, instance_id, name, version, remote_addr, first_seen, last_seen)
    SELECT token_id, instance_id, name, version, remote_addr, first_seen, last_seen FROM runtime_instances;
DROP TABLE runtime_instances;
ALTER TABLE runtime_instances_new RENAME TO runtime_instances;
ALTER INDEX runtime_instances_new_pkey RENAME TO runtime_instances_pkey;
CREATE INDEX runtime_instances_last_seen ON runtime_instances (last_seen);
CREATE INDEX runtime_instances_token_last_seen ON runtime_instances (token_id, last_seen);

ALTER TABLE runtime_tokens ADD COLUMN instances_evicted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runtime_tokens ADD COLUMN last_evicted_at TEXT;

CREATE TABLE publish_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  BIGINT  NOT NULL
);
INSERT INTO publish_generation (id, n) VALUES (1, 1);

-- +goose StatementBegin
CREATE FUNCTION publish_gen_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE publish_generation SET n = n + 1;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER publish_gen_sources AFTER INSERT OR UPDATE OR DELETE ON sources
    FOR EACH ROW EXECUTE FUNCTION publish_gen_bump();
CREATE TRIGGER publish_gen_tools AFTER INSERT OR UPDATE OR DELETE ON tools
    FOR EACH ROW EXECUTE FUNCTION publish_gen_bump();
CREATE TRIGGER publish_gen_policies AFTER INSERT OR UPDATE OR DELETE ON tool_policies
    FOR EACH ROW EXECUTE FUNCTION publish_gen_bump();
CREATE TRIGGER publish_gen_requests AFTER INSERT OR UPDATE OR DELETE ON change_requests
    FOR EACH ROW EXECUTE FUNCTION publish_gen_bump();
CREATE TRIGGER publish_gen_settings AFTER INSERT OR UPDATE OR DELETE ON settings
    FOR EACH ROW EXECUTE FUNCTION publish_gen_bump();
CREATE TRIGGER publish_gen_bundles_i AFTER INSERT ON bundles
    FOR EACH ROW EXECUTE FUNCTION publish_gen_bump();
-- Approvals carry the approver's email.
CREATE TRIGGER publish_gen_users_email AFTER UPDATE OF email ON users
    FOR EACH ROW EXECUTE FUNCTION publish_gen_bump();
-- Signing keys live in files; their changes reach the database only as audit entries.
CREATE TRIGGER publish_gen_keys AFTER INSERT ON audit_log
    FOR EACH ROW WHEN (NEW.action LIKE 'key.%') EXECUTE FUNCTION publish_gen_bump();

-- +goose Down
DROP TRIGGER publish_gen_keys ON audit_log;
DROP TRIGGER publish_gen_users_email ON users;
DROP TRIGGER publish_gen_bundles_i ON bundles;
DROP TRIGGER publish_gen_settings ON settings;
DROP TRIGGER publish_gen_requests ON change_requests;
DROP TRIGGER publish_gen_policies ON tool_policies;
DROP TRIGGER publish_gen_tools ON tools;
DROP TRIGGER publish_gen_sources ON sources;
DROP FUNCTION publish_gen_bump();
DROP TABLE publish_generation;
ALTER TABLE runtime_tokens DROP COLUMN last_evicted_at;
ALTER TABLE runtime_tokens DROP COLUMN instances_evicted;

-- Back to one row per instance id: the most recently seen one wins.
CREATE TABLE runtime_instances_old (
    instance_id  TEXT    PRIMARY KEY,
    name         TEXT    NOT NULL,
    token_id     BIGINT  NOT NULL REFERENCES runtime_tokens (id),
    version      BIGINT  NOT NULL DEFAULT 0,
    remote_addr  TEXT    NOT NULL DEFAULT '',
    first_seen   TEXT    NOT NULL,
    last_seen    TEXT    NOT NULL
);
INSERT INTO runtime_instances_old (instance_id, name, token_id, version, remote_addr, first_seen, last_seen)
    SELECT instance_id, name, token_id, version, remote_addr, first_seen, last_seen FROM runtime_instances
    ORDER BY last_seen DESC
    ON CONFLICT (instance_id) DO NOTHING;
DROP TABLE runtime_instances;
ALTER TABLE runtime_instances_old RENAME TO runtime_instances;
