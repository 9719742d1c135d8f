package sampleapi

import (
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Order statuses. An order moves pending → paid → shipped; pending and paid
// orders can be cancelled.
const (
	statusPending   = "pending"
	statusPaid      = "paid"
	statusShipped   = "shipped"
	statusCancelled = "cancelled"
)

var orderStatuses = []string{statusPending, statusPaid, statusShipped, statusCancelled}

// Order is one order as the API returns it.
type Order struct {
	ID         string      `json:"id"`
	Customer   string      `json:"customer"`
	Items      []OrderItem `json:"items"`
	Currency   string      `json:"currency"`
	TotalCents int64       `json:"total_cents"`
	Status     string      `json:"status"`
	Note       string      `json:"note,omitempty"`
	CreatedAt  time.Time   `json:"created_at"`
	UpdatedAt  time.Time   `json:"updated_at"`
}

// OrderItem is one line of an order.
type OrderItem struct {
	SKU            string `json:"sku"`
	Quantity       int    `json:"quantity"`
	UnitPriceCents int64  `json:"unit_price_cents"`
}

// orderInput is the body of POST /orders.
type orderInput struct {
	Customer string      `json:"customer"`
	Items    []OrderItem `json:"items"`
	Currency string      `json:"currency,omitempty"`
	Note     string      `json:"note,omitempty"`
}

// validate checks the input and fills defaults (currency EUR); the result is
// what the idempotency fingerprint is computed from, so that an omitted
// default and an explicit one count as the same body.
func (in *orderInput) validate() error {
	if in.Currency == "" {
		in.Currency = "EUR"
	}
	switch {
	case in.Customer == "" || len(in.Customer) > 200:
		return errf(http.StatusUnprocessableEntity, codeInvalid, "customer is required (at most 200 characters)")
	case len(in.Items) == 0 || len(in.Items) > 50:
		return errf(http.StatusUnprocessableEntity, codeInvalid, "items must hold 1 to 50 lines")
	case !isCurrency(in.Currency):
		return errf(http.StatusUnprocessableEntity, codeInvalid, "currency must be three upper-case letters, got %q", in.Currency)
	case len(in.Note) > 500:
		return errf(http.StatusUnprocessableEntity, codeInvalid, "note must be at most 500 characters")
	}
	for i, it := range in.Items {
		if it.SKU == "" || it.Quantity < 1 || it.Quantity > 1000 || it.UnitPriceCents < 0 || it.UnitPriceCents > 100_000_000 {
			return errf(http.StatusUnprocessableEntity, codeInvalid,
				"items[%d]: sku is required, quantity must be 1..1000, unit_price_cents 0..100000000", i)
		}
	}
	return nil
}

func isCurrency(c string) bool {
	if len(c) != 3 {
		return false
	}
	for _, r := range c {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// orderPatch is the body of PATCH /orders/{order_id}.
type orderPatch struct {
	Note   *string `json:"note"`
	Status *string `json:"status"`
}

// orderList is the body of GET /orders.
type orderList struct {
	Data    []Order `json:"data"`
	HasMore bool    `json:"has_more"`
}

func (s *Server) listOrders(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	status := q.Get("status")
	if status != "" && !slices.Contains(orderStatuses, status) {
		return errf(http.StatusBadRequest, codeBadRequest, "status must be one of %v", orderStatuses)
	}
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return errf(http.StatusBadRequest, codeBadRequest, "limit must be an integer within 1..100")
		}
		limit = n
	}
	orders, more := s.state.listOrders(status, limit)
	writeJSON(w, http.StatusOK, orderList{Data: orders, HasMore: more})
	return nil
}

// idempotencyHeader is the request header POST /orders deduplicates on.
const idempotencyHeader = "Idempotency-Key"

func (s *Server) createOrder(w http.ResponseWriter, r *http.Request) error {
	var in orderInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	key := r.Header.Get(idempotencyHeader)
	if len(key) > 255 {
		return errf(http.StatusBadRequest, codeBadRequest, "%s must be at most 255 characters", idempotencyHeader)
	}
	res, err := s.state.createOrder(in, key, s.now().UTC())
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/orders/"+res.orderID)
	if res.replayed {
		// Same header name Stripe uses, so a person can see the dedup happen.
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, err = w.Write(res.body)
	return err
}

func (s *Server) getOrder(w http.ResponseWriter, r *http.Request) error {
	o, err := s.state.getOrder(r.PathValue("order_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

func (s *Server) updateOrder(w http.ResponseWriter, r *http.Request) error {
	var p orderPatch
	if err := decodeJSON(r, &p); err != nil {
		return err
	}
	if p.Note != nil && len(*p.Note) > 500 {
		return errf(http.StatusUnprocessableEntity, codeInvalid, "note must be at most 500 characters")
	}
	if p.Status != nil && *p.Status != statusPaid && *p.Status != statusShipped {
		return errf(http.StatusUnprocessableEntity, codeInvalid,
			"status can be set to paid or shipped; cancel with POST /orders/{order_id}/cancel")
	}
	o, err := s.state.updateOrder(r.PathValue("order_id"), p, s.now().UTC())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

func (s *Server) cancelOrder(w http.ResponseWriter, r *http.Request) error {
	o, err := s.state.cancelOrder(r.PathValue("order_id"), s.now().UTC())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

func (s *Server) deleteOrder(w http.ResponseWriter, r *http.Request) error {
	if err := s.state.deleteOrder(r.PathValue("order_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
