package auth

import (
	"fmt"
	"testing"
	"time"
)

// TestRefusalTallySummarisesPerKeyAndWindow: refusals are counted per
// (account, address, reason); nothing is due before the window closes;
// keys past MaxKeys share one summary; Drain empties the tally.
func TestRefusalTallySummarisesPerKeyAndWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tally := NewRefusalTally(time.Minute, 3)
	for i := range 300 {
		tally.Add("ada@example.com", "10.0.0.1", "throttled", t0.Add(time.Duration(i)*100*time.Millisecond))
	}
	tally.Add("ada@example.com", "10.0.0.2", "throttled", t0.Add(time.Second))
	tally.Add("bob@example.com", "10.0.0.1", "server busy", t0.Add(time.Second))
	for i := range 50 {
		tally.Add(fmt.Sprintf("u%d@example.com", i), "10.0.0.9", "throttled", t0.Add(2*time.Second))
	}
	if got := tally.Due(t0.Add(59 * time.Second)); got != nil {
		t.Fatalf("due before the window closed: %v", got)
	}
	got := tally.Due(t0.Add(time.Minute))
	want := []RefusedSignIns{
		{"ada@example.com", "10.0.0.1", "throttled", 300, t0, t0.Add(29900 * time.Millisecond)},
		{"ada@example.com", "10.0.0.2", "throttled", 1, t0.Add(time.Second), t0.Add(time.Second)},
		{"bob@example.com", "10.0.0.1", "server busy", 1, t0.Add(time.Second), t0.Add(time.Second)},
		{ManyAccounts, ManyAddresses, "throttled", 50, t0.Add(2 * time.Second), t0.Add(2 * time.Second)},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Due =\n%v\nwant\n%v", got, want)
	}
	if got := tally.Due(t0.Add(time.Hour)); got != nil {
		t.Errorf("due again after taking: %v", got)
	}
	tally.Add("ada@example.com", "10.0.0.1", "throttled", t0.Add(time.Hour))
	if got := tally.Drain(); len(got) != 1 || got[0].Count != 1 {
		t.Errorf("Drain = %v", got)
	}
	if got := tally.Drain(); len(got) != 0 {
		t.Errorf("Drain twice = %v", got)
	}
}
