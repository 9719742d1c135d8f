package risk

// RulesVersion identifies the rule set compiled into this binary. Every
// stored tool records the version that classified it; when the console
// starts with a newer version, the store re-classifies the tools of older
// versions (store.ReclassifyTools) the way a re-import would.
//
// Bump it whenever a change to the rule table, a vocabulary or a matcher
// changes any classification (a golden file changes): TestRulesVersion
// fails when the table or the vocabularies change without a bump, and the
// goldens catch matcher changes.
//
// History: 1 — the first rules (and every tool stored before the
// rules_version column existed); 2 — signals that generalise (README "Risk classes");
// 3 — a secret's read returning its value under a generic name (payload,
// data) and organisation security settings (captcha, lockout) are
// PRIVILEGED; attaching a volume or a payment method is not a channel;
// 4 — counter-rules: a query-only POST, a notification subscription under
// a user and a path ending in proxy (reverse-proxy settings) change no access;
// settings qualified as security (session timeouts, IP allow-lists) are PRIVILEGED;
// 5 — a query-only POST is READ (the labelling rubric's rule), and a read
// whose description says secrets are returned is PRIVILEGED.
const RulesVersion = 5
