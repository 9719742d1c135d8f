package migrations

import (
	"io/fs"
	"path"
	"testing"
)

// TestOverlaysHaveCommonTwins: a PostgreSQL overlay replaces the common
// migration of the same name; one without a twin would be silently ignored
// (ForEngine lists the common directory).
func TestOverlaysHaveCommonTwins(t *testing.T) {
	overlays, err := Overlays()
	if err != nil || len(overlays) == 0 {
		t.Fatalf("Overlays() = %v, %v; want the PostgreSQL overlays", overlays, err)
	}
	for _, o := range overlays {
		if _, err := fs.Stat(FS, path.Base(o)); err != nil {
			t.Errorf("overlay %s has no common migration of the same name: %v", o, err)
		}
	}
}

// TestForEngine: PostgreSQL gets the overlay's text in place of the common
// file, the same list of names, and SQLite gets the common files.
func TestForEngine(t *testing.T) {
	overlays, _ := Overlays()
	common, _ := fs.Glob(FS, "*.sql")
	pg, err := fs.Glob(ForEngine("postgres"), "*.sql")
	if err != nil || len(pg) != len(common) {
		t.Fatalf("postgres migrations %v (%v), want the %d common names", pg, err, len(common))
	}
	for _, o := range overlays {
		name := path.Base(o)
		want, _ := fs.ReadFile(postgresFS, o)
		got, err := fs.ReadFile(ForEngine("postgres"), name)
		if err != nil || string(got) != string(want) {
			t.Errorf("postgres %s is not the overlay (%v)", name, err)
		}
		base, _ := fs.ReadFile(FS, name)
		if got, _ := fs.ReadFile(ForEngine("sqlite"), name); string(got) != string(base) {
			t.Errorf("sqlite %s is not the common file", name)
		}
	}
}
