package risk

import (
	"fmt"
	"testing"
)

// TestSecretValueUnderAGenericName: one secret's read whose response
// returns the stored value under a generic name (payload, data, value…)
// is PRIVILEGED on every shape of secret path, while the same names as an
// envelope with members, a list of secrets, or a non-secret resource stay
// READ (the counter-rules).
func TestSecretValueUnderAGenericName(t *testing.T) {
	secretItems := []string{"/secrets/{id}", "/v1/vaults/{vault}/secrets/{name}", "/projects/{p}/secrets/{s}", "/api/tokens/{id}"}
	for _, path := range secretItems {
		for _, name := range []string{"payload", "data", "value", "content"} {
			t.Run(fmt.Sprintf("%s %s leaf", path, name), func(t *testing.T) {
				o := op("GET", path, "", "")
				o.ResponseFields = []string{"id", "created_at", name}
				if a := Classify(o); a.Class != Privileged {
					t.Errorf("%s returning %s: %s %v, want PRIVILEGED", path, name, a.Class, a.Codes())
				}
			})
			t.Run(fmt.Sprintf("%s %s envelope", path, name), func(t *testing.T) {
				if name == "value" {
					t.Skip("value is the stored value whatever it holds")
				}
				o := op("GET", path, "", "")
				o.ResponseFields = []string{name, name + ".id", name + ".created_at"}
				if a := Classify(o); a.Class != Read {
					t.Errorf("%s with %s as an envelope: %s %v, want READ", path, name, a.Class, a.Codes())
				}
			})
		}
	}
	for _, c := range []struct{ path, why string }{
		{"/secrets", "a list of secrets is metadata"},
		{"/documents/{id}", "not a secret resource"},
		{"/webhooks/{id}/messages/{msg}", "not a secret resource"},
	} {
		o := op("GET", c.path, "", "")
		o.ResponseFields = []string{"id", "payload", "data"}
		if a := Classify(o); a.Class != Read {
			t.Errorf("%s (%s): %s %v, want READ", c.path, c.why, a.Class, a.Codes())
		}
	}
}
