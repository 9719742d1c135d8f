package runtimeapi

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/store"
)

// A token created through another handle on the database — what `toolgate
// token create` is while the console runs — is accepted on its very first
// request, full fetch and 304 alike, although the poll that would pick it
// up runs only every hour here.
func TestRuntimeAPIAcceptsATokenAnotherProcessCreated(t *testing.T) {
	a, path := newAPIApp(t, time.Hour)
	a.exposeTool("list_orders")
	v1 := a.publish("first")
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(a.token("edge"))}), 200)
	other := openDB(t, path)
	for i, inm := range []string{"", v1.ETag} {
		_, secret, err := other.CreateRuntimeToken(t.Context(), "cli", fmt.Sprintf("fresh-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"": 200, v1.ETag: 304}[inm]
		wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(secret, "If-None-Match", inm)}), want)
	}
}

// Wrong tokens, the same one repeated or a new one each time, are refused
// without a database query each: a hash found missing is remembered, and
// the lookups of new ones are rate-limited. A valid token still works.
func TestRuntimeAPIWrongTokensDoNotQueryTheDatabaseEachTime(t *testing.T) {
	a, _ := newAPIApp(t, time.Hour)
	a.exposeTool("list_orders")
	a.publish("first")
	token := a.token("edge")
	wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token)}), 200)
	for _, tt := range []struct {
		name  string
		value func(i int) string
	}{
		{"the same wrong token", func(int) string { return store.RuntimeTokenPrefix + "wrongwrongwrong" }},
		{"a new wrong token each time", func(i int) string { return fmt.Sprintf("%swrong%08d", store.RuntimeTokenPrefix, i) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, start := a.db.ReadTransactions(), time.Now()
			const n = 300
			for i := range n {
				rec := a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(tt.value(i))})
				if rec.Code != 401 {
					t.Fatalf("wrong token %d: %d, want 401", i, rec.Code)
				}
			}
			reads := a.db.ReadTransactions() - before
			took := time.Since(start)
			bound := uint64(missBurst + 1 + took.Seconds()*missRate)
			t.Logf("%d wrong tokens in %s: %d database reads", n, took.Round(time.Millisecond), reads)
			if reads > bound {
				t.Errorf("%d wrong tokens made %d database reads, want at most %d", n, reads, bound)
			}
			wantStatus(t, a.do(request{method: "GET", path: "/api/v1/bundle", header: bearer(token)}), 200)
		})
	}
}

// The negative cache is bounded in time (an entry lasts missTTL) and in
// size (missEntries, the least recently used dropped first).
func TestTokenMissesAreBounded(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	m := newTokenMisses(func() time.Time { return now })
	first := sha256.Sum256([]byte("first"))
	m.add(first)
	if !m.known(first) {
		t.Fatal("a miss just added is not known")
	}
	now = now.Add(missTTL)
	if m.known(first) {
		t.Error("a miss is still known after missTTL")
	}
	m.add(first)
	for i := range missEntries {
		m.add(sha256.Sum256(fmt.Appendf(nil, "other %d", i)))
	}
	if m.known(first) {
		t.Errorf("the oldest miss is still known after %d newer ones", missEntries)
	}
	if n := m.seen.Len(); n != missEntries {
		t.Errorf("%d misses kept, want %d", n, missEntries)
	}
}
