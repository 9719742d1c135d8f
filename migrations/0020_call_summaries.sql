-- Call summaries (internal/callsummary): per tool, how calls ended, in
-- time buckets. grain is 'minute' (as runtimes report them, kept two
-- days), 'hour' (rolled up from minutes, kept 30 days) or 'day' (rolled
-- up from hours, in total over every runtime, kept a year). Minute and
-- hour rows are per runtime instance (token_id, instance); day rows have
-- token_id 0 and instance ''. bucket is the bucket's start in the store's
-- fixed-width UTC layout, so text order is time order. l00..l12 is the
-- latency histogram (callsummary.LatencyBoundsMS and one overflow).
-- call_summary_principals names who made allowed calls on a tool each
-- day (the next-bundle preview counts them). Both engines take this file
-- as it is.

-- +goose Up
CREATE TABLE call_summaries (
    grain          TEXT    NOT NULL,
    bucket         TEXT    NOT NULL,
    tool           TEXT    NOT NULL,
    token_id       BIGINT  NOT NULL,
    instance       TEXT    NOT NULL,
    decision       TEXT    NOT NULL,
    class          TEXT    NOT NULL,
    status         INTEGER NOT NULL,
    calls          BIGINT  NOT NULL,
    attempts       BIGINT  NOT NULL,
    retried        BIGINT  NOT NULL,
    retry_after    BIGINT  NOT NULL,
    circuit_opens  BIGINT  NOT NULL,
    l00 BIGINT NOT NULL, l01 BIGINT NOT NULL, l02 BIGINT NOT NULL, l03 BIGINT NOT NULL,
    l04 BIGINT NOT NULL, l05 BIGINT NOT NULL, l06 BIGINT NOT NULL, l07 BIGINT NOT NULL,
    l08 BIGINT NOT NULL, l09 BIGINT NOT NULL, l10 BIGINT NOT NULL, l11 BIGINT NOT NULL,
    l12 BIGINT NOT NULL,
    PRIMARY KEY (grain, tool, bucket, token_id, instance, decision, class, status)
);
CREATE INDEX call_summaries_bucket ON call_summaries (grain, bucket);

CREATE TABLE call_summary_principals (
    tool       TEXT NOT NULL,
    day        TEXT NOT NULL,
    principal  TEXT NOT NULL,
    PRIMARY KEY (tool, day, principal)
);
CREATE INDEX call_summary_principals_day ON call_summary_principals (day);

-- +goose Down
DROP TABLE call_summary_principals;
DROP TABLE call_summaries;
