package web

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestAuditPageAndExport(t *testing.T) {
	a := newTestApp(t, true)
	get, _ := seedTools(t, a)
	p := get.Policy
	p.TimeoutMS = 3000
	if _, err := a.db.SavePolicy(context.Background(), "admin@example.com", get.ToolID, get.Version, p); err != nil {
		t.Fatal(err)
	}
	viewer := a.sessionCookie("viewer")
	rec := a.do(request{method: "GET", path: "/audit?subject=tool:orders_list", cookie: viewer})
	wantStatus(t, rec, 200)
	wantPage(t, rec, in(tid("audit-row"), hasText("policy.edit")), in(tid("audit-total"), hasText("1 entries")),
		in(`a[href="/audit/export?subject=tool%3Aorders_list"]`),
		count(tid("audit-row"), 1)) // the subject filter let no other entries through
	rec = a.do(request{method: "GET", path: "/audit?from=yesterday", cookie: viewer})
	wantStatus(t, rec, 400)
	wantPage(t, rec, in(tid("form-error"), hasText("YYYY-MM-DD")))
	rec = a.do(request{method: "GET", path: "/audit?action=user.add&page=1", cookie: viewer})
	wantPage(t, rec, in(tid("audit-total"), hasText("3 entries")), count(tid("audit-row"), 3)) // one per role in the test app

	rec = a.do(request{method: "GET", path: "/audit/export?action=policy.edit", cookie: viewer})
	wantStatus(t, rec, 200)
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/x-ndjson") {
		t.Errorf("content type %q", ct)
	}
	sc := bufio.NewScanner(rec.Body)
	var n int
	for sc.Scan() {
		var line struct {
			Action string `json:"action"`
			After  struct {
				TimeoutMS int `json:"timeout_ms"`
			} `json:"after"`
			Hash string `json:"hash"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if line.Action != "policy.edit" || line.After.TimeoutMS != 3000 || line.Hash == "" {
			t.Errorf("exported %+v", line)
		}
		n++
	}
	if n != 1 {
		t.Fatalf("exported %d lines, want 1", n)
	}
}
