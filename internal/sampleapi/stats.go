package sampleapi

import (
	"maps"
	"net/http"
	"sync"
)

// stats counts the API requests that reached each route, whatever happened
// to them next (faults, 401, dropped connection): it is what lets a test
// assert that exactly one POST reached the upstream.
type stats struct {
	mu     sync.Mutex
	counts map[string]int
}

func newStats() *stats { return &stats{counts: map[string]int{}} }

func (st *stats) count(pattern string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.counts[pattern]++
}

func (st *stats) snapshot() map[string]int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return maps.Clone(st.counts)
}

func (st *stats) reset() {
	st.mu.Lock()
	defer st.mu.Unlock()
	clear(st.counts)
}

// StatsReport is the body of GET /_stats.
type StatsReport struct {
	// Routes maps a route pattern such as "POST /orders" to the number of
	// requests that reached it. Routes never hit are absent.
	Routes map[string]int `json:"routes"`
	// Total is the sum over Routes.
	Total int `json:"total"`
}

// Stats returns how many API requests reached each route since the start or
// the last ResetStats.
func (s *Server) Stats() StatsReport {
	routes := s.stats.snapshot()
	total := 0
	for _, n := range routes {
		total += n
	}
	return StatsReport{Routes: routes, Total: total}
}

// Hits returns how many API requests reached the route pattern (for example
// "POST /orders").
func (s *Server) Hits(pattern string) int { return s.stats.snapshot()[pattern] }

// ResetStats sets every route counter back to zero.
func (s *Server) ResetStats() { s.stats.reset() }

func (s *Server) getStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Stats())
}

func (s *Server) deleteStats(w http.ResponseWriter, r *http.Request) {
	s.ResetStats()
	writeJSON(w, http.StatusOK, s.Stats())
}
