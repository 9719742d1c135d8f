// Package cluster measures what a second console costs and gains on one
// database: publish and approval latency (p50, p99) and throughput with one
// console on SQLite (the reference), one console on PostgreSQL and two
// consoles on PostgreSQL, rounds interleaved so that load from elsewhere on
// the machine touches every scenario alike. A console here is its database
// side — its own store.DB pools and its own keyring.Database (the active
// key read and unsealed at every publish) — which is where consoles meet;
// HTTP and password hashing cost the same with one console or two.
//
//	make bench-cluster      # or: go test -run '^$' -bench Cluster -benchtime 1x ./internal/bench/cluster
package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/auth"
	"github.com/toolgate/toolgate/internal/keyring"
	"github.com/toolgate/toolgate/internal/risk"
	"github.com/toolgate/toolgate/internal/store"
	"github.com/toolgate/toolgate/internal/store/storetest"
	"github.com/toolgate/toolgate/internal/testing/pgtest"
)

// TestMain stops pgtest's PostgreSQL server.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

const (
	rounds      = 3  // interleaved rounds per scenario
	ops         = 40 // publishes (and approvals) per round
	clients     = 4  // concurrent clients in all, split evenly over the consoles
	seededTools = 50 // exposed tools in every bundle
)

type scenario struct {
	name     string
	engine   store.Engine
	consoles int
}

var scenarios = []scenario{
	{"sqlite, 1 console (reference)", store.SQLite, 1},
	{"postgres, 1 console", store.Postgres, 1},
	{"postgres, 2 consoles", store.Postgres, 2},
}

// result is the latencies of one kind of operation in one round.
type result struct {
	lat     []time.Duration
	elapsed time.Duration
}

func BenchmarkCluster(b *testing.B) {
	publish := make([][]result, len(scenarios))
	approve := make([][]result, len(scenarios))
	for range b.N {
		for r := range rounds {
			for i, sc := range scenarios {
				p, a := runRound(b, sc)
				publish[i], approve[i] = append(publish[i], p), append(approve[i], a)
				b.Logf("round %d %s: publish p50 %v, approve p50 %v", r+1, sc.name, pct(p.lat, 50), pct(a.lat, 50))
			}
		}
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "\n%d rounds x %d ops, %d clients split over the consoles, %d tools per bundle; shared machine: compare ratios\n", rounds, ops, clients, seededTools)
	table(&out, "publish", publish)
	table(&out, "approve", approve)
	// On stdout: go test cuts long benchmark logs.
	fmt.Print(out.String())
}

// table prints p50, p99 and ops/s per scenario (all rounds pooled) and
// their ratio to the first scenario.
func table(out *bytes.Buffer, what string, rs [][]result) {
	fmt.Fprintf(out, "%-8s %-32s %9s %9s %9s  %s\n", what, "scenario", "p50", "p99", "ops/s", "vs reference (p50, p99, ops/s)")
	var ref [3]float64
	for i, sc := range scenarios {
		var lat []time.Duration
		var elapsed time.Duration
		for _, r := range rs[i] {
			lat, elapsed = append(lat, r.lat...), elapsed+r.elapsed
		}
		p50, p99 := pct(lat, 50), pct(lat, 99)
		tput := float64(len(lat)) / elapsed.Seconds()
		cur := [3]float64{float64(p50), float64(p99), tput}
		if i == 0 {
			ref = cur
		}
		fmt.Fprintf(out, "%-8s %-32s %9s %9s %9.1f  %.2fx %.2fx %.2fx\n", "", sc.name, p50.Round(10*time.Microsecond),
			p99.Round(10*time.Microsecond), tput, cur[0]/ref[0], cur[1]/ref[1], cur[2]/ref[2])
	}
}

func pct(lat []time.Duration, p int) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// runRound makes a fresh database for sc, seeds it and measures ops
// publishes, then ops approvals, spread over sc.consoles handles.
func runRound(b *testing.B, sc scenario) (publish, approve result) {
	b.Helper()
	ctx := context.Background()
	a, second := storetest.MustOpenShared(b, sc.engine)
	consoles := []*store.DB{a, second}[:sc.consoles]
	kek, err := keyring.NewKEK(bytes.Repeat([]byte{42}, 32))
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := (&keyring.Database{DB: a, KEK: kek}).EnsureActive(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	requester, approver := seed(b, a)
	publish = measure(b, consoles, func(db *store.DB, _ int) error {
		kr := &keyring.Database{DB: db, KEK: kek}
		key, err := kr.Active(ctx)
		if err != nil {
			return err
		}
		_, err = db.Publish(ctx, store.PublishRequest{Actor: "bench", Key: key})
		return err
	})
	ids := requests(b, a, requester)
	approve = measure(b, consoles, func(db *store.DB, i int) error {
		_, err := db.ApproveChangeRequest(ctx, approver.ID, ids[i], "ok")
		return err
	})
	return publish, approve
}

// measure runs ops calls of do over the consoles, clients in all,
// and returns every call's latency. Any error fails the benchmark: a
// publish or approval refused under contention is a finding, not a figure.
func measure(b *testing.B, consoles []*store.DB, do func(db *store.DB, i int) error) result {
	b.Helper()
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	next := make(chan int, ops)
	for i := range ops {
		next <- i
	}
	close(next)
	start := time.Now()
	for c := range clients {
		db := consoles[c%len(consoles)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := time.Now()
				err := do(db, i)
				d := time.Since(t)
				if err != nil {
					b.Errorf("op %d: %v", i, err)
					continue
				}
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return result{lat: lat, elapsed: time.Since(start)}
}

// seed adds exposed READ tools (what each bundle carries) and the two
// people of an approval.
func seed(b *testing.B, db *store.DB) (requester, approver *store.User) {
	b.Helper()
	for i := range seededTools {
		p := storetest.MustSeedTool(b, db, storetest.SeedTool{Name: fmt.Sprintf("get_%02d", i), Method: "GET",
			Path: fmt.Sprintf("/items%02d/{id}", i), Class: risk.Read})
		pol := p.Policy
		pol.Exposed = true
		if _, err := db.SavePolicy(context.Background(), "bench", p.ToolID, p.Version, pol); err != nil {
			b.Fatal(err)
		}
	}
	mk := func(email string, role auth.Role) *store.User {
		u, err := db.CreateUser(context.Background(), "bench", store.NewUser{Email: email, PasswordHash: "h", Roles: []auth.Role{role}})
		if err != nil {
			b.Fatal(err)
		}
		return u
	}
	return mk("ops@example.com", auth.RoleAdmin), mk("sec@example.com", auth.RoleApprover)
}

// requests makes ops pending requests to expose a DESTRUCTIVE tool each.
func requests(b *testing.B, db *store.DB, requester *store.User) []int64 {
	b.Helper()
	ids := make([]int64, ops)
	for i := range ops {
		p := storetest.MustSeedTool(b, db, storetest.SeedTool{Name: fmt.Sprintf("delete_%02d", i), Method: "DELETE",
			Path: fmt.Sprintf("/things%02d/{id}", i), Class: risk.Destructive})
		pol := p.Policy
		pol.Exposed = true
		cr, err := db.CreateChangeRequest(context.Background(), requester, store.NewChangeRequest{ToolID: p.ToolID,
			Kind: store.KindExposeRisky, Reason: strings.Repeat("bench ", 3), Policy: pol})
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = cr.ID
	}
	return ids
}
