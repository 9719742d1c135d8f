package approval

import (
	"slices"
	"time"
)

// link is one account's direct control of another, through one or more
// acts. It lasts from the latest of them; the one named is the creation
// when there is one (it says most), else the latest.
type link struct {
	from, to int64
	act      Act
	at       time.Time // the latest act's
	// asked: from asked an operator for the named act (Act.RequestedBy)
	// rather than doing it (Act.By).
	asked bool
}

// graph is the control relation of the window: who controls whom directly.
type graph struct {
	nodes []int64 // every account with a link, ascending
	out   map[int64][]*link
	in    map[int64][]*link
	names map[int64]string
}

// newGraph builds the graph of the acts done after since.
func newGraph(acts []Act, since time.Time) *graph {
	g := &graph{out: map[int64][]*link{}, in: map[int64][]*link{}, names: map[int64]string{}}
	best := map[[2]int64]*link{}
	add := func(from Account, a Act, asked bool) {
		if from.ID == 0 || from.ID == a.Subject.ID {
			return
		}
		g.names[from.ID], g.names[a.Subject.ID] = from.Email, a.Subject.Email
		k := [2]int64{from.ID, a.Subject.ID}
		l, ok := best[k]
		if !ok {
			best[k] = &link{from: from.ID, to: a.Subject.ID, act: a, at: a.At, asked: asked}
			return
		}
		if a.At.After(l.at) {
			l.at = a.At
		}
		if named(a, l.act) {
			l.act, l.asked = a, asked
		}
	}
	for _, a := range acts {
		if a.At.After(since) {
			add(a.By, a, false)
			add(a.RequestedBy, a, true)
		}
	}
	for _, l := range best {
		g.out[l.from] = append(g.out[l.from], l)
		g.in[l.to] = append(g.in[l.to], l)
	}
	for id := range g.names {
		g.nodes = append(g.nodes, id)
		// A fixed order, so the same facts always give the same sentence.
		slices.SortFunc(g.out[id], func(a, b *link) int { return compareID(a.to, b.to) })
		slices.SortFunc(g.in[id], func(a, b *link) int { return compareID(a.from, b.from) })
	}
	slices.Sort(g.nodes)
	return g
}

func compareID(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// named reports whether act a rather than b should be named for a link.
func named(a, b Act) bool {
	if (a.Kind == ActCreate) != (b.Kind == ActCreate) {
		return a.Kind == ActCreate
	}
	return a.At.After(b.At)
}

// widestTo returns, for every account that controls target, the time its
// control lasts from: over every chain of links to target, the latest
// oldest act (a chain holds while its oldest act is in the window). It is
// Dijkstra's algorithm with "min" for "+" and "latest" for "shortest".
func (g *graph) widestTo(target int64) map[int64]time.Time {
	best := map[int64]time.Time{}
	done := map[int64]bool{target: true}
	relax := func(u int64, lasts func(time.Time) time.Time) {
		for _, l := range g.in[u] {
			if done[l.from] {
				continue
			}
			if t, ok := best[l.from]; !ok || lasts(l.at).After(t) {
				best[l.from] = lasts(l.at)
			}
		}
	}
	relax(target, func(t time.Time) time.Time { return t })
	for {
		u, found := int64(0), false
		for _, id := range g.nodes {
			if t, ok := best[id]; ok && !done[id] && (!found || t.After(best[u])) {
				u, found = id, true
			}
		}
		if !found {
			return best
		}
		done[u] = true
		relax(u, func(t time.Time) time.Time { return earlier(best[u], t) })
	}
}

// path returns the shortest chain of links from one account to another
// whose acts are all at or after since, or nil.
func (g *graph) path(from, to int64, since time.Time) []*link {
	prev := map[int64]*link{}
	queue, seen := []int64{from}, map[int64]bool{from: true}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if u == to {
			var chain []*link
			for v := to; v != from; v = prev[v].from {
				chain = append(chain, prev[v])
			}
			slices.Reverse(chain)
			return chain
		}
		for _, l := range g.out[u] {
			if !seen[l.to] && !l.at.Before(since) {
				seen[l.to], prev[l.to] = true, l
				queue = append(queue, l.to)
			}
		}
	}
	return nil
}
