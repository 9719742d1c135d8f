package sampleapi

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// state is the API's in-memory data. One mutex guards all of it: the API is
// tiny, and one lock makes "check idempotency key, then create" atomic.
// Records are stored and returned by value so callers can encode them after
// the lock is released.
type state struct {
	mu sync.Mutex

	orders    map[string]Order
	orderIDs  []string // creation order, for listing
	lastOrder int

	users    map[string]User
	userIDs  []string
	lastUser int
	apiKeys  map[string][]APIKey // by user id
	lastKey  int

	// idempotent maps an Idempotency-Key to the create it first answered.
	idempotent map[string]idempotentCreate
}

// idempotentCreate is what a key remembers: a fingerprint of the request body
// and the exact response, so a replay gets the same bytes.
type idempotentCreate struct {
	fingerprint [sha256.Size]byte
	orderID     string
	body        []byte
}

// createResult is the outcome of a create, first or replayed.
type createResult struct {
	orderID  string
	body     []byte
	replayed bool
}

func newState() *state {
	return &state{
		orders:     map[string]Order{},
		users:      map[string]User{},
		apiKeys:    map[string][]APIKey{},
		idempotent: map[string]idempotentCreate{},
	}
}

func notFound(kind, id string) error {
	return errf(http.StatusNotFound, codeNotFound, "%s %q not found", kind, id)
}

func (st *state) listOrders(status string, limit int) (orders []Order, hasMore bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	orders = []Order{}
	for _, id := range st.orderIDs {
		o := st.orders[id]
		if status != "" && o.Status != status {
			continue
		}
		if len(orders) == limit {
			return orders, true
		}
		orders = append(orders, o)
	}
	return orders, false
}

// createOrder creates an order from validated input, or replays the response
// of an earlier create with the same key and the same body. The same key with
// a different body is refused rather than silently answered with an order
// the client did not ask for.
func (st *state) createOrder(in orderInput, key string, now time.Time) (createResult, error) {
	canonical, err := json.Marshal(in)
	if err != nil {
		return createResult{}, fmt.Errorf("fingerprinting the order: %w", err)
	}
	fp := sha256.Sum256(canonical)
	st.mu.Lock()
	defer st.mu.Unlock()
	if key != "" {
		if prev, ok := st.idempotent[key]; ok {
			if prev.fingerprint != fp {
				return createResult{}, errf(http.StatusUnprocessableEntity, codeIdempotencyReuse,
					"Idempotency-Key %q was already used with a different request body", key)
			}
			return createResult{orderID: prev.orderID, body: prev.body, replayed: true}, nil
		}
	}
	st.lastOrder++
	o := Order{
		ID:        fmt.Sprintf("ord_%04d", st.lastOrder),
		Customer:  in.Customer,
		Items:     in.Items,
		Currency:  in.Currency,
		Status:    statusPending,
		Note:      in.Note,
		CreatedAt: now,
		UpdatedAt: now,
	}
	for _, it := range o.Items {
		o.TotalCents += int64(it.Quantity) * it.UnitPriceCents
	}
	body, err := json.Marshal(o)
	if err != nil {
		return createResult{}, fmt.Errorf("encoding order %s: %w", o.ID, err)
	}
	body = append(body, '\n')
	st.orders[o.ID] = o
	st.orderIDs = append(st.orderIDs, o.ID)
	if key != "" {
		st.idempotent[key] = idempotentCreate{fingerprint: fp, orderID: o.ID, body: body}
	}
	return createResult{orderID: o.ID, body: body}, nil
}

func (st *state) getOrder(id string) (Order, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	o, ok := st.orders[id]
	if !ok {
		return Order{}, notFound("order", id)
	}
	return o, nil
}

func (st *state) updateOrder(id string, p orderPatch, now time.Time) (Order, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	o, ok := st.orders[id]
	if !ok {
		return Order{}, notFound("order", id)
	}
	if o.Status == statusCancelled {
		return Order{}, errf(http.StatusConflict, codeConflict, "order %s is cancelled and can no longer change", id)
	}
	if p.Status != nil && *p.Status != o.Status {
		next := map[string]string{statusPending: statusPaid, statusPaid: statusShipped}[o.Status]
		if *p.Status != next {
			return Order{}, errf(http.StatusConflict, codeConflict, "order %s is %s and cannot become %s", id, o.Status, *p.Status)
		}
		o.Status = next
	}
	if p.Note != nil {
		o.Note = *p.Note
	}
	o.UpdatedAt = now
	st.orders[id] = o
	return o, nil
}

func (st *state) cancelOrder(id string, now time.Time) (Order, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	o, ok := st.orders[id]
	if !ok {
		return Order{}, notFound("order", id)
	}
	if o.Status != statusPending && o.Status != statusPaid {
		return Order{}, errf(http.StatusConflict, codeConflict, "order %s is %s and cannot be cancelled", id, o.Status)
	}
	o.Status, o.UpdatedAt = statusCancelled, now
	st.orders[id] = o
	return o, nil
}

func (st *state) deleteOrder(id string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.orders[id]; !ok {
		return notFound("order", id)
	}
	delete(st.orders, id)
	st.orderIDs = removeID(st.orderIDs, id)
	return nil
}

func removeID(ids []string, id string) []string {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// seed adds sample data through the same paths the API uses.
func (s *Server) seed() {
	now := s.now().UTC()
	samples := []orderInput{
		{Customer: "ada@example.com", Items: []OrderItem{{SKU: "BOOK-042", Quantity: 2, UnitPriceCents: 1999}}},
		{Customer: "grace@example.com", Items: []OrderItem{{SKU: "MUG-007", Quantity: 1, UnitPriceCents: 1250}}, Note: "gift wrap"},
		{Customer: "linus@example.com", Items: []OrderItem{{SKU: "KBD-101", Quantity: 1, UnitPriceCents: 8900}}},
	}
	for i, in := range samples {
		if err := in.validate(); err != nil {
			panic(fmt.Sprintf("sampleapi: invalid seed order: %v", err))
		}
		res, err := s.state.createOrder(in, "", now)
		if err != nil {
			panic(fmt.Sprintf("sampleapi: seeding orders: %v", err))
		}
		// Leave the orders in different states so filters show something.
		for _, st := range []string{statusPaid, statusShipped}[:i] {
			if _, err := s.state.updateOrder(res.orderID, orderPatch{Status: &st}, now); err != nil {
				panic(fmt.Sprintf("sampleapi: seeding orders: %v", err))
			}
		}
	}
	if _, err := s.state.createUser(userInput{Email: "admin@example.com", Name: "Sample Admin", Role: roleAdmin}, now); err != nil {
		panic(fmt.Sprintf("sampleapi: seeding users: %v", err))
	}
}
