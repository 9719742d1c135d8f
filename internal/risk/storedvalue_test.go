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
			if name == "value" {
				continue // "value" is the stored value whatever it holds: no envelope reading
			}
			t.Run(fmt.Sprintf("%s %s envelope", path, name), func(t *testing.T) {
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

// TestSecuritySettingsAndAttachables: organisation-wide security settings
// are PRIVILEGED under every owner path and method that changes them;
// attaching a volume, a payment method or another attachable object is a
// WRITE, while attaching to a container or a pod stays a channel.
func TestSecuritySettingsAndAttachables(t *testing.T) {
	for _, owner := range []string{"/orgs/{org}", "/organizations/{id}/settings", "/accounts/{id}/security", ""} {
		for _, setting := range []string{"captcha", "recaptcha", "session-policy", "password-policy", "mfa", "lockout"} {
			for _, method := range []string{"PUT", "PATCH", "POST"} {
				path := owner + "/" + setting
				if a := Classify(op(method, path, "", "")); a.Class != Privileged {
					t.Errorf("%s %s: %s %v, want PRIVILEGED", method, path, a.Class, a.Codes())
				}
			}
		}
	}
	for _, path := range []string{"/volumes/{id}/attach", "/customers/{c}/payment_methods/{pm}/attach",
		"/v1/payment-methods/{id}/attach", "/projects/{p}/disks/{d}/attach", "/ips/{ip}/attach"} {
		if a := Classify(op("POST", path, "", "")); a.Class != Write {
			t.Errorf("POST %s: %s %v, want WRITE", path, a.Class, a.Codes())
		}
	}
	for _, path := range []string{"/containers/{id}/attach", "/api/v1/namespaces/{ns}/pods/{name}/attach", "/containers/{id}/attach/ws"} {
		if a := Classify(op("POST", path, "", "")); a.Class != Privileged {
			t.Errorf("POST %s: %s %v, want PRIVILEGED (a channel)", path, a.Class, a.Codes())
		}
	}
}
