package sampleapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
)

func TestCreateAndGetOrder(t *testing.T) {
	_, ts := startServer(t, Options{})
	r := call(t, ts, "POST", "/orders", orderBody)
	wantStatus(t, r, http.StatusCreated)
	if got := r.header.Get("Location"); got != "/orders/ord_0001" {
		t.Errorf("Location = %q, want /orders/ord_0001", got)
	}
	var o Order
	r.decode(t, &o)
	want := Order{ID: "ord_0001", Customer: "ada@example.com", Currency: "EUR", TotalCents: 3998, Status: "pending",
		CreatedAt: fixedNow, UpdatedAt: fixedNow}
	if o.ID != want.ID || o.Customer != want.Customer || o.Currency != want.Currency || o.TotalCents != want.TotalCents ||
		o.Status != want.Status || !o.CreatedAt.Equal(fixedNow) || len(o.Items) != 1 {
		t.Fatalf("created %+v, want %+v with one item", o, want)
	}
	if second := createOrder(t, ts); second.ID != "ord_0002" {
		t.Errorf("second id = %s, want ord_0002 (ids are sequential)", second.ID)
	}

	g := call(t, ts, "GET", "/orders/ord_0001", "")
	wantStatus(t, g, http.StatusOK)
	var got Order
	g.decode(t, &got)
	if got.ID != "ord_0001" || got.TotalCents != 3998 {
		t.Errorf("GET returned %+v", got)
	}
	wantStatus(t, call(t, ts, "GET", "/orders/ord_9999", ""), http.StatusNotFound)
}

func TestCreateOrderRejectsBadBodies(t *testing.T) {
	_, ts := startServer(t, Options{})
	tests := []struct {
		name, body string
		status     int
		code       string
	}{
		{"malformed JSON", `{"customer":`, 400, codeBadRequest},
		{"unknown field", `{"customer":"a@b.c","items":[{"sku":"X","quantity":1,"unit_price_cents":1}],"evil":1}`, 400, codeBadRequest},
		{"trailing data", orderBody + `{}`, 400, codeBadRequest},
		{"no customer", `{"items":[{"sku":"X","quantity":1,"unit_price_cents":1}]}`, 422, codeInvalid},
		{"no items", `{"customer":"a@b.c","items":[]}`, 422, codeInvalid},
		{"zero quantity", `{"customer":"a@b.c","items":[{"sku":"X","quantity":0,"unit_price_cents":1}]}`, 422, codeInvalid},
		{"bad currency", `{"customer":"a@b.c","currency":"eur","items":[{"sku":"X","quantity":1,"unit_price_cents":1}]}`, 422, codeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, ts, "POST", "/orders", tt.body)
			wantStatus(t, r, tt.status)
			if c := r.errorCode(t); c != tt.code {
				t.Errorf("code = %q, want %q", c, tt.code)
			}
		})
	}
	var list orderList
	call(t, ts, "GET", "/orders", "").decode(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("rejected creates left %d orders behind", len(list.Data))
	}
}

func TestCreateOrderIdempotencyKey(t *testing.T) {
	s, ts := startServer(t, Options{})
	first := call(t, ts, "POST", "/orders", orderBody, "Idempotency-Key: k-1")
	wantStatus(t, first, http.StatusCreated)
	if first.header.Get("Idempotent-Replayed") != "" {
		t.Error("first create marked as replayed")
	}

	// The same body with the default currency spelled out is the same request.
	sameBody := `{"customer":"ada@example.com","currency":"EUR","items":[{"sku":"BOOK-042","quantity":2,"unit_price_cents":1999}]}`
	replay := call(t, ts, "POST", "/orders", sameBody, "Idempotency-Key: k-1")
	wantStatus(t, replay, http.StatusCreated)
	if string(replay.body) != string(first.body) || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay = %s (replayed %q), want the first response %s",
			replay.body, replay.header.Get("Idempotent-Replayed"), first.body)
	}

	other := call(t, ts, "POST", "/orders", `{"customer":"eve@example.com","items":[{"sku":"X","quantity":1,"unit_price_cents":1}]}`,
		"Idempotency-Key: k-1")
	wantStatus(t, other, http.StatusUnprocessableEntity)
	if c := other.errorCode(t); c != codeIdempotencyReuse {
		t.Errorf("code = %q, want %q", c, codeIdempotencyReuse)
	}

	// A new key, or no key at all, creates a new order.
	wantStatus(t, call(t, ts, "POST", "/orders", orderBody, "Idempotency-Key: k-2"), http.StatusCreated)
	wantStatus(t, call(t, ts, "POST", "/orders", orderBody), http.StatusCreated)
	var list orderList
	call(t, ts, "GET", "/orders", "").decode(t, &list)
	if len(list.Data) != 3 {
		t.Errorf("%d orders, want 3 (k-1 once, k-2, no key)", len(list.Data))
	}
	if n := s.Hits("POST /orders"); n != 5 {
		t.Errorf("POST /orders hits = %d, want 5", n)
	}
}

