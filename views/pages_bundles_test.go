package views

import "testing"

// testBundles is three versions as web's bundles page lists them, the
// newest first; v2 republished v1, and the registry push of v3 failed.
func testBundles() []BundleRow {
	return []BundleRow{
		{Version: 3, IssuedAt: "2026-11-30 10:00", PublishedBy: "ada@example.com", Note: "expose " + evil, ToolCount: 4, Current: true,
			Push: &PushView{Version: 3, Target: "oci://registry.local/toolgate", State: "failed", Error: "registry refused", Attempts: 2,
				NextAttempt: "10:05", CanRetry: true, CSRF: csrf}},
		{Version: 2, IssuedAt: "2026-11-29 10:00", PublishedBy: "ada@example.com", RollbackOf: 1, ToolCount: 3,
			Push: &PushView{Version: 2, Target: "oci://registry.local/toolgate", State: "pushed", PushedAt: "2026-11-29 10:01", CSRF: csrf}},
		{Version: 1, IssuedAt: "2026-11-28 10:00", PublishedBy: "ada@example.com", ToolCount: 3},
	}
}

func nextBundle() NextBundleView {
	return NextBundleView{ToolCount: 4, CanPublish: true, CSRF: csrf, Note: "weekly",
		Changes: ChangesView{ToolsAdded: []string{"pets_create"}, ToolsRemoved: []string{"pets_old"},
			ToolsChanged: []ToolChangeRow{{Tool: "pets_delete", RiskBefore: "WRITE", RiskAfter: "DESTRUCTIVE",
				Policy: []FieldChangeRow{{Field: "retry.attempts", Before: "1", After: "2"}}, Definition: []string{"description"}}},
			SourcesChanged: []string{"pets"}},
		Withheld: []WithheldRow{{Tool: "pets_purge", Reason: "exposure awaits approval"}}}
}

// TestBundlesPage: the current version, the next bundle (in place or
// loaded by HTMX), compare, and a history whose rollback and retry-push
// forms carry CSRF.
func TestBundlesPage(t *testing.T) {
	h := testBundles()
	next := nextBundle()
	m := BundlesView{Page: page("Bundles"), Current: &h[0], History: h, CanPublish: true, Registry: "oci://registry.local/toolgate",
		Notice: "Published v3.", Next: &next}
	wantPage(t, BundlesPage(m), "Bundles",
		in("[data-testid=notice]", hasText("Published v3.")),
		in("[data-testid=current-bundle] [data-testid=current-version]", hasText("v3")),
		in("#next-bundle[data-testid=next-bundle] [data-testid=preview]", hasText("4 exposed tools")),
		postForm("/bundles", hasAttr("data-testid", "publish-form"), in("input#note", hasAttr("value", "weekly"))),
		in("form[data-testid=compare-form][method=get][action='/bundles/compare']",
			in("select#from option[value='2'][selected]"), in("select#to option[value='3'][selected]")),
		in("[data-testid=registry] code", hasText("oci://registry.local/toolgate")),
		count("[data-testid=history] tr[data-testid=history-row]", 3),
		inEach("tr[data-testid=history-row]", in("a[download][href$='/download']")),
		in("a[href='/bundles/3/download']", hasText("Download v3")), // the accessible name keeps its space
		in("#push-v3 button", hasText("Retry push now v3")),
		in("tr[data-testid=history-row]:has(a[href='/bundles/3/download'])", hasText("expose "+evil), in(".badge.on", hasText("current")),
			in("#push-v3[data-testid=push-status][data-state=failed]", hasText("push failed: registry refused, retrying"),
				postForm("/bundles/3/push", hasAttr("hx-post", "/bundles/3/push"), hasAttr("hx-target", "#push-v3"))),
			none("form[action='/bundles/3/rollback']")),
		in("tr[data-testid=history-row]:has(a[href='/bundles/2/download'])", hasText("rollback of v1"),
			in("[data-testid=push-status][data-state=pushed]", hasText("pushed to oci://registry.local/toolgate")),
			// Rollback is confirmed on its own page, which shows what the gate leaves out (R14).
			in("a[data-testid=rollback-link][href='/bundles/2/rollback']", hasText("Republish v2 as new version")),
			none("form[action='/bundles/2/rollback']")),
		in("tr[data-testid=history-row]:has(a[href='/bundles/1/download'])", hasText("not pushed")))
	viewer := BundlesView{Page: page("Bundles"), History: h[:1]}
	wantPage(t, BundlesPage(viewer), "Bundles",
		in("p[data-testid=current-version]", hasText("Nothing has been published yet")),
		in("#next-bundle[hx-get='/bundles/next'][hx-trigger=load] a[href='/bundles/next']"),
		none("[data-testid=compare-form]"), none("[data-testid=registry]"), none("form[action$='/rollback']"),
		none("[data-testid=rollback-link]"))
}

// TestRollbackPage: the confirmation names what the gate leaves out, with
// the reason (escaped) and the way to the tool's policy page, and posts the
// rollback with CSRF and a required confirmation.
func TestRollbackPage(t *testing.T) {
	m := RollbackView{Page: page("Rollback"), From: 2, Next: 5, ToolCount: 3,
		Changes:  ChangesView{ToolsRemoved: []string{"pets_delete"}},
		Withheld: []WithheldRow{{Tool: "pets_delete", Reason: "DESTRUCTIVE and exposed without an approved change request " + evil}}}
	wantPage(t, RollbackPage(m), "Republish v2 as v5",
		in("[data-testid=rollback] p.hint", hasText("(3 tools)")),
		in("ul[data-testid=rollback-withheld] li[data-testid=withheld-tool]",
			in("code", hasText("pets_delete")), hasText("without an approved change request "+evil),
			in("a[href='/tools/pets_delete/policy']", hasText("Review pets_delete and request approval"))),
		postForm("/bundles/2/rollback", hasAttr("data-testid", "rollback-form"),
			in("input[type=checkbox][name=confirm][required]"), in("button.danger", hasText("Republish v2 as v5"))))
	nothingOut := RollbackView{Page: page("Rollback"), From: 1, Next: 2, ToolCount: 1, Changes: ChangesView{Empty: true}}
	wantPage(t, RollbackPage(nothingOut), "Republish v1 as v2", none("[data-testid=rollback-withheld]"), postForm("/bundles/1/rollback"))
}

