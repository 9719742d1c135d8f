package views

import (
	"testing"
	"time"
)

// TestRuntimesPage: one row per instance with stale, behind and refusal
// marks, the eviction notice, pages; an empty fleet tells admins what to do.
func TestRuntimesPage(t *testing.T) {
	m := RuntimesView{Page: page("Runtimes"), CurrentVersion: 7, StaleAfter: "10 minutes", IsAdmin: true, PerToken: 50,
		Runtimes: []RuntimeRow{
			{Name: "checkout " + evil, InstanceID: "i-1", TokenName: "checkout-prod", LastSeen: "1 minute ago", Version: 7},
			{Name: "search", InstanceID: "i-2", TokenName: "search", LastSeen: "2 hours ago", Version: 5, Behind: 2, Stale: true, Refused: "bundle expired"},
			{Name: "new", InstanceID: "i-3", TokenName: "search", LastSeen: "now"},
		},
		Evictions: []EvictionRow{{TokenName: "search", Count: 3, LastAt: "2026-11-30 09:00"}},
		Total:     120, PageNo: 2, Pages: 3, PrevURL: "/runtimes?page=1", NextURL: "/runtimes?page=3"}
	wantPage(t, RuntimesPage(m), "Runtimes",
		in("a[href='/tokens']", hasText("Runtime tokens")), in("a[data-testid=calls-link][href='/calls']", hasText("Call records")),
		in("section[data-testid=runtimes] > p.hint", hasText("Current bundle: v7."), hasText("Instances not seen for 10 minutes are flagged.")),
		in("[data-testid=evictions] [data-testid=eviction]", hasText("Token search: 3 instance rows removed, the last at 2026-11-30 09:00.")),
		count("[data-testid=runtimes-table] tr[data-testid=runtime-row]", 3),
		in("tr[data-testid=runtime-row]:has(code:contains('i-1'))", hasText("checkout "+evil), hasText("v7"), hasText("up to date"),
			none("[data-testid=stale]"), none("[data-testid=refused]")),
		in("tr[data-testid=runtime-row]:has(code:contains('i-2'))", in("[data-testid=stale]"), in("[data-testid=behind]", hasText("2 behind")),
			in("[data-testid=refused]", hasText("bundle expired"))),
		in("tr[data-testid=runtime-row]:has(code:contains('i-3')) td[data-label=Version]", hasText("none")),
		in("[data-testid=runtimes-total]", hasText("120 instances · page 2 of 3")),
		in("nav.pager a[rel=prev][href='/runtimes?page=1']"), in("nav.pager a[rel=next][href='/runtimes?page=3']"))
	wantPage(t, RuntimesPage(RuntimesView{Page: page("Runtimes"), StaleAfter: "10 minutes", IsAdmin: true}), "Runtimes",
		in("[data-testid=no-runtimes] a[href='/tokens']", hasText("Create a runtime token")), none("[data-testid=runtimes-table]"))
	wantPage(t, RuntimesPage(RuntimesView{Page: page("Runtimes"), StaleAfter: "10 minutes"}), "Runtimes",
		in("[data-testid=no-runtimes]"), none("a[href='/tokens']"))
}

// TestTokensPage: a new token's secret is shown once with a copy button;
// the create form is labelled and shows its field error; each valid token
// has a revoke form with a confirmation box.
func TestTokensPage(t *testing.T) {
	m := TokensView{Page: page("Runtime tokens"), NewToken: "tgr_secret", NewTokenName: "checkout-prod", Name: evil,
		Errors: []FormError{{Field: "name", Message: "A token with this name exists."}},
		Tokens: []TokenRow{{Name: "checkout-prod", CreatedAt: "2026-11-30", CreatedBy: "ada@example.com", LastUsed: "never"},
			{Name: "old", CreatedAt: "2026-10-01", CreatedBy: "ada@example.com", LastUsed: "2026-10-05", RevokedAt: "2026-10-06"}}}
	wantPage(t, TokensPage(m), "Runtime tokens",
		in("[data-testid=new-token]", hasText("Token checkout-prod created"),
			in("code#new-token-value[data-testid=new-token-value]", hasText("tgr_secret")),
			in("button[type=button][data-copy=new-token-value]")),
		postForm("/tokens", hasAttr("data-testid", "token-form"),
			in("input#name[required][aria-invalid]", hasAttr("value", evil), hasAttr("aria-describedby", "name-hint name-error")),
			in("#name-error[role=alert]", hasText("A token with this name exists."))),
		none("[data-testid=form-error]"),
		count("[data-testid=tokens-table] tr[data-testid=token-row]", 2),
		inEach("form[action$='/revoke']", in("input[type=checkbox][name=confirm][required]")),
		postForm("/tokens/checkout-prod/revoke", in("input[name=confirm][required]"), in("button.danger", hasText("Revoke checkout-prod"))),
		none("form[action='/tokens/old/revoke']"),
		in("tr[data-testid=token-row]:has(form[action='/tokens/checkout-prod/revoke'])", hasText("2026-11-30 by ada@example.com"), hasText("never")),
		in("tr[data-testid=token-row] .badge.off", hasText("revoked 2026-10-06")))
	wantPage(t, TokensPage(TokensView{Page: page("Runtime tokens")}), "Runtime tokens",
		none("[data-testid=new-token]"), none("input#name[aria-invalid]"), postForm("/tokens"))
}