func TestCreateOrderIdempotencyKeyConcurrent(t *testing.T) {
	_, ts := startServer(t, Options{})
	const n = 8
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r, err := tryCall(ts.Client(), ts.URL, "POST", "/orders", orderBody,
				"Authorization: Bearer "+DefaultToken, "Idempotency-Key: race")
			if err != nil || r.status != http.StatusCreated {
				return
			}
			var o Order
			if json.Unmarshal(r.body, &o) == nil {
				ids[i] = o.ID
			}
		})
	}
	wg.Wait()
	for i, id := range ids {
		if id != "ord_0001" {
			t.Errorf("request %d got order %q, want ord_0001 for every concurrent replay", i, id)
		}
	}
}

func TestListOrders(t *testing.T) {
	_, ts := startServer(t, Options{Seed: true})
	tests := []struct {
		query   string
		status  int
		ids     []string
		hasMore bool
	}{
		{"", 200, []string{"ord_0001", "ord_0002", "ord_0003"}, false},
		{"?status=paid", 200, []string{"ord_0002"}, false},
		{"?status=cancelled", 200, []string{}, false},
		{"?limit=2", 200, []string{"ord_0001", "ord_0002"}, true},
		{"?limit=3", 200, []string{"ord_0001", "ord_0002", "ord_0003"}, false},
		{"?limit=0", 400, nil, false},
		{"?limit=abc", 400, nil, false},
		{"?status=lost", 400, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := call(t, ts, "GET", "/orders"+tt.query, "")
			wantStatus(t, r, tt.status)
			if tt.status != 200 {
				return
			}
			var list orderList
			r.decode(t, &list)
			var got []string
			for _, o := range list.Data {
				got = append(got, o.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.ids) || list.HasMore != tt.hasMore {
				t.Errorf("ids %v has_more %v, want %v %v", got, list.HasMore, tt.ids, tt.hasMore)
			}
		})
	}
}

func TestOrderLifecycle(t *testing.T) {
	_, ts := startServer(t, Options{})
	createOrder(t, ts) // ord_0001: pending
	steps := []struct {
		name, method, path, body string
		status                   int
		wantStatus               string // order status after the step, when 200
	}{
		{"note", "PATCH", "/orders/ord_0001", `{"note":"leave at door"}`, 200, "pending"},
		{"skip to shipped", "PATCH", "/orders/ord_0001", `{"status":"shipped"}`, 409, ""},
		{"cancel via patch", "PATCH", "/orders/ord_0001", `{"status":"cancelled"}`, 422, ""},
		{"pay", "PATCH", "/orders/ord_0001", `{"status":"paid"}`, 200, "paid"},
		{"cancel paid", "POST", "/orders/ord_0001/cancel", "", 200, "cancelled"},
		{"cancel twice", "POST", "/orders/ord_0001/cancel", "", 409, ""},
		{"patch cancelled", "PATCH", "/orders/ord_0001", `{"note":"x"}`, 409, ""},
		{"patch unknown", "PATCH", "/orders/ord_0404", `{"note":"x"}`, 404, ""},
		{"cancel unknown", "POST", "/orders/ord_0404/cancel", "", 404, ""},
		{"delete", "DELETE", "/orders/ord_0001", "", 204, ""},
		{"gone", "GET", "/orders/ord_0001", "", 404, ""},
		{"delete twice", "DELETE", "/orders/ord_0001", "", 404, ""},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := call(t, ts, st.method, st.path, st.body)
			wantStatus(t, r, st.status)
			if st.wantStatus == "" {
				return
			}
			var o Order
			r.decode(t, &o)
			if o.Status != st.wantStatus {
				t.Errorf("order status = %q, want %q", o.Status, st.wantStatus)
			}
		})
	}
}

func TestShippedOrderCannotBeCancelled(t *testing.T) {
	_, ts := startServer(t, Options{Seed: true}) // ord_0003 is shipped
	r := call(t, ts, "POST", "/orders/ord_0003/cancel", "")
	wantStatus(t, r, http.StatusConflict)
	if c := r.errorCode(t); c != codeConflict {
		t.Errorf("code = %q, want %q", c, codeConflict)
	}
}