// TestNextBundlePage: the preview without JavaScript lists each change and
// what is left out; an empty bundle warns and publishes only as "empty";
// a problem replaces the form.
func TestNextBundlePage(t *testing.T) {
	wantPage(t, NextBundlePage(NextBundlePageView{Page: page("Next bundle"), Next: nextBundle()}), "Next bundle",
		in("[data-testid=bundles-next] a[href='/bundles']"),
		in("[data-testid=changes] [data-testid=tool-added]", hasText("pets_create")),
		in("[data-testid=tool-removed]", hasText("pets_old")),
		in("[data-testid=tool-changed]", hasText("pets_delete"), in("[data-testid=risk-change]", hasText("Risk: WRITE → DESTRUCTIVE")),
			hasText("Policy retry.attempts: 1 → 2"), hasText("Definition: description")),
		in("[data-testid=changes] li", hasText("Source changed (origin, base path or authentication): pets")),
		in("[data-testid=withheld] li", hasText("pets_purge: exposure awaits approval")),
		postForm("/bundles", in("button", hasText("Publish")), none("[data-testid=publish-empty]")))
	empty := NextBundleView{CanPublish: true, CSRF: csrf, Changes: ChangesView{Empty: true}}
	wantPage(t, NextBundlePage(NextBundlePageView{Page: page("Next bundle"), Next: empty}), "Next bundle",
		in("[data-testid=warning]", hasText("No tool is exposed")), in("a[href='/tools?exposure=hidden']"),
		in("[data-testid=no-changes]"), postForm("/bundles", in("button.danger[data-testid=publish-empty]")))
	problem := NextBundleView{Problem: "No signing key " + evil, CanPublish: true, CSRF: csrf}
	wantPage(t, NextBundlePage(NextBundlePageView{Page: page("Next bundle"), Next: problem}), "Next bundle",
		in("[data-testid=publish-problem][role=alert]", hasText("No signing key "+evil)),
		none("[data-testid=publish-form]"), none("[data-testid=preview]"))
}

// TestComparePage shows the changes between two versions.
func TestComparePage(t *testing.T) {
	m := CompareView{Page: page("Compare"), From: 1, To: 3, Changes: nextBundle().Changes}
	wantPage(t, ComparePage(m), "v1 → v3", in("[data-testid=compare] a[href='/bundles']"),
		count("[data-testid=changes] > li", 4), in("[data-testid=tool-changed] [data-testid=risk-change]"))
}

// TestPushStatus: each state reads as a sentence; Retry only when allowed.
func TestPushStatus(t *testing.T) {
	for _, tc := range []struct {
		p    PushView
		want string
	}{
		{PushView{Version: 4, State: "pending", Target: "oci://r/t"}, "pending push to oci://r/t"},
		{PushView{Version: 4, State: "pushing", Target: "oci://r/t"}, "pushing to oci://r/t"},
		{PushView{Version: 4, State: "pushed", Target: "oci://r/t"}, "pushed to oci://r/t"},
		{PushView{Version: 4, State: "failed", Error: evil, Attempts: 3, NextAttempt: "10:05"}, "push failed: " + evil + ", retrying at 10:05 (attempt 3)"},
	} {
		t.Run(tc.p.State, func(t *testing.T) {
			wantFragment(t, PushStatus(&tc.p), in("#push-v4[data-testid=push-status]", hasAttr("data-state", tc.p.State), hasText(tc.want)),
				none("form"))
		})
	}
}

// TestKeysPage: the key table with statuses; admins retire a published
// key (with a confirmation box) and rotate, both with CSRF.
func TestKeysPage(t *testing.T) {
	keys := []KeyRow{{KeyID: "k3", CreatedAt: "2026-11-30", Active: true, SignsCurrent: true},
		{KeyID: "k2", CreatedAt: "2026-10-01"}, {KeyID: "k1", CreatedAt: "2026-09-01", RetiredAt: "2026-10-02"}}
	wantPage(t, KeysPage(KeysView{Page: page("Signing keys"), Keys: keys, CanManage: true, Notice: "Key rotated."}), "Signing keys",
		in("a[href='/api/v1/keys']"), in("[data-testid=notice]", hasText("Key rotated.")),
		count("[data-testid=keys-table] tr[data-testid=key-row]", 3),
		in("tr[data-testid=key-row]:has(code:contains('k3'))", hasText("active"), hasText("signs the current bundle"), none("form")),
		in("tr[data-testid=key-row]:has(code:contains('k1'))", hasText("retired 2026-10-02"), none("form")),
		postForm("/keys/k2/retire", in("input[type=checkbox][name=confirm][required]"), in("button.danger", hasText("Retire k2"))),
		postForm("/keys/rotate", hasAttr("data-testid", "rotate-form"), in("input[name=confirm][required]")))
	wantPage(t, KeysPage(KeysView{Page: page("Signing keys"), Keys: keys}), "Signing keys",
		none("form[action$='/retire']"), none("[data-testid=rotate-form]"))
}