// TestAuditPage: the filter is a labelled GET form; each entry shows who
// did what to what, with its field diff; export and pages link on.
func TestAuditPage(t *testing.T) {
	m := AuditView{Page: page("Audit log"), Filter: AuditFilterVM{Actor: "ada@example.com", Action: "tool.policy", From: "2026-11-01"},
		Actions: []string{"login", "tool.policy"}, Total: 51, PageNo: 1, Pages: 2, NextURL: "/audit?page=2",
		ExportURL: "/audit/export?actor=ada%40example.com",
		Entries: []AuditEntryVM{{ID: 42, At: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), Actor: "ada@example.com",
			Action: "tool.policy", Subject: "tool:" + evil,
			Diff: []DiffRowVM{{Field: "timeout_ms", Before: "3000", After: "5000"}, {Field: "exposed", Before: "no", After: "yes"}}}}}
	wantPage(t, AuditPage(m), "Audit log",
		in("a[data-testid=audit-export][download]", hasAttr("href", "/audit/export?actor=ada%40example.com")),
		in("form[method=get][action='/audit'][role=search]", in("input#f-actor", hasAttr("value", "ada@example.com")),
			in("select#f-action option[value='tool.policy'][selected]"), in("input#f-from[type=date]", hasAttr("value", "2026-11-01"))),
		in("[data-testid=audit-total]", hasText("51 entries · page 1 of 2")),
		in("[data-testid=audit-table] tr[data-testid=audit-row]", hasText("42"), hasText("2026-11-30 09:00:00 UTC"),
			hasText("tool:"+evil), in("[data-testid=audit-change] summary", hasText("2 fields")),
			in("[data-testid=diff] th", hasText("Before"))),
		none("[data-testid=audit-empty]"),
		in("nav.pager a[rel=next][href='/audit?page=2']", hasText("Older")), none("nav.pager a[rel=prev]"))
	wantPage(t, AuditPage(AuditView{Page: page("Audit log"), ExportURL: "/audit/export", PageNo: 1, Pages: 1}), "Audit log",
		in("[data-testid=audit-empty] a[href='/audit']", hasText("Clear filters")), none("tr[data-testid=audit-row]"))
}

// TestRiskRulesPage lists the rules in order with their class and terms,
// and the word families.
func TestRiskRulesPage(t *testing.T) {
	m := RiskRulesView{Page: page("Risk rules"), Version: 4,
		Rules: []RiskRuleVM{{Name: "Safe method", Code: "method.safe", Class: "READ", Applies: "method", Looks: "GET, HEAD", Text: "GET is safe by method"},
			{Name: "Delete verb", Code: "verb.delete", Class: "DESTRUCTIVE", Applies: "name", Looks: "words", Terms: []string{"delete", "purge"}, Text: "the name says delete"}},
		Vocabularies: []RiskVocabularyVM{{Name: "destroy", Why: "removes data " + evil, Terms: []string{"delete"}}}}
	wantPage(t, RiskRulesPage(m), "How risk classes are decided",
		in("[data-testid=risk-rules-version]", hasText("Rules version 4.")),
		count("[data-testid=risk-rules-table] tr[data-testid=risk-rule]", 2),
		in("tr[data-testid=risk-rule]:has(code:contains('method.safe'))", in(".badge.risk-READ"), hasText("the method alone")),
		in("tr[data-testid=risk-rule]:has(code:contains('verb.delete'))", in("details summary", hasText("2 terms")), hasText("delete, purge")),
		in("[data-testid=risk-vocabularies] tr[data-testid=risk-vocabulary]", hasText("removes data "+evil), hasText("1 term")))
}
