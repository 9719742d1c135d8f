package corpus

import (
	"testing"
)

// recorder is a testing.TB that records how Missing ended it.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Fatalf(f string, args ...any) { r.fatal = f }
func (r *recorder) Skipf(f string, args ...any)  { r.skip = f }

func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		env       string
		wantFatal bool
	}{{"1", true}, {"", false}, {"0", false}} {
		t.Run("env="+tc.env, func(t *testing.T) {
			t.Setenv(RequireEnv, tc.env)
			r := &recorder{TB: t}
			Missing(r, "corpus not at %s", "/x")
			if (r.fatal != "") != tc.wantFatal || (r.skip != "") == tc.wantFatal {
				t.Errorf("fatal %q skip %q, want fatal=%v", r.fatal, r.skip, tc.wantFatal)
			}
		})
	}
}
