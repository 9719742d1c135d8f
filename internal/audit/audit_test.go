package audit

import (
	"errors"
	"testing"
	"time"
)

func chain(t *testing.T, n int) []Entry {
	t.Helper()
	var out []Entry
	at := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	for i := range n {
		e := Entry{ID: int64(i + 1), At: at.Add(time.Duration(i) * time.Second), Actor: "a@example.com",
			Action: "user.add", Subject: "user:1", After: `{"email":"x@example.com"}`}
		var prev *Entry
		if i > 0 {
			prev = &out[i-1]
		}
		out = append(out, Seal(e, prev))
	}
	return out
}

func TestVerify(t *testing.T) {
	tests := []struct {
		name   string
		tamper func([]Entry) []Entry
		wantID int64 // 0: chain verifies
	}{
		{"intact", func(e []Entry) []Entry { return e }, 0},
		{"empty", func([]Entry) []Entry { return nil }, 0},
		{"changed actor", func(e []Entry) []Entry { e[2].Actor = "mallory"; return e }, 3},
		{"changed time", func(e []Entry) []Entry { e[1].At = e[1].At.Add(time.Nanosecond); return e }, 2},
		{"changed after", func(e []Entry) []Entry { e[0].After = `{}`; return e }, 1},
		{"removed entry", func(e []Entry) []Entry { return append(e[:1], e[2:]...) }, 3},
		{"resealed entry breaks the next link", func(e []Entry) []Entry {
			e[1].Subject = "user:9"
			e[1] = Seal(e[1], &e[0])
			return e
		}, 3},
		{"swapped entries", func(e []Entry) []Entry { e[1], e[2] = e[2], e[1]; return e }, 3},
		{"forged genesis", func(e []Entry) []Entry { e[0].PrevHash = "x"; return e }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(tt.tamper(chain(t, 4)))
			if tt.wantID == 0 {
				if err != nil {
					t.Fatalf("Verify = %v, want nil", err)
				}
				return
			}
			var be *BrokenError
			if !errors.As(err, &be) {
				t.Fatalf("Verify = %v, want *BrokenError", err)
			}
			if be.ID != tt.wantID {
				t.Errorf("broken entry = %d, want %d (%v)", be.ID, tt.wantID, err)
			}
		})
	}
}

func TestCanonicalSeparatesFields(t *testing.T) {
	a := Entry{ID: 1, Actor: "ab", Action: "c"}
	b := Entry{ID: 1, Actor: "a", Action: "bc"}
	if ComputeHash(a) == ComputeHash(b) {
		t.Fatal("field boundaries do not affect the hash")
	}
}
