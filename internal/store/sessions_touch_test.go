package store

import (
	"context"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/apperr"
	"github.com/toolgate/toolgate/internal/auth"
)

// TestSessionActiveEvery20sNeverIdlesOut: with the shortest idle timeout
// the console accepts (1 m), a session used every 20 s stays signed in for
// as long as its absolute lifetime allows, and ends once it is left alone
// for longer than the idle timeout.
func TestSessionActiveEvery20sNeverIdlesOut(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	u := mustUser(t, db, "a@example.com", auth.RoleViewer)
	p := SessionPolicy{Idle: time.Minute, Absolute: time.Hour}
	tok, err := db.Login(ctx, u, "test", p)
	if err != nil {
		t.Fatal(err)
	}
	// A browser polling "every 20 s" drifts: half a second late each time.
	const every = 20*time.Second + 500*time.Millisecond
	for i := range 60 { // 20 minutes of activity
		now = now.Add(every)
		if _, _, err := db.SessionUser(ctx, tok, p); err != nil {
			t.Fatalf("request %d, %v after sign-in: %v", i+1, time.Duration(i+1)*every, err)
		}
	}
	now = now.Add(61 * time.Second)
	_, _, err = db.SessionUser(ctx, tok, p)
	wantCode(t, err, apperr.Unauthorized)
}

// TestSessionUserWritesOnlyWhenATouchIsDue: looking a session up takes no
// write lock unless last-seen is due a refresh, and a due refresh that
// finds the database busy is skipped without failing the request.
func TestSessionUserWritesOnlyWhenATouchIsDue(t *testing.T) {
	ctx := context.Background()
	db, path := mustOpenFile(t)
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	u := mustUser(t, db, "a@example.com", auth.RoleViewer)
	p := SessionPolicy{Idle: time.Hour, Absolute: 2 * time.Hour}
	tok, err := db.Login(ctx, u, "test", p)
	if err != nil {
		t.Fatal(err)
	}
	release := holdWriteLock(t, path)

	now = now.Add(touchInterval(p.Idle) / 2) // no touch due
	start := time.Now()
	if _, s, err := db.SessionUser(ctx, tok, p); err != nil || !s.LastSeenAt.Equal(now.Add(-touchInterval(p.Idle)/2)) {
		t.Fatalf("SessionUser = %+v, %v; want the stored last-seen", s, err)
	}
	if d := time.Since(start); d > BusyTimeout/2 {
		t.Fatalf("SessionUser with no touch due waited %v under a held write lock", d)
	}

	now = now.Add(touchInterval(p.Idle)) // touch due, database busy
	if _, s, err := db.SessionUser(ctx, tok, p); err != nil || s.LastSeenAt.Equal(now) {
		t.Fatalf("SessionUser under a busy database = %+v, %v; want the session, untouched", s, err)
	}

	release()
	if _, s, err := db.SessionUser(ctx, tok, p); err != nil || !s.LastSeenAt.Equal(now) {
		t.Fatalf("SessionUser once the lock is free = %+v, %v; want last-seen refreshed", s, err)
	}
	_, s, err := db.SessionUser(ctx, tok, p)
	if err != nil || !s.LastSeenAt.Equal(now) {
		t.Fatalf("stored last-seen = %+v, %v; want %v", s, err, now)
	}
}
