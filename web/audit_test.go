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
	wantBody(t, rec, `data-testid="audit-row"`, "policy.edit", "1 entries", `href="/audit/export?subject=tool%3Aorders_list"`)
	if strings.Count(rec.Body.String(), `data-testid="audit-row"`) != 1 {
		t.Error("the subject filter let other entries through")
	}
	rec = a.do(request{method: "GET", path: "/audit?from=yesterday", cookie: viewer})
	wantStatus(t, rec, 400)
	wantBody(t, rec, "YYYY-MM-DD")
	rec = a.do(request{method: "GET", path: "/audit?action=user.add&page=1", cookie: viewer})
	wantBody(t, rec, "3 entries") // one per role in the test app

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
